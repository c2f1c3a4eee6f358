import Foundation

/// The frame rates SMPTE timecode counts in, and so the only ones an EDL can be written at (editors, and
/// OpenTimelineIO's CMX3600 reader, refuse any other). 29.97 and 59.94 count drop-frame or not.
public enum SMPTERate: String, CaseIterable, Sendable, Equatable {
    case fps23_976 = "23.976", fps24 = "24", fps25 = "25", fps29_97 = "29.97", fps29_97DropFrame = "29.97df", fps30 = "30"
    case fps48 = "48", fps50 = "50", fps59_94 = "59.94", fps59_94DropFrame = "59.94df", fps60 = "60"

    /// The frames counted in a timecode second (its `FF` runs 0 ..< nominal).
    public var nominal: Int {
        switch self {
        case .fps23_976, .fps24: 24
        case .fps25: 25
        case .fps29_97, .fps29_97DropFrame, .fps30: 30
        case .fps48: 48
        case .fps50: 50
        case .fps59_94, .fps59_94DropFrame, .fps60: 60
        }
    }

    /// Frames a real second holds.
    public var framesPerSecond: Double {
        switch self {
        case .fps23_976, .fps29_97, .fps29_97DropFrame, .fps59_94, .fps59_94DropFrame: Double(nominal) * 1000 / 1001
        default: Double(nominal)
        }
    }

    /// Drop-frame: frame numbers 0 and 1 (0–3 at 59.94) are skipped at the start of every minute but each tenth,
    /// so the count keeps up with the clock.
    public var dropFrame: Bool { self == .fps29_97DropFrame || self == .fps59_94DropFrame }

    /// The same rate counted the other way (drop-frame or not), where there is one.
    var otherCounting: SMPTERate? {
        switch self {
        case .fps29_97: .fps29_97DropFrame
        case .fps29_97DropFrame: .fps29_97
        case .fps59_94: .fps59_94DropFrame
        case .fps59_94DropFrame: .fps59_94
        default: nil
        }
    }

    /// `--list-rate` text: `25`, `29.97`, `29.97df` (also `29.97ndf`, `30000/1001`).
    public init?(text: String) {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let rate = SMPTERate(rawValue: lowered) {
            self = rate
            return
        }
        let aliases = ["23.98": SMPTERate.fps23_976, "24000/1001": .fps23_976, "29.97ndf": .fps29_97, "30000/1001": .fps29_97,
                       "59.94ndf": .fps59_94, "60000/1001": .fps59_94, "23.976ndf": .fps23_976]
        guard let rate = aliases[lowered] else { return nil }
        self = rate
    }

    /// The non-drop-frame rate a clip plays at (within 0.05 %, which tells 23.976 from 24), or nil.
    public static func matching(framesPerSecond fps: Double) -> SMPTERate? {
        guard fps.isFinite, fps > 0 else { return nil }
        return allCases.first { !$0.dropFrame && abs($0.framesPerSecond - fps) <= $0.framesPerSecond * 0.0005 }
    }

    /// The (non-drop-frame) rates nearest `fps`, for an error that says what to give instead.
    public static func nearest(to fps: Double) -> [SMPTERate] {
        let plain = allCases.filter { !$0.dropFrame }
        guard fps.isFinite, fps > 0 else { return [.fps25, .fps30] }
        let sorted = plain.sorted { abs(log($0.framesPerSecond / fps)) < abs(log($1.framesPerSecond / fps)) }
        return Array(sorted.prefix(2)).sorted { $0.framesPerSecond < $1.framesPerSecond }
    }

    /// The rates as `--list-rate` takes them, for messages.
    public static var listed: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// SMPTE timecodes `HH:MM:SS:FF` (`;` before the frames when drop-frame) at a `SMPTERate`, to and from frame
/// counts. Every input gives a value or nil: hours past 99, out-of-range fields, negative or huge counts.
public enum Timecode {
    /// Frames in 100 hours at the rate's nominal count, less the dropped numbers: the largest count a
    /// timecode holds.
    static func capacity(_ rate: SMPTERate) -> Int {
        let perHour = rate.nominal * 3600
        return 100 * (rate.dropFrame ? perHour - droppedPerMinute(rate) * 54 : perHour)
    }

    private static func droppedPerMinute(_ rate: SMPTERate) -> Int { rate.dropFrame ? (rate.nominal == 60 ? 4 : 2) : 0 }

    /// The frame count of `text` at `rate`, or nil when it is not a timecode of that rate.
    public static func frames(_ text: String, rate: SMPTERate) -> Int? {
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == ";" || $0 == "." })
        guard parts.count == 4, parts.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hours = Int(parts[0]), let minutes = Int(parts[1]), let seconds = Int(parts[2]), let frame = Int(parts[3]),
              (0..<100).contains(hours), (0..<60).contains(minutes), (0..<60).contains(seconds), (0..<rate.nominal).contains(frame) else {
            return nil
        }
        let drop = droppedPerMinute(rate)
        // Drop-frame: the first numbers of a minute that is not a tenth one do not exist.
        if drop > 0, seconds == 0, minutes % 10 != 0, frame < drop { return nil }
        let totalMinutes = hours * 60 + minutes
        let counted = (totalMinutes * 60 + seconds) * rate.nominal + frame
        return counted - drop * (totalMinutes - totalMinutes / 10)
    }

    /// The timecode of frame `count` at `rate`, or nil when the count is negative or past 100 hours.
    public static func text(_ count: Int, rate: SMPTERate) -> String? {
        guard count >= 0, count < capacity(rate) else { return nil }
        var number = count
        let drop = droppedPerMinute(rate)
        if drop > 0 {
            // Add back the numbers skipped before this frame (SMPTE 12M's counting).
            let perTenMinutes = rate.nominal * 600 - drop * 9
            let perMinute = rate.nominal * 60 - drop
            let tens = number / perTenMinutes, within = number % perTenMinutes
            number += drop * 9 * tens + (within > drop ? drop * ((within - drop) / perMinute) : 0)
        }
        let frame = number % rate.nominal, totalSeconds = number / rate.nominal
        let separator = rate.dropFrame ? ";" : ":"
        return String(format: "%02d:%02d:%02d", totalSeconds / 3600, totalSeconds / 60 % 60, totalSeconds % 60) + separator
            + String(format: "%02d", frame)
    }
}
