"""URLs as inputs (#51), against a loopback origin that counts what vtrim fetches: HLS (TS, fMP4, byte ranges, open
GOP, a master of variants) fetched only where a range needs it and cut frame for frame as the local concatenation of
its segments is; plain files read by bounded range requests; and the faults a real server has (5xx, resets,
truncation, stalls, redirects, self-signed TLS) — each a clear error or a retry, never a quiet wrong file."""
import concurrent.futures
import contextlib
import glob
import json
import os
import shutil
import subprocess
import tempfile

import pytest

from .conftest import ROOT, VTRIM, _environment, run_vtrim
from .origin import Origin

KIB = 1024


def report(result):
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout + result.stderr
    return json.loads(lines[0])


def codes(outcome):
    return [warning["code"] for warning in outcome["warnings"]]


def framemd5(path, stream):
    result = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", f"0:{stream}", "-f", "framemd5", "-"],
                            capture_output=True, text=True, check=True)
    return [line.split(",")[-1].strip() for line in result.stdout.splitlines() if line and not line.startswith("#")]


def same_media(a, b):
    for stream in ("v", "a"):
        first, second = framemd5(a, stream), framemd5(b, stream)
        assert first and first == second, f"{stream}: {len(first)} vs {len(second)} frames differ between {a} and {b}"


def concatenation(media, folder, into):
    """The local file the URL's timeline is defined by: the init section (if any) and every segment, in order."""
    playlist = os.path.join(media, folder, "index.m3u8")
    names = [line.strip() for line in open(playlist) if line.strip() and not line.startswith("#")]
    init = os.path.join(media, folder, "init.mp4")
    suffix = ".mp4" if os.path.exists(init) else ".ts"
    path = os.path.join(into, folder.replace("/", "_") + "-all" + suffix)
    with open(path, "wb") as out:
        for part in ([init] if suffix == ".mp4" else []) + [os.path.join(media, folder, name) for name in names]:
            with open(part, "rb") as handle:
                shutil.copyfileobj(handle, out)
    return path


@pytest.fixture
def workdir():
    folder = tempfile.mkdtemp(prefix="vtrim-url-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def spools():
    return glob.glob(os.path.join(tempfile.gettempdir(), "vtrim-spool-*"))


@pytest.mark.parametrize("folder", ["ts", "fmp4", "br"])
def test_stream_cut_fetches_only_its_segments_and_equals_the_local_cut(origin, media, workdir, folder):
    """31–37 s of ten 6 s segments: the playlist, the init section, segments 5 and 6 and at most 256 KiB of segment 0
    (where the timeline begins) — nothing else; the frames and samples are those of the same cut of the segments'
    concatenation."""
    output = os.path.join(workdir, "url.mp4")
    outcome = report(run_vtrim("cut", origin.url(f"{folder}/index.m3u8"), "--start", "31", "--end", "37", "-o", output, "--json"))
    assert outcome["mode"] == "smart" and outcome["source"]["segments"] == [5, 6], outcome
    assert "extra_segment" not in codes(outcome) and "playlist_timing" not in codes(outcome)
    media_requests = [entry for entry in origin.requests() if not entry["path"].endswith((".m3u8", "init.mp4"))]
    if folder == "br":
        assert all(entry["range"] for entry in media_requests), "byte-range segments are fetched by their ranges"
        assert len(media_requests) == 4  # init (by its range), head of segment 0, segments 5 and 6
    else:
        whole = sorted(entry["path"].rsplit("/", 1)[-1] for entry in media_requests if not entry["range"])
        assert whole == [f"seg005.{'ts' if folder == 'ts' else 'm4s'}", f"seg006.{'ts' if folder == 'ts' else 'm4s'}"]
        heads = [entry for entry in media_requests if entry["range"]]
        assert len(heads) == 1 and "seg000" in heads[0]["path"] and heads[0]["bytes_sent"] <= 256 * KIB
    assert outcome["source"]["fetched_bytes"] == origin.bytes_sent()
    local = os.path.join(workdir, "local.mp4")
    run_vtrim("cut", concatenation(media, folder, workdir), "--start", "31", "--end", "37", "--mode", "smart", "-o", local)
    same_media(output, local)
    assert outcome["actual"]["frames"] == 181
    assert not spools()


def test_fmp4_origin_counts_the_sound_past_the_head_of_segment_0(origin, media, workdir):
    """The URL's timeline begins at the earliest first timestamp of any stream. fMP4 writes a fragment's pictures before
    its sound, so in a 720p segment 0 the sound lies past the 256 KiB head first read for it: the fragment's header in
    the head says where the first sound sample lies, and those bytes are fetched. Cut where the two origins (the sound's, the video's) show different first frames: the same frames as the cut
    of the local concatenation (whose origin is the sound's). The head alone made every such cut begin a frame late."""
    assert os.path.getsize(os.path.join(media, "fmp4big", "seg000.m4s")) > 256 * KIB
    local = concatenation(media, "fmp4big", workdir)
    starts = {stream: float(subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "stream=start_time",
                                            "-of", "csv=p=0", local], capture_output=True, text=True, check=True).stdout.strip())
              for stream in ("v", "a")}
    assert starts["a"] < starts["v"], starts  # the premise: the sound begins first
    # A frame begins at the video's start + 7 s; from the sound's origin it is not yet shown at `start`, from the video's it is.
    start = 7 + (starts["v"] - starts["a"]) / 2
    output, expected = os.path.join(workdir, "url.mp4"), os.path.join(workdir, "local.mp4")
    outcome = report(run_vtrim("cut", origin.url("fmp4big/index.m3u8"), "--start", f"{start:.6f}", "--end", "9", "-o", output, "--json"))
    assert outcome["source"]["segments"] == [1, 1], outcome
    # Of segment 0, its head and its first sound sample, by their ranges: not the whole segment.
    reads = origin.requests("/fmp4big/seg000.m4s")
    assert len(reads) == 2 and all(entry["range"] for entry in reads) and sum(entry["bytes_sent"] for entry in reads) <= 260 * KIB, reads
    run_vtrim("cut", local, "--start", f"{start:.6f}", "--end", "9", "--mode", "smart", "-o", expected)
    same_media(output, expected)


