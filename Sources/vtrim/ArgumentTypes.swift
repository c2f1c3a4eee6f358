import ArgumentParser
import TimelineCore
import VtrimKit

extension TimeSpec: ExpressibleByArgument {
    public init?(argument: String) {
        guard let value = try? TimeSpec(parsing: argument) else { return nil }
        self = value
    }

    public static var defaultCompletionKind: CompletionKind { .default }
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

/// Positive seconds for options that take a length (`--every`, `--max-duration`).
struct Seconds: ExpressibleByArgument {
    var value: Double

    init?(argument: String) {
        guard case let .seconds(value)? = try? TimeSpec(parsing: argument), value > 0 else { return nil }
        self.value = value
    }
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
