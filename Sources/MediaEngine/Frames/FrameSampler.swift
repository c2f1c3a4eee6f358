import CAV
import Dispatch
import Foundation
import Locking

/// How a thumbnail is chosen for a time.
public enum SampleMode: String, Sendable, CaseIterable, Codable {
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
    /// Checked between samples: true stops the work (an interrupt).
    public var shouldStop: @Sendable () -> Bool
    /// `--skip-dull` (accurate mode): for each time, where its cell's window ends. A dull sample
    /// (`DullFrame`) gives way to the first later frame before that end that is not dull.
    public var dullSearchEndsSeconds: [Double]?
    /// HDR (PQ, HLG) frames are tone-mapped to SDR (`ToneMapper`); false keeps the plain conversion.
    public var toneMapsHDR = true

    public init(timesSeconds: [Double], mode: SampleMode, cellWidthPixels: Int, cellHeightPixels: Int,
                fit: CellFit, decoderThreads: Int = 0, shouldStop: @escaping @Sendable () -> Bool = { false }) {
        self.shouldStop = shouldStop
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
    /// The decoder flagged the frame shown (corrupt, concealed errors): shown, but never silently.
    public var damaged = false
    /// `--skip-dull`: the frame is dull and nothing in the cell's window was not (nil when not looked at).
    public var dull: Bool?
    /// An HDR frame shown tone-mapped to SDR.
    public var toneMapped = false
    /// Why an HDR frame could not be tone-mapped (it is shown converted without).
    public var toneMapFailure: String?
}

/// Pulls pictures for many times from one file. Samples are taken in time order and split into
/// contiguous runs, one per worker; each worker has its own demuxer and decoder (FFmpeg objects never
/// cross threads) and seeks to the keyframe before each sample, but keeps decoding instead of seeking
/// when the next sample's keyframe is not past what it has already decoded. Each worker holds at most
/// two decoded frames at a time.
public final class FrameSampler {
    public let info: MediaInfo
    private let firstInput: InputFile
    private let streamIndex: Int
    /// Frames decoded (for tests and benchmarks: shows how much work a strategy did).
    public private(set) var framesDecoded = 0

    /// `keyframesOnly`: every request will be `.fast`, so an MP4 URL's stream analysis may be brief (`BriefAnalysis`):
    /// a keyframe decodes alone, whatever the decode delay that analysis guesses from the frames it reads.
    public init(path: String, keyframesOnly: Bool = false) throws(MediaError) {
        let size = try InputCheck.regularFile(path)
        let input = try InputFile(path: path, briefOverURL: keyframesOnly)
        info = try Probe.inspect(input, sizeBytes: size)
        guard let video = info.video else {
            throw MediaError(.noVideo, path: path, operation: "av_find_best_stream", reason: "has no video stream")
        }
        guard video.decoderAvailable else {
            throw MediaError(.unsupportedCodec, path: path, operation: "avcodec_find_decoder",
                             reason: "this FFmpeg cannot decode its video codec (\(video.codecTag ?? video.codec))")
        }
        if video.width <= 0 || video.height <= 0 {
            // Stream analysis could not size the picture; FFmpeg's own reason, when it gave one, says why
            // (a header claiming more than `Limits.maximumPixels` is refused there, before any allocation).
            let detail = FFmpegText.lastLoggedError()
            let tooLarge = detail?.contains("Picture size") == true
            throw MediaError(tooLarge ? .tooLarge : .decodeFailed, path: path, operation: "picture size",
                             reason: tooLarge ? "its picture size is refused (\(detail ?? "")); vtrim decodes up to \(Limits.maximumSideText)"
                                              : "the video's picture size is unknown" + (detail.map { " (\($0))" } ?? ""))
        }
        if video.width * video.height > Limits.maximumPixels || !video.sizeIsValid {
            throw MediaError(.tooLarge, path: path, operation: "picture size",
                             reason: "its picture is \(video.width)x\(video.height), larger than vtrim decodes (\(Limits.maximumSideText))")
        }
        firstInput = input
        streamIndex = video.index
    }

