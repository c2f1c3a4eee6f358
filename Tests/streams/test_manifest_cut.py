"""The manifest cut (#51): `vtrim cut PLAYLIST_URL -o NAME.m3u8` writes a playlist of two new edge segments and the
source's own middle segments by URL; the edges keep the source's timeline, so FFmpeg reads it as one stream and
Chromium plays it through without a discontinuity tag."""
import os
import shutil
import subprocess
import tempfile
import time

import pytest

from .conftest import run_vtrim
from .origin import Origin
from .test_url_inputs import concatenation, report


@pytest.fixture
def workdir():
    folder = tempfile.mkdtemp(prefix="vtrim-manifest-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def frames(source, *extra):
    """Decoded video frames (64x36 grey, times from the first) of `source`."""
    result = subprocess.run(["ffmpeg", "-v", "error", *extra, "-i", source, "-map", "0:v", "-vf", "setpts=PTS-STARTPTS,scale=64:36,format=gray",
                             "-f", "rawvideo", "-"], capture_output=True, check=True, timeout=120)
    size = 64 * 36
    return [result.stdout[i:i + size] for i in range(0, len(result.stdout), size)]


def packets(source, stream, *extra):
    result = subprocess.run(["ffprobe", "-v", "error", *extra, "-select_streams", stream, "-show_entries", "packet=pts,dts", "-of", "csv=p=0", source],
                            capture_output=True, text=True, check=True, timeout=120)
    return [tuple(int(x) if x not in ("", "N/A") else None for x in line.split(",")[:2]) for line in result.stdout.split()]


def readable(media, folder, path, into):
    """A segment FFmpeg can read alone: an MPEG-TS as it is; an fMP4 fragment behind the source's init section."""
    init = os.path.join(media, folder, "init.mp4")
    if not os.path.exists(init):
        return path
    joined = os.path.join(into, "with-init-" + os.path.basename(path) + ".mp4")
    with open(joined, "wb") as out:
        for part in (init, path):
            with open(part, "rb") as handle:
                shutil.copyfileobj(handle, out)
    return joined


# (folder, edge extension, a frame's ticks in the video's time base: 90 kHz in MPEG-TS, the init's 15360 in fMP4)
KINDS = [("ts", "ts", 3000), ("fmp4", "m4s", 512)]


@pytest.mark.parametrize("folder,extension,frame", KINDS, ids=[kind[0] for kind in KINDS])
def test_manifest_cut_reuses_the_middle_segments_and_reads_as_the_cut(origin, media, workdir, folder, extension, frame):
    playlist = os.path.join(workdir, "cut.m3u8")
    outcome = report(run_vtrim("cut", origin.url(f"{folder}/index.m3u8"), "--start", "31", "--end", "49", "-o", playlist, "--json"))
    manifest = outcome["manifest"]
    edges = [f"cut.start.{extension}", f"cut.end.{extension}"]
    source = "seg{:03d}." + ("ts" if folder == "ts" else "m4s")
    assert manifest["reused_segments"] == [6, 7] and [os.path.basename(edge["path"]) for edge in manifest["edges"]] == edges
    assert sorted(os.listdir(workdir)) == sorted(["cut.m3u8"] + edges)
    text = open(playlist).read()
    assert "DISCONTINUITY" not in text and "#EXT-X-ENDLIST" in text
    assert [line for line in text.splitlines() if not line.startswith("#")] == [
        edges[0], origin.url(f"{folder}/" + source.format(6)), origin.url(f"{folder}/" + source.format(7)), edges[1]]
    if folder == "fmp4":
        # One init section for every entry, the source's own: the edges are fragments of it.
        assert [line for line in text.splitlines() if line.startswith("#EXT-X-MAP")] == [f'#EXT-X-MAP:URI="{origin.url("fmp4/init.mp4")}"']
    # The middle was never fetched: only the edges' segments (and the head of segment 0, for the timeline).
    assert not origin.requests(f"/{folder}/" + source.format(6)) and not origin.requests(f"/{folder}/" + source.format(7))
    assert origin.requests(f"/{folder}/" + source.format(5)) and origin.requests(f"/{folder}/" + source.format(8))
    # The edges sit on the source's timeline: the start edge's last decode time runs into segment 6's first, and
    # segment 7's last into the end edge's first, one frame apart, without going back.
    parts = [os.path.join(workdir, edges[0]), os.path.join(media, folder, source.format(6)),
             os.path.join(media, folder, source.format(7)), os.path.join(workdir, edges[1])]
    seam = [packets(readable(media, folder, part, workdir), "v") for part in parts]
    for before, after in zip(seam, seam[1:]):
        assert after[0][1] - before[-1][1] == frame, (before[-1], after[0])
        assert min(pts for pts, _ in after) - max(pts for pts, _ in before) == frame
    # FFmpeg reads the playlist as one stream: the frames of the same cut of the segments' concatenation.
    local = os.path.join(workdir, "local.mp4")
    run_vtrim("cut", concatenation(media, folder, workdir), "--start", "31", "--end", "49", "--mode", "smart", "-o", local)
    read = frames(playlist, "-protocol_whitelist", "file,http,tcp")
    expected = frames(local)
    assert len(read) == len(expected) == 541
    differing = sum(1 for a, b in zip(read, expected) if sum(abs(x - y) for x, y in zip(a, b)) > 3 * len(a))
    assert differing == 0
    # A second reader: GStreamer's own HLS demuxer, over HTTP (the playlist and its edges published side by side),
    # shows the same frames in the same order (each nearest its own among its neighbours: scalers differ).
    if shutil.which("gst-launch-1.0"):
        with Origin(workdir) as published:
            result = subprocess.run(["timeout", "-s", "KILL", "60", "gst-launch-1.0", "-q", "souphttpsrc", f"location={published.url('cut.m3u8')}",
                                     "!", "hlsdemux", "!", "decodebin", "caps=video/x-raw(ANY)", "expose-all-streams=false", "!", "videoconvert",
                                     "!", "videoscale", "!", "video/x-raw,format=GRAY8,width=64,height=36", "!", "fdsink"], capture_output=True)
        assert result.returncode == 0, result.stderr[-2000:]
        size = 64 * 36
        shown = [result.stdout[i:i + size] for i in range(0, len(result.stdout), size)]
        assert len(shown) == 541
        for index, picture in enumerate(shown):
            near = range(max(0, index - 2), min(len(expected), index + 3))
            assert min(near, key=lambda other: sum(abs(x - y) for x, y in zip(picture, expected[other]))) == index, index
    # The sound is the source's own packets end to end: as many as the local cut's, every one on the source's clock.
    sound = packets(playlist, "a", "-protocol_whitelist", "file,http,tcp")
    steps = {b[1] - a[1] for a, b in zip(sound, sound[1:])}
    assert len(steps) == 1, steps


def test_manifest_cut_of_byte_ranges_keeps_them(origin, media, workdir):
    """A single-file fMP4 playlist (every segment and the init section byte ranges of one file): the reused entries keep
    their byte ranges, the one EXT-X-MAP its own, and FFmpeg reads the playlist as the cut."""
    playlist = os.path.join(workdir, "cut.m3u8")
    run_vtrim("cut", origin.url("br/index.m3u8"), "--start", "31", "--end", "49", "-o", playlist)
    text = open(playlist).read()
    source = open(os.path.join(media, "br", "index.m3u8")).read().splitlines()
    ranges = [line for line in source if line.startswith("#EXT-X-BYTERANGE")]
    assert [line for line in text.splitlines() if line.startswith("#EXT-X-BYTERANGE")] == ranges[6:8]
    assert [line for line in text.splitlines() if line.startswith("#EXT-X-MAP")] == [
        next(line for line in source if line.startswith("#EXT-X-MAP")).replace('"media.m4s"', '"' + origin.url("br/media.m4s") + '"')]
    local = os.path.join(workdir, "local.mp4")
    run_vtrim("cut", concatenation(media, "fmp4", workdir), "--start", "31", "--end", "49", "--mode", "smart", "-o", local)
    read, expected = frames(playlist, "-protocol_whitelist", "file,http,tcp"), frames(local)
    assert len(read) == len(expected) == 541
    assert sum(1 for a, b in zip(read, expected) if sum(abs(x - y) for x, y in zip(a, b)) > 3 * len(a)) == 0


def rgb_frames(path):
    """Every video frame of `path` (320x180) as 32x18 RGB: the means of 10x10 blocks, as `grab` takes them (so the
    two pictures differ only by their colour conversions, not by how each scaler places its samples). BT.709, as
    Chromium converts an untagged stream (BT.601 here measured 25 dB against its canvas, BT.709 over 30)."""
    result = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-vf", "scale=in_color_matrix=bt709", "-pix_fmt", "rgb24", "-f", "rawvideo", "-"],
                            capture_output=True, check=True, timeout=120)
    size = 320 * 180 * 3
    return [blocks(result.stdout[i:i + size], channels=3) for i in range(0, len(result.stdout) - size + 1, size)]


