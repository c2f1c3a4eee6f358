import Dispatch
import Glibc
import MediaEngine
import RemoteInput
import Synchronization

/// SIGINT/SIGTERM: the batch starts no new job, running jobs stop at their next checkpoint and remove
/// their temporary files, inputs never started are reported as skipped ("interrupted"), the summary is
/// printed, and vtrim exits 130/143 — within a second: every long loop checks `requested`. If jobs do
/// not stop within `graceSeconds`, the temporary files are removed and vtrim exits anyway.
public enum Interrupt {
    private static let signalNumber = Atomic<Int32>(0)

    /// The signal received, or nil.
    public static var signal: Int32? {
        let value = signalNumber.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }

    public static var requested: Bool { signal != nil }

    /// The `reason` of an input an interrupt kept from starting.
    public static let skipReason = "interrupted"

    /// The exit status for the signal received (130 for SIGINT, 143 for SIGTERM).
    public static var exitStatus: Int32 { signal == SIGTERM ? 143 : 130 }

    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Its own serial queue: libdispatch gives such a queue a thread even when the global pool is busy
    /// with batch jobs and frame samplers (on `.global()` the handler waited for a job to finish).
    private static let queue = DispatchQueue(label: "vtrim.signals", qos: .userInteractive)

    /// How long running jobs get to stop at their checkpoints before the watchdog exits anyway.
    static let graceSeconds = 3.0

    static func install(signals: [Int32] = [SIGINT, SIGTERM]) {
        guard sources.isEmpty else { return }
        for number in signals {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if signalNumber.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged {
                    // Loops in C (a large sheet's PNG rows) check a flag of their own.
                    PNGFile.stopWriting()
                    // Transfers in libcurl stop at their next progress callback.
                    HTTPFetcher.stopAll()
                    queue.asyncAfter(deadline: .now() + graceSeconds) { forceExit() }
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
