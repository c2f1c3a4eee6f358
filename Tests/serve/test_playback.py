"""What headless Chromium plays of `vtrim cut` outputs served as plain files: an H.264 smart cut into Matroska plays
to its end, and a 3-range copy join into MP4 (an edit-list entry per range) shows exactly the ranges, its duration
including the last range's hidden frames — what the `multiple_edits` warning says of Chromium."""
import functools
import http.server
import os
import subprocess
import threading

import pytest

from conftest import vtrim, wait_for


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *arguments):
        pass


@pytest.fixture()
def files(tmp_path):
    """A plain HTTP server over tmp_path (Chromium plays media only from http(s) pages)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def source(folder, bframes=3):
    """8 s of 30 fps H.264 with B-frames, a keyframe every second."""
    path = os.path.join(folder, "source.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "8",
                    "-c:v", "libx264", "-g", "30", "-bf", str(bframes), path], check=True)
    return path


def play(browser, url):
    """Plays `url` at half speed to its end; every presented frame's media time, the duration, any error."""
    browser.get(url.rsplit("/", 1)[0] + "/")
    browser.execute_script("""
        const video = document.createElement('video');
        video.id = 'played';
        video.muted = true;
        window.played = {times: [], ended: false, error: null};
        video.addEventListener('ended', () => { window.played.ended = true; });
        video.addEventListener('error', () => { window.played.error = video.error && video.error.code; });
        const frame = (now, metadata) => { window.played.times.push(metadata.mediaTime); video.requestVideoFrameCallback(frame); };
        video.requestVideoFrameCallback(frame);
        video.src = arguments[0];
        video.playbackRate = 0.5;
        document.body.appendChild(video);
        video.play();""", url)
    wait_for(lambda: browser.execute_script("return window.played.ended || window.played.error !== null"), timeout=60,
             message=f"the end of {url}")
    played, duration = browser.execute_script("return [window.played, document.getElementById('played').duration]")
    return played["times"], duration, played["error"]


def test_a_smart_cut_into_matroska_plays_to_its_end(browser, files):
    folder, base = files
    output = os.path.join(folder, "smart.mkv")
    vtrim("cut", source(folder), "--start", "2.5", "--end", "6.2", "--mode", "smart", "-o", output)
    times, duration, error = play(browser, base + "smart.mkv")
    assert error is None
    assert abs(duration - 3.7) < 0.04, duration
    # 111 frames (2.5 s … 6.2 s at 30 fps); a headless page may drop a few at the start.
    assert len(times) >= 105 and times[-1] >= 3.6, (len(times), times[-3:])


def test_a_copy_join_into_mp4_shows_the_ranges_in_chromium(browser, files):
    folder, base = files
    output = os.path.join(folder, "join.mp4")
    result = vtrim("cut", "--json", source(folder), "--keep", "0.5..2.5", "--keep", "3.3..5.1", "--keep", "5.6..7.6",
                   "--mode", "copy", "-o", output)
    assert "multiple_edits" in result.stdout
    times, duration, error = play(browser, base + "join.mp4")
    assert error is None
    ideal = 2.0 + 1.8 + 2.0
    # Every frame shown is one of the output's 174, on its 1/30 s grid, none past the ideal end.
    assert all(abs(t * 30 - round(t * 30)) < 0.02 and t < ideal - 0.001 for t in times), times
    assert len(times) >= 165, len(times)
    # The duration reaches past the ideal end by the last range's hidden frames (its keyframe's GOP runs on).
    assert ideal - 0.001 <= duration <= ideal + 0.2, duration


@pytest.mark.parametrize("codec,container", [("libvpx-vp9", "webm"), ("libvpx-vp9", "mp4"), ("libsvtav1", "webm"), ("libsvtav1", "mp4")])
def test_smart_cuts_of_vp9_and_av1_play_to_their_end(browser, files, codec, container):
    """A 3-range smart join of a VP9 or AV1 source (re-encoded edges spliced to copied GOPs, AV1's av1C rewritten from the
    in-stream sequence header) plays in Chromium to its end without an error."""
    folder, base = files
    source = os.path.join(folder, f"source.{container}")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=256x144:rate=30", "-t", "4", "-g", "15",
                    "-keyint_min", "15", "-c:v", codec, *(["-preset", "12"] if codec == "libsvtav1" else ["-deadline", "realtime", "-cpu-used", "8"]),
                    source], check=True, env={**os.environ, "SVT_LOG": "1"})
    output = os.path.join(folder, f"smart.{container}")
    result = vtrim("cut", "--json", source, "--keep", "0.3..1.3", "--keep", "1.7..2.7", "--keep", "2.9..3.9", "--mode", "smart", "-o", output)
    assert '"mode":"smart"' in result.stdout, result.stdout
    times, duration, error = play(browser, base + f"smart.{container}")
    assert error is None
    assert abs(duration - 3.0) < 0.05, duration
    # 90 frames; a headless page may drop a few at the start.
    assert len(times) >= 84 and times[-1] >= 2.9, (len(times), times[-3:])
