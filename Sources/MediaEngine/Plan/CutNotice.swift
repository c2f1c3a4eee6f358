/// What a cut tells its user besides the file: a typed value with a stable code. The engine decides
/// which notices apply; `message` is the one place where they become words.
public enum CutNotice: Sendable, Equatable, Codable {
    /// When a notice is known: plan-time ones before anything is read or written (a dry run shows them,
    /// `--strict` refuses on a plan-time warning), run-time ones only while reading or decoding.
    public enum Timing: String, Sendable { case plan, run }

    // Notes (plan-time).
    /// Copy into MP4/MOV from a keyframe before `start`: an edit list hides the lead-in.
    case leadInHidden(keyframeSeconds: Double, leadInSeconds: Double, firstFrameSeconds: Double)
    /// The output starts on the keyframe (keyframe mode, or a copy into a container without edit lists).
    case startsAtKeyframe(keyframeSeconds: Double, requestedSeconds: Double, container: String?)
    /// A copy into a container without edit lists shows frames past `end` that the kept ones need.
    case framesPastEnd(count: Int, untilSeconds: Double, container: String)
    case streamLeftOut(index: Int, reason: LeftOut, codec: String, tag: String?)
    case audioOnly
    case turnedUpright(container: String)
    case pixelFormatConverted(from: String, to: String, encoder: String)
    case leadingFramesLeftOut(count: Int)
    case headReencoded(frames: Int, untilSeconds: Double)
    case tailReencoded(frames: Int, fromSeconds: Double)
    /// A join's range with no whole group of pictures to copy, re-encoded whole (from the frame at its start).
    case rangeReencoded(frames: Int, fromSeconds: Double)
    case audioPacketsSplit(codec: String)
    /// GoPro telemetry (gpmd) kept: its samples in the range, on the output's timeline.
    case telemetryKept(index: Int)
    /// A join's audio re-encoded so every seam is sample-exact.
    case audioReencoded(index: Int, codec: String)
    case encoderInfoCarried(build: Int)
    /// Exact cuts: the frame at `start` is shown whole (not as a sliver); the time comes off the last frame.
    case firstFrameWhole(seconds: Double)

    // Warnings (plan-time).
    /// No keyframe at or before `start`: the video starts later than asked.
    case startsLate(keyframeSeconds: Double, requestedSeconds: Double)
    /// The keyframe before `start` is not a clean start and the clean one lies more than two groups of
    /// pictures earlier: that much more is read and decoded (and, in keyframe mode, shown).
    case cleanStartFar(uncleanSeconds: Double, cleanSeconds: Double, keyframesPassed: Int)
    /// No clean start lies at or before `start` (a capture that begins mid-stream): decoding starts at a
    /// flagged keyframe that is not one, so frames after it may refer to pictures the cut does not have.
    case uncleanStart(keyframeSeconds: Double)
    case smartFallback(SmartFallback)
    /// A join that named no mode is copied (or made exactly): smart, its default, is not available for its video and output.
    case smartUnavailable(SmartFallback)
    /// A copy join into MP4/MOV: one edit-list entry per range, which not every reader honours.
    case multipleEdits(ranges: Int, container: String)
    /// A copy join into a container without edit lists shows footage outside its ranges: each range's lead-in
    /// from its keyframe and the frames past its end its frames need (source seconds, per range).
    case joinExtraFootage(spans: [JoinExtraSpan], container: String)
    /// A join's range starts later on the output than the range before ends: its keyframe decodes (a reorder
    /// delay early) before the range before has finished decoding, and decode times must rise.
    case joinSeamGap(range: Int, seconds: Double)
    /// Sample-exact seams were asked (or the join is exact) but this audio is copied: its seams are within half a frame.
    case audioSeamsNearest(index: Int, codec: String, why: String)
    /// H.264/HEVC into MP4/MOV: the parameter sets could not go where `--sample-entry` asked.
    case sampleEntry(type: String, reason: SampleEntryReason)
    /// A copy of an avc1/hvc1 source met parameter sets in its samples that its record lacks: kept there.
    case setsKeptInSamples(count: Int)
    /// A cut of a Dolby Vision stream into MP4/MOV keeps its HDR10/HLG base layer only.
    /// A warning when the base layer has no standard colour space to fall back on (profiles 5 and 10.0: IPT).
    case dolbyVisionDropped(profile: String, smart: Bool, compatible: Bool, unsignalledIn: String? = nil)
    case streamDropped(index: Int, codec: String, container: String)
    /// The output container cannot hold chapters (MPEG-TS, AVI).
    case chaptersLeftOut(count: Int, container: String)
    /// The output's timecode starts at the timecode of its first frame.
    case timecodeStarts(String)
    /// Text subtitles converted to the codec the output container holds.
    case subtitlesConverted(index: Int, from: String, to: String)

