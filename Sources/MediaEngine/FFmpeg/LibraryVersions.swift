import CAV

/// The FFmpeg and libpng libraries this process runs on (for `vtrim --version`): the shared libraries
/// loaded now, which may differ from those vtrim was built against.
public enum LibraryVersions {
    public static var text: String {
        func version(_ value: UInt32) -> String { "\(value >> 16).\((value >> 8) & 0xff).\(value & 0xff)" }
        let png = FFmpegText.string(cav_png_version()) ?? "?"
        return "libavformat \(version(avformat_version())), libavcodec \(version(avcodec_version())), "
            + "libavutil \(version(avutil_version())), libswscale \(version(swscale_version())), libpng \(png)"
    }
}
