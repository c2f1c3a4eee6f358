import Locking

/// Inputs that are not where their name says: a URL's segments fetched into a local file (a spool). The name —
/// the redacted URL every report prints — stays the input's path through the whole pipeline; only the places that
/// open bytes ask `diskPath`. A window also says where the spool's media lies on the URL's timeline: its origin
/// (the first timestamp of the stream's first segment, µs of container time) and the whole stream's duration, so
/// every time vtrim reads or plans is the URL's time, not the spool's.
public enum InputSources {
    public struct Window: Sendable, Equatable {
        public var diskPath: String
        /// The URL's timeline origin in the spool's container time (µs): what `originMicro` is for an ordinary file.
        public var originMicro: Int64
        /// The whole stream's duration (µs), as its manifest says: what probe reports and ranges resolve against.
        public var durationMicro: Int64
        /// The format name reported, e.g. "hls (mpegts)".
        public var formatName: String

        public init(diskPath: String, originMicro: Int64, durationMicro: Int64, formatName: String) {
            self.diskPath = diskPath
            self.originMicro = originMicro
            self.durationMicro = durationMicro
            self.formatName = formatName
        }
    }

    private static let windows = Locked<[String: Window]>([:])
    private static let claims = Locked<Set<String>>([])

    /// Takes `name` for one job of this process until `release`; false when another job holds it (two URLs that differ
    /// only in their query share a redacted name, and a registered name must mean one input).
    public static func claim(_ name: String) -> Bool { claims.withLock { $0.insert(name).inserted } }
    public static func release(_ name: String) { _ = claims.withLock { $0.remove(name) } }

    /// Inputs named `name` are read from `window.diskPath` until `unregister(name)`.
    public static func register(_ name: String, _ window: Window) { windows.withLock { $0[name] = window } }
    public static func unregister(_ name: String) { _ = windows.withLock { $0.removeValue(forKey: name) } }
    public static func window(for name: String) -> Window? { windows.withLock { $0[name] } }

    /// The file holding the bytes of input `name` (itself, unless it is registered).
    static func diskPath(_ name: String) -> String { window(for: name)?.diskPath ?? name }
}
