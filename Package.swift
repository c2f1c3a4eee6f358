// swift-tools-version:6.2
import PackageDescription

// The tests' own code is compiled unoptimised even in the release build the tests run against (scripts/build-flags):
// what they test is the optimised product modules, and optimising the test modules whole took 355 of the build's
// 814 s (2 cores, measured). Without whole-module optimisation the driver starts one frontend per file, each loading
// Foundation and Testing again; batch mode gives each core one frontend for many files: the test modules' rebuild went
// from 224 to 168 core-seconds (124 to 93 s; whole-module at -Onone: 161 core-seconds but 122 s, on one core).
let testCode: [SwiftSetting] = [.unsafeFlags(["-Onone", "-no-whole-module-optimization", "-enable-batch-mode"], .when(configuration: .release))]

let package = Package(
    name: "vtrim",
    products: [
        .executable(name: "vtrim", targets: ["vtrim"]),
    ],
    traits: [
        // `vtrim serve` and its Hummingbird server: on by default; the sanitizer and valgrind builds leave it
        // out (`--disable-default-traits`), which keeps them to vtrim's own code and minutes shorter.
        .trait(name: "Serve", description: "vtrim serve: the local web app (Hummingbird)"),
        .default(enabledTraits: ["Serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // Without its default traits (swift-configuration support, full Foundation): not needed here.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Hummingbird's own; named for the channel handler that notes a client's leaving (ClientPresence).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
    ],
    targets: [
        // FFmpeg + libpng headers and the C shims Swift cannot import (macros, setjmp, va_list logging);
        // libavfilter (HDR tone mapping) is loaded on first use, not linked (see CAV.h).
        .target(
            name: "CAV",
            linkerSettings: [
                .linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("avutil"),
                .linkedLibrary("swscale"), .linkedLibrary("swresample"), .linkedLibrary("png16"),
            ]
        ),
        // FreeType and fontconfig: text on thumbnails (timestamps, contact sheet headers).
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev", "libfontconfig-dev"])]),
        // Debian's SQLite (libsqlite3): what `vtrim serve` knows across restarts (VtrimServer/State).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Pure timeline math; imports nothing.
        .target(name: "TimelineCore"),
        // A lock ThreadSanitizer can see (pthread), for state threads share.
        .target(name: "Locking"),
        // Names on disk as bytes: paths that are not UTF-8 carried in a String, and the system calls on them.
        .target(name: "DiskNames"),
        // Folders by stage (FFmpeg, Probe, Frames, Survey, Plan, Write, Container, Verify, Propose, Preview); the only
        // Swift module that imports CAV.
        .target(name: "MediaEngine", dependencies: ["CAV", "CFreeType", "Locking", "DiskNames"]),
        // renameat2(2) for LibraryFiles (Swift's Glibc does not declare it).
        .target(name: "CFileSystem"),
        // prctl for `vtrim _worker`: it dies with the server that spawned it.
        .target(name: "CProcess"),
        // Files, not media: walking inputs, file versions, output names, the one way a file or folder is written.
        .target(name: "LibraryFiles", dependencies: ["CFileSystem", "DiskNames"]),
        // What `vtrim serve` and its engine workers say to each other, and the values it carries (JSON); no engine.
        .target(name: "WorkerProtocol", dependencies: ["LibraryFiles", "TimelineCore"]),
        // libcurl, for URL inputs (its options are set through C: curl_easy_setopt is variadic).
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        // URL inputs without the engine: URLs and their redaction, HTTP through libcurl (bounded, retried, its own
        // redirect rules), HLS playlists, which segments a range needs, the spool they are fetched into.
        .target(name: "RemoteInput", dependencies: ["CCurl", "Locking"]),
        // Jobs, reports, the engine's side of the worker protocol.
        .target(name: "VtrimKit", dependencies: ["MediaEngine", "TimelineCore", "LibraryFiles", "WorkerProtocol", "Locking", "CProcess", "DiskNames",
                                                 "RemoteInput"]),
        // `vtrim serve`: routes, security, the page. It cannot link the engine: everything that reads media
        // goes to the worker processes through WorkerProtocol.
        .target(
            name: "VtrimServer",
            dependencies: [
                "WorkerProtocol", "LibraryFiles", "TimelineCore", "Locking", "CSQLite", "DiskNames",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            // The page, as files (see Page/PageAssets.swift).
            resources: [
                .embedInCode("Page/index.html"), .embedInCode("Page/app.css"),
                .embedInCode("Page/js/api.js"),
                .embedInCode("Page/js/banner.js"),
                .embedInCode("Page/js/controls.js"),
                .embedInCode("Page/js/cutlist.js"),
                .embedInCode("Page/js/cuts.js"),
                .embedInCode("Page/js/dom.js"),
                .embedInCode("Page/js/format.js"),
                .embedInCode("Page/js/library.js"),
                .embedInCode("Page/js/lists.js"),
                .embedInCode("Page/js/main.js"),
                .embedInCode("Page/js/plan.js"),
                .embedInCode("Page/js/playback.js"),
                .embedInCode("Page/js/player.js"),
                .embedInCode("Page/js/ranges.js"),
                .embedInCode("Page/js/state.js"),
                .embedInCode("Page/js/timeline.js"),
                .embedInCode("Page/js/trimmer.js"),
            ]
        ),
        .executableTarget(
            name: "vtrim",
            dependencies: [
                "VtrimKit", "TimelineCore", "LibraryFiles", "WorkerProtocol", "DiskNames",
                .target(name: "VtrimServer", condition: .when(traits: ["Serve"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "TimelineCoreTests",
            dependencies: ["TimelineCore", "PropertySupport", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: testCode
        ),
        .testTarget(name: "MediaEngineTests", dependencies: ["MediaEngine", "CAV", "TestSupport", "PropertySupport", .product(name: "PropertyBased", package: "swift-property-based")],
                    swiftSettings: testCode),
        .testTarget(name: "RemoteInputTests", dependencies: ["RemoteInput", "Locking", "PropertySupport", .product(name: "PropertyBased", package: "swift-property-based")],
                    swiftSettings: testCode),
        .testTarget(name: "VtrimKitTests", dependencies: ["VtrimKit", "TimelineCore", "LibraryFiles", "WorkerProtocol", "DiskNames", "TestSupport", "PropertySupport",
                                                   .product(name: "PropertyBased", package: "swift-property-based")],
                    swiftSettings: testCode),
        .testTarget(name: "VtrimCLITests", dependencies: ["TestSupport", "MediaEngine", "TimelineCore", "DiskNames", "vtrim"], swiftSettings: testCode),
        // vtrim serve's server in the test process: middleware, Range parsing, route errors (plain sockets).
        .testTarget(name: "VtrimServerTests", dependencies: ["VtrimServer", "WorkerProtocol", "Locking", "LibraryFiles", "DiskNames", "TestSupport", "PropertySupport",
                                                     .product(name: "PropertyBased", package: "swift-property-based")],
                    swiftSettings: testCode),
        // Paths to fixtures and shared media, running the built binary, reading PNGs back.
        .target(name: "TestSupport", dependencies: ["MediaEngine"], path: "Tests/TestSupport", swiftSettings: testCode),
        // Generators of the values files, lists and requests hold, for the property tests.
        .target(name: "PropertySupport", dependencies: [.product(name: "PropertyBased", package: "swift-property-based")],
                path: "Tests/PropertySupport", swiftSettings: testCode),
    ],
    swiftLanguageModes: [.v6]
)
