import Foundation
import MediaEngine
import TestSupport
import Testing

/// What players need of an H.264/HEVC track in MP4/MOV (ISO/IEC 14496-15): every cut — exact, copy (from
/// MP4 and from MPEG-TS), smart — is `avc1`/`hvc1` with every parameter set in the sample entry's record
/// and none in the samples, every slice's PPS (and its SPS, and that SPS's VPS) in the record that covers
/// it, and the record's profile, tier and level covering every SPS; checked by walking the boxes, then
/// decoded in full by ffmpeg and by GStreamer.
struct SampleEntryTests {
    static func expectOutOfBand(_ path: String, entry: String, _ context: String) throws {
        let track = try MP4VideoTrack.read(path)
        #expect(track.entries.map(\.type) == [entry], "\(context)")
        let wanted: Set<Int> = entry == "hvc1" ? [32, 33, 34] : [7, 8]
        let record = Set(track.entries.first?.recordNALTypes ?? [])
        #expect(record.isSuperset(of: wanted), "\(context): record holds \(record.sorted())")
        let inBand = track.sampleNALTypes.enumerated().filter { !$0.element.allSatisfy { !track.parameterSetTypes.contains($0) } }.map(\.offset)
        #expect(inBand.isEmpty, "\(context): parameter sets inside samples \(inBand.prefix(5))")
        if entry == "hvc1" {
            // ISO/IEC 14496-15: in hvc1 every VPS/SPS/PPS array says it is complete (FFmpeg 5.1 writes 0).
            let incomplete = (track.entries.first?.arrayCompleteness ?? []).filter { (32...34).contains($0.type) && !$0.complete }
            #expect(incomplete.isEmpty, "\(context): hvcC arrays not marked complete: \(incomplete.map(\.type))")
        }
        try expectSlicesResolve(track, context)
    }

    /// Every slice's PPS, that PPS's SPS and (HEVC) that SPS's VPS are in the record of the entry `stsc`
    /// gives the sample; the record's profile, tier and level are at least every SPS's.
    static func expectSlicesResolve(_ track: MP4VideoTrack, _ context: String) throws {
        #expect(!track.sampleEntryIndices.isEmpty && track.sampleEntryIndices.allSatisfy { (1...track.entries.count).contains($0) }, "\(context)")
        let hevc = track.isHEVC
        for (number, entry) in track.entries.enumerated() {
            let setUnits = zip(entry.recordNALTypes, entry.recordUnits).filter { track.parameterSetTypes.contains($0.0) }.map(\.1)
            let sets = setUnits.compactMap { NALSyntax.setIds($0, hevc: hevc) }
            #expect(sets.count == setUnits.count, "\(context): unreadable set in record \(number + 1)")
            let pps = Dictionary(sets.filter { $0.type == (hevc ? 34 : 8) }.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let sps = Dictionary(sets.filter { $0.type == (hevc ? 33 : 7) }.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let vps = Set(sets.filter { $0.type == 32 }.map(\.id))
            for set in sps.values {
                guard let profile = set.profile else { continue }
                #expect(entry.recordProfile.profile >= profile.profile && entry.recordProfile.level >= profile.level
                        && entry.recordProfile.tier >= profile.tier,
                        "\(context): record \(entry.recordProfile) below SPS \(set.id)'s \(profile)")
                if hevc { #expect(set.parent.map(vps.contains) == true, "\(context): SPS \(set.id)'s VPS \(String(describing: set.parent)) missing") }
            }
            var unresolved: [Int] = []
            for (sample, ids) in track.sampleSlicePPSIds.enumerated() where track.sampleEntryIndices[sample] == number + 1 {
                for id in ids {
                    guard let id, let set = pps[id], let parent = set.parent, sps[parent] != nil else {
                        unresolved.append(sample)
                        break
                    }
                }
            }
            #expect(unresolved.isEmpty, "\(context): slices of samples \(unresolved.prefix(5)) refer to sets not in the record (PPS \(pps.keys.sorted()), SPS \(sps.keys.sorted()))")
        }
    }

    static func expectDecodesCleanly(_ path: String, hevc: Bool, _ context: String) async throws {
        // The null muxer's complaints about VFR timestamps are not decode errors.
        let ffmpeg = try await Run.tool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "null", "-"])
        let errors = ffmpeg.stderrLines.filter { !$0.contains("non monotonically increasing dts") && !$0.contains("Last message repeated") }
        #expect(ffmpeg.status == 0 && errors.isEmpty, "\(context): \(errors)")
        guard TestPaths.toolExists("gst-launch-1.0") else { return }
        let parser = hevc ? "h265parse ! avdec_h265" : "h264parse ! avdec_h264"
        let pipeline = "filesrc location=\(path) ! qtdemux name=d d.video_0 ! queue ! \(parser) ! fakesink"
        let gst = try await Run.tool("gst-launch-1.0", ["-q"] + pipeline.split(separator: " ").map(String.init))
        #expect(gst.status == 0, "\(context): GStreamer: \(gst.stderr) \(gst.stdout)")
        #expect(!gst.stderr.contains("ERROR") && !gst.stdout.contains("ERROR"), "\(context): \(gst.stderr)")
    }

