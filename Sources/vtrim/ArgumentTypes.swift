import ArgumentParser
import TimelineCore
import VtrimKit

/// How time options read their values (`@Option(parsing: .unconditional, transform: TimeArgument.time)`): a time that
/// cannot be read says why and shows the syntax, and a value that starts with a minus (`--start -3`) is taken as
/// the option's value — and refused as a negative time — rather than read as another flag.
enum TimeArgument {
    static func time(_ text: String) throws -> TimeSpec {
        do { return try TimeSpec(parsing: text) } catch { throw ValidationError(error.description) }
    }

    /// A length or interval: positive seconds, in any time syntax but `end`.
    static func seconds(_ text: String) throws -> Seconds {
        let spec = try time(text)
        guard case let .seconds(value) = spec else { throw ValidationError("'\(text)' counts from the end; give a length in seconds (e.g. 12.5 or 1:30)") }
        guard value > 0 else { throw ValidationError("'\(text)' is no length; give more than 0 seconds") }
        return Seconds(value: value)
    }
}

/// `WxH` in points or pixels, e.g. `30x50`.
struct Size: ExpressibleByArgument, Equatable {
    var width: Double
    var height: Double

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]),
              width.isFinite, height.isFinite, width > 0, height > 0 else { return nil }
        self.width = width
        self.height = height
    }
}

extension SampleMode: ExpressibleByArgument {}
extension StoryboardFormat: ExpressibleByArgument {}

/// `--tile CxR`: whole columns and rows, each 1…100.
struct TileSize: ExpressibleByArgument, Equatable {
    var columns: Int
    var rows: Int

    init?(argument: String) {
        guard let size = Size(argument: argument), let columns = Int(exactly: size.width), let rows = Int(exactly: size.height),
              (1...100).contains(columns), (1...100).contains(rows) else { return nil }
        self.columns = columns
        self.rows = rows
    }
}

/// Positive seconds for options that take a length (`--every`, `--max-duration`): `TimeArgument.seconds` reads them.
struct Seconds {
    var value: Double
}

/// `--frames-format`: png, jpeg (or jpg), webp.
struct ImageFormatArgument: ExpressibleByArgument {
    let format: ImageFormat

    init?(argument: String) {
        guard let format = ImageFormat(pathExtension: argument) else { return nil }
        self.format = format
    }

    static var allValueStrings: [String] { ["png", "jpeg", "webp"] }
}
