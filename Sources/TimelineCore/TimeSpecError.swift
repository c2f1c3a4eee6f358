/// Why a command-line time could not be read or resolved.
public enum TimeSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The colon fields a message can point at.
    public enum Field: String, Sendable, Equatable {
        case minutes, seconds
    }

    case empty
    case malformed(String)
    case negative(String)
    case fieldOutOfRange(String, field: Field, value: Int)
    case fieldNeedsTwoDigits(String, field: Field)
    case tooManyFields(String)
    case tooLarge(String)
    /// A programmatically built `TimeSpec` holds NaN, an infinity or a negative number.
    case invalidValue(Double)
    /// `resolve` was given a duration that is not a positive finite number.
    case invalidDuration(Double)

    static let syntax = "use seconds (12.5), m:ss(.fff) (1:05.250), h:mm:ss(.fff) (1:02:03.5), end, or end-S (end-5, end-1:30)"

    public var description: String {
        switch self {
        case .empty:
            return "empty time; " + Self.syntax
        case .malformed(let text):
            return "'\(text)' is not a time; " + Self.syntax
        case .negative(let text):
            return "time '\(text)' is negative; times count from the start of the file (to count from the "
                + "end, write end-S, e.g. end-5)"
        case .fieldOutOfRange(let text, let field, let value):
            return "'\(text)' has \(field.rawValue) \(value); \(field.rawValue) after a colon must be 00–59"
        case .fieldNeedsTwoDigits(let text, let field):
            return "'\(text)' needs two-digit \(field.rawValue) after a colon, e.g. 1:05 or 1:02:03"
        case .tooManyFields(let text):
            return "'\(text)' has too many colon fields; the longest form is h:mm:ss(.fff)"
        case .tooLarge(let text):
            return "time '\(text)' is too large; the limit is "
                + "\(MessageNumber.text(TimelineLimits.maximumDurationSeconds)) s"
        case .invalidValue(let value):
            return "time \(MessageNumber.text(value)) s is not a finite, non-negative number of seconds"
        case .invalidDuration(let value):
            return "cannot resolve a time against duration \(MessageNumber.text(value)) s; the duration "
                + "must be a positive finite number of seconds"
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.empty, .empty): return true
        case (.malformed(let a), .malformed(let b)),
            (.negative(let a), .negative(let b)),
            (.tooManyFields(let a), .tooManyFields(let b)),
            (.tooLarge(let a), .tooLarge(let b)):
            return a == b
        case (.fieldOutOfRange(let a, let af, let av), .fieldOutOfRange(let b, let bf, let bv)):
            return a == b && af == bf && av == bv
        case (.fieldNeedsTwoDigits(let a, let af), .fieldNeedsTwoDigits(let b, let bf)):
            return a == b && af == bf
        case (.invalidValue(let a), .invalidValue(let b)),
            (.invalidDuration(let a), .invalidDuration(let b)):
            return a.isSameNumber(as: b)
        default:
            return false
        }
    }
}