def test_a_range_past_a_discontinuity_is_refused_and_one_before_it_is_cut(origin, workdir):
    """After an EXT-X-DISCONTINUITY a stream's times may restart, so they no longer say where a segment lies on the
    timeline: a range that needs a segment past one is refused (naming it), before anything is fetched or written; a
    range before it is cut as from the same playlist without the tag."""
    lines = open(os.path.join(origin.folder, "ts", "index.m3u8")).read().splitlines()
    folder = os.path.join(workdir, "served")
    os.makedirs(folder)
    with open(os.path.join(folder, "index.m3u8"), "w") as playlist:
        for line in lines:
            if line == "seg005.ts":
                playlist.write("#EXT-X-DISCONTINUITY\n")
            playlist.write((origin.url("ts/" + line) if line.endswith(".ts") else line) + "\n")
    with Origin(folder) as served:
        refused = run_vtrim("cut", served.url("index.m3u8"), "--start", "31", "--end", "37", "-o", os.path.join(workdir, "late.mp4"), "--json", check=False)
        assert refused.returncode == 1 and report(refused)["error"]["code"] == "unsupported_container", refused.stderr
        assert "EXT-X-DISCONTINUITY" in refused.stderr and "segment 5" in refused.stderr
        assert not origin.requests("/ts/seg005.ts") and not os.path.exists(os.path.join(workdir, "late.mp4"))
        early, plain = os.path.join(workdir, "early.mp4"), os.path.join(workdir, "plain.mp4")
        run_vtrim("cut", served.url("index.m3u8"), "--start", "10", "--end", "16", "-o", early)
    run_vtrim("cut", origin.url("ts/index.m3u8"), "--start", "10", "--end", "16", "-o", plain)
    same_media(early, plain)


def test_timestamps_wrapping_at_2_33_inside_the_range(origin, workdir):
    """The TS playlist's segments with their 33-bit timestamps wrapping to 0 at 33 s, inside the cut 31–37 s: the same
    frames and samples as the cut of the playlist that does not wrap, on the same timeline."""
    wrapped, plain = (os.path.join(workdir, f"{name}.mp4") for name in ("wrapped", "plain"))
    outcome = report(run_vtrim("cut", origin.url("wrap/index.m3u8"), "--start", "31", "--end", "37", "-o", wrapped, "--json"))
    assert outcome["mode"] == "smart" and outcome["source"]["segments"] == [5, 6], outcome
    assert "extra_segment" not in codes(outcome) and "playlist_timing" not in codes(outcome), outcome
    run_vtrim("cut", origin.url("ts/index.m3u8"), "--start", "31", "--end", "37", "-o", plain)
    same_media(wrapped, plain)
    assert outcome["actual"]["frames"] == 181
    probe = report(run_vtrim("probe", origin.url("wrap/index.m3u8"), "--json"))
    assert abs(probe["duration"] - 60) < 0.1, probe


