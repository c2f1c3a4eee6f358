import Dispatch
import Foundation
import Glibc
import Hummingbird
import Logging
import ServiceLifecycle
import Locking
import Synchronization
import WorkerProtocol

/// `vtrim serve`'s settings, from the command line.
public struct ServeOptions: Sendable {
    public var folders: [String]
    public var host: String
    public var port: Int
    public var outputFolder: String?
    public var token: String?
    public var json: Bool
    public var verbose: Bool
    /// Bytes of tiles and previews kept on disk (least recently used go first).
    public var cacheSizeBytes: Int64
    /// Worker processes for cuts and previews (nil: the default, `defaultCutWorkers`).
    public var cutWorkers: Int?
    /// Seconds an interactive engine request (probe, tile, frame list, plan) may take.
    public var workerTimeoutSeconds: Double
    /// The binary whose `_worker` runs the engine (nil: this process's own). Embedders such as tests,
    /// whose process is not vtrim, name it.
    public var workerExecutable: String?
    /// Where tiles and previews are cached (nil: `$XDG_CACHE_HOME/vtrim/serve`).
    public var cacheFolder: String?
    /// Where the library's state (its index of walked and probed files) is kept (nil: `$XDG_STATE_HOME/vtrim`, else
    /// `~/.local/state/vtrim`): never in the cache, whose files are evicted.
    public var stateFolder: String?
    /// Seconds a file being written must go unwritten (its size held) before it is listed and probed; a file closed
    /// after writing or moved in is listed at once (`--settle`).
    public var settleSeconds: Double = 3
    /// Whether the server owns SIGINT/SIGTERM and prints its address (the command line); an embedder stops
    /// it with `Server.stop()`.
    public var standalone = true

