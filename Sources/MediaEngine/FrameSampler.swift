import CAV

/// How a thumbnail is chosen for a time.
public enum SampleMode: String, Sendable, CaseIterable {
    /// The frame a player shows at t (the last frame whose presentation time is ≤ t).
    case accurate
    /// The keyframe at or before t, decoding nothing else.
    case fast
}

/// How a frame is fitted into a cell of fixed size (display orientation, pixels).
public enum CellFit: Sendable, Equatable {
    /// The cell already has the picture's display aspect: scale to exactly that size.
    case exact
    /// Scale to cover the cell, keep the aspect, crop the centre (never stretch).
    case fillCrop
}

public struct SampleRequest: Sendable {
    /// Seconds on the presentation timeline (0 = container start), any order.
    public var timesSeconds: [Double]
    public var mode: SampleMode
    public var cellWidthPixels: Int
    public var cellHeightPixels: Int
    public var fit: CellFit
    /// Decoder threads; 0 lets FFmpeg choose.
    public var decoderThreads: Int

    public init(timesSeconds: [Double], mode: SampleMode, cellWidthPixels: Int, cellHeightPixels: Int,
                fit: CellFit, decoderThreads: Int = 0) {
        self.timesSeconds = timesSeconds
        self.mode = mode
        self.cellWidthPixels = cellWidthPixels
        self.cellHeightPixels = cellHeightPixels
        self.fit = fit
        self.decoderThreads = decoderThreads
    }
}

/// One sample: the picture (display orientation, cell size) and the presentation time of the frame used.
public struct SampledFrame: Sendable {
    public var requestedSeconds: Double
    public var frameSeconds: Double?
    public var image: RGBImage?
    /// Why there is no image (the cell gets a placeholder).
    public var failure: String?
}

/// Opens a file once and pulls pictures for many times from it: seeks to the keyframe before each
/// sample and decodes forward, but keeps decoding instead of seeking when the next sample's keyframe
/// is not past what it has already decoded. Holds at most two decoded frames at a time.
public final class FrameSampler {
    public let info: MediaInfo
    private let input: InputFile
    private let streamIndex: Int
    private let stream: UnsafeMutablePointer<AVStream>
    private let scaler = Scaler()
    private let packet: Packet
    public private(set) var decodeErrorCount = 0
    /// Frames decoded (for tests and benchmarks: shows how much work a strategy did).
    public private(set) var framesDecoded = 0

    public init(path: String) throws(MediaError) {
        let size = try InputCheck.regularFile(path)
        let input = try InputFile(path: path)
        info = try Probe.inspect(input, sizeBytes: size)
        guard let video = info.video, let stream = input.stream(video.index) else {
            throw MediaError(.noVideo, path: path, operation: "av_find_best_stream", reason: "has no video stream")
        }
        guard video.decoderAvailable else {
            throw MediaError(.unsupportedCodec, path: path, operation: "avcodec_find_decoder",
                             reason: "this FFmpeg cannot decode its video codec (\(video.codecTag ?? video.codec))")
        }
        self.input = input
        self.streamIndex = video.index
        self.stream = stream
        do {
            packet = try Packet()
        } catch {
            throw MediaError(.decodeFailed, path: path, operation: error.operation, reason: "out of memory")
        }
    }

