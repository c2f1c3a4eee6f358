import Foundation

/// A range the page keeps: seconds on the clip's timeline, and its label.
public struct ServeRange: Sendable, Codable, Equatable {
    public var start: Double
    public var end: Double
    public var label: String?

    public init(start: Double, end: Double, label: String? = nil) {
        self.start = start
        self.end = end
        self.label = label
    }
}