def test_stream_probe_reads_the_playlist_and_its_first_segment(origin):
    outcome = report(run_vtrim("probe", origin.url("fmp4/index.m3u8"), "--json"))
    assert outcome["duration"] == 60 and outcome["format"] == "hls (fragmented mp4)" and outcome["size"] is None
    assert outcome["video"]["width"] == 320 and outcome["video"]["duration"] is None
    assert sorted(entry["path"] for entry in origin.requests()) == ["/fmp4/index.m3u8", "/fmp4/init.mp4", "/fmp4/seg000.m4s"]


def test_open_gop_segment_is_read_with_the_one_before_only_when_needed(origin, media, workdir):
    """An open-GOP stream's segments open on an I picture whose leading pictures show first: a range from 31 s starts
    after it (no extra segment); one from 30.000 s shows the last frame of segment 4, so segment 4 is read too, said so."""
    for start, segments, extra in [("31", [5, 5], False), ("30.0", [4, 5], True)]:
        output = os.path.join(workdir, f"url-{start}.mp4")
        outcome = report(run_vtrim("cut", origin.url("opengop/index.m3u8"), "--start", start, "--end", "33", "-o", output, "--json"))
        assert outcome["source"]["segments"] == segments, outcome["source"]
        assert ("extra_segment" in codes(outcome)) == extra, outcome["warnings"]
        local = os.path.join(workdir, f"local-{start}.mp4")
        run_vtrim("cut", concatenation(media, "opengop", workdir), "--start", start, "--end", "33", "--mode", "smart", "-o", local)
        same_media(output, local)


def test_master_playlist_variant_choice(origin):
    for choice, width in [("highest", 320), ("lowest", 160), ("90p", 160), ("180p", 320), ("250000", 160)]:
        outcome = report(run_vtrim("probe", origin.url("master.m3u8"), "--variant", choice, "--json"))
        assert outcome["video"]["width"] == width, (choice, outcome["source"])
    # The audio-only entry (CODECS mp4a alone) is never chosen while there is video.
    assert not origin.requests("/alt/*")
    bad = run_vtrim("probe", origin.url("master.m3u8"), "--variant", "best", check=False)
    assert bad.returncode == 64 and "--variant" in bad.stderr


def test_plain_file_probe_reads_its_index_and_little_else(origin, media_facts):
    """An MP4 whose moov sits at its end: the probe fetches the head, the moov and the first frame, in requests of at
    most 256 KiB — not the 30 % of the file FFmpeg's own http reader pulls."""
    outcome = report(run_vtrim("probe", origin.url("moovlast.mp4"), "--json"))
    assert outcome["duration"] == 60 and outcome["video"]["frame_count"] == 1800
    moov = next(box["size"] for box in media_facts["moovlast"]["boxes"] if box["type"] == "moov")
    assert origin.bytes_sent() <= moov + 1024 * KIB and origin.largest_range() <= 256 * KIB
    assert all(entry["range"] for entry in origin.requests())
    assert outcome["source"]["fetched_bytes"] == origin.bytes_sent()


