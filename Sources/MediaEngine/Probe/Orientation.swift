import Glibc

/// How a player turns the coded picture for display, from the stream's display matrix.
///
/// `rotationDegrees` is clockwise in [0, 360), the negation of ffprobe's `rotation` (which is
/// counter-clockwise). `mirrored` is true when the matrix has a negative determinant. Together they mean:
/// flip the coded picture vertically (if mirrored), then turn it clockwise by `rotationDegrees` — the
/// only decomposition consistent with ffprobe's angle (a horizontal mirror reads as 180 + mirrored).
public struct Orientation: Sendable, Equatable, Hashable, Codable {
    public var rotationDegrees: Int
    public var mirrored: Bool
    /// The nine raw int32 entries, or nil when the stream has none or it is invalid.
    public var matrix: [Int32]?

    public static let upright = Orientation(rotationDegrees: 0, mirrored: false, matrix: nil)

    public init(rotationDegrees: Int, mirrored: Bool, matrix: [Int32]?) {
        self.rotationDegrees = rotationDegrees
        self.mirrored = mirrored
        self.matrix = matrix
    }

    /// Shown as coded (whatever the matrix says, e.g. an identity matrix).
    public var isUpright: Bool { rotationDegrees == 0 && !mirrored }

    public var swapsDimensions: Bool { rotationDegrees == 90 || rotationDegrees == 270 }

    /// The axis-aligned map from a coded pixel (x, y) (y down) to its displayed position:
    /// x' = a·x + c·y, y' = b·x + d·y (before translating into the picture).
    public var transform: (a: Int, b: Int, c: Int, d: Int) {
        let (cosine, sine): (Int, Int)
        switch rotationDegrees {
        case 90: (cosine, sine) = (0, 1)
        case 180: (cosine, sine) = (-1, 0)
        case 270: (cosine, sine) = (0, -1)
        default: (cosine, sine) = (1, 0)
        }
        // Rotation R = [cos −sin; sin cos] acting on column vectors, applied after an optional vertical flip.
        return mirrored ? (cosine, sine, sine, -cosine) : (cosine, sine, -sine, cosine)
    }

    public enum MatrixReading: Equatable {
        case valid(Orientation, snapped: Bool)
        case invalid(reason: String)
    }

    /// Reads a display matrix (nine int32: 16.16 fixed point, entries 2, 5, 8 in 2.30).
    /// Angles that are not multiples of 90 are snapped to the nearest one (`snapped: true`).
    public static func read(matrix: [Int32]) -> MatrixReading {
        guard matrix.count == 9 else { return .invalid(reason: "display matrix has \(matrix.count) entries, not 9") }
        let a = Double(matrix[0]) / 65536, b = Double(matrix[1]) / 65536
        let c = Double(matrix[3]) / 65536, d = Double(matrix[4]) / 65536
        let scaleX = (a * a + c * c).squareRoot()
        let scaleY = (b * b + d * d).squareRoot()
        guard scaleX > 0, scaleY > 0, scaleX.isFinite, scaleY.isFinite else {
            return .invalid(reason: "display matrix is degenerate (zero scale)")
        }
        // Clockwise angle of the image of the x axis, as av_display_rotation_get (negated).
        let clockwise = atan2Degrees(b / scaleY, a / scaleX)
        guard clockwise.isFinite else { return .invalid(reason: "display matrix angle is not a number") }
        let rounded = Int(clockwise.rounded())
        var normalized = rounded % 360
        if normalized < 0 { normalized += 360 }
        var snappedAngle = ((normalized + 45) / 90 * 90) % 360
        if normalized % 90 == 0 { snappedAngle = normalized }
        let determinant = a * d - b * c
        let orientation = Orientation(rotationDegrees: snappedAngle, mirrored: determinant < 0, matrix: matrix)
        return .valid(orientation, snapped: snappedAngle != normalized || abs(clockwise - clockwise.rounded()) > 0.01)
    }
}

private func atan2Degrees(_ y: Double, _ x: Double) -> Double {
    atan2(y, x) * 180 / Double.pi
}
