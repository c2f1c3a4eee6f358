import CAV
import Glibc

/// Bounds on what vtrim decodes, so a damaged or hostile header cannot make it allocate without limit.
public enum Limits {
    /// 8192x8192: above every camera and phone format (8K UHD is 7680x4320).
    public static let maximumPixels = 8192 * 8192
    public static let maximumSideText = "8192x8192"
}
