import CAV
import Glibc

/// Ends an MP4/MOV's edit lists where the cut ends. FFmpeg's muxer sets each edit's length from the
/// packets it wrote, so frames written only because the kept ones reference them (B-frames after `end`)
/// would be shown; FFmpeg's demuxer and GStreamer's qtdemux both honour an edit's end, so shortening the
/// video's edit — and the track and movie durations that ffprobe and players report — hides them. The
/// other tracks (audio) are shortened to end with the video. Done in place on the finished file: only
/// values change, no box moves.
enum MovieHeaderPatch {
    /// The video track's timescale as FFmpeg 5.1's mov muxer picks it (the stream's time base
    /// denominator, doubled until ≥ 10000); the movie timescale is set to it so edits are exact in ticks.
    static func trackTimescale(_ timeBase: Rational) -> Int {
        var scale = max(1, timeBase.denominator)
        while scale < 10000 { scale *= 2 }
        return scale
    }

    static func endEdits(path: String, videoTrackID: Int, videoEditTicks: Int64, timeBase: Rational) throws(AVFailure) {
        try MovieBoxes.withMovieBox(path: path) { (moov: inout [UInt8]) throws(AVFailure) in
            try patch(&moov, videoTrackID: videoTrackID, videoEditTicks: videoEditTicks, timeBase: timeBase)
        }
    }

    /// A copy join: the video shows `edits` (one per range, in the video's `timeBase`) instead of the muxer's
    /// single edit; the other tracks end with it. The muxer's edit says where its output time 0 lies in the
    /// media; each range's edit starts that far plus its own place. The `elst` grows, and with it `moov`.
    static func writeEdits(path: String, videoTrackID: Int, edits: [MediaEdit], timeBase: Rational) throws(AVFailure) {
        try MovieBoxes.withMovieBox(path: path) { (moov: inout [UInt8]) throws(AVFailure) in
            let total = edits.reduce(Int64(0)) { $0.plus($1.duration) }
            try patch(&moov, videoTrackID: videoTrackID, videoEditTicks: total, timeBase: timeBase)
            try replaceEdits(&moov, videoTrackID: videoTrackID, edits: edits, timeBase: timeBase)
        }
    }