    /// Cuts `file` and checks the output and the report's `sample_entry`.
    static func cut(_ file: String, _ mode: String, _ container: String, start: String = "0.2", end: String = "0.8",
                    extra: [String] = [], in folder: TemporaryFolder) async throws -> (output: String, report: [String: Any]) {
        let output = folder.file("\(URL(fileURLWithPath: file).lastPathComponent)-\(mode)-\(start)-\(end).\(container)")
        let result = try await Run.vtrim(["cut", "--json", file.hasPrefix("/") ? file : TestPaths.fixture(file), "--start", start, "--end", end,
                                    "--mode", mode, "-o", output] + extra)
        #expect(result.status == 0, "\(result)")
        return (output, try #require(result.jsonLines.first))
    }

    @Test(arguments: [("hevc.mp4", "exact", "mp4"), ("hevc.mp4", "exact", "mov"), ("h264-aac.mp4", "exact", "mp4"),
                      ("hevc.mp4", "copy", "mp4"), ("h264-aac.mp4", "copy", "mov"), ("hdr10-pq.mp4", "exact", "mp4"),
                      ("h264-aac.ts", "copy", "mp4"), ("hevc.ts", "copy", "mov"), ("hevc.ts", "keyframe", "mp4"),
                      ("h264-aac.mp4", "smart", "mp4"), ("h264-aac.mp4", "smart", "mov"), ("hevc.mp4", "smart", "mp4"),
                      ("hevc.mp4", "smart", "mov"), ("h264-aac.ts", "smart", "mp4"), ("hevc.ts", "smart", "mov"),
                      ("hevc.ts", "exact", "mp4"), ("hevc.ts", "exact", "mov")])
    func cutsAreOutOfBand(_ file: String, _ mode: String, _ container: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Smart ranges hold a head, a copied GOP and a tail.
        let (output, report) = try await Self.cut(file, mode, container, end: mode == "smart" ? (file == "hevc.mp4" ? "2" : "2.7") : "0.8",
                                            in: folder)
        let hevc = file.hasPrefix("hevc") || file.hasPrefix("hdr10")
        let entry = hevc ? "hvc1" : "avc1"
        let json = report["sample_entry"] as? [String: Any]
        #expect(json?["type"] as? String == entry && json?["parameter_sets"] as? String == "out_of_band", "\(report)")
        if mode == "smart" { #expect(report["mode"] as? String == "smart" && (report["smart"] as? [String: Any])?["sample_entry"] as? String == entry) }
        #expect((report["warnings"] as? [Any])?.isEmpty ?? true, "\(report)")
        try Self.expectOutOfBand(output, entry: entry, "\(file) \(mode) .\(container)")
        try await Self.expectDecodesCleanly(output, hevc: hevc, "\(file) \(mode) .\(container)")
    }

    /// A source whose record holds several PPS (and SPS, VPS) ids, all used by copied slices: a smart cut
    /// of a smart cut (the source's sets and x265's renumbered ones), cut smartly again from its head to
    /// its end (new ids for the new head; the old head, middle and tail copied) and copied.
    @Test func sourceWithSeveralParameterSetIds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // To 2.75 s, where the last group's frames need one after the end: x265's tail is in the first cut.
        let (first, _) = try await Self.cut("hevc.ts", "smart", "mp4", start: "0.4", end: "2.75", in: folder)
        let firstTrack = try MP4VideoTrack.read(first)
        let ppsIds = Set(firstTrack.sampleSlicePPSIds.flatMap { $0 }.compactMap { $0 })
        #expect(ppsIds.count == 2, "first cut's slices use PPS \(ppsIds)")
        for (mode, start) in [("smart", "0.1"), ("copy", "0.0")] {
            let (output, report) = try await Self.cut(first, mode, "mp4", start: start, end: "5", in: folder)
            #expect(report["mode"] as? String == mode)
            try Self.expectOutOfBand(output, entry: "hvc1", "second \(mode) cut")
            try await Self.expectDecodesCleanly(output, hevc: true, "second \(mode) cut")
            let used = Set(try MP4VideoTrack.read(output).sampleSlicePPSIds.flatMap { $0 }.compactMap { $0 })
            #expect(used.count == (mode == "smart" ? 3 : 2), "\(mode): slices use PPS \(used)")
        }
    }

    /// SPS 0 changes at 2 s in `sps-change.ts`: a range whose copied samples hold both versions is written
    /// `avc3` with a plan-time warning (and refused by --strict); one whose copied samples hold only one
    /// version (the change falls in a smart cut's re-encoded tail) stays `avc1`.
    @Test func parameterSetChangingInsideTheRange() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (mode, end, entry) in [("copy", "2.7", "avc3"), ("smart", "3.9", "avc3"), ("copy", "1.9", "avc1"), ("smart", "2.7", "avc1")] {
            let (output, report) = try await Self.cut("sps-change.ts", mode, "mp4", start: "0.4", end: end, in: folder)
            #expect((report["sample_entry"] as? [String: Any])?["type"] as? String == entry, "\(mode) to \(end): \(report)")
            let warnings = (report["warnings"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
            #expect(warnings == (entry == "avc3" ? ["sample_entry"] : []), "\(mode) to \(end)")
            let track = try MP4VideoTrack.read(output)
            if entry == "avc1" {
                try Self.expectOutOfBand(output, entry: "avc1", "\(mode) to \(end)")
            } else {
                #expect(track.entries.map(\.type) == ["avc3"])
                #expect(track.sampleNALTypes.contains { $0.contains(7) }, "the changed SPS is in band")
            }
            try await Self.expectDecodesCleanly(output, hevc: false, "\(mode) to \(end)")
        }
        let strict = try await Run.vtrim(["cut", "--strict", TestPaths.fixture("sps-change.ts"), "--start", "0.4", "--end", "2.7",
                                    "-o", folder.file("strict.mp4")])
        #expect(strict.status == 1 && strict.stderr.contains("SPS 0 at 2.000 s"), "\(strict)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("strict.mp4")))
    }

    /// `--sample-entry in-band` keeps the sets in the samples (avc3/hev1), as smart cuts were written
    /// before; the walker sees them there. Exact cuts keep theirs in the record and say so.
    @Test func inBandOnRequest() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (file, mode, entry) in [("h264-aac.mp4", "smart", "avc3"), ("hevc.ts", "smart", "hev1"), ("hevc.ts", "copy", "hev1")] {
            let (output, report) = try await Self.cut(file, mode, "mp4", start: "0.4", end: "2.7", extra: ["--sample-entry", "in-band"], in: folder)
            let json = report["sample_entry"] as? [String: Any]
            #expect(json?["type"] as? String == entry && json?["parameter_sets"] as? String == "in_band", "\(report)")
            let track = try MP4VideoTrack.read(output)
            #expect(track.entries.map(\.type) == [entry])
            let sps = entry == "avc3" ? 7 : 33
            #expect(track.sampleNALTypes.contains { $0.contains(sps) }, "\(file) \(mode): sets in the samples")
            try await Self.expectDecodesCleanly(output, hevc: entry == "hev1", "\(file) \(mode) in band")
        }
        let (output, report) = try await Self.cut("hevc.mp4", "exact", "mp4", extra: ["--sample-entry", "hev1"], in: folder)
        #expect((report["warnings"] as? [[String: Any]])?.first?["code"] as? String == "sample_entry")
        try Self.expectOutOfBand(output, entry: "hvc1", "exact asked for hev1")
        // The dry run shows the plan's entry.
        let dry = try await Run.vtrim(["cut", "--dry-run", TestPaths.fixture("hevc.ts"), "--start", "0.4", "--end", "2.7", "--mode", "smart",
                                 "-o", folder.file("dry.mp4")])
        #expect(dry.stdout.contains("entry     hvc1: parameter sets in the sample entry"), "\(dry.stdout)")
    }

    /// `--dry-run --json` shows the record the real run writes: the same sets, in the record's order, with
    /// the SPS's own profile and level (the smart cut's encoder's sets come from the plan's one trial).
    @Test(arguments: [("h264-aac.mp4", "smart"), ("hevc.ts", "smart"), ("h264-aac.ts", "copy")])
    func dryRunShowsTheRecordWritten(_ file: String, _ mode: String) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let dry = try await Run.vtrim(["cut", "--json", "--dry-run", TestPaths.fixture(file), "--start", "0.4", "--end", "2.7", "--mode", mode,
                                 "-o", folder.file("dry.mp4")])
        let plan = try #require(dry.jsonLines.first, "\(dry)")
        let planned = try #require((plan["sample_entry"] as? [String: Any])?["record"] as? [[String: Any]], "\(dry)")
        let (output, report) = try await Self.cut(file, mode, "mp4", start: "0.4", end: "2.7", in: folder)
        let written = try #require((report["sample_entry"] as? [String: Any])?["record"] as? [[String: Any]])
        func sets(_ record: [[String: Any]]) -> [String] {
            record.map { set in ["type", "id", "profile", "level"].map { "\(set[$0] ?? "-")" }.joined(separator: " ") }
        }
        #expect(sets(planned) == sets(written))
        let entry = try #require(try MP4VideoTrack.read(output).entries.first)
        let names = [7: "sps", 8: "pps", 32: "vps", 33: "sps", 34: "pps"]
        #expect(entry.recordNALTypes.map { names[$0] ?? "?" } == planned.map { $0["type"] as? String ?? "" })
        if mode == "smart" { #expect(planned.filter { $0["type"] as? String == "sps" }.count == 2, "the source's SPS and the encoder's") }
        if entry.type == "avc1" {
            for (unit, set) in zip(entry.recordUnits, planned) where set["type"] as? String == "sps" {
                #expect(set["profile"] as? Int == Int(unit[1]) && set["level"] as? Int == Int(unit[3]))
            }
        }
    }

    static let copyRows = ManifestRow.load().filter {
        ["h264", "hevc"].contains($0["video_codec"] ?? "") && $0["damaged"] == "no"
            && ($0["format_duration_s"].flatMap(Double.init) ?? 0) < 100
    }

    /// Copies of the real H.264/HEVC files (MP4, MOV, Matroska, MPEG-TS) into MP4: avc1/hvc1, every set in
    /// the record, slices resolved, a clean decode in both readers.
    @Test(.enabled(if: TestPaths.sharedMedia != nil, "../shared/media is absent"), arguments: copyRows.sanitizerShare)
    func realWorldCopies(_ row: ManifestRow) async throws {
        guard let duration = row["format_duration_s"].flatMap(Double.init) else { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let output = folder.file("copy.mp4")
        let result = try await Run.vtrim(["cut", "--json", row.path, "--start", String(SmartCutCheck.millis(duration * 0.25)),
                                    "--end", String(SmartCutCheck.millis(duration * 0.75)), "-o", output])
        #expect(result.status == 0, "\(row.file): \(result)")
        let report = try #require(result.jsonLines.first)
        let hevc = row["video_codec"] == "hevc"
        let warnings = (report["warnings"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
        if let change = Self.changingSets[row.file] {
            // Pinned: the source changes a set inside the range, so the sets stay in band, with a warning.
            #expect((report["sample_entry"] as? [String: Any])?["type"] as? String == (hevc ? "hev1" : "avc3"), "\(row.file): \(report)")
            let message = (report["warnings"] as? [[String: Any]])?.first { $0["code"] as? String == "sample_entry" }?["message"] as? String
            #expect(message?.contains(change) == true, "\(row.file): \(report)")
        } else {
            #expect(!warnings.contains("sample_entry"), "\(row.file): \(report)")
            #expect((report["sample_entry"] as? [String: Any])?["type"] as? String == (hevc ? "hvc1" : "avc1"), "\(row.file): \(report)")
            try Self.expectOutOfBand(output, entry: hevc ? "hvc1" : "avc1", row.file)
        }
        // The sanitized pass runs vtrim on every file; the normal pass decodes what it wrote in both readers.
        guard !TestPaths.sanitized else { return }
        try await Self.expectDecodesCleanly(output, hevc: hevc, row.file)
    }

    /// Real files whose parameter sets change inside the range copied, and the set named in the warning.
    static let changingSets: [String: String] = [
        // A Sony A7 III AVCHD clip: two PPS 0 of different contents alternate (checked in its Annex B stream).
        "metadata-extractor-images/Sony_ILCE-7M3_A7M3.mts": "PPS 0",
    ]

    /// Files joined by stream copy into MP4 keep the later parts' sets in their samples under avc1: a copy
    /// drops the duplicates of the record's sets and keeps the others where they are, with a run-time
    /// warning, rather than fail or drop them.
    @Test func joinedFileKeepsItsLaterSetsWithAWarning() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let joined = folder.file("joined.mp4")
        let remux = try await Run.tool("ffmpeg", ["-v", "error", "-i", TestPaths.fixture("sps-change.ts"), "-c", "copy", joined])
        #expect(remux.status == 0, "\(remux.stderr)")
        let source = try MP4VideoTrack.read(joined)
        #expect(source.entries.map(\.type) == ["avc1"] && source.sampleNALTypes.contains { $0.contains(7) }, "the fixture has sets in band")
        let (whole, report) = try await Self.cut(joined, "copy", "mp4", start: "0.4", end: "3.5", in: folder)
        let warnings = (report["warnings"] as? [[String: Any]]) ?? []
        #expect(warnings.compactMap { $0["code"] as? String } == ["sample_entry"], "\(report)")
        let track = try MP4VideoTrack.read(whole)
        #expect(track.sampleNALTypes.contains { $0.contains(7) }, "the second part's SPS is still in band")
        try await Self.expectDecodesCleanly(whole, hevc: false, "joined, whole")
        // Before the join only the record's own sets come in band: all dropped, no warning.
        let (first, quiet) = try await Self.cut(joined, "copy", "mp4", start: "0.4", end: "1.9", in: folder)
        #expect((quiet["warnings"] as? [Any])?.isEmpty ?? true, "\(quiet)")
        try Self.expectOutOfBand(first, entry: "avc1", "joined, first part")
    }

    /// A Dolby Vision source (an HEVC fixture given an iPhone-style profile 8.4 `dvvC`): copies into MP4 and MOV keep
    /// the configuration (vtrim writes the box FFmpeg 5.1's muxers leave out), with the source's fields and one box, and
    /// so do smart and exact cuts (their re-encoded frames carry the source frames' RPUs; this fixture has none to carry).
    @Test func dolbyVisionConfigurationIsKeptByEveryMode() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = folder.file("dovi.mp4")
        let boxes = try await Run.tool("python3", [TestPaths.packageRoot + "/fixtures/tools/add-entry-boxes.py", TestPaths.fixture("hevc.mp4"), source, "dovi"])
        #expect(boxes.status == 0, "\(boxes.stderr)")
        let probe = try await Run.tool("ffprobe", ["-v", "error", "-show_streams", "-select_streams", "v", source])
        #expect(probe.stdout.contains("DOVI configuration record"), "the fixture carries Dolby Vision")
        for (mode, container) in [("copy", "mp4"), ("copy", "mov"), ("keyframe", "mov"), ("smart", "mp4"), ("exact", "mov")] {
            let (output, report) = try await Self.cut(source, mode, container, start: "0.3", end: "1.5", in: folder)
            let notes = (report["notes"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
            let written = try await Run.tool("ffprobe", ["-v", "error", "-show_streams", "-select_streams", "v", output])
            #expect(!notes.contains("dolby_vision_dropped"), "\(mode) \(container): \(report)")
            #expect(written.stdout.contains("dv_profile=8"), "\(mode) \(container): \(written.stdout)")
            #expect(written.stdout.contains("dv_level=4") && written.stdout.contains("dv_bl_signal_compatibility_id=4")
                    && written.stdout.contains("rpu_present_flag=1") && written.stdout.contains("bl_present_flag=1"), "\(mode) \(container)")
            let entry = try #require(try MP4VideoTrack.read(output).entries.first)
            #expect(entry.childTypes.filter { $0 == "dvvC" }.count == 1, "\(mode) \(container): \(entry.childTypes)")
            try Self.expectOutOfBand(output, entry: "hvc1", "\(mode) of a Dolby Vision source")
        }
    }
}