def blocks(pixels, channels):
    """A 320x180 picture (`channels` bytes a pixel, RGB first) as the RGB means of its 10x10 blocks."""
    out = bytearray()
    for by in range(18):
        for bx in range(32):
            sums = [0, 0, 0]
            for y in range(by * 10, by * 10 + 10):
                row = (y * 320 + bx * 10) * channels
                for x in range(10):
                    at = row + x * channels
                    sums[0] += pixels[at]; sums[1] += pixels[at + 1]; sums[2] += pixels[at + 2]
            out += bytes(value // 100 for value in sums)
    return bytes(out)


def grab(driver, seconds):
    """The picture the page's video shows at `seconds`, drawn at its own size (320x180), as 32x18 block means."""
    data = driver.execute_async_script("""const [time, done] = arguments; const v = document.getElementById('v');
        v.pause(); v.addEventListener('seeked', () => requestAnimationFrame(() => {
            const canvas = document.createElement('canvas'); canvas.width = 320; canvas.height = 180;
            const context = canvas.getContext('2d'); context.drawImage(v, 0, 0, 320, 180);
            const rgb = context.getImageData(0, 0, 320, 180).data.filter((_, i) => i % 4 !== 3);
            let text = ''; for (let i = 0; i < rgb.length; i += 8192) text += String.fromCharCode(...rgb.subarray(i, i + 8192));
            done(btoa(text)); }), {once: true});
        v.currentTime = time;""", seconds)
    import base64
    return blocks(base64.b64decode(data), channels=3)


def psnr(a, b):
    import math
    mse = sum((x - y) ** 2 for x, y in zip(a, b)) / max(1, len(a))
    return 99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse)