    /// Replaces the video track's `elst` in a `moov` held in memory with one entry per edit, fixing the sizes
    /// of the boxes around it (`edts`, `trak`; `moov`'s own is set when it is written).
    static func replaceEdits(_ moov: inout [UInt8], videoTrackID: Int, edits: [MediaEdit], timeBase: Rational) throws(AVFailure) {
        let children = MovieBoxes.boxes(in: moov, from: 8, to: moov.count)
        guard let mvhd = children.first(where: { $0.type == "mvhd" }) else { throw failure(EINVAL, "no mvhd box") }
        let movieScale = Int(MovieBoxes.read(moov, at: mvhd.start + (MovieBoxes.version(moov, of: mvhd) == 1 ? 28 : 20), bytes: 4))
        for trak in children where trak.type == "trak" {
            let parts = MovieBoxes.boxes(in: moov, from: trak.start + 8, to: trak.end)
            guard let tkhd = parts.first(where: { $0.type == "tkhd" }),
                  MovieBoxes.trackID(moov, tkhd: tkhd) == videoTrackID else { continue }
            guard let edts = parts.first(where: { $0.type == "edts" }),
                  let elst = MovieBoxes.boxes(in: moov, from: edts.start + 8, to: edts.end).first(where: { $0.type == "elst" }),
                  let mdhd = parts.first(where: { $0.type == "mdia" }).flatMap({ mdia in
                      MovieBoxes.boxes(in: moov, from: mdia.start + 8, to: mdia.end).first { $0.type == "mdhd" } }) else {
                throw failure(EINVAL, "no video edit list")
            }
            let mediaScale = Int(MovieBoxes.read(moov, at: mdhd.start + (MovieBoxes.version(moov, of: mdhd) == 1 ? 28 : 20), bytes: 4))
            guard movieScale > 0, mediaScale > 0 else { throw failure(EINVAL, "timescale 0") }
            // The muxer's entries: empty ones (a delay, movie ticks), then the media shown from output time 0 plus that delay.
            let version = MovieBoxes.version(moov, of: elst)
            let entrySize = version == 1 ? 20 : 12, fieldBytes = version == 1 ? 8 : 4
            let count = Int(MovieBoxes.read(moov, at: elst.start + 12, bytes: 4))
            guard count > 0, count <= (elst.end - elst.start - 16) / entrySize else { throw failure(EINVAL, "malformed elst") }
            var delay: Int64 = 0
            for entry in 0..<(count - 1) {
                delay = delay.plus(Int64(clamping: MovieBoxes.read(moov, at: elst.start + 16 + entry * entrySize, bytes: fieldBytes)))
            }
            let lastMediaTime = MovieBoxes.read(moov, at: elst.start + 16 + (count - 1) * entrySize + fieldBytes, bytes: fieldBytes)
            let mediaTimeSigned = fieldBytes == 4 ? Int64(Int32(truncatingIfNeeded: lastMediaTime)) : Int64(bitPattern: lastMediaTime)
            guard mediaTimeSigned >= 0 else { throw failure(EINVAL, "the muxer's edit is empty") }
            let zero = mediaTimeSigned.minus(Rescale.ticks(delay, from: Rational(1, movieScale), to: Rational(1, mediaScale)))

            var entries: [(duration: Int64, mediaTime: Int64)] = []
            for edit in edits {
                let mediaTime = zero.plus(Rescale.ticks(edit.mediaStart, from: timeBase, to: Rational(1, mediaScale)))
                let duration = Rescale.ticks(edit.duration, from: timeBase, to: Rational(1, movieScale), roundingDown: true)
                guard mediaTime >= 0, duration > 0 else { throw failure(EINVAL, "an edit outside the media") }
                entries.append((duration, mediaTime))
            }
            let wide = entries.contains { $0.duration > Int64(UInt32.max) || $0.mediaTime > Int64(Int32.max) }
            var box = MovieBoxes.header(size: 16 + entries.count * (wide ? 20 : 12), type: "elst") + [wide ? 1 : 0, 0, 0, 0]
            func append(_ value: Int64, _ width: Int) {
                for index in 0..<width { box.append(UInt8(truncatingIfNeeded: value >> (8 * (width - 1 - index)))) }
            }
            append(Int64(entries.count), 4)
            for entry in entries {
                append(entry.duration, wide ? 8 : 4)
                append(entry.mediaTime, wide ? 8 : 4)
                append(1 << 16, 4)  // rate 1.0
            }
            let grown = box.count - (elst.end - elst.start)
            moov.replaceSubrange(elst.start..<elst.end, with: box)
            try MovieBoxes.setSize(&moov, at: edts.start, to: edts.end - edts.start + grown)
            try MovieBoxes.setSize(&moov, at: trak.start, to: trak.end - trak.start + grown)
            return
        }
        throw failure(EINVAL, "no video track")
    }