    public func sample(_ request: SampleRequest) throws(MediaError) -> [SampledFrame] {
        let decoder: Decoder
        do {
            decoder = try Decoder(stream: stream, threads: request.mode == .fast ? 1 : request.decoderThreads)
        } catch {
            throw MediaError(.unsupportedCodec, path: info.path, operation: error.operation,
                             reason: "cannot open the video decoder (\(error.text))")
        }
        var results = request.timesSeconds.map { SampledFrame(requestedSeconds: $0, frameSeconds: nil, image: nil, failure: nil) }
        let order = request.timesSeconds.indices.sorted { request.timesSeconds[$0] < request.timesSeconds[$1] }
        var session = DecodeSession(input: input, decoder: decoder, packet: packet, streamIndex: streamIndex)
        var lastKeyframe: (timestamp: Int64, result: SampledFrame)?
        for index in order {
            let seconds = request.timesSeconds[index]
            let target = streamTimestamp(seconds)
            do {
                switch request.mode {
                case .accurate:
                    let frame = try session.frameShown(at: target, keyframeBefore: keyframeTimestamp(atOrBefore: target))
                    if let frame {
                        results[index] = try render(frame, request: request, requested: seconds)
                    } else {
                        results[index].failure = "no frame could be decoded at \(Self.text(seconds)) s"
                    }
                case .fast:
                    switch try session.keyframe(atOrBefore: target, previous: lastKeyframe?.timestamp) {
                    case let .frame(frame):
                        results[index] = try render(frame, request: request, requested: seconds)
                        lastKeyframe = (frame.timestamp, results[index])
                    case .same:
                        if let previous = lastKeyframe?.result { results[index] = previous }
                        results[index].requestedSeconds = seconds
                    case .none:
                        results[index].failure = "no keyframe could be decoded at or before \(Self.text(seconds)) s"
                    }
                }
            } catch {
                results[index].failure = "decoding failed at \(Self.text(seconds)) s (\(error.operation): \(error.text))"
                session.reset()
            }
        }
        decodeErrorCount = session.decodeErrors
        framesDecoded += session.framesDecoded
        return results
    }

    /// Seconds for messages, to the millisecond.
    static func text(_ seconds: Double) -> String {
        let millis = Int64((seconds * 1000).rounded())
        let fraction = String(abs(millis) % 1000)
        return "\(millis / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    private func render(_ frame: Frame, request: SampleRequest, requested: Double) throws(AVFailure) -> SampledFrame {
        guard let video = info.video else { throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "video") }
        let orientation = video.orientation
        var displayWidth = request.cellWidthPixels, displayHeight = request.cellHeightPixels
        if request.fit == .fillCrop {
            let aspect = Double(video.displayWidth) / Double(max(video.displayHeight, 1))
            let cellAspect = Double(request.cellWidthPixels) / Double(request.cellHeightPixels)
            if aspect > cellAspect {
                displayWidth = max(request.cellWidthPixels, Int((Double(request.cellHeightPixels) * aspect).rounded()))
            } else {
                displayHeight = max(request.cellHeightPixels, Int((Double(request.cellWidthPixels) / aspect).rounded()))
            }
        }
        let codedWidth = orientation.swapsDimensions ? displayHeight : displayWidth
        let codedHeight = orientation.swapsDimensions ? displayWidth : displayHeight
        var image = try scaler.scale(frame, width: codedWidth, height: codedHeight).oriented(orientation)
        if image.width != request.cellWidthPixels || image.height != request.cellHeightPixels {
            image = image.centreCropped(width: request.cellWidthPixels, height: request.cellHeightPixels)
        }
        return SampledFrame(requestedSeconds: requested, frameSeconds: presentationSeconds(frame.timestamp),
                            image: image, failure: nil)
    }

    /// Presentation-timeline seconds → stream ticks (origin: the container's start time).
    private func streamTimestamp(_ seconds: Double) -> Int64 {
        let start = input.format.pointee.start_time == CAV_NOPTS_VALUE ? 0 : input.format.pointee.start_time
        let micro = Int64((seconds * Double(AV_TIME_BASE)).rounded())
        return av_rescale_q(micro + start, cav_time_base_q(), stream.pointee.time_base)
    }

    private func presentationSeconds(_ timestamp: Int64) -> Double? {
        guard timestamp != CAV_NOPTS_VALUE else { return nil }
        let start = input.format.pointee.start_time == CAV_NOPTS_VALUE ? 0 : input.format.pointee.start_time
        let micro = av_rescale_q(timestamp, stream.pointee.time_base, cav_time_base_q()) - start
        return Double(micro) / Double(AV_TIME_BASE)
    }

    /// The index's keyframe at or before `timestamp`, when the container has an index.
    private func keyframeTimestamp(atOrBefore timestamp: Int64) -> Int64? {
        guard avformat_index_get_entries_count(stream) > 0,
              let entry = avformat_index_get_entry_from_timestamp(stream, timestamp, AVSEEK_FLAG_BACKWARD) else { return nil }
        return entry.pointee.timestamp
    }
}

extension Frame {
    /// The frame's presentation time in stream ticks (FFmpeg's best effort when pts is missing).
    var timestamp: Int64 {
        let value = pointer.pointee.best_effort_timestamp
        return value != CAV_NOPTS_VALUE ? value : pointer.pointee.pts
    }
}