@pytest.mark.parametrize("folder", ["ts", "fmp4"])
def test_manifest_cut_plays_through_in_chromium(origin, media, workdir, folder):
    """Chromium's own HLS player (no hls.js) plays the playlist to its end at twice the speed (the issue's rate): no stall at the seams, one buffered range.
    The playlist and its edges are published on one server, the source's segments stay on theirs, which allows
    other pages' players to read them (CORS), as CDNs serving HLS do, and the page asks with CORS (crossorigin):
    without both, Chromium cannot parse the first reused segment (DEMUXER_ERROR_COULD_NOT_PARSE, measured)."""
    origin.cors = True
    playlist = os.path.join(workdir, "cut.m3u8")
    run_vtrim("cut", origin.url(f"{folder}/index.m3u8"), "--start", "31", "--end", "49", "-o", playlist)
    with open(os.path.join(workdir, "index.html"), "w") as page:
        page.write('<!doctype html><video id="v" src="cut.m3u8" crossorigin="anonymous" muted playsinline></video>')
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/lib/chromium/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--mute-audio", "--autoplay-policy=no-user-gesture-required"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    driver.set_script_timeout(20)
    try:
        with Origin(workdir) as page:
            driver.get(page.url("index.html"))
            can = driver.execute_script("return document.getElementById('v').canPlayType('application/vnd.apple.mpegurl')")
            if not can:
                pytest.skip("this Chromium has no native HLS player")
            driver.execute_script("const v = document.getElementById('v'); v.playbackRate = 2; v.play();")
            deadline, state = time.time() + 60, {}
            while time.time() < deadline:
                state = driver.execute_script("""const v = document.getElementById('v');
                    return {ended: v.ended, time: v.currentTime, duration: v.duration, error: v.error && v.error.code,
                            ranges: Array.from({length: v.buffered.length}, (_, i) => [v.buffered.start(i), v.buffered.end(i)])};""")
                if state["ended"] or state["error"]:
                    break
                time.sleep(0.25)
            assert state.get("error") is None and state.get("ended"), state
            assert abs(state["duration"] - 18.0) < 0.1 and len(state["ranges"]) == 1, state
            # At each seam (the first reused segment, the end edge) and two frames either side, the picture shown is
            # the cut's: a canvas grab against the same cut of the segments' concatenation (PSNR ≥ 30 dB; the moving
            # test pattern's neighbouring frames are far below).
            local = os.path.join(workdir, "local.mp4")
            run_vtrim("cut", concatenation(media, folder, workdir), "--start", "31", "--end", "49", "--mode", "smart", "-o", local)
            expected = rgb_frames(local)
            for seam in (151, 511):
                for frame in range(seam - 2, seam + 3):
                    shown = grab(driver, (frame + 0.5) / 30)
                    scores = {index: psnr(shown, expected[index]) for index in range(frame - 2, frame + 3)}
                    assert max(scores, key=scores.get) == frame and scores[frame] >= 30, (frame, scores)
    finally:
        driver.quit()