    // Warnings (run-time).
    case decodeErrors(count: Int)
    /// MPEG-TS: copied frames decode further ahead of their presentation than in the source (one decode delay for the
    /// output), from an output time on; `range` in a join.
    case decodeAheadGrows(range: Int?, seconds: Double, atSeconds: Double)
    /// The input ended before the planned end of the cut (its data stops where its index says more follows).
    case truncated(plannedEndSeconds: Double, writtenEndSeconds: Double)
    /// The range passes the readable end of a truncated input (known from its index or framing).
    case pastReadableEnd(endSeconds: Double, readableSeconds: Double, why: String)
    /// The input is truncated, but after the range: the cut is whole.
    case truncatedAfterRange(readableSeconds: Double)

    public enum LeftOut: String, Sendable, Codable {
        case coverArt = "cover_art"
        case secondVideo = "second_video"
        case dataTrack = "data_track"
        /// A QuickTime chapter track (text samples the demuxer turns into the file's chapters).
        case chapterTrack = "chapter_track"
        case subtitlesUnsupported = "subtitles_unsupported"
        case otherTrack = "other_track"
    }

    /// What a data track is, by its sample entry type (phones and cameras write these beside the video).
    static func dataTrackName(tag: String?) -> String? {
        switch tag {
        case "mebx": return "timed metadata"
        case "gpmd": return "GoPro telemetry"
        case "fdsc": return "GoPro firmware description"
        case "tmcd": return "timecode"
        case "camm": return "camera motion metadata"
        case "rtmd": return "Sony real-time metadata"
        case "text", "tx3g": return "text track"
        default: return nil
        }
    }

    /// Where subtitles of this codec can go instead.
    static func subtitleHint(_ codec: String) -> String {
        switch codec {
        case "subrip", "ass", "ssa", "webvtt", "mov_text": return " (text subtitles are kept in .mkv)"
        case "hdmv_pgs_subtitle", "dvb_subtitle", "dvd_subtitle": return " (bitmap subtitles are kept in .mkv)"
        default: return ""
        }
    }

    /// Notes about the input's streams rather than the range: said once per input, on its first segment.
    public var isAboutTheInput: Bool {
        if case .streamLeftOut = self { return true }
        if case .subtitlesConverted = self { return true }
        return false
    }

    public var code: String {
        switch self {
        case .leadInHidden: return "lead_in_hidden"
        case .startsAtKeyframe: return "starts_at_keyframe"
        case .framesPastEnd: return "frames_past_end"
        case .streamLeftOut: return "stream_left_out"
        case .audioOnly: return "audio_only"
        case .turnedUpright: return "turned_upright"
        case .pixelFormatConverted: return "pixel_format_converted"
        case .leadingFramesLeftOut: return "leading_frames_left_out"
        case .headReencoded: return "head_reencoded"
        case .tailReencoded: return "tail_reencoded"
        case .rangeReencoded: return "range_reencoded"
        case .audioPacketsSplit: return "audio_packets_split"
        case .encoderInfoCarried: return "encoder_info_carried"
        case .firstFrameWhole: return "first_frame_whole"
        case .startsLate: return "starts_late"
        case .cleanStartFar: return "clean_start_far"
        case .uncleanStart: return "unclean_start"
        case .smartFallback: return "smart_fallback"
        case .smartUnavailable: return "smart_unavailable"
        case .multipleEdits: return "multiple_edits"
        case .joinExtraFootage: return "join_extra_footage"
        case .joinSeamGap: return "join_seam_gap"
        case .audioSeamsNearest: return "audio_seams_nearest"
        case .audioReencoded: return "audio_reencoded"
        case .telemetryKept: return "telemetry_kept"
        case .sampleEntry, .setsKeptInSamples: return "sample_entry"
        case .dolbyVisionDropped: return "dolby_vision_dropped"
        case .streamDropped: return "stream_dropped"
        case .chaptersLeftOut: return "chapters_left_out"
        case .timecodeStarts: return "timecode_kept"
        case .subtitlesConverted: return "subtitles_converted"
        case .decodeErrors: return "decode_errors"
        case .decodeAheadGrows: return "decode_ahead_grows"
        case .truncated, .pastReadableEnd: return "truncated"
        case .truncatedAfterRange: return "input_truncated"
        }
    }

