import Dispatch
import Glibc
import Synchronization

/// SIGINT/SIGTERM: the batch starts no new job, running jobs stop at their next checkpoint and remove
/// their temporary files, the summary is printed, and vtrim exits 130/143. If jobs do not stop within a
/// few seconds, the temporary files are removed and vtrim exits anyway.
public enum Interrupt {
    private static let signalNumber = Atomic<Int32>(0)

    /// The signal received, or nil.
    public static var signal: Int32? {
        let value = signalNumber.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    public static var requested: Bool { signal != nil }

    /// The exit status for the signal received (130 for SIGINT, 143 for SIGTERM).
    public static var exitStatus: Int32 { signal == SIGTERM ? 143 : 130 }

    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static func install() {
        guard sources.isEmpty else { return }
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if signalNumber.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged {
                    DispatchQueue.global().asyncAfter(deadline: .now() + 5) { forceExit() }
                } else {
                    forceExit()
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The last resort: nothing half-written stays behind, then exit.
    private static func forceExit() {
        TemporaryFiles.shared.removeAll()
        _ = "vtrim: interrupted\n".withCString { write(2, $0, strlen($0)) }
        _exit(exitStatus)
    }
}