    /// `workers`: how many runs of samples to decode in parallel (each with its own decoder);
    /// `request.decoderThreads` is then shared among them.
    public func sample(_ request: SampleRequest, workers: Int = 1) throws(MediaError) -> [SampledFrame] {
        guard let video = info.video else {
            throw MediaError(.noVideo, path: info.path, operation: "av_find_best_stream", reason: "has no video stream")
        }
        let order = request.timesSeconds.indices.sorted { request.timesSeconds[$0] < request.timesSeconds[$1] }
        // Above 1080p a second decoder costs more memory than it saves time (a 4K frame is 12 MB and each
        // decoder keeps its own reference frames): one decoder with frame threads instead.
        let allowedWorkers = video.width * video.height > Self.parallelPixelLimit ? 1 : workers
        let runs = Self.split(order, into: max(1, min(allowedWorkers, order.count))) { index in
            self.keyframe(atOrBefore: request.timesSeconds[index], stream: video.index)
        }
        let results = ResultSlots(count: request.timesSeconds.count)
        // Where the file stops short of its duration (truncated, or a suspect duration), no cell after it
        // can show the frame asked for.
        let readableEnd = info.readableDurationSeconds < info.durationSeconds ? info.readableDurationSeconds : nil
        let threadsEach = request.decoderThreads == 0 && runs.count == 1 ? 0 : max(1, request.decoderThreads / runs.count)
        // The runs after the first on threads of their own, each with a demuxer it opens (none crosses threads);
        // the first here, on the file's demuxer this sampler already has open.
        let path = info.path, streamIndex = streamIndex, duration = info.durationSeconds
        let others = DispatchGroup()
        for run in runs.dropFirst() {
            DispatchQueue.global().async(group: others) {
                do throws(MediaError) {
                    let worker = try SamplingWorker(input: try InputFile(path: path, briefOverURL: request.mode == .fast), streamIndex: streamIndex, video: video, path: path,
                                                    request: request, decoderThreads: threadsEach, readableEndSeconds: readableEnd,
                                                    durationSeconds: duration)
                    worker.sample(run, into: results)
                } catch {
                    results.fail(run, times: request.timesSeconds, reason: error.reason)
                }
            }
        }
        do throws(MediaError) {
            let worker = try SamplingWorker(input: firstInput, streamIndex: streamIndex, video: video, path: path, request: request,
                                            decoderThreads: threadsEach, readableEndSeconds: readableEnd, durationSeconds: duration)
            worker.sample(runs[0], into: results)
        } catch {
            others.wait()
            throw error
        }
        others.wait()
        framesDecoded += results.framesDecoded
        if request.shouldStop() {
            throw MediaError(.interrupted, path: info.path, operation: "signal", reason: "interrupted; nothing written")
        }
        return results.frames.enumerated().map { index, frame in
            frame ?? SampledFrame(requestedSeconds: request.timesSeconds[index], frameSeconds: nil, image: nil,
                                  failure: "not decoded")
        }
    }

    /// The index's keyframe (stream ticks) at or before a presentation time, when the container has an index.
    private func keyframe(atOrBefore seconds: Double, stream index: Int) -> Int64? {
        guard firstInput.indexListsKeyframes, let stream = firstInput.stream(index), avformat_index_get_entries_count(stream) > 0 else { return nil }
        let start = firstInput.originMicro
        let target = av_rescale_q(start.plus(Micro.from(seconds: seconds) ?? 0), cav_time_base_q(), stream.pointee.time_base)
        return avformat_index_get_entry_from_timestamp(stream, target, AVSEEK_FLAG_BACKWARD)?.pointee.timestamp
    }

    /// Largest picture (pixels) decoded by several workers at once: 1080p with a margin.
    static let parallelPixelLimit = 2_200_000

    /// Contiguous runs of nearly equal length, cut only where the next sample needs another keyframe
    /// (`gop` gives a sample's keyframe, when the index knows it): two decoders never decode the same
    /// group of pictures. Fewer runs come back when the samples share too few keyframes.
    static func split(_ order: [Int], into count: Int, gop: (Int) -> Int64? = { _ in nil }) -> [[Int]] {
        guard count > 1, order.count > 1 else { return [order] }
        let keyframes = order.map(gop)
        func isCut(_ position: Int) -> Bool {
            position > 0 && position < order.count
                && (keyframes[position] == nil || keyframes[position] != keyframes[position - 1])
        }
        var cuts: [Int] = []
        for part in 1..<count {
            let ideal = order.count * part / count
            // The nearest allowed cut to the ideal one, past the previous cut.
            let floor = (cuts.last ?? 0) + 1
            let candidates = (0..<order.count).flatMap { [ideal - $0, ideal + $0] }
            if let cut = candidates.first(where: { $0 >= floor && isCut($0) }) { cuts.append(cut) }
        }
        cuts = Array(Set(cuts)).sorted()
        let bounds = [0] + cuts + [order.count]
        return zip(bounds, bounds.dropFirst()).map { Array(order[$0..<$1]) }
    }
}

/// Results written by the workers, one slot per requested time.
private final class ResultSlots: Sendable {
    private struct State {
        var frames: [SampledFrame?]
        var framesDecoded = 0
    }

    private let state: Locked<State>

    init(count: Int) {
        state = Locked(State(frames: Array(repeating: nil, count: count)))
    }