    public var isWarning: Bool {
        switch self {
        case .startsLate, .cleanStartFar, .uncleanStart, .smartFallback, .multipleEdits, .joinExtraFootage, .joinSeamGap, .audioSeamsNearest, .sampleEntry, .setsKeptInSamples, .streamDropped, .decodeErrors, .truncated, .pastReadableEnd: return true
        case let .dolbyVisionDropped(_, _, compatible, _): return !compatible
        default: return false
        }
    }

    public var timing: Timing {
        switch self {
        case .decodeErrors, .truncated, .setsKeptInSamples, .decodeAheadGrows: return .run
        default: return .plan
        }
    }

    /// Every code, for the README's table and its test.
    public static let codes: [(code: String, warning: Bool, timing: Timing)] = [
        ("lead_in_hidden", false, .plan), ("starts_at_keyframe", false, .plan), ("frames_past_end", false, .plan),
        ("stream_left_out", false, .plan), ("audio_only", false, .plan), ("turned_upright", false, .plan),
        ("pixel_format_converted", false, .plan), ("leading_frames_left_out", false, .plan),
        ("head_reencoded", false, .plan), ("tail_reencoded", false, .plan), ("range_reencoded", false, .plan), ("audio_packets_split", false, .plan), ("audio_reencoded", false, .plan), ("telemetry_kept", false, .plan),
        ("encoder_info_carried", false, .plan), ("dolby_vision_dropped", false, .plan), ("dolby_vision_dropped", true, .plan), ("chapters_left_out", false, .plan), ("timecode_kept", false, .plan), ("subtitles_converted", false, .plan),
        ("first_frame_whole", false, .plan), ("input_truncated", false, .plan), ("truncated", true, .plan),
        ("starts_late", true, .plan), ("clean_start_far", true, .plan), ("unclean_start", true, .plan), ("smart_fallback", true, .plan), ("smart_unavailable", false, .plan), ("multiple_edits", true, .plan), ("join_extra_footage", true, .plan), ("join_seam_gap", true, .plan), ("audio_seams_nearest", true, .plan), ("sample_entry", true, .plan), ("stream_dropped", true, .plan),
        ("decode_errors", true, .run), ("decode_ahead_grows", false, .run), ("truncated", true, .run), ("sample_entry", true, .run),
    ]