def test_plain_file_cut_and_fast_thumbnails_read_by_ranges(origin, media, media_facts, workdir):
    output = os.path.join(workdir, "url.mp4")
    outcome = report(run_vtrim("cut", origin.url("moovlast.mp4"), "--start", "31", "--end", "37", "-o", output, "--json"))
    assert outcome["mode"] == "smart" and origin.largest_range() <= 256 * KIB
    assert origin.bytes_sent() < 0.5 * os.path.getsize(os.path.join(media, "moovlast.mp4"))
    local = os.path.join(workdir, "local.mp4")
    run_vtrim("cut", os.path.join(media, "moovlast.mp4"), "--start", "31", "--end", "37", "--mode", "smart", "-o", local)
    same_media(output, local)
    origin.clear()
    sheet = os.path.join(workdir, "sheet.png")
    # Each cell 30 ms before a keyframe's time: that keyframe is decoded before the cell (two frames of decode delay)
    # but shown after it, so the cell shows the keyframe 2 s earlier. The sample table says so: the later one is not read.
    outcome = report(run_vtrim("thumbs", origin.url("moovlast.mp4"), "--mode", "fast", "--start", "7.97", "--end", "40", "--every", "10",
                               "-o", sheet, "--json"))
    assert [cell["pts"] for cell in outcome["cells"]] == [6, 16, 26, 36]
    assert os.path.getsize(sheet) > 0 and origin.largest_range() <= 256 * KIB
    # Fast thumbnails read the head, the moov, the first keyframe (stream analysis learns the picture format from it)
    # and each cell's keyframe, byte for byte: not the packets around a keyframe, nor a read-ahead past it or the moov.
    moov = next(box["size"] for box in media_facts["moovlast"]["boxes"] if box["type"] == "moov")
    packets = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,size,flags", "-of", "csv=p=0",
                              os.path.join(media, "moovlast.mp4")], capture_output=True, text=True, check=True).stdout.split()
    keyframes = {round(float(line.split(",")[0]), 3): int(line.split(",")[1]) for line in packets if "K" in line.split(",")[2]}
    shown = sum(keyframes[time] for time in (6, 16, 26, 36))
    assert origin.bytes_sent() <= 64 * KIB + moov + keyframes[0] + shown, origin.requests()


def test_a_plain_mp4_url_keeps_the_files_timeline(workdir):
    """An MP4 without an edit list whose video (B-frames) starts 67 ms after its sound, stored after the first video
    frames: over a URL its timeline starts where the file's does (the sound's first time), so a thumbnail's frame and
    a probe's start time are the local file's. (Stream analysis stopped before the first sound packet once, and the URL
    timeline started 67 ms late: every cell showed the frame after the local one.)"""
    folder = os.path.join(workdir, "served")
    os.makedirs(folder)
    path = os.path.join(folder, "noedits.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=3", "-f", "lavfi",
                    "-i", "sine=frequency=440:duration=3", "-c:v", "libx264", "-bf", "2", "-g", "30", "-c:a", "aac",
                    "-use_editlist", "0", "-movflags", "+faststart", path], check=True)
    first = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "packet=stream_index,pts_time", "-of", "csv=p=0", path],
                           capture_output=True, text=True, check=True).stdout.split()[:3]
    assert [line.split(",")[0] for line in first] == ["0", "0", "1"] and float(first[0].split(",")[1]) > 0.05, first
    with Origin(folder) as server:
        outcomes = []
        for source in (path, server.url("noedits.mp4")):
            probe = report(run_vtrim("probe", source, "--json"))
            sheet = os.path.join(workdir, "cells.png")
            cells = report(run_vtrim("thumbs", source, "--start", "0.05", "--every", "1", "--end", "2.5", "-o", sheet, "--overwrite", "--json"))
            # Fast thumbnails analyse an MP4 URL briefly where that changes nothing: here it would.
            fast = report(run_vtrim("thumbs", source, "--mode", "fast", "--start", "1.05", "--every", "1", "--end", "2.5", "-o", sheet,
                                    "--overwrite", "--json"))
            outcomes.append((probe["start_time"], [cell["pts"] for cell in cells["cells"]], [cell["pts"] for cell in fast["cells"]]))
    assert outcomes[0] == outcomes[1] and outcomes[0][0] == 0, outcomes


def test_stream_thumbnails_fetch_the_segments_of_their_times(origin, media, workdir):
    sheet = os.path.join(workdir, "url.png")
    outcome = report(run_vtrim("thumbs", origin.url("ts/index.m3u8"), "--count", "3", "-o", sheet, "--json"))
    assert outcome["source"]["segments_fetched"] == 3, outcome["source"]
    assert [round(cell["pts"], 3) for cell in outcome["cells"]] == [9.988, 29.988, 49.988]
    local = os.path.join(workdir, "local.png")
    run_vtrim("thumbs", concatenation(media, "ts", workdir), "--count", "3", "-o", local)
    pixels = [subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                             capture_output=True, check=True).stdout for path in (sheet, local)]
    assert pixels[0] == pixels[1]


