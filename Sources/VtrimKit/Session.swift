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

/// `vtrim --version`: vtrim's own version and the libraries it runs on.
public enum VersionText {
    public static let vtrim = "0.2.0"
    public static var full: String { "vtrim \(vtrim) (FFmpeg: \(LibraryVersions.text))" }
}