    public var message: String {
        switch self {
        case let .leadInHidden(keyframe, leadIn, first):
            return "stream copy from the keyframe at \(Words.seconds(keyframe)); an edit list hides the \(Words.seconds(leadIn)) lead-in, so players start with the frame shown at the start (\(Words.seconds(first)))"
        case let .startsAtKeyframe(keyframe, requested, container):
            let before = max(0, requested - keyframe)
            if let container {
                return "\(container) has no edit lists: the output starts at the keyframe at \(Words.seconds(keyframe)), \(Words.seconds(before)) before the start"
            }
            return "starts at the keyframe at \(Words.seconds(keyframe)), \(Words.seconds(before)) before the start (lead-in shown)"
        case let .framesPastEnd(count, until, container):
            return "\(container) has no edit lists: \(count) frame(s) past the end are kept because the frames before the end need them (shown until \(Words.seconds(until)))"
        case let .streamLeftOut(index, reason, codec, tag):
            let tagText = tag.map { " '\($0)'" } ?? ""
            switch reason {
            case .coverArt: return "stream #\(index): cover art (\(codec)) is not kept in a cut"
            case .secondVideo: return "stream #\(index): a second video track (\(codec)) is not kept; only the main video is cut"
            case .dataTrack:
                let name = Self.dataTrackName(tag: tag)
                return "stream #\(index): \(name.map { "\($0) ('\(tag ?? "")')" } ?? "data track\(tagText)") is not cut; left out"
            case .chapterTrack: return "stream #\(index): chapter track\(tagText) is not cut; its chapters are left out"
            case .subtitlesUnsupported: return "stream #\(index): subtitles (\(codec)) cannot be stored in this container\(Self.subtitleHint(codec)); left out"
            case .otherTrack: return "stream #\(index): \(codec) track\(tagText) is not kept"
            }
        case .audioOnly:
            return "no video stream: the audio is cut by stream copy"
        case let .turnedUpright(container):
            return "the picture is turned upright while re-encoding (\(container) cannot carry a display matrix)"
        case let .pixelFormatConverted(from, to, encoder):
            return "pixel format \(from) converted to \(to) for \(encoder)"
        case let .leadingFramesLeftOut(count):
            return "\(count) leading frame(s) of an open GOP before the keyframe are left out (they reference earlier frames and lie before the start)"
        case let .headReencoded(frames, until):
            return "\(frames) frame(s) re-encoded up to the keyframe at \(Words.seconds(until))"
        case let .tailReencoded(frames, from):
            return "\(frames) frame(s) re-encoded from \(Words.seconds(from)) to the end"
        case let .rangeReencoded(frames, from):
            return "the range from \(Words.seconds(from)) holds no whole group of pictures to copy: its \(frames) frame(s) are re-encoded, matching the copied ones"
        case let .encoderInfoCarried(build):
            return "the source's x264 version SEI (core \(build)) is put before the first copied frame, so decoders apply the workarounds that build needs"
        case let .audioPacketsSplit(codec):
            return "\(codec) packets holding several frames are split into one frame each, as 3GP/MOV need"
        case let .firstFrameWhole(seconds):
            return "the start falls late in a frame: that frame is shown whole, \(Words.seconds(seconds)) longer, and the last frame as much shorter"
        case let .startsLate(keyframe, requested):
            return "no keyframe at or before \(Words.seconds(requested)): the video starts at the first keyframe after it, \(Words.seconds(keyframe))"
        case let .cleanStartFar(unclean, clean, passed):
            return "the keyframe at \(Words.seconds(unclean)) is not a clean start (frames after it refer to earlier ones), nor are the \(passed - 1) before it: decoding starts at the clean start at \(Words.seconds(clean)), \(Words.seconds(unclean - clean)) earlier"
        case let .uncleanStart(keyframe):
            return "no clean start (IDR, CRA, or recovery point) lies at or before the start: decoding starts at the keyframe at \(Words.seconds(keyframe)), and frames after it may show damage"
        case let .smartFallback(reason):
            return "cut exactly instead of smartly: \(reason.description)"
        case let .smartUnavailable(reason):
            return "not smart: a join is smart by default where its video can be cut smartly, and here it cannot: \(reason.description)"
        case let .telemetryKept(index):
            return "stream #\(index): GoPro telemetry (gpmd) kept: its samples in the range, on the output's timeline"
        case let .audioReencoded(index, codec):
            return "stream #\(index): the audio (\(codec)) is re-encoded so every seam is exact to the sample"
        case let .audioSeamsNearest(index, codec, why):
            return "stream #\(index): the audio (\(codec)) is copied, so its seams are within half an audio frame, not exact to the sample (\(why))"
        case let .multipleEdits(ranges, container):
            return "the \(ranges) ranges are copied into \(container) with an edit-list entry each: FFmpeg and Chromium show exactly the ranges (Chromium's duration includes the last range's hidden frames); GStreamer 1.22 shows the first range and at most part of the second, nothing after (--mode smart plays the same everywhere)"
        case let .joinExtraFootage(spans, container):
            func listed(_ spans: [JoinExtraSpan]) -> String {
                spans.map { "range \($0.range) \(Words.seconds($0.fromSeconds))–\(Words.seconds($0.toSeconds))" }.joined(separator: ", ")
            }
            func total(_ spans: [JoinExtraSpan]) -> Double { spans.reduce(0) { $0 + max(0, $1.toSeconds - $1.fromSeconds) } }
            let outside = spans.filter { !$0.repeated }, twice = spans.filter(\.repeated)
            var parts: [String] = []
            if !outside.isEmpty { parts.append("\(Words.seconds(total(outside))) of footage outside its ranges (\(listed(outside)) of the source)") }
            if !twice.isEmpty { parts.append("\(Words.seconds(total(twice))) twice (\(listed(twice)), which another range shows too)") }
            return "the copy join shows \(parts.joined(separator: " and ")): \(container) has no edit lists to hide a copy's lead-in from its keyframe and the frames past its end (--mode smart or exact shows only the ranges)"
        case let .joinSeamGap(range, seconds):
            return "range \(range) starts \(Words.seconds(seconds)) after the range before ends on the output (the previous frame shows that much longer): its keyframe decodes ahead of its first frame by more than the range before leaves room for"
        case let .setsKeptInSamples(count):
            return "\(count) parameter set(s) inside the source's samples are not in its sample entry (joined files?); they stay in the samples, which players that read only the sample entry ignore"
        case let .dolbyVisionDropped(profile, smart, compatible, container):
            let shown = compatible ? "players show its base layer" : "its pictures are in Dolby Vision's own colour space, which players then show with wrong colours"
            if let container {
                return "the cut is not signalled as Dolby Vision \(profile): \(container) has no place for its configuration (FFmpeg 5.1 writes none), though every frame keeps its RPU; \(shown); MP4, MOV or Matroska keep Dolby Vision"
            }
            let frames = smart ? "a smart cut's re-encoded edges" : "an exact cut's re-encoded frames"
            return "the cut is not Dolby Vision \(profile) (\(frames) cannot carry its per-frame metadata: they are turned upright, converted, in another codec, or the stream has two layers): \(shown); --mode copy keeps Dolby Vision"
        case let .sampleEntry(type, reason):
            return "the video is written as `\(type)`: \(reason.description)"
        case let .subtitlesConverted(index, from, to):
            return "stream #\(index): subtitles converted from \(from) to \(to), which this container holds"
        case let .timecodeStarts(text):
            return "the timecode starts at \(text), the source's timecode at the first kept frame"
        case let .chaptersLeftOut(count, container):
            return "\(count) chapter(s) left out: \(container) cannot hold chapters"
        case let .streamDropped(index, codec, container):
            return "audio stream #\(index) (\(codec)) cannot be stored in \(container); it is left out"
        case let .decodeAheadGrows(range, seconds, at):
            let which = range.map { "range \($0)'s copied frames" } ?? "copied frames"
            return "\(which) decode up to \(Words.seconds(seconds)) further ahead of their presentation than in the source, from \(Words.seconds(at)) on the output (one decode delay for the whole output): MPEG-TS decoders hold that much more of the stream in their buffer, which a stream at its level's buffer limit may overflow"
        case let .decodeErrors(count):
            return "\(count) decode error(s) while re-encoding (packets the decoder refused or frames it flagged as damaged)"
        case let .truncated(planned, written):
            return "the input ends early: the cut was planned to \(Words.seconds(planned)) but the data stops at \(Words.seconds(written))"
        case let .pastReadableEnd(end, readable, why):
            return "the input is truncated (\(why)): about \(Words.seconds(readable)) can be read, so the cut ends where its data does, before \(Words.seconds(end))"
        case let .truncatedAfterRange(readable):
            return "the input is truncated after \(Words.seconds(readable)); the range lies before that"
        }
    }

