import MediaEngine
import Testing

/// Display matrices (16.16 fixed point; entry 8 is 1 << 30) and what a player does with them.
struct OrientationTests {
    static let one: Int32 = 65536
    static func matrix(_ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32) -> [Int32] {
        [a * one, b * one, 0, c * one, d * one, 0, 0, 0, 1 << 30]
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let matrix: [Int32]
        let rotation: Int
        let mirrored: Bool
        var testDescription: String { name }
    }

    // ffprobe's rotation (counter-clockwise) in comments; vtrim reports the clockwise angle.
    static let cases: [Case] = [
        Case(name: "identity", matrix: matrix(1, 0, 0, 1), rotation: 0, mirrored: false),
        Case(name: "rotate=270 tag, phone portrait (ffprobe -90)", matrix: matrix(0, 1, -1, 0), rotation: 90, mirrored: false),
        Case(name: "rotate=180 (ffprobe 180)", matrix: matrix(-1, 0, 0, -1), rotation: 180, mirrored: false),
        Case(name: "rotate=90 tag (ffprobe 90)", matrix: matrix(0, -1, 1, 0), rotation: 270, mirrored: false),
        Case(name: "horizontal mirror (ffprobe -180)", matrix: matrix(-1, 0, 0, 1), rotation: 180, mirrored: true),
        Case(name: "vertical mirror (ffprobe 0)", matrix: matrix(1, 0, 0, -1), rotation: 0, mirrored: true),
        Case(name: "transpose (ffprobe -90)", matrix: matrix(0, 1, 1, 0), rotation: 90, mirrored: true),
        Case(name: "anti-transpose (ffprobe 90)", matrix: matrix(0, -1, -1, 0), rotation: 270, mirrored: true),
    ]

    @Test(arguments: cases)
    func readsRotationAndMirror(_ example: Case) async {
        guard case let .valid(orientation, snapped) = Orientation.read(matrix: example.matrix) else {
            Issue.record("matrix rejected")
            return
        }
        #expect(orientation.rotationDegrees == example.rotation)
        #expect(orientation.mirrored == example.mirrored)
        #expect(orientation.matrix == example.matrix)
        #expect(!snapped)
    }

    /// The transform rebuilt from (rotation, mirrored) maps axes exactly as the matrix does.
    @Test(arguments: cases)
    func transformMatchesMatrix(_ example: Case) async {
        guard case let .valid(orientation, _) = Orientation.read(matrix: example.matrix) else { return }
        let t = orientation.transform
        #expect([t.a, t.b, t.c, t.d] == [0, 1, 3, 4].map { Int(example.matrix[$0] / Self.one) })
    }

    @Test func degenerateMatrixIsInvalid() async {
        let zero = [Int32](repeating: 0, count: 9)
        #expect(Orientation.read(matrix: zero) == .invalid(reason: "display matrix is degenerate (zero scale)"))
        #expect(Orientation.read(matrix: [1, 2, 3]) != .invalid(reason: "display matrix is degenerate (zero scale)"))
    }

    @Test func oddAngleSnapsToNearestRightAngle() async {
        // 80° clockwise: cos 80 ≈ 0.1736, sin 80 ≈ 0.9848.
        let c = Int32(0.1736 * 65536), s = Int32(0.9848 * 65536)
        let matrix: [Int32] = [c, s, 0, -s, c, 0, 0, 0, 1 << 30]
        guard case let .valid(orientation, snapped) = Orientation.read(matrix: matrix) else {
            Issue.record("matrix rejected")
            return
        }
        #expect(orientation.rotationDegrees == 90)
        #expect(snapped)
    }
}
