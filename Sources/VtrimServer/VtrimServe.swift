import Dispatch
import Foundation
import Glibc
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import VtrimKit

/// `vtrim serve`'s settings, from the command line.
public struct ServeOptions: Sendable {
    public var folders: [String]
    public var host: String
    public var port: Int
    public var outputFolder: String?
    public var token: String?
    public var json: Bool
    public var verbose: Bool

    public init(folders: [String], host: String = "127.0.0.1", port: Int = 0, outputFolder: String? = nil, token: String? = nil,
                json: Bool = false, verbose: Bool = false) {
        self.folders = folders
        self.host = host
        self.port = port
        self.outputFolder = outputFolder
        self.token = token
        self.json = json
        self.verbose = verbose
    }
}

/// `vtrim serve`: a local web app over folders of clips — see them, drag the two handles, cut — on the
/// same engine as the command line. Serves until SIGINT/SIGTERM, then stops taking requests, cancels the
/// cuts in progress (their temporary files are removed) and returns 130/143.
public enum VtrimServe {
    public static func run(_ options: ServeOptions) -> Int32 {
        ServeSupport.start(verbose: options.verbose)
        let server = Server(options: options)
        let status = Mutex<Int32>(1)
        let done = DispatchSemaphore(value: 0)
        Task {
            let code = await server.run()
            status.withLock { $0 = code }
            done.signal()
        }
        done.wait()
        return status.withLock { $0 }
    }
}

/// The running server: the clips, the engine's thread pools, the cut queue, the previews.
final class Server: Sendable {
    let options: ServeOptions
    let security: Security
    let library: Library
    /// Short engine work a page waits for (probes, filmstrip tiles, frame lists).
    let interactive: EnginePool
    let cuts: CutQueue
    let previews: Previews
    let cache: String
    /// The signal that stopped the server (0 while running).
    let stoppedBy = Atomic<Int32>(0)

    init(options: ServeOptions) {
        self.options = options
        security = Security(token: options.token ?? Security.newToken(), host: options.host)
        library = Library(folders: options.folders)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        interactive = EnginePool(name: "vtrim-engine", threads: max(2, cores))
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.cache")
        cache = base + "/vtrim/serve"
        try? FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        cuts = CutQueue(library: library, outputFolder: options.outputFolder, running: 2, cores: cores)
        previews = Previews(folder: cache + "/previews", cores: cores)
    }

    func run() async -> Int32 {
        let router = Router()
        router.add(middleware: SecurityMiddleware(security: security))
        Routes(server: self).register(on: router)
        var logger = Logger(label: "vtrim-serve")
        logger.logLevel = options.verbose ? .info : .critical
        let security = self.security, options = self.options
        let printed = Atomic<Bool>(false)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "vtrim"),
            onServerRunning: { channel in
                guard let port = channel.localAddress?.port, !printed.exchange(true, ordering: .acquiringAndReleasing) else { return }
                security.bound(port: port)
                Self.announce(host: options.host, port: port, token: security.token, json: options.json)
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let signals = watchSignals(group)
        do {
            try await group.run()
        } catch {
            FileHandle.standardError.write(Data("vtrim: error: serve: \(Self.describe(error, options: options))\n".utf8))
            signals.forEach { $0.cancel() }
            return 1
        }
        signals.forEach { $0.cancel() }
        cuts.cancelAll()
        previews.cancelAll()
        cuts.waitUntilIdle()
        previews.waitUntilIdle()
        interactive.stop()
        let signal = stoppedBy.load(ordering: .acquiring)
        return signal == SIGTERM ? 143 : signal == SIGINT ? 130 : 0
    }

    /// SIGINT/SIGTERM, owned here in serve mode (the command line's 5 s exit watchdog is not installed): the
    /// first stops taking requests and shuts down gracefully; a second one ends the process at once,
    /// after removing the temporary files of cuts in progress.
    private func watchSignals(_ group: ServiceGroup) -> [DispatchSourceSignal] {
        let queue = DispatchQueue(label: "vtrim-serve-signals")
        return [SIGINT, SIGTERM].map { number in
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                if stoppedBy.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged {
                    cuts.cancelAll()
                    previews.cancelAll()
                    Task { await group.triggerGracefulShutdown() }
                } else {
                    TemporaryFiles.shared.removeAll()
                    _exit(number == SIGTERM ? 143 : 130)
                }
            }
            source.resume()
            return source
        }
    }

    /// The first stdout line: the address to open (with the token), or `{"url","port","token"}` with --json.
    private static func announce(host: String, port: Int, token: String, json: Bool) {
        let shown = host.contains(":") ? "[\(host)]" : (host == "0.0.0.0" ? "127.0.0.1" : host)
        let url = "http://\(shown):\(port)/?token=\(token)"
        let line = json
            ? JSON.object([("url", .string(url)), ("port", .int(Int64(port))), ("token", .string(token))]).serialized
            : "vtrim serve: open \(url)"
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        if !["127.0.0.1", "localhost", "::1"].contains(host) {
            FileHandle.standardError.write(Data("vtrim: warning: serving on \(host), reachable from other machines; the access token is still required\n".utf8))
        }
    }

    private static func describe(_ error: any Error, options: ServeOptions) -> String {
        let text = "\(error)"
        if text.contains("Address already in use") { return "port \(options.port) on \(options.host) is in use" }
        return text
    }
}