def test_server_errors_are_retried_and_truncation_is_an_error(origin, workdir):
    origin.fault("ts/seg005.ts", count=2, status=503)
    origin.fault("ts/seg006.ts", count=1, reset_after=1000)
    output = os.path.join(workdir, "retried.mp4")
    outcome = report(run_vtrim("cut", origin.url("ts/index.m3u8"), "--start", "31", "--end", "37", "-o", output, "--json"))
    assert outcome["source"]["retries"] == 3 and os.path.exists(output)
    origin.fault("ts/seg006.ts", count=None, truncate_to=5000)
    truncated = os.path.join(workdir, "truncated.mp4")
    result = run_vtrim("cut", origin.url("ts/index.m3u8"), "--start", "31", "--end", "37", "-o", truncated, "--json", check=False)
    assert result.returncode == 1
    assert report(result)["error"]["code"] == "truncated_segment"
    assert "segment 6" in report(result)["error"]["message"]
    assert os.listdir(workdir) == ["retried.mp4"], "nothing half-written is left"
    assert not spools()


def test_missing_refused_and_secret_urls(origin, workdir):
    missing = run_vtrim("probe", origin.url("ts/nothing.m3u8"), "--json", check=False)
    assert missing.returncode == 1 and report(missing)["error"]["code"] == "not_found"
    origin.redirect("/elsewhere.mp4", "file:///etc/passwd")
    refused = run_vtrim("probe", origin.url("elsewhere.mp4"), "--json", check=False)
    assert refused.returncode == 1 and report(refused)["error"]["code"] == "refused_url"
    scheme = run_vtrim("probe", "ftp://127.0.0.1/x.mp4", "--json", check=False)
    assert scheme.returncode == 1 and report(scheme)["error"]["code"] == "refused_url"
    # A signed URL's token is never printed, nor part of an output's name (the folder above a generic index.m3u8).
    secret = run_vtrim("cut", origin.url("ts/index.m3u8") + "?token=s3cr3t", "--start", "31", "--end", "32", "--output-dir", workdir, "--json")
    assert "s3cr3t" not in secret.stdout + secret.stderr
    outcome = report(secret)
    assert outcome["path"].endswith("/ts/index.m3u8?…") and outcome["output"] == os.path.join(workdir, "ts.cut.mp4")
    assert os.listdir(workdir) == ["ts.cut.mp4"]


def test_playlist_naming_file_urls_is_refused_before_anything_is_fetched(workdir):
    from .origin import Origin
    with open(os.path.join(workdir, "index.m3u8"), "w") as handle:
        handle.write("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n")
    with Origin(workdir) as evil:
        result = run_vtrim("probe", evil.url("index.m3u8"), "--json", check=False)
        assert report(result)["error"]["code"] == "refused_url" and [e["path"] for e in evil.requests()] == ["/index.m3u8"]


def test_ignored_ranges_are_said_and_the_probe_is_still_right(origin):
    origin.fault("moovlast.mp4", count=None, ignore_range=True)
    outcome = report(run_vtrim("probe", origin.url("moovlast.mp4"), "--json"))
    assert "range_ignored" in codes(outcome) and outcome["duration"] == 60
    assert len(origin.requests("moovlast.mp4")) == 1


def test_self_signed_tls_is_refused_unless_insecure(https_origin):
    refused = run_vtrim("probe", https_origin.url("ts/index.m3u8"), "--json", check=False)
    assert refused.returncode == 1 and report(refused)["error"]["code"] == "refused_url"
    allowed = report(run_vtrim("probe", https_origin.url("ts/index.m3u8"), "--insecure", "--json"))
    assert "insecure" in codes(allowed) and allowed["duration"] == 60


def test_headers_reach_the_input_and_stalls_time_out(origin):
    origin.fault("ts/*", count=None, require_header=("Authorization", "Bearer t0k"))
    denied = run_vtrim("probe", origin.url("ts/index.m3u8"), "--json", check=False)
    assert report(denied)["error"]["code"] == "fetch_failed"
    allowed = report(run_vtrim("probe", origin.url("ts/index.m3u8"), "--http-header", "Authorization: Bearer t0k", "--json"))
    assert allowed["duration"] == 60
    origin.clear_faults()
    origin.clear()
    origin.fault("ts/seg000.ts", count=None, stall=30)
    stalled = run_vtrim("probe", origin.url("ts/index.m3u8"), "--timeout", "1", "--json", check=False, timeout=40)
    assert stalled.returncode == 1 and report(stalled)["error"]["code"] == "fetch_failed"
    assert len(origin.requests("ts/seg000.ts")) == 4  # the first try and three retries


