/// When to try a request again: after a server's 5xx, 408 or 429 and after the network failed (refused or reset
/// connections, stalls, bodies shorter than announced); never after another 4xx, a TLS failure or a refused URL.
/// Waits 0.25 s · 2ⁿ (n from 0), or the server's Retry-After up to 10 s.
public enum RetrySchedule {
    public enum Failure: Sendable, Equatable {
        case status(Int)
        /// libcurl's error code (CURLcode).
        case transport(Int)
    }

    /// libcurl's codes for a network that failed mid-way: couldn't connect (7), partial file (18), timeout (28),
    /// send/receive errors (55, 56), got nothing (52), HTTP/2 stream errors (92).
    static let retriedTransport: Set<Int> = [7, 18, 28, 52, 55, 56, 92]

    public static func retries(_ failure: Failure) -> Bool {
        switch failure {
        case let .status(status): return status >= 500 || status == 408 || status == 429
        case let .transport(code): return retriedTransport.contains(code)
        }
    }

    /// Seconds to wait before try `attempt` (1 is the first retry).
    public static func delaySeconds(attempt: Int, retryAfter: String?) -> Double {
        if let retryAfter, let seconds = Double(retryAfter), seconds.isFinite, seconds >= 0 { return min(seconds, 10) }
        return 0.25 * Double(1 << min(max(attempt - 1, 0), 6))
    }
}
