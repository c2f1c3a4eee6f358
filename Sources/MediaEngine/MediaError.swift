/// A failure a user can hit, in vtrim's own words. `code` is the stable machine-readable name from the
/// command-line contract; `operation` names the step that failed (an FFmpeg call or a file operation).
public struct MediaError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case notFound = "not_found"
        case isDirectory = "is_directory"
        case unreadable
        case notMedia = "not_media"
        case noVideo = "no_video"
        /// `vtrim propose --silence`: the file has no audio stream.
        case noAudio = "no_audio"
        case unsupportedCodec = "unsupported_codec"
        case decodeFailed = "decode_failed"
        case invalidRange = "invalid_range"
        case outputExists = "output_exists"
        case outputIsInput = "output_is_input"
        case writeFailed = "write_failed"
        case verifyFailed = "verify_failed"
        case interrupted
        case tooLarge = "too_large"
        /// The output container cannot hold what a stream copy would put in it (e.g. orientation in MKV).
        case unsupportedContainer = "unsupported_container"
        /// A warning under `--strict`.
        case strictWarning = "strict_warning"
        /// The file changed (size, modification or change time, or inode) between the plan and the cut that runs it.
        case planStale = "plan_stale"
        /// `--export-list`: the list format cannot hold the ranges of this clip (an EDL of a clip at a rate no
        /// timecode counts in, without `--list-rate`; gaps in chapter text).
        case listUnwritable = "list_unwritable"
        /// A URL input: the server or the network failed after the retries, or answered what cannot be used.
        case fetchFailed = "fetch_failed"
        /// A URL vtrim does not read (a scheme other than http/https, a redirect from https to http, too many redirects,
        /// a certificate that does not verify).
        case refusedURL = "refused_url"
        /// A URL input's segment or file ended before the length its server announced or its playlist names.
        case truncatedSegment = "truncated_segment"
    }

    /// What the user can do instead — named, not worded: the engine does not know whether its reader
    /// types flags or clicks a page (VtrimKit's `Advice` words it for each).
    public enum Remedy: String, Sendable {
        /// Cut by stream copy (the video cannot be decoded or is too large to re-encode).
        case copyMode
        /// Keep the input's container, or re-encode (exact) so the output can hold the video as it is shown.
        case keepContainerOrExact
        /// Keep the parameter sets in the samples (avc3/hev1).
        case parameterSetsInBand
        /// Process the folder's files (the command line's -r).
        case recursive
        /// Join ranges smartly or exactly, or into a container without edit lists (MKV, MPEG-TS).
        case joinSmartOrOtherContainer
    }

    public let code: Code
    public let path: String
    public let operation: String
    /// Human text without the path, e.g. "not a media file (Invalid data found when processing input)".
    public let reason: String
    public let remedy: Remedy?

    public init(_ code: Code, path: String, operation: String, reason: String, remedy: Remedy? = nil) {
        self.code = code
        self.path = path
        self.operation = operation
        self.reason = reason
        self.remedy = remedy
    }

    public var description: String { "\(path): \(reason)" }
}

/// Something worth telling the user that does not stop the job (`--strict` turns it into a failure).
public struct MediaWarning: Sendable, Equatable, Hashable, Codable {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
