import Foundation
import LibraryFiles
import MediaEngine
import WorkerProtocol

/// The engine work a `vtrim _worker` does for `vtrim serve` (the server never touches the engine itself).
public enum WorkerTasks {
    /// `vtrim probe --json`'s object for a file, and the MIME type with RFC 6381 codecs a page passes to
    /// `canPlayType` (nil when the file cannot be probed).
    public static func probe(path: String) -> (outcome: Outcome, mime: String?) {
        do throws(MediaError) {
            let info = try Probe.probe(path: path)
            return (ProbeJob.outcome(info), mime(info))
        } catch {
            return (.failure(error), nil)
        }
    }

    static func mime(_ info: MediaInfo) -> String {
        var codecs: [String] = []
        if let video = info.video {
            switch video.codec {
            case "h264":
                let profile = ["baseline": "42E0", "constrained baseline": "42E0", "main": "4D40", "high": "6400",
                               "high 10": "6E00", "high 4:2:2": "7A00", "high 4:4:4 predictive": "F400"][video.profile?.lowercased() ?? ""] ?? "6400"
                codecs.append("avc1.\(profile)28")
            case "hevc": codecs.append(video.codecTag == "hev1" ? "hev1.1.6.L93.B0" : "hvc1.1.6.L93.B0")
            case "vp9": codecs.append("vp09.00.10.08")
            case "vp8": codecs.append("vp8")
            case "av1": codecs.append("av01.0.04M.08")
            case "mpeg4": codecs.append("mp4v.20.8")
            default: codecs.append(video.codec)
            }
        }
        if let audio = info.audio.first {
            switch audio.codec {
            case "aac": codecs.append("mp4a.40.2")
            case "mp3": codecs.append("mp4a.69")
            case "opus": codecs.append("opus")
            case "vorbis": codecs.append("vorbis")
            default: codecs.append(audio.codec)
            }
        }
        return "\(container(info)); codecs=\"\(codecs.joined(separator: ", "))\""
    }

    /// The container's media type, from what the demuxer read (not the name's extension: a `.ts` is no MP4, and a
    /// browser told it is tries to play it as one). Types browsers cannot play are named as they are, so that
    /// `canPlayType` says no and the page asks for a preview.
    static func container(_ info: MediaInfo) -> String {
        let kind = info.video == nil ? "audio" : "video"
        let demuxers = Set(info.formatName.split(separator: ","))
        if demuxers.contains("mov") || demuxers.contains("mp4") { return "\(kind)/mp4" }
        if demuxers.contains("matroska") {
            return (info.path as NSString).pathExtension.lowercased() == "webm" ? "\(kind)/webm" : "\(kind)/x-matroska"
        }
        switch info.formatName {
        case "mpegts": return "video/mp2t"
        case "avi": return "video/x-msvideo"
        case "ogg": return "\(kind)/ogg"
        case "mp3": return "audio/mpeg"
        case "flac": return "audio/flac"
        case "wav": return "audio/wav"
        case "aac": return "audio/aac"
        default: return "application/octet-stream"
        }
    }

    /// The presentation times (seconds) of a file's video frames, for frame stepping; or the failure report.
    public static func frameTimes(path: String) -> (times: [Double]?, failure: Outcome?) {
        let read = framesAndCleanStarts(path: path)
        return (read.frames?.times, read.failure)
    }

    /// The frames' presentation times and the clean starts among them (the strip's keyframe ticks); or the failure report.
    public static func framesAndCleanStarts(path: String) -> (frames: (times: [Double], cleanStarts: [Double])?, failure: Outcome?) {
        do throws(MediaError) {
            return (try FrameTimes.readWithCleanStarts(path: path), nil)
        } catch {
            return (nil, .failure(error))
        }
    }

    /// Renders a filmstrip tile (see `FilmstripTile`); nil when done, else the failure report.
    public static func renderTile(path: String, request: FilmstripTile.Request, output: String) -> Outcome? {
        do throws(MediaError) {
            _ = try FilmstripTile.render(path: path, request: request, output: output)
            return nil
        } catch {
            return .failure(error)
        }
    }

    /// The request of an edit `vtrim serve` makes: its ranges into the named output, never over an existing file,
    /// at the defaults the command line has (`EditDefaults`; mode nil: the edit's default).
    public static func editRequest(output: String, ranges: [ServeRange], shape: EditShape, mode: CutMode?, threads: ThreadBudget) -> CutRequest {
        let segments = ranges.map { CutSegment(start: .seconds($0.start), end: .seconds($0.end), lengthSeconds: nil, label: $0.label) }
        var request = CutRequest(segments: shape == .cut ? segments : [], mode: mode, crf: nil, preset: EditDefaults.preset, minDurationSeconds: nil, maxDurationSeconds: nil, clamp: false,
                                 output: OutputNamer(choice: .file(output), template: nil), overwrite: false, dryRun: true, strict: false,
                                 threads: threads)
        if shape == .join { request.join = JoinRanges(ranges: segments, removes: false) }
        return request
    }

    /// `vtrim propose --json`'s object for the page's Propose menu (the ranges to keep), or the failure report.
    public static func propose(path: String, ask: ProposalAsk, threads: ThreadBudget, progress: @escaping @Sendable (Double) -> Void) -> Outcome {
        var tuning = ProposalTuning()
        tuning.padSeconds = ask.padSeconds
        tuning.snapsToKeyframes = ask.snap
        switch ProposeRequest.make(kinds: ask.kinds, tuning: tuning) {
        case let .failure(error):
            return .failure(MediaError(.invalidRange, path: path, operation: "propose", reason: error.message))
        case var .success(request):
            request.threads = max(1, threads.encoder)
            return ProposeJob.run(item: InputItem(path: path, relativePath: (path as NSString).lastPathComponent), request: request, progress: progress)
        }
    }

    /// Makes a browser-playable preview of `path` into `output` (see `PreviewEncoder`).
    public static func preview(path: String, to output: String, threads: Int, shouldStop: () -> Bool,
                               progress: (Double) -> Void) -> MediaError? {
        do throws(MediaError) {
            _ = try PreviewEncoder.encode(path: path, to: output, threads: threads, shouldStop: shouldStop, progress: progress)
            return nil
        } catch {
            return error
        }
    }
}

extension CutMode {
    /// The mode a worker request names.
    public init(_ mode: EditMode) {
        switch mode {
        case .copy: self = .copy
        case .keyframe: self = .keyframe
        case .exact: self = .exact
        case .smart: self = .smart
        }
    }
}

extension EditMode {
    /// The protocol's name for a mode.
    public init(_ mode: CutMode) {
        switch mode {
        case .copy: self = .copy
        case .keyframe: self = .keyframe
        case .exact: self = .exact
        case .smart: self = .smart
        }
    }
}

extension ThreadBudget {
    /// A worker's share of the machine, divided between its encoder and decoder.
    init(_ share: ThreadShare) {
        self = .share(cores: share.cores, jobs: share.jobs)
    }
}
