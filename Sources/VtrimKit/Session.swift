import Glibc
import MediaEngine

/// Process-wide set-up, once, before any job starts.
public enum Session {
    public static func start(verbose: Bool) {
        FFmpegLog.configure(verbose ? .info : .quiet)
        // A write past `ulimit -f` must fail with EFBIG (reported, temporary file removed), not kill vtrim.
        signal(SIGXFSZ, SIG_IGN)
        Interrupt.install()
    }
}