    var frames: [SampledFrame?] { state.withLock { $0.frames } }
    var framesDecoded: Int { state.withLock { $0.framesDecoded } }

    func set(_ index: Int, _ frame: SampledFrame) {
        state.withLock { $0.frames[index] = frame }
    }

    func addDecoded(_ count: Int) {
        state.withLock { $0.framesDecoded += count }
    }

    func fail(_ indices: [Int], times: [Double], reason: String) {
        for index in indices {
            set(index, SampledFrame(requestedSeconds: times[index], frameSeconds: nil, image: nil, failure: reason))
        }
    }
}

/// One run of samples on one demuxer and decoder; lives and dies on one thread.
private struct SamplingWorker {
    let input: InputFile
    let stream: UnsafeMutablePointer<AVStream>
    let streamIndex: Int
    let video: VideoStreamInfo
    let request: SampleRequest
    let decoder: Decoder
    let packet: Packet
    let converter = FrameConverter(flags: SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT)
    let toneMapper: ToneMapper?
    let readableEndSeconds: Double?
    /// The file's duration: where a video stream stating none ends.
    let durationSeconds: Double

    init(input: InputFile, streamIndex: Int, video: VideoStreamInfo, path: String, request: SampleRequest,
         decoderThreads: Int, readableEndSeconds: Double?, durationSeconds: Double) throws(MediaError) {
        guard let stream = input.stream(streamIndex) else {
            throw MediaError(.noVideo, path: path, operation: "av_find_best_stream", reason: "has no video stream")
        }
        self.input = input
        self.stream = stream
        self.streamIndex = streamIndex
        // Only the video is read: an MP4's reader then skips the other streams' samples (a URL fetches the sound
        // stored just before each keyframe otherwise).
        for other in 0..<input.streamCount where other != streamIndex { input.stream(other)?.pointee.discard = AVDISCARD_ALL }
        self.video = video
        self.request = request
        self.readableEndSeconds = readableEndSeconds
        self.durationSeconds = durationSeconds
        do {
            // Decoding starts at later keyframes: tell the decoder what the stream's first access unit says.
            decoder = try Decoder(stream: stream, threads: request.mode == .fast ? 1 : decoderThreads,
                                  beginning: StreamBeginning.read(input, streamIndex: streamIndex))
            packet = try Packet()
            toneMapper = request.toneMapsHDR ? try ToneMapper() : nil
        } catch {
            throw MediaError(.unsupportedCodec, path: path, operation: error.operation,
                             reason: "cannot open the video decoder (\(error.text))")
        }
    }

    func sample(_ indices: [Int], into results: ResultSlots) {
        var session = DecodeSession(input: input, decoder: decoder, packet: packet, streamIndex: streamIndex,
                                    shouldStop: request.shouldStop)
        var lastKeyframe: (timestamp: Int64, result: SampledFrame)?
        for index in indices {
            if request.shouldStop() { return }
            let seconds = request.timesSeconds[index]
            let target = streamTimestamp(seconds)
            var result = SampledFrame(requestedSeconds: seconds, frameSeconds: nil, image: nil, failure: nil)
            if let readableEndSeconds, seconds >= readableEndSeconds {
                result.failure = "past the readable end of the file (\(Words.seconds(readableEndSeconds)))"
                results.set(index, result)
                continue
            }
            do {
                switch request.mode {
                case .accurate:
                    if let frame = try session.frameShown(at: target, keyframeBefore: keyframeTimestamp(atOrBefore: target)) {
                        if session.reachedEnd, let stop = stopsEarly(frame, before: target) {
                            result.failure = "the video stops at \(Words.seconds(stop)), before this time (damaged or cut short)"
                        } else {
                            result = try render(frame, requested: seconds)
                            if let ends = request.dullSearchEndsSeconds, let image = result.image {
                                result = try replacingDull(result, image: image, session: &session,
                                                           before: streamTimestamp(ends[index]))
                            }
                        }
                    } else {
                        result.failure = "nothing decodable at \(Words.seconds(seconds))"
                    }
                case .fast:
                    switch try session.keyframe(atOrBefore: target, previous: lastKeyframe?.timestamp) {
                    case let .frame(frame):
                        result = try render(frame, requested: seconds)
                        lastKeyframe = (frame.timestamp, result)
                    case .same:
                        if let previous = lastKeyframe?.result { result = previous }
                        result.requestedSeconds = seconds
                    case .none:
                        result.failure = "no keyframe decodable at or before \(Words.seconds(seconds))"
                    }
                }
            } catch {
                result.failure = "decoding failed at \(Words.seconds(seconds)) (\(error.operation): \(error.text))"
                session.reset()
            }
            results.set(index, result)
        }
        results.addDecoded(session.framesDecoded)
    }

