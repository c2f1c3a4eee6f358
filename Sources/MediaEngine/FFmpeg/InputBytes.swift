import CAV
import DiskNames
import Glibc
import Locking

/// Bytes of an input that is not a local file (a URL read by range requests), registered under the input's name
/// (`InputSources.register(_:source:)`): libavformat reads them through an AVIO context (`AVIOBridge`), the box
/// readers through `InputReader`.
public protocol InputByteSource: AnyObject, Sendable {
    var sizeBytes: Int64 { get }
    /// Up to `buffer.count` bytes at `offset` (0 at the end), or why they cannot be read (already in vtrim's words,
    /// naming the input without its secrets).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(MediaError) -> Int
}

extension InputSources {
    private static let sources = Locked<[String: any InputByteSource]>([:])

    /// Inputs named `name` are read from `source` until `unregister(source:)`.
    public static func register(_ name: String, source: any InputByteSource) { sources.withLock { $0[name] = source } }
    public static func unregister(source name: String) {
        _ = sources.withLock { $0.removeValue(forKey: name) }
        BriefAnalysis.forget(name)
    }
    public static func byteSource(for name: String) -> (any InputByteSource)? { sources.withLock { $0[name] } }
}

/// A file's bytes at offsets for the box readers (`moov`, Matroska's header): pread on disk, or the registered
/// source of a URL. Not shared between threads.
struct InputReader {
    private let descriptor: Int32
    private let source: (any InputByteSource)?

    static func open(_ path: String) -> InputReader? {
        if let source = InputSources.byteSource(for: path) { return InputReader(descriptor: -1, source: source) }
        let descriptor = DiskFile.open(InputSources.diskPath(path), O_RDONLY)
        return descriptor >= 0 ? InputReader(descriptor: descriptor, source: nil) : nil
    }

    func close() { if descriptor >= 0 { _ = Glibc.close(descriptor) } }

    /// At most `count` bytes at `offset` (fewer at the end; none where they cannot be read).
    func read(count: Int, at offset: Int64) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got: Int = bytes.withUnsafeMutableBytes { raw in
                let rest = UnsafeMutableRawBufferPointer(rebasing: raw[filled...])
                if let source { return (try? source.read(into: rest, at: offset + Int64(filled))) ?? -1 }
                return pread(descriptor, rest.baseAddress, rest.count, off_t(offset + Int64(filled)))
            }
            guard got > 0 else { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }
}

/// libavformat reading a registered source through an AVIO context: read and seek callbacks over the source, a
/// position, and the source's last error (an HTTP status, a reset) for the message FFmpeg's EIO would hide. Owned by
/// one InputFile, on one thread.
final class AVIOBridge {
    let source: any InputByteSource
    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    var position: Int64 = 0
    var lastError: MediaError?
    /// libavformat refills its buffer this much at a time, and reads a packet larger than it straight into the packet:
    /// small, so a read after a seek fetches little past what it needs (a 4.5 KB keyframe fetched 16 KiB with a
    /// 16 KiB buffer). Sequential reads are not slowed: the remote reader's read-ahead, not this, sizes the requests.
    static let bufferBytes: Int32 = 4 << 10

    init?(source: any InputByteSource) {
        self.source = source
        guard let buffer = av_malloc(Int(Self.bufferBytes)) else { return nil }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        context = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Self.bufferBytes, 0, opaque, { opaque, buffer, size in
            guard let opaque, let buffer, size > 0 else { return cav_averror(EINVAL) }
            return Unmanaged<AVIOBridge>.fromOpaque(opaque).takeUnretainedValue().read(buffer, Int(size))
        }, nil, { opaque, offset, whence in
            guard let opaque else { return Int64(cav_averror(EINVAL)) }
            return Unmanaged<AVIOBridge>.fromOpaque(opaque).takeUnretainedValue().seek(offset, whence)
        })
        if context == nil {
            av_free(buffer)
            return nil
        }
    }

    deinit {
        // libavformat may have replaced the buffer: the context's own is freed.
        if context != nil { av_freep(&context!.pointee.buffer) }
        avio_context_free(&context)
    }

    private func read(_ buffer: UnsafeMutablePointer<UInt8>, _ size: Int) -> Int32 {
        do {
            let count = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size), at: position)
            guard count > 0 else { return CAV_AVERROR_EOF }
            position += Int64(count)
            return Int32(clamping: count)
        } catch {
            lastError = error
            return cav_averror(EIO)
        }
    }

    private func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 { return source.sizeBytes }
        let base: Int64
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = source.sizeBytes
        default: return Int64(cav_averror(EINVAL))
        }
        let target = base.plus(offset)
        guard target >= 0 else { return Int64(cav_averror(EINVAL)) }
        position = target
        return target
    }
}
