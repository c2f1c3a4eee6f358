// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "vtrim",
    products: [
        .executable(name: "vtrim", targets: ["vtrim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // FFmpeg + libpng headers and the C shims Swift cannot import (macros, setjmp, va_list logging).
        .target(
            name: "CAV",
            linkerSettings: [
                .linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("avutil"),
                .linkedLibrary("swscale"), .linkedLibrary("png16"),
            ]
        ),
        // Pure timeline math; imports nothing.
        .target(name: "TimelineCore"),
        // One file per media operation; the only Swift module that imports CAV.
        .target(name: "MediaEngine", dependencies: ["CAV"]),
        // Jobs, inputs, outputs, reports.
        .target(name: "VtrimKit", dependencies: ["MediaEngine", "TimelineCore"]),
        .executableTarget(
            name: "vtrim",
            dependencies: [
                "VtrimKit", "TimelineCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "TimelineCoreTests",
            dependencies: ["TimelineCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(name: "MediaEngineTests", dependencies: ["MediaEngine", "TestSupport"]),
        .testTarget(name: "VtrimKitTests", dependencies: ["VtrimKit", "TestSupport"]),
        .testTarget(name: "VtrimCLITests", dependencies: ["TestSupport", "vtrim"]),
        // Paths to fixtures and shared media, running the built binary, reading PNGs back.
        .target(name: "TestSupport", dependencies: ["MediaEngine"], path: "Tests/TestSupport"),
    ],
    swiftLanguageModes: [.v6]
)