    /// Patches a `moov` box held in memory (header included).
    static func patch(_ moov: inout [UInt8], videoTrackID: Int, videoEditTicks: Int64, timeBase: Rational) throws(AVFailure) {
        let children = MovieBoxes.boxes(in: moov, from: 8, to: moov.count)
        guard let mvhd = children.first(where: { $0.type == "mvhd" }) else { throw failure(EINVAL, "no mvhd box") }
        let mvhdVersion = MovieBoxes.version(moov, of: mvhd)
        let movieScale = Int64(MovieBoxes.read(moov, at: mvhd.start + (mvhdVersion == 1 ? 28 : 20), bytes: 4))
        guard movieScale > 0 else { throw failure(EINVAL, "movie timescale 0") }
        // The edit's length in movie ticks (exact when the movie timescale is the track's), rounded down so
        // no frame past the end can show.
        let editLength = Rescale.ticks(videoEditTicks, from: timeBase, to: Rational(1, Int(movieScale)), roundingDown: true)
        var tracks: [(tkhd: MovieBoxes.Box, elst: MovieBoxes.Box?, id: Int)] = []
        for trak in children where trak.type == "trak" {
            let parts = MovieBoxes.boxes(in: moov, from: trak.start + 8, to: trak.end)
            guard let tkhd = parts.first(where: { $0.type == "tkhd" }) else { continue }
            let version = MovieBoxes.version(moov, of: tkhd)
            let id = Int(MovieBoxes.read(moov, at: tkhd.start + (version == 1 ? 28 : 20), bytes: 4))
            let elst = parts.first(where: { $0.type == "edts" }).flatMap { edts in
                MovieBoxes.boxes(in: moov, from: edts.start + 8, to: edts.end).first { $0.type == "elst" }
            }
            tracks.append((tkhd, elst, id))
        }
        guard let video = tracks.first(where: { $0.id == videoTrackID }) else { throw failure(EINVAL, "no video track") }
        guard let videoEdit = video.elst else { throw failure(EINVAL, "no video edit list") }
        try setTrack(&moov, tkhd: video.tkhd, elst: videoEdit, to: editLength)
        var longest = editLength
        for track in tracks where track.id != videoTrackID {
            let current = trackDuration(moov, track.tkhd)
            if current > editLength {
                if let elst = track.elst { try setTrack(&moov, tkhd: track.tkhd, elst: elst, to: editLength) }
            }
            longest = max(longest, trackDuration(moov, track.tkhd))
        }
        try write(&moov, at: mvhd.start + (mvhdVersion == 1 ? 32 : 24), value: longest, bytes: mvhdVersion == 1 ? 8 : 4)
    }

    private static func trackDuration(_ moov: [UInt8], _ tkhd: MovieBoxes.Box) -> Int64 {
        let version = MovieBoxes.version(moov, of: tkhd)
        return Int64(clamping: MovieBoxes.read(moov, at: tkhd.start + (version == 1 ? 36 : 28), bytes: version == 1 ? 8 : 4))
    }

    /// Sets a track's presented length: its tkhd duration, and the last edit (after any empty ones).
    private static func setTrack(_ moov: inout [UInt8], tkhd: MovieBoxes.Box, elst: MovieBoxes.Box, to length: Int64) throws(AVFailure) {
        let version = MovieBoxes.version(moov, of: tkhd)
        try write(&moov, at: tkhd.start + (version == 1 ? 36 : 28), value: length, bytes: version == 1 ? 8 : 4)
        let editVersion = MovieBoxes.version(moov, of: elst)
        let count = Int(MovieBoxes.read(moov, at: elst.start + 12, bytes: 4))
        let entrySize = editVersion == 1 ? 20 : 12
        guard count > 0, elst.start + 16 + count * entrySize <= elst.end else { throw failure(EINVAL, "malformed elst") }
        let fieldBytes = editVersion == 1 ? 8 : 4
        var empty: Int64 = 0
        for entry in 0..<(count - 1) {
            empty = empty.plus(Int64(clamping: MovieBoxes.read(moov, at: elst.start + 16 + entry * entrySize, bytes: fieldBytes)))
        }
        guard length > empty else { throw failure(EINVAL, "edit shorter than its delay") }
        try write(&moov, at: elst.start + 16 + (count - 1) * entrySize, value: length - empty, bytes: fieldBytes)
    }

    private static func write(_ bytes: inout [UInt8], at offset: Int, value: Int64, bytes count: Int) throws(AVFailure) {
        guard value >= 0, count == 8 || value <= Int64(UInt32.max), offset + count <= bytes.count else {
            throw failure(ERANGE, "duration does not fit its field")
        }
        for index in 0..<count { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - index))) }
    }

    static func failure(_ code: Int32, _ detail: String = "") -> AVFailure {
        AVFailure(code: cav_averror(code), operation: "write header patch")
    }
}
