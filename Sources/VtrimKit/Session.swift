import Glibc
import MediaEngine

/// Process-wide set-up, once, before any job starts.
public enum Session {
    public static func start(verbose: Bool) {
        FFmpegLog.configure(verbose ? .info : .quiet)
        // SVT-AV1 (the AV1 encoder of exact cuts) prints its banner to stderr itself, not through FFmpeg's
        // log: keep it to errors unless --verbose (or the user chose a level).
        if !verbose { setenv("SVT_LOG", "1", 0) }
        // A write past `ulimit -f` must fail with EFBIG (reported, temporary file removed), not kill vtrim.
        signal(SIGXFSZ, SIG_IGN)
        Interrupt.install()
    }
}