    private func render(_ frame: Frame, requested: Double) throws(AVFailure) -> SampledFrame {
        let orientation = video.orientation
        // The cell in the frame's own (coded) orientation.
        let codedWidth = orientation.swapsDimensions ? request.cellHeightPixels : request.cellWidthPixels
        let codedHeight = orientation.swapsDimensions ? request.cellWidthPixels : request.cellHeightPixels
        // Fill and crop: cut the frame to the cell's aspect first, then scale only what is shown (scaling
        // the whole picture to cover the cell would make a picture of any size a file's aspect asks for).
        let source = request.fit == .fillCrop
            ? try frame.croppedToAspect(Double(codedWidth) / Double(codedHeight), sampleAspectRatio: video.sampleAspectRatio.doubleValue)
            : frame
        var picture = source
        var toneMapped = false, toneMapFailure: String?
        if let toneMapper, ToneMapper.isHDR(frame) {
            do {
                picture = try toneMapper.map(source, width: codedWidth, height: codedHeight)
                toneMapped = true
            } catch {
                toneMapFailure = "\(error.operation): \(error.text)"
            }
        }
        let image = try converter.rgbImage(picture, width: codedWidth, height: codedHeight).oriented(orientation)
        var sampled = SampledFrame(requestedSeconds: requested, frameSeconds: presentationSeconds(frame.timestamp),
                                   image: image, failure: nil, damaged: frame.isDamaged)
        sampled.toneMapped = toneMapped
        sampled.toneMapFailure = toneMapFailure
        return sampled
    }

    /// `--skip-dull`: the first frame after `sample` and before `end` (stream ticks) that is not dull, or
    /// `sample` marked dull when there is none.
    private func replacingDull(_ sample: SampledFrame, image: RGBImage, session: inout DecodeSession,
                               before end: Int64) throws(AVFailure) -> SampledFrame {
        var result = sample
        guard DullFrame.isDull(image) else {
            result.dull = false
            return result
        }
        while !request.shouldStop(), let next = try session.nextFrame(), next.timestamp < end {
            let candidate = try render(next, requested: sample.requestedSeconds)
            if let picture = candidate.image, !DullFrame.isDull(picture) {
                result = candidate
                result.dull = false
                return result
            }
        }
        result.dull = true
        return result
    }

    /// Where the stream's last decoded frame stops (seconds), when that is more than a frame before both
    /// `target` and the end the stream states: the frame a player would show there is missing, not this one.
    private func stopsEarly(_ frame: Frame, before target: Int64) -> Double? {
        let frameTicks = frame.pointer.pointee.pkt_duration > 0 ? frame.pointer.pointee.pkt_duration
            : ((video.framesPerSecond ?? 0) > 0 ? stream.ticks(micro: Int64(1_000_000 / (video.framesPerSecond ?? 1))) : 1)
        let frameEnd = frame.timestamp.plus(frameTicks)
        // The video's own end: its stated duration, else where its packets were measured to end — never the
        // file's, which another (longer) stream may set: past the video's last frame, that frame is shown.
        let duration = stream.pointee.duration
        let statedEnd = duration > 0 && duration != CAV_NOPTS_VALUE ? stream.startTicksOrZero.plus(duration)
            : streamTimestamp(video.measuredEndSeconds ?? durationSeconds)
        guard frameEnd.plus(frameTicks) <= min(target, statedEnd) else { return nil }
        return presentationSeconds(frameEnd)
    }

    /// Presentation-timeline seconds → stream ticks (origin: the container's start time), as a cut's start:
    /// a frame at tick T is shown at t only once T ≤ t.
    private func streamTimestamp(_ seconds: Double) -> Int64 {
        let micro = input.originMicro.plus(Micro.from(seconds: seconds) ?? (seconds < 0 ? Int64.min / 2 : Int64.max / 2))
        return StreamTime.startTicks(micro, stream.pointee.time_base)
    }

    private func presentationSeconds(_ timestamp: Int64) -> Double? {
        guard timestamp != CAV_NOPTS_VALUE else { return nil }
        let start = input.originMicro
        let micro = av_rescale_q(timestamp, stream.pointee.time_base, cav_time_base_q()).minus(start)
        return Double(micro) / Double(AV_TIME_BASE)
    }

    /// The index's keyframe at or before `timestamp`, when the container has an index.
    private func keyframeTimestamp(atOrBefore timestamp: Int64) -> Int64? {
        guard input.indexListsKeyframes, avformat_index_get_entries_count(stream) > 0,
              let entry = avformat_index_get_entry_from_timestamp(stream, timestamp, AVSEEK_FLAG_BACKWARD) else { return nil }
        return entry.pointee.timestamp
    }
}