    public var asWarning: MediaWarning { MediaWarning(code: code, message: message) }
}

/// Why a video's parameter sets do not go where `--sample-entry` asked.
public enum SampleEntryReason: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The source changes a set's contents under the same id inside the range.
    case setChanges(kind: String, id: Int, seconds: Double?)
    /// Every id a re-encoded part could take is used by the source.
    case noFreeIds
    /// Exact cuts always put the encoder's sets in the sample entry.
    case exactOutOfBand

    public var description: String {
        switch self {
        case let .setChanges(kind, id, seconds):
            let when = seconds.map { " at \(Words.seconds($0))" } ?? ""
            return "the source changes \(kind) \(id)\(when) inside the range, and one sample entry cannot hold both versions, so the parameter sets stay in the samples (players that need every set in the sample entry, such as Apple's, may refuse it)"
        case .noFreeIds:
            return "the source uses every parameter set id the re-encoded parts could take, so their sets go in the samples"
        case .exactOutOfBand:
            return "exact cuts keep every parameter set in the sample entry (sets in the samples are for copy and smart cuts)"
        }
    }
}

/// Why a smart cut cannot be made, so the cut is made exactly instead.
public enum SmartFallback: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    case codec(String)
    case container(String)
    case pixelFormat(String)
    case interlaced
    /// The output cannot carry the source's display matrix, and a copied middle cannot be turned upright.
    case orientation(container: String, degrees: Int)
    /// Matroska stores no decode times, and the source reorders deeper than the edges' encoder can declare.
    case reorderDepth(frames: Int, encoder: String)
    /// The edges' encoder, read back, does not write a property of the source's stream.
    case parameterMismatch(field: String, source: String, edge: String)
    case configurationRecord
    case lengthSize(Int)
    case encoderRefused(encoder: String, detail: String)
    /// No clean random-access point lies inside the range.
    case noCleanKeyframe
    /// Fewer than two clean random-access points in the range: no whole group of pictures to copy.
    case nothingToCopy
    /// A join's ranges cannot share one video track as smart cuts (their sample entries or stream headers differ).
    case rangesDiffer(String)
    /// The video carries an alpha channel beside its frames (VP8/VP9 in Matroska's BlockAdditional), which
    /// re-encoded edges would not.
    case alpha

    public var code: String {
        switch self {
        case .codec: return "codec"
        case .container: return "container"
        case .pixelFormat: return "pixel_format"
        case .interlaced: return "interlaced"
        case .orientation: return "orientation"
        case .reorderDepth: return "reorder_depth"
        case .parameterMismatch: return "parameter_mismatch"
        case .configurationRecord: return "configuration_record"
        case .lengthSize: return "nal_length_size"
        case .encoderRefused: return "encoder_refused"
        case .noCleanKeyframe: return "no_clean_keyframe"
        case .nothingToCopy: return "nothing_to_copy"
        case .rangesDiffer: return "ranges_differ"
        case .alpha: return "alpha"
        }
    }

    public var description: String {
        switch self {
        case let .codec(name):
            return "smart cuts handle \(Words.list(EditDefaults.smartCodecs.map(\.name))); this video is \(name)"
        case let .container(name):
            return "\(name) cannot take a smart cut of this video (smart cuts are written as \(EditDefaults.smartSummary))"
        case let .pixelFormat(name):
            return "the encoder cannot match the pixel format \(name) and profile of the source"
        case .interlaced:
            return "interlaced video cannot be joined seamlessly"
        case let .orientation(container, degrees):
            return "\(container) cannot carry the video's rotation (\(degrees)°) and copied frames cannot be turned upright"
        case let .parameterMismatch(field, source, edge):
            return "this machine's encoder cannot make edges that join the copied frames seamlessly, so all of it is re-encoded (its stream settings differ: \(field) is \(source) in the source, \(edge) from the encoder)"
        case let .reorderDepth(frames, encoder):
            return "the source reorders pictures \(frames) deep and \(encoder) declares at most 2, which Matroska (no stored decode times) needs to match"
        case .configurationRecord:
            return "the source's avcC/hvcC configuration record cannot be read"
        case let .lengthSize(size):
            return "the source's NAL units carry \(size)-byte lengths; smart cuts join only 4-byte ones"
        case let .encoderRefused(encoder, detail):
            return "the encoder refuses the source's quality settings at its picture size and rate, so all of it is re-encoded (\(encoder): \(detail))"
        case .noCleanKeyframe:
            return "no clean random-access point (IDR, CRA for HEVC, a shown keyframe for VP8/VP9/AV1, a GOP-opening I-frame for MPEG-2) lies inside the range, so all of it is re-encoded"
        case let .rangesDiffer(detail):
            return "the ranges cannot be joined in one smart video track (\(detail)), so all of them are re-encoded"
        case .nothingToCopy:
            return "the range holds one clean random-access point, and frames shown after the end are decoded before the last one shown before it, so nothing can be copied up to the end; all of it is re-encoded"
        case .alpha:
            return "the video carries an alpha channel (Matroska BlockAdditional), which re-encoded edges would lose"
        }
    }
}

/// Footage a copy join shows beyond a range: source seconds, the range (1-based) that shows it, and whether another
/// range asked for it (so the output shows it twice).
public struct JoinExtraSpan: Sendable, Equatable, Codable {
    public var range: Int
    public var fromSeconds: Double
    public var toSeconds: Double
    public var repeated = false
}
