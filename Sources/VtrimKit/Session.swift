import Dispatch
import Glibc
import MediaEngine

/// Process-wide set-up, once, before any job starts.
public enum Session {
    nonisolated(unsafe) private static var signalSources: [DispatchSourceSignal] = []

    public static func start(verbose: Bool) {
        FFmpegLog.configure(verbose ? .info : .quiet)
        // A write past `ulimit -f` must fail with EFBIG (reported, temporary file removed), not kill vtrim.
        signal(SIGXFSZ, SIG_IGN)
        // SIGINT/SIGTERM: remove temporary outputs, then exit 130/143 (no partial file is left behind).
        for (number, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                TemporaryFiles.shared.removeAll()
                FileHandleOutput.standardError("vtrim: interrupted\n")
                _exit(status)
            }
            source.resume()
            signalSources.append(source)
        }
    }
}

enum FileHandleOutput {
    static func standardError(_ text: String) {
        _ = text.withCString { write(2, $0, strlen($0)) }
    }
}