def test_live_encrypted_and_dash_probes(origin, media, workdir):
    from .origin import Origin
    text = open(os.path.join(media, "ts", "index.m3u8")).read()
    for name in os.listdir(os.path.join(media, "ts")):
        if name.endswith(".ts"):
            shutil.copyfile(os.path.join(media, "ts", name), os.path.join(workdir, name))
    with open(os.path.join(workdir, "live.m3u8"), "w") as handle:
        handle.write(text.replace("#EXT-X-ENDLIST", "").replace("#EXT-X-PLAYLIST-TYPE:VOD\n", ""))
    with open(os.path.join(workdir, "locked.m3u8"), "w") as handle:
        handle.write(text.replace("#EXTINF", "#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF", 1))
    with Origin(workdir) as server:
        live = report(run_vtrim("probe", server.url("live.m3u8"), "--json"))
        assert "live_playlist" in codes(live)
        locked = report(run_vtrim("probe", server.url("locked.m3u8"), "--json", check=False))
        assert locked["error"]["code"] == "not_media" and "encrypted" in locked["error"]["message"]
    dash = report(run_vtrim("probe", origin.url("dash/manifest.mpd"), "--json"))
    assert dash["format"] == "dash (video and sound merged)" and dash["duration"] == 60 and dash["start_time"] == -0.021333
    assert [stream["type"] for stream in dash["streams"]] == ["video", "audio"]


def boxes(path):
    """Top-level ISO BMFF boxes: (type, offset, size)."""
    import struct
    found, data = [], open(path, "rb").read()
    position = 0
    while position + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[position:position + 8])
        if size < 8:
            break
        found.append((kind.decode("latin-1"), position, size))
        position += size
    return found


@pytest.fixture(scope="module")
def single_file_dash(media):
    """FFmpeg 5.1's dash muxer with one file per representation (a SegmentList with media ranges), and the same files
    described by SegmentBase: the init section's range and the `sidx` index's (5.1 never writes SegmentBase itself)."""
    folder = tempfile.mkdtemp(prefix="vtrim-dash-")
    subprocess.run(["ffmpeg", "-v", "error", "-i", os.path.join(media, "src.mp4"), "-c", "copy", "-f", "dash", "-seg_duration", "6",
                    "-single_file", "1", "-global_sidx", "1", "-use_template", "0", "-use_timeline", "0",
                    os.path.join(folder, "list.mpd")], check=True)
    text = open(os.path.join(folder, "list.mpd")).read()
    import re
    for stream in ("list-stream0.mp4", "list-stream1.mp4"):
        sidx = next(box for box in boxes(os.path.join(folder, stream)) if box[0] == "sidx")
        base = f'<SegmentBase indexRange="{sidx[1]}-{sidx[1] + sidx[2] - 1}"><Initialization range="0-{sidx[1] - 1}" /></SegmentBase>'
        text = re.sub(r"(<BaseURL>" + re.escape(stream) + r"</BaseURL>\s*)<SegmentList.*?</SegmentList>", lambda m: m.group(1) + base, text, flags=re.S)
    assert text.count("<SegmentBase") == 2 and "<SegmentList" not in text
    with open(os.path.join(folder, "base.mpd"), "w") as handle:
        handle.write(text)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def merged(video, audio, into):
    """The local reference of a DASH cut: the video and audio concatenations joined by ffmpeg, timestamps kept."""
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", video, "-i", audio, "-map", "0:v", "-map", "1:a", "-c", "copy", "-copyts", into], check=True)
    return into


