import CAV

/// An FFmpeg return code with the call that produced it.
struct AVFailure: Error {
    let code: Int32
    let operation: String
    /// What vtrim found wrong before FFmpeg would have said only its error code.
    var detail: String? = nil

    /// av_strerror's text, or vtrim's own account of the failure.
    var text: String { detail ?? FFmpegText.error(code) }
}

enum FFmpegText {
    static func error(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let text = buffer.withUnsafeMutableBufferPointer { pointer -> String in
            guard let base = pointer.baseAddress else { return "error \(code)" }
            return String(cString: cav_strerror(code, base, pointer.count))
        }
        return text
    }

    /// FFmpeg's last error-level log line on this thread, stripped of its "[mov,mp4 @ 0x…]" prefix.
    static func lastLoggedError() -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        let line = buffer.withUnsafeMutableBufferPointer { pointer -> String in
            guard let base = pointer.baseAddress else { return "" }
            cav_log_last_error(base, pointer.count)
            return String(cString: base)
        }
        var text = Substring(line)
        while text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            text = text[text.index(after: close)...].drop(while: { $0 == " " })
        }
        let trimmed = text.drop(while: { $0 == " " })
        return trimmed.isEmpty ? nil : String(trimmed)
    }

    static func clearLoggedError() { cav_log_clear_last_error() }

    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }
}

/// FFmpeg's global logging; call once before any work starts.
public enum FFmpegLog {
    public enum Level: Sendable {
        case quiet, warning, info, debug
    }

    public static func configure(_ level: Level) {
        let value: Int32
        switch level {
        case .quiet: value = AV_LOG_QUIET
        case .warning: value = AV_LOG_WARNING
        case .info: value = AV_LOG_INFO
        case .debug: value = AV_LOG_DEBUG
        }
        cav_log_configure(value)
    }
}