@pytest.mark.parametrize("folder,segment", [("ts", "ts/seg008.ts"), ("fmp4", "fmp4/seg008.m4s")])
def test_a_failed_end_edge_leaves_no_start_edge_behind(origin, workdir, folder, segment):
    """The start edge is written before the end edge is cut: when the end edge's segment comes truncated, the start edge
    goes too, and no playlist is written (an edge alone is half a result)."""
    origin.fault(segment, count=None, truncate_to=5000)
    result = run_vtrim("cut", origin.url(f"{folder}/index.m3u8"), "--start", "31", "--end", "49", "-o", os.path.join(workdir, "cut.m3u8"),
                       "--json", check=False)
    assert result.returncode == 1 and report(result)["error"]["code"] == "truncated_segment", result.stderr
    assert "segment 8" in result.stderr and os.listdir(workdir) == []


def test_streams_the_edges_leave_out_are_named(media, workdir):
    """An edge carries the video and the first sound: a source with a second sound track gets a playlist whose edges
    lack it, said in a warning that names it, not silently."""
    served = os.path.join(workdir, "served")
    os.makedirs(served)
    subprocess.run(["ffmpeg", "-v", "error", "-i", os.path.join(media, "src.mp4"), "-map", "0:v", "-map", "0:a", "-map", "0:a", "-c", "copy",
                    "-f", "hls", "-hls_time", "6", "-hls_playlist_type", "vod", "-hls_segment_filename", os.path.join(served, "seg%03d.ts"),
                    os.path.join(served, "index.m3u8")], check=True, timeout=120)
    out = os.path.join(workdir, "out")
    os.makedirs(out)
    with Origin(served) as origin:
        result = run_vtrim("cut", origin.url("index.m3u8"), "--start", "31", "--end", "49", "-o", os.path.join(out, "cut.m3u8"), "--json")
    warnings = [w for w in report(result)["warnings"] if w["code"] == "edge_streams_left_out"]
    assert len(warnings) == 2 and all("audio" in w["message"] for w in warnings), report(result)["warnings"]
    assert sorted(os.listdir(out)) == ["cut.end.ts", "cut.m3u8", "cut.start.ts"]


def test_manifest_cuts_vtrim_cannot_write_are_refused(origin, workdir):
    for url, extra, words in [(origin.url("dash/manifest.mpd"), [], "HLS source only"),
                              (origin.url("alt/master.m3u8"), [], "separate rendition"),
                              (origin.url("ts/index.m3u8"), ["--http-header", "X-Token: 1"], "--http-header")]:
        result = run_vtrim("cut", url, "--start", "31", "--end", "49", "-o", os.path.join(workdir, "x.m3u8"), *extra, "--json", check=False)
        assert result.returncode == 1 and report(result)["error"]["code"] == "unsupported_container" and words in result.stderr, result.stderr
    assert os.listdir(workdir) == []
    local = run_vtrim("cut", os.path.join(workdir, "..", "clip.mp4"), "--start", "1", "-o", os.path.join(workdir, "x.m3u8"), check=False)
    assert local.returncode == 64 and "HLS playlist URL" in local.stderr
