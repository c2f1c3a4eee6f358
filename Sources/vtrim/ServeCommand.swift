#if Serve
import ArgumentParser
import DiskNames
import Foundation
import VtrimServer
import WorkerProtocol

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a local web page over folders of clips: see them, drag the two handles, cut.",
        discussion: """
        Binds 127.0.0.1 on a free port unless told otherwise and prints the address to open (it carries an \
        access token every request needs). Serves until SIGINT/SIGTERM; cuts in progress are then cancelled \
        and leave nothing behind. Exit status: 130/143 after a signal, 1 if the server cannot start.
        """
    )

    @Argument(help: "Folders whose clips to serve, or single clips.")
    var folders: [String] = ["."]

    @Option(help: "Port to listen on (0: a free one).")
    var port: Int = 0

    @Option(help: "Address to bind; anything but loopback is reachable from other machines.")
    var host = "127.0.0.1"

    @Option(name: .customLong("output-dir"), help: "Folder for the cuts (default: beside each input).")
    var outputDir: String?

    @Option(help: "Access token (default: a random one).")
    var token: String?

    @Flag(help: "Print the address as JSON: {\"url\", \"port\", \"token\"}.")
    var json = false

    @Flag(help: "Show FFmpeg's and the server's own log on stderr.")
    var verbose = false

    @Option(name: .customLong("cache-size"), help: ArgumentHelp("Disk space for filmstrip tiles and previews (bytes, or with K, M, G); least recently used go first.", valueName: "size"))
    var cacheSize = "1G"

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Where the library's state is kept (default: $XDG_STATE_HOME/vtrim, else ~/.local/state/vtrim); never in the cache.", valueName: "folder"))
    var stateDir: String?

    @Option(help: ArgumentHelp("Seconds a file being written into a served folder must go unwritten before it is listed and probed (a file closed or moved in is listed at once; 0: at every write).", valueName: "seconds"))
    var settle: Double = 3

    @Option(name: .customLong("cut-workers"), help: ArgumentHelp("Engine processes for cuts and previews (default: 2, 1 on two cores; at most cores - 1).", valueName: "n"))
    var cutWorkers: Int?

    @Option(name: .customLong("worker-timeout"), help: ArgumentHelp("Seconds a probe, tile, frame list or cut plan may take before its engine process is stopped.", valueName: "seconds"))
    var workerTimeout: Double = 30

    func validate() throws {
        for folder in folders where !DiskFile.exists(folder) {
            throw ValidationError("\(DiskName.display(folder)) does not exist")
        }
        // SQLite and the server's own files take their paths as text: its state folder is named in UTF-8.
        if let stateDir, DiskName.hasEscapes(stateDir) {
            throw ValidationError("--state-dir \(DiskName.display(stateDir)) is not UTF-8; give the state folder a UTF-8 name")
        }
        if !(0...65535).contains(port) { throw ValidationError("--port must be 0–65535") }
        if ByteSize.parse(cacheSize) == nil { throw ValidationError("--cache-size takes bytes or a size such as 512M or 2G") }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        if let cutWorkers, !(1...max(1, cores - 1)).contains(cutWorkers) {
            throw ValidationError("--cut-workers must be 1–\(max(1, cores - 1)) here (one core stays for the page's own requests)")
        }
        if !(workerTimeout.isFinite && workerTimeout >= 1) { throw ValidationError("--worker-timeout must be at least 1 second") }
        if !(settle.isFinite && (0...3600).contains(settle)) { throw ValidationError("--settle must be 0–3600 seconds") }
        if let token, token.count < 8 || !token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
            throw ValidationError("--token must be at least 8 letters, digits, '-' or '_'")
        }
        if let outputDir {
            if !DiskFile.exists(outputDir) {
                guard DiskFile.makeFolders(outputDir) else {
                    throw ValidationError("cannot create --output-dir \(DiskName.display(outputDir)) (\(String(cString: strerror(errno))))")
                }
            } else if !DiskFile.isDirectory(outputDir) {
                throw ValidationError("--output-dir \(DiskName.display(outputDir)) is not a folder")
            }
        }
    }

    func run() throws {
        var options = ServeOptions(folders: folders, host: host, port: port, outputFolder: outputDir, token: token,
                                   json: json, verbose: verbose, cacheSizeBytes: ByteSize.parse(cacheSize) ?? 0,
                                   cutWorkers: cutWorkers, workerTimeoutSeconds: workerTimeout)
        options.stateFolder = stateDir
        options.settleSeconds = settle
        let status = VtrimServe.run(options)
        if status != 0 { throw ExitCode(status) }
    }
}
#endif