@pytest.mark.parametrize("manifest", ["dash/manifest.mpd", "dashnum/manifest.mpd", "list.mpd", "base.mpd"])
def test_dash_cut_fetches_its_segments_and_equals_the_local_cut(origin, media, single_file_dash, workdir, manifest):
    """SegmentTemplate with a SegmentTimeline and with a fixed duration, SegmentList and SegmentBase: the video and
    sound of 31–37 s (segments 5–6, sound from the end of 4) are fetched, merged and cut as the local concatenations
    of the two representations are."""
    from .origin import Origin
    single = not manifest.startswith("dash")
    server = Origin(single_file_dash) if single else origin
    with server if single else contextlib.nullcontext():
        output = os.path.join(workdir, "url.mp4")
        outcome = report(run_vtrim("cut", server.url(manifest), "--start", "31", "--end", "37", "-o", output, "--json"))
        assert outcome["mode"] == "smart" and outcome["source"]["protocol"] == "dash" and outcome["source"]["segments"] == [5, 6]
        assert server.largest_range() <= 4 * 1024 * KIB
        fetched = server.bytes_sent()
    if single:
        video, audio = os.path.join(single_file_dash, "list-stream0.mp4"), os.path.join(single_file_dash, "list-stream1.mp4")
        total = os.path.getsize(video) + os.path.getsize(audio)
    else:
        folder = os.path.join(media, manifest.split("/")[0])
        parts = {kind: [os.path.join(folder, f"init-{kind}.m4s")] + sorted(glob.glob(os.path.join(folder, f"chunk-{kind}-*.m4s"))) for kind in "01"}
        video, audio = (os.path.join(workdir, f"{kind}.mp4") for kind in "va")
        for path, names in ((video, parts["0"]), (audio, parts["1"])):
            with open(path, "wb") as out:
                for name in names:
                    out.write(open(name, "rb").read())
        total = os.path.getsize(video) + os.path.getsize(audio)
    assert fetched < 0.4 * total, f"{fetched} of {total} bytes fetched"
    local = os.path.join(workdir, "local.mp4")
    run_vtrim("cut", merged(video, audio, os.path.join(workdir, "merged.ts")), "--start", "31", "--end", "37", "--mode", "smart", "-o", local)
    same_media(output, local)


def test_dash_sound_is_fetched_beside_its_video(origin, workdir):
    """DASH lists sound and video apart: the sound's segments are fetched while the video's are (a thread each), not
    one track after the other. The range's segments of both are held two seconds before they answer: every one of them
    is asked for before any has answered, with half a second to spare (a loaded machine may start the last 1.5 s late;
    one after the other, the last would start 2 s after the first answered)."""
    pattern = "dash/chunk-[01]-0000[67].m4s"
    origin.fault(pattern, count=4, stall=2.0)
    outcome = report(run_vtrim("cut", origin.url("dash/manifest.mpd"), "--start", "31", "--end", "37",
                               "-o", os.path.join(workdir, "url.mp4"), "--json"))
    assert outcome["source"]["segments"] == [5, 6]
    held = origin.requests(pattern)
    assert len(held) == 4 and not origin.faults_left()
    assert max(entry["started"] for entry in held) < min(entry["ended"] for entry in held) - 0.5, held


def test_hls_audio_rendition_is_fetched_and_merged(origin, media, workdir):
    """A master whose variant's sound is a playlist of its own (EXT-X-MEDIA TYPE=AUDIO): both are read, the segments of
    the range from each, merged; the cut equals the local merge of the two concatenations."""
    output = os.path.join(workdir, "url.mp4")
    outcome = report(run_vtrim("cut", origin.url("alt/master.m3u8"), "--start", "31", "--end", "37", "-o", output, "--json"))
    assert outcome["source"]["playlist"].endswith("/alt/v0.m3u8") and outcome["warnings"] == []
    assert origin.requests("/alt/v1.m3u8") and origin.requests("/alt/s1_005.ts") and not origin.requests("/alt/s1_002.ts")
    concatenations = []
    for prefix in ("s0", "s1"):
        path = os.path.join(workdir, prefix + ".ts")
        with open(path, "wb") as out:
            for name in sorted(glob.glob(os.path.join(media, "alt", prefix + "_*.ts"))):
                out.write(open(name, "rb").read())
        concatenations.append(path)
    local = os.path.join(workdir, "local.mp4")
    run_vtrim("cut", merged(*concatenations, os.path.join(workdir, "merged.ts")), "--start", "31", "--end", "37", "--mode", "smart", "-o", local)
    same_media(output, local)


