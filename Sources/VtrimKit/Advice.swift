import MediaEngine
import Synchronization

/// The engine names what a user can do about an error (`MediaError.Remedy`); this words it for whoever
/// reads it: the command line's flags, or `vtrim serve`'s page (whose workers say so at start).
public enum Advice {
    public enum Audience: Int, Sendable {
        case commandLine
        case page
    }

    private static let current = Atomic<Int>(Audience.commandLine.rawValue)

    public static var audience: Audience {
        get { Audience(rawValue: current.load(ordering: .relaxed)) ?? .commandLine }
        set { current.store(newValue.rawValue, ordering: .relaxed) }
    }

    public static func words(_ remedy: MediaError.Remedy, for audience: Audience = audience) -> String {
        switch (remedy, audience) {
        case (.copyMode, .commandLine): return "use --mode copy"
        case (.copyMode, .page): return "choose copy"
        case (.keepContainerOrExact, .commandLine): return "keep the container or use --mode exact, which turns or re-encodes the picture"
        case (.keepContainerOrExact, .page): return "choose exact, which re-encodes the picture"
        case (.parameterSetsInBand, .commandLine): return "cut with --sample-entry in-band"
        case (.parameterSetsInBand, .page): return "`vtrim cut --sample-entry in-band` can cut it"
        case (.recursive, .commandLine): return "use -r/--recursive to process folders"
        case (.recursive, .page): return "serve the folder to see its files"
        case (.joinSmartOrOtherContainer, .commandLine): return "use --mode smart or exact, or write .mkv"
        case (.joinSmartOrOtherContainer, .page): return "choose smart or exact"
        }
    }
}

extension MediaError {
    /// The reason, with what to do about it in the reader's words.
    public var message: String {
        guard let remedy else { return reason }
        return reason + "; " + Advice.words(remedy)
    }
}