    public init(folders: [String], host: String = "127.0.0.1", port: Int = 0, outputFolder: String? = nil, token: String? = nil,
                json: Bool = false, verbose: Bool = false, cacheSizeBytes: Int64 = 1 << 30,
                cutWorkers: Int? = nil, workerTimeoutSeconds: Double = 30) {
        self.cacheSizeBytes = cacheSizeBytes
        self.cutWorkers = cutWorkers
        self.workerTimeoutSeconds = workerTimeoutSeconds
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
        // No SIGXFSZ or SIGPIPE deaths: a full disk or a closed connection is an error to answer, not an end.
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let server = Server(options: options)
        let status = Locked<Int32>(1)
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

/// The running server: the clips, the engine's worker processes, the cut queue, the previews, the cache.
final class Server: Sendable {
    let options: ServeOptions
    let security: Security
    let library: Library
    let quarantine = Quarantine()
    /// Engine work a page waits for (probes, filmstrip tiles, frame lists, cut plans): one worker at least,
    /// always there for them whatever the cuts do.
    let interactive: WorkerPool
    /// Cuts and previews: at most cores − 1 workers.
    let long: WorkerPool
    /// The library's probes in the background (durations and codecs for the list): one worker of its own, so a file
    /// that hangs the engine there never holds up a page.
    let background: WorkerPool
    let cuts: CutQueue
    let previews: Previews
    let cache: DiskCache
    /// What outlives the run: the walk, probes, cuts (nil only when SQLite cannot open even a database in memory).
    let state: StateDatabase?
    /// The signal that stopped the server (0 while running).
    let stoppedBy = Atomic<Int32>(0)
    private let running = Locked<ServiceGroup?>(nil)

    /// `$XDG_STATE_HOME/vtrim`, else `~/.local/state/vtrim` (the XDG base directory specification's state home).
    static func defaultStateFolder(_ environment: [String: String]) -> String {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? (NSHomeDirectory() + "/.local/state")
        return base + "/vtrim"
    }

    /// The state folder, made if need be; nil (said once, on stderr) where it cannot be written — a read-only home, a
    /// container run read-only: the state database is then one in memory, for this run only.
    static func usableStateFolder(_ folder: String) -> String? {
        // Made part by part with mkdir(2), so that a refusal names its reason (Foundation's error says only "error 512").
        var made = folder.hasPrefix("/") ? "" : "."
        var problem: String?
        for part in folder.split(separator: "/") {
            made += "/" + part
            if mkdir(made, 0o755) != 0, errno != EEXIST {
                problem = "cannot make \(made): \(String(cString: strerror(errno)))"
                break
            }
        }
        if problem == nil, access(folder, W_OK | X_OK) != 0 { problem = "cannot write there: \(String(cString: strerror(errno)))" }
        guard let problem else { return folder }
        FileHandle.standardError.write(Data("vtrim serve: cannot keep the library's state in \(folder) (\(problem)); what is learned is kept in memory for this run only\n".utf8))
        return nil
    }

    /// Cut workers when `--cut-workers` is not given: two where the cores allow, one on two cores.
    static func defaultCutWorkers(cores: Int) -> Int { max(1, min(2, cores - 1)) }

    init(options: ServeOptions) {
        self.options = options
        security = Security(token: options.token ?? Security.newToken(), host: options.host)
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() + "/.cache")
        let cacheFolder = options.cacheFolder ?? base + "/vtrim/serve"
        let stateFolder = options.stateFolder ?? Self.defaultStateFolder(environment)
        let usableState = Self.usableStateFolder(stateFolder)
        let state = StateDatabase.open(folder: usableState) { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
        self.state = state
        let library = Library(folders: options.folders, state: state, settleSeconds: options.settleSeconds)
        self.library = library
        // The tab-separated index earlier versions kept (in the cache, then the state folder): replaced by the database.
        for folder in [cacheFolder, usableState].compactMap({ $0 }) {
            unlink((folder as NSString).appendingPathComponent("library-\(library.key).tsv"))
        }
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let cutWorkers = options.cutWorkers ?? Self.defaultCutWorkers(cores: cores)
        let executable = options.workerExecutable ?? WorkerProcess.ownExecutable
        interactive = WorkerPool(name: "vtrim-interactive", size: max(1, min(4, cores - cutWorkers)),
                                 deadline: .total(seconds: options.workerTimeoutSeconds), executable: executable, verbose: options.verbose)
        long = WorkerPool(name: "vtrim-cuts", size: cutWorkers, deadline: .progress(seconds: 60), executable: executable,
                          verbose: options.verbose)
        background = WorkerPool(name: "vtrim-probes", size: 1, deadline: .total(seconds: options.workerTimeoutSeconds),
                                executable: executable, verbose: options.verbose)
        cache = DiskCache(folder: cacheFolder, limitBytes: options.cacheSizeBytes)
        // Each cut worker's share of the cores (an encoder's threads, its decoder half of them).
        let share = ThreadShare(cores: cores, jobs: cutWorkers)
        cuts = CutQueue(outputFolder: options.outputFolder, interactive: interactive, pool: long, quarantine: quarantine, threads: share,
                        history: state.map { CutQueue.History(database: $0, library: library.key) })
        previews = Previews(cache: cache, pool: long, threads: share)
        if let problem = library.start() {
            FileHandle.standardError.write(Data("vtrim: warning: serve: \(problem)\n".utf8))
        }
    }

    func run() async -> Int32 {
        let router = Router(context: ServeContext.self)
        router.add(middleware: SecurityMiddleware(security: security))
        APIRoutes.register(self, on: router)
        var logger = Logger(label: "vtrim-serve")
        logger.logLevel = options.verbose ? .info : .critical
        let security = self.security, options = self.options
        let printed = Atomic<Bool>(false)
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [ClientPresenceHandler()])),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "vtrim"),
            onServerRunning: { channel in
                guard let port = channel.localAddress?.port, !printed.exchange(true, ordering: .acquiringAndReleasing) else { return }
                security.bound(port: port)
                if options.standalone { Self.announce(host: options.host, port: port, token: security.token, json: options.json) }
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        running.withLock { $0 = group }
        let signals = options.standalone ? watchSignals(group) : []
        let prober = Task { await BackgroundProber.run(self) }
        let heartbeat = state.map { database in Task { await ServerHeartbeat.run(database) } }
        do {
            try await group.run()
            prober.cancel()
            heartbeat?.cancel()
        } catch {
            prober.cancel()
            heartbeat?.cancel()
            FileHandle.standardError.write(Data("vtrim: error: serve: \(Self.describe(error, options: options))\n".utf8))
            signals.forEach { $0.cancel() }
            return 1
        }
        signals.forEach { $0.cancel() }
        stopEngine()
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
                    interactive.shutdown()
                    long.shutdown()
                    background.shutdown()
                    Task { await group.triggerGracefulShutdown() }
                } else {
                    _exit(number == SIGTERM ? 143 : 130)
                }
            }
            source.resume()
            return source
        }
    }

    /// Stops a running server as SIGINT would (for embedders: `standalone` false).
    func stop() async {
        guard let group = running.withLock({ $0 }) else { return }
        await group.triggerGracefulShutdown()
    }

    /// Stops the workers: queued work is withdrawn, running work is stopped (workers remove their temporary
    /// files; a worker that does not end within two seconds is killed and its files removed for it).
    private func stopEngine() {
        library.stop()
        interactive.shutdown()
        long.shutdown()
        background.shutdown()
        interactive.waitUntilIdle()
        long.waitUntilIdle()
        background.waitUntilIdle()
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