def test_proposals_read_the_whole_stream(origin):
    """`vtrim propose` and `cut --propose` judge all of a stream: every segment is fetched, once."""
    outcome = report(run_vtrim("propose", origin.url("ts/index.m3u8"), "--scenes", "--json"))
    assert outcome["source"]["segments"] == [0, 9] and outcome["duration"] == 60 and outcome["detections"]
    assert all(len(origin.requests(f"/ts/seg{n:03d}.ts")) == 1 for n in range(10))
    plain = report(run_vtrim("propose", origin.url("moovlast.mp4"), "--scenes", "--json"))
    assert plain["duration"] == 60 and plain["source"]["range_ignored"] is False


def test_the_progress_line_counts_the_bytes_fetched(origin, workdir):
    """On a terminal the progress line says what URLs fetched so far (a pty as stderr: vtrim draws it only there)."""
    import pty
    primary, secondary = pty.openpty()
    output = os.path.join(workdir, "progress.mp4")
    process = subprocess.Popen([VTRIM, "cut", origin.url("ts/index.m3u8"), "--start", "31", "--end", "37", "-o", output],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=secondary, env=_environment({}))
    os.close(secondary)
    chunks = []
    while True:
        try:
            data = os.read(primary, 4096)
        except OSError:  # EIO: vtrim ended and closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=120)
    os.close(primary)
    text = b"".join(chunks).decode(errors="replace")
    assert process.returncode == 0, text
    fetched = [line for line in text.split("\r") if " fetched" in line]
    assert fetched and any("KiB fetched" in line or "MiB fetched" in line for line in fetched), text


SHARED_MEDIA = os.environ.get("VTRIM_SHARED_MEDIA") or os.path.join(ROOT, "..", "shared", "media")
MP4_SUFFIXES = (".mp4", ".mov", ".m4v", ".m4b", ".3gp")


def _without_source(value):
    """A report with what names the input (its path or URL, how it was fetched) taken out, recursively."""
    if isinstance(value, dict):
        return {key: _without_source(item) for key, item in value.items() if key not in ("path", "source")}
    if isinstance(value, list):
        return [_without_source(item) for item in value]
    return value


def test_real_mp4s_over_a_url_keep_the_files_streams_and_timeline(workdir):
    """Every MP4/MOV of ../shared/media (phones, cameras, edit lists, sound primed or starting late, empty tracks), read
    over a URL: the probe (every stream's start, duration and parameters) and fast thumbnails' times are the local
    file's. Stream analysis of an MP4 URL stops before reading on to each stream's first packet only where the streams'
    first packets say it changes nothing."""
    if not os.path.isdir(SHARED_MEDIA):
        pytest.skip(f"{SHARED_MEDIA} is absent")
    files = sorted(os.path.relpath(os.path.join(folder, name), SHARED_MEDIA) for folder, _, names in os.walk(SHARED_MEDIA)
                   for name in names if name.lower().endswith(MP4_SUFFIXES))
    assert files

    def compare(index, relative):
        """(compared, difference): the probe and the fast thumbnails of the local file and of its URL."""
        local = os.path.join(SHARED_MEDIA, relative)
        runs = [run_vtrim("probe", source, "--json", check=False) for source in (local, server.url(relative))]
        if runs[0].returncode != 0:
            assert runs[1].returncode == runs[0].returncode, (relative, runs[1].stderr)
            return False, None
        assert runs[1].returncode == 0, (relative, runs[1].stderr)
        probes = [_without_source(json.loads(run.stdout)) for run in runs]
        cells = []
        for which, source in enumerate((local, server.url(relative))):
            sheet = os.path.join(workdir, f"cells-{index}-{which}.png")
            run = run_vtrim("thumbs", source, "--mode", "fast", "--count", "3", "-o", sheet, "--json", check=False)
            cells.append((run.returncode, [cell["pts"] for cell in json.loads(run.stdout)["cells"]] if run.returncode == 0 else None))
        return True, None if probes[0] == probes[1] and cells[0] == cells[1] else (relative, probes, cells)

    # Two files at a time, one per core: one after another, the runs (short, single-threaded) took 40 s, 20 s this way.
    with Origin(SHARED_MEDIA) as server, concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(compare, range(len(files)), files))
    compared = sum(1 for done, _ in results if done)
    differences = [difference for _, difference in results if difference]
    assert compared >= 10 and not differences, differences
