"""The engine in worker processes: a file that crashes or hangs the engine costs one request, never the
server; a cut runs the plan its POST returned (or fails `plan_stale`); DELETE cancels; a mixed load of
tiles, probes, Range reads and smart cuts fails no request. The crashing and hanging engines are real
workers told by a test-only switch (VTRIM_TEST_WORKER_TRAP / _HANG) to abort or hang on a marked file."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import pytest

from conftest import FIXTURES, VTRIM, Server, ffprobe, wait_for
from test_http import request, api, clip_id, assert_alive, listed

TILE = "strip_width=600&thumb_width=40&thumb_height=50&max=2"


def post(server, path, payload, method="POST"):
    response, data = request(server, method, path, body=json.dumps(payload), headers={"Content-Type": "application/json"})
    return response, (json.loads(data) if data else None)


def wait_cut(server, cut_id, timeout=120):
    return wait_for(lambda: (lambda j: j if j["status"] not in ("queued", "running") else None)(api(server, f"/api/cuts/{cut_id}")),
                    timeout=timeout, message=f"cut {cut_id} to end")


def long_clip(folder, name, seconds=20):
    """A clip long enough that its exact cut runs for a while (640x480, keyframes every 2 s)."""
    path = os.path.join(folder, name)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=640x480:rate=30:duration={seconds}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-pix_fmt", "yuv420p", path], check=True)
    return path


@pytest.fixture()
def folder():
    made = tempfile.mkdtemp(prefix="vtrim-workers-")
    for name in ("h264-aac.mp4", "hevc.mp4", "rot90.mp4"):
        shutil.copy(os.path.join(FIXTURES, name), os.path.join(made, name))
    shutil.copy(os.path.join(FIXTURES, "h264-aac.mp4"), os.path.join(made, "crash-marker.mp4"))
    shutil.copy(os.path.join(FIXTURES, "h264-aac.mp4"), os.path.join(made, "hang-marker.mp4"))
    yield made
    shutil.rmtree(made, ignore_errors=True)


@pytest.fixture()
def cache(tmp_path):
    return {"XDG_CACHE_HOME": str(tmp_path / "cache")}


@pytest.mark.worker_switches
def test_a_crashing_worker_costs_only_its_request(folder, cache):
    server = Server(folder, env=dict(cache, VTRIM_TEST_WORKER_TRAP="crash-marker"))
    try:
        bad, good = clip_id(server, "crash-marker.mp4"), clip_id(server, "h264-aac.mp4")
        response, data = request(server, "GET", f"/api/clips/{bad}/filmstrip.png?{TILE}&first=0&count=4")
        assert response.status == 500, data
        error = json.loads(data)["error"]
        assert error["code"] == "engine_crashed" and "crash-marker.mp4" in error["message"]
        assert_alive(server)
        # The next requests are served by a fresh worker.
        response, data = request(server, "GET", f"/api/clips/{good}/filmstrip.png?{TILE}&first=0&count=4")
        assert response.status == 200 and data[:8] == b"\x89PNG\r\n\x1a\n"
        assert api(server, f"/api/clips/{good}")["duration"] == 4
        # The background probes reach it too: once they have (the list marks it), nothing more crashes.
        marked = lambda: next(c for c in listed(server) if c["id"] == bad)["unreadable"] == "engine_crashed"
        wait_for(marked, timeout=30, message="the list marking the clip")
        # Swift's crash report (under ThreadSanitizer its backtracer cannot start, so none is printed). One crash,
        # or two where the background probe was already running when the request crashed.
        sanitized = bool(os.environ.get("VTRIM_SANITIZED"))
        crashes = server.stderr().count("Program crashed")
        assert sanitized or crashes in (1, 2), server.stderr()[-2000:]
        # The file is not handed to the engine again until it changes…
        for path in (f"/api/clips/{bad}", f"/api/clips/{bad}/frames"):
            response, data = request(server, "GET", path)
            assert response.status == 500 and json.loads(data)["error"]["code"] == "engine_crashed"
        assert sanitized or server.stderr().count("Program crashed") == crashes
        # …then it is (and crashes again: it is still marked).
        stamp = time.time() + 5
        os.utime(os.path.join(folder, "crash-marker.mp4"), (stamp, stamp))
        wait_for(lambda: request(server, "GET", f"/api/clips/{bad}")[0].status == 500 and (sanitized or server.stderr().count("Program crashed") > crashes),
                 message="a retry after the file changed")
        assert_alive(server)
    finally:
        assert server.stop() == 130


@pytest.mark.worker_switches
def test_a_hanging_worker_is_killed_after_its_deadline(folder, cache):
    server = Server(folder, "--worker-timeout", "2", env=dict(cache, VTRIM_TEST_WORKER_HANG="hang-marker"))
    try:
        clip = clip_id(server, "hang-marker.mp4")
        started = time.time()
        response, data = request(server, "GET", f"/api/clips/{clip}")
        elapsed = time.time() - started
        assert response.status == 504 and json.loads(data)["error"]["code"] == "engine_timeout"
        # SIGTERM at 2 s; the hanging worker ignores it, so SIGKILL two seconds later.
        assert 2 <= elapsed < 10, elapsed
        assert_alive(server)
        assert api(server, f"/api/clips/{clip_id(server, 'h264-aac.mp4')}")["duration"] == 4
        # No worker is left hanging: at most the pools' sizes, all answering.
        assert len(server.workers()) <= 2
    finally:
        assert server.stop() == 130


def sleeping_workers(server):
    """This server's workers whose main thread sleeps (clock_nanosleep or nanosleep: a worker hanging on its request by
    the test switch; an idle worker waits in read)."""
    found = []
    for pid in server.workers():
        try:
            with open(f"/proc/{pid}/syscall") as handle:
                number = handle.read().split()[0]
        except (OSError, IndexError):
            continue
        if number in ("230", "35"):
            found.append(pid)
    return found


@pytest.mark.worker_switches
def test_a_tile_whose_client_left_frees_its_worker(folder, cache):
    # Tiles of the marked clip hang their worker until --worker-timeout (a minute); a client that leaves must not
    # hold it that long: its request is cancelled, the worker stopped, the next request served.
    server = Server(folder, "--worker-timeout", "60", env=dict(cache, VTRIM_TEST_WORKER_HANG="tile:hang-marker"))
    try:
        hang = clip_id(server, "hang-marker.mp4")
        for attempt in range(2):
            client = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            client.sendall(f"GET /api/clips/{hang}/filmstrip.png?{TILE}&first={attempt}&count=1 HTTP/1.1\r\n"
                           f"Host: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {server.token}\r\n\r\n".encode())
            hanging = wait_for(lambda: sleeping_workers(server), message="a worker taking the tile")
            client.close()
            wait_for(lambda: not set(hanging) & set(sleeping_workers(server)), timeout=15, message="the worker stopped once its client left")
        started = time.time()
        response, data = request(server, "GET", f"/api/clips/{clip_id(server, 'h264-aac.mp4')}/filmstrip.png?{TILE}&first=0&count=1")
        assert response.status == 200 and data.startswith(b"\x89PNG"), (response.status, data[:200])
        assert time.time() - started < 15
        assert_alive(server)
    finally:
        assert server.stop() == 130


def test_a_cut_runs_the_plan_it_showed(folder, cache):
    server = Server(folder, env=cache)
    try:
        clip = clip_id(server, "h264-aac.mp4")
        response, shown = post(server, "/api/cuts", {"clip": clip, "start": 1.1, "end": 2.9, "mode": "smart"})
        assert response.status == 202, shown
        assert shown["dry_run"] is True
        done = wait_cut(server, shown["id"])
        assert done["status"] == "done", done
        for key in ("mode", "requested", "effective", "planned", "keyframe", "streams", "sample_entry", "smart", "output"):
            assert done[key] == shown[key], key
        assert abs(done["actual"]["start"] - shown["planned"]["start"]) < 1e-6
        assert abs(done["actual"]["end"] - shown["planned"]["end"]) < 1e-6
        os.unlink(done["output"])
    finally:
        server.stop()


@pytest.mark.worker_switches
@pytest.mark.parametrize("change", ["touched", "copied over keeping size and time"])
def test_a_file_changed_between_plan_and_cut_fails_plan_stale(folder, cache, tmp_path, change):
    long_clip(folder, "slow.mp4")
    out = tmp_path / "out"
    out.mkdir()
    # One cut worker, kept busy by a cut that never progresses, so the second cut waits in the queue.
    server = Server(folder, "--cut-workers", "1", "--output-dir", str(out), env=dict(cache, VTRIM_TEST_WORKER_HANG="cut:slow.mp4"))
    try:
        blocker = post(server, "/api/cuts", {"clip": clip_id(server, "slow.mp4"), "start": 1, "end": 3, "mode": "copy"})[1]
        wait_for(lambda: len(server.workers()) >= 2, message="the cut worker to start")
        response, queued = post(server, "/api/cuts", {"clip": clip_id(server, "rot90.mp4"), "start": 0.5, "end": 1.5, "mode": "copy"})
        assert response.status == 202 and api(server, f"/api/cuts/{queued['id']}")["status"] == "queued"
        target = os.path.join(folder, "rot90.mp4")
        if change == "touched":
            stamp = time.time() + 5
            os.utime(target, (stamp, stamp))
        else:
            # `cp -p` of other content with the same size: size and mtime stay; only the change time says so.
            before = os.stat(target)
            with open(target, "r+b") as handle:
                data = bytearray(handle.read())
                data[len(data) // 2] ^= 0xFF
                handle.seek(0)
                handle.write(data)
            os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
            after = os.stat(target)
            assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
        response, cancelled = post(server, f"/api/cuts/{blocker['id']}", {}, method="DELETE")
        assert response.status == 200 and cancelled["status"] == "cancelled"
        ended = wait_cut(server, queued["id"])
        assert ended["status"] == "failed" and ended["error"]["code"] == "plan_stale", ended
        assert os.listdir(out) == []
        assert_alive(server)
    finally:
        server.stop()


def start_long_cut(folder, cache, tmp_path):
    """A server cutting a 30 s clip exactly into tmp_path/out, waited for until it is under way (its temporary file
    written to): (server, job, out)."""
    long_clip(folder, "long.mp4", seconds=30)
    out = tmp_path / "out"
    out.mkdir()
    server = Server(folder, "--output-dir", str(out), env=cache)
    try:
        response, job = post(server, "/api/cuts", {"clip": clip_id(server, "long.mp4"), "start": 0.5, "end": 29.5, "mode": "exact"})
        assert response.status == 202, job
        wait_for(lambda: api(server, f"/api/cuts/{job['id']}")["progress"] > 0 and any("vtrim-tmp" in n for n in os.listdir(out)),
                 timeout=60, message="the cut to be under way")
    except BaseException:
        server.stop()
        raise
    return server, job, out


def test_delete_cancels_a_running_cut_and_leaves_nothing(folder, cache, tmp_path):
    server, job, out = start_long_cut(folder, cache, tmp_path)
    try:
        response, cancelled = post(server, f"/api/cuts/{job['id']}", {}, method="DELETE")
        assert response.status == 200 and cancelled["status"] == "cancelled"
        wait_for(lambda: os.listdir(out) == [], timeout=10, message="the partial output to be removed")
        assert api(server, f"/api/cuts/{job['id']}")["status"] == "cancelled"
        response, _ = post(server, f"/api/cuts/{job['id']}", {}, method="DELETE")
        assert response.status == 409
        assert_alive(server)
    finally:
        server.stop()


@pytest.mark.worker_switches
def test_a_cut_written_before_its_cancel_is_done(folder, cache, tmp_path):
    """DELETE arriving after the worker renamed the output into place, before it answered: the file is there, so
    the cut is `done`, never `cancelled`."""
    out = tmp_path / "out"
    out.mkdir()
    server = Server(folder, "--output-dir", str(out), env=dict(cache, VTRIM_TEST_WORKER_PAUSE_AFTER_WRITE="rot90"))
    try:
        response, job = post(server, "/api/cuts", {"clip": clip_id(server, "rot90.mp4"), "start": 0.2, "end": 1.2, "mode": "copy"})
        assert response.status == 202, job
        wait_for(lambda: [n for n in os.listdir(out) if "vtrim-tmp" not in n], timeout=60, message="the output in place")
        response, ended = post(server, f"/api/cuts/{job['id']}", {}, method="DELETE")
        assert response.status == 200 and ended["status"] == "done", ended
        assert os.path.exists(ended["output"]), ended
        assert api(server, f"/api/cuts/{job['id']}")["status"] == "done"
        wait_for(lambda: server.zombies() == [], timeout=10, message="no unreaped worker")
        assert_alive(server)
    finally:
        server.stop()


def test_cancelled_and_refused_requests_leave_no_zombies(folder, cache, tmp_path):
    """Cuts cancelled while queued, while running and while being stopped: every worker that ended is reaped."""
    long_clip(folder, "long.mp4", seconds=10)
    out = tmp_path / "out"
    out.mkdir()
    server = Server(folder, "--cut-workers", "1", "--output-dir", str(out), env=cache)
    try:
        clip = clip_id(server, "long.mp4")
        jobs = [post(server, "/api/cuts", {"clip": clip, "start": 0.5, "end": 9.5, "mode": "exact"})[1] for _ in range(4)]
        for job in reversed(jobs):
            post(server, f"/api/cuts/{job['id']}", {}, method="DELETE")
        for job in jobs:
            assert wait_cut(server, job["id"])["status"] in ("cancelled", "done")
        wait_for(lambda: server.zombies() == [], timeout=10, message="no unreaped worker")
        response, done = post(server, "/api/cuts", {"clip": clip_id(server, "rot90.mp4"), "start": 0.2, "end": 1.2, "mode": "copy"})
        assert wait_cut(server, done["id"])["status"] == "done"
        assert_alive(server)
    finally:
        server.stop()


def _ended(pid):
    """Gone, or a zombie waiting for whoever adopted it (the server that would reap it is dead)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_workers_end_with_a_killed_server(folder, cache, tmp_path):
    # A server killed outright (SIGKILL, the OOM killer) leaves no engine process working on: each worker dies with it
    # (its parent-death signal), its cut stopped and the temporary file removed.
    server, job, out = start_long_cut(folder, cache, tmp_path)
    try:
        workers = server.workers()
        assert workers
        # Each worker asked the kernel for the signal: none runs the one-second parent poll kept for where it cannot.
        for pid in workers:
            names = [open(os.path.join(f"/proc/{pid}/task", task, "comm")).read().strip() for task in os.listdir(f"/proc/{pid}/task")]
            assert "vtrim-worker-pa" not in names, names
        # A second server over the same library and state folder leaves the first one's cut to it: not interrupted,
        # not cancelled from there (409), its output name not given to a cut of its own; once the first server is
        # gone, the second reads the cut as interrupted.
        second = Server(folder, "--output-dir", str(out), env=cache)
        try:
            seen = api(second, f"/api/cuts/{job['id']}")
            assert seen["status"] in ("queued", "running") and seen["output"] == job["output"], seen
            response, refused = post(second, f"/api/cuts/{job['id']}", {}, method="DELETE")
            assert response.status == 409, refused
            response, plan = post(second, "/api/plans", {"clip": clip_id(second, "long.mp4"), "start": 0.5, "end": 29.5, "mode": "exact"})
            assert response.status == 200 and plan["output"] != job["output"], plan
            assert any("vtrim-tmp" in name for name in os.listdir(out))
            assert api(server, f"/api/cuts/{job['id']}")["status"] == "running"
            server.process.kill()
            server.process.wait()
            wait_for(lambda: all(_ended(pid) for pid in workers), timeout=10, message="the workers to end")
            wait_for(lambda: os.listdir(out) == [], timeout=10, message="the partial output to be removed")
            ended = api(second, f"/api/cuts/{job['id']}")
            assert ended["status"] == "failed" and ended["error"]["code"] == "interrupted", ended
        finally:
            second.stop()
    finally:
        server.stop()
    # The restarted server lists the cut as ended: it never will, and nothing was written.
    restarted = Server(folder, "--output-dir", str(out), env=cache)
    try:
        kept = api(restarted, f"/api/cuts/{job['id']}")
        assert kept["status"] == "failed" and kept["error"]["code"] == "interrupted" and "ended_at" in kept, kept
    finally:
        restarted.stop()


def test_a_worker_whose_server_is_already_gone_ends_at_once():
    # Its parent is not the server it was started for (the server died between spawn and start): it ends. The pid
    # given is one that has ended, so it cannot be this test's.
    ended = subprocess.Popen(["true"])
    ended.wait()
    result = subprocess.run([VTRIM, "_worker", "--parent", str(ended.pid)], stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    assert result.returncode == 1, result


def test_a_preview_is_made_only_on_post(folder, cache):
    server = Server(folder, env=cache)
    try:
        clip = clip_id(server, "hevc.mp4")
        response, _ = request(server, "GET", f"/media/{clip}/preview.mp4")
        assert response.status == 404
        assert api(server, f"/api/clips/{clip}/preview")["status"] == "none"
        response, state = post(server, f"/api/clips/{clip}/preview", {})
        assert response.status == 200 and state["status"] in ("running", "done")
        wait_for(lambda: api(server, f"/api/clips/{clip}/preview")["status"] == "done", timeout=60, message="the preview")
        response, data = request(server, "GET", f"/media/{clip}/preview.mp4", headers={"Range": "bytes=0-99"})
        assert response.status == 206 and len(data) == 100
    finally:
        server.stop()


def test_a_transport_stream_with_aac_gets_a_preview_with_its_sound(folder, cache, tmp_path):
    # HLS segments, screen recorders and cameras write H.264 + AAC in MPEG-TS. Its preview failed ("Operation not
    # permitted": the ADTS audio copied into a fragmented MP4 as it was), and the clip was labelled video/mp4, so
    # Chromium said "probably" and tried the TS itself.
    shutil.copy(os.path.join(FIXTURES, "h264-aac.ts"), os.path.join(folder, "rec.ts"))
    server = Server(folder, env=cache)
    try:
        clip = clip_id(server, "rec.ts")
        assert api(server, f"/api/clips/{clip}")["mime"].startswith("video/mp2t;")
        post(server, f"/api/clips/{clip}/preview", {})
        state = wait_for(lambda: (lambda s: s if s["status"] != "running" else None)(api(server, f"/api/clips/{clip}/preview")),
                         timeout=60, message="the preview")
        assert state["status"] == "done", state
        response, data = request(server, "GET", f"/media/{clip}/preview.mp4")
        assert response.status == 200
        preview = tmp_path / "preview.mp4"
        preview.write_bytes(data)
        assert [s["codec_name"] for s in ffprobe(str(preview), "-show_entries", "stream=codec_name")["streams"]] == ["h264", "aac"]
        decoded = subprocess.run(["ffmpeg", "-v", "error", "-i", str(preview), "-f", "null", "-"], capture_output=True, text=True)
        assert decoded.returncode == 0 and decoded.stderr == "", decoded.stderr
    finally:
        server.stop()


@pytest.mark.parametrize("name, video, sound, channels, kept", [
    ("dvd.mkv", "libx264", "ac3", 6, "aac"),
    ("broadcast.ts", "libx264", "mp2", 2, "aac"),
    ("camera.mov", "libx264", "pcm_s16le", 2, "aac"),
    ("archive.mkv", "libx265", "flac", 1, "aac"),
    ("divx.avi", "mpeg4", "libmp3lame", 2, "mp3"),
])
def test_a_preview_keeps_the_sound_browsers_cannot_play_as_aac(folder, cache, tmp_path, name, video, sound, channels, kept):
    """AC-3, MP2, PCM and FLAC made AAC (mono stays mono; 5.1 becomes stereo), MP3 copied: the preview has the
    source's sound, as long as its picture and audible, not silence."""
    source = os.path.join(folder, name)
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=3", "-f", "lavfi",
                    "-i", f"sine=f=440:sample_rate=48000:d=3", "-ac", str(channels), "-c:v", video, "-c:a", sound,
                    "-pix_fmt", "yuv420p", source], check=True, capture_output=True)
    server = Server(folder, env=cache)
    try:
        clip = clip_id(server, name)
        post(server, f"/api/clips/{clip}/preview", {})
        state = wait_for(lambda: (lambda s: s if s["status"] != "running" else None)(api(server, f"/api/clips/{clip}/preview")),
                         timeout=60, message="the preview")
        assert state["status"] == "done", state
        response, data = request(server, "GET", f"/media/{clip}/preview.mp4")
        assert response.status == 200
        preview = tmp_path / "preview.mp4"
        preview.write_bytes(data)
        streams = ffprobe(str(preview), "-show_entries", "stream=codec_name,channels,duration")["streams"]
        assert [s["codec_name"] for s in streams] == ["h264", kept], streams
        assert streams[1]["channels"] == (1 if channels == 1 else 2), streams
        assert abs(float(streams[1]["duration"]) - 3) < 0.1, streams
        decoded = subprocess.run(["ffmpeg", "-v", "error", "-i", str(preview), "-f", "null", "-"], capture_output=True, text=True)
        assert decoded.returncode == 0 and decoded.stderr == "", decoded.stderr
        loudness = subprocess.run(["ffmpeg", "-i", str(preview), "-map", "0:a", "-af", "volumedetect", "-f", "null", "-"],
                                  capture_output=True, text=True).stderr
        mean = float(loudness.split("mean_volume:")[1].split()[0])
        assert mean > -30, loudness[-500:]
    finally:
        server.stop()


def test_a_poster_skips_a_fade_from_black(folder, cache, tmp_path):
    """The grid's poster (the strip's first cell with skip_dull=1): the first frame that is not dull, not the black
    start of a clip that fades in; the same cell without it is black."""
    clip_path = os.path.join(folder, "fade.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=black:s=320x240:r=25:d=1.5", "-f", "lavfi",
                    "-i", "testsrc2=s=320x240:r=25:d=8.5", "-filter_complex", "[0:v][1:v]concat=n=2:v=1[v]", "-map", "[v]",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", clip_path], check=True, capture_output=True)
    server = Server(folder, env=cache)
    try:
        clip = clip_id(server, "fade.mp4")
        query = f"/api/clips/{clip}/filmstrip.png?strip_width=600&thumb_width=200&thumb_height=112&max=10&min=1&first=0&count=1"

        def mean_brightness(path):
            response, data = request(server, "GET", path)
            assert response.status == 200, data[:200]
            image = tmp_path / "cell.png"
            image.write_bytes(data)
            gray = subprocess.run(["ffmpeg", "-v", "error", "-i", str(image), "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                                  capture_output=True, check=True).stdout
            return sum(gray) / len(gray)

        assert mean_brightness(query) < 20
        assert mean_brightness(query + "&skip_dull=1") > 60
        response, _ = request(server, "GET", query + "&skip_dull=1&mode=fast")
        assert response.status == 400
    finally:
        server.stop()


def test_an_evicted_preview_is_made_again(folder, cache):
    # A preview evicted from the cache stayed "done": 404 forever, and a POST answered done without making it.
    server = Server(folder, "--cache-size", "10K", env=cache)
    try:
        clip = clip_id(server, "hevc.mp4")
        post(server, f"/api/clips/{clip}/preview", {})
        wait_for(lambda: api(server, f"/api/clips/{clip}/preview")["status"] == "done", timeout=60, message="the preview")
        previews = os.path.join(cache["XDG_CACHE_HOME"], "vtrim", "serve", "previews")
        assert len(os.listdir(previews)) == 1
        other = clip_id(server, 'h264-aac.mp4')
        tiles = iter(range(12))

        def store_a_tile():
            response, data = request(server, "GET", f"/api/clips/{other}/filmstrip.png?{TILE}&first={next(tiles)}&count=1")
            assert response.status == 200 and data[:4] == b"\x89PNG"

        # Larger than the whole cache, it stays until it has been served once: a tile stored meanwhile leaves it.
        store_a_tile()
        assert len(os.listdir(previews)) == 1
        response, served = request(server, "GET", f"/media/{clip}/preview.mp4")
        assert response.status == 200 and len(served) > 1000
        # Served and no longer read (the response's hold goes as its body ends): the next tile stored evicts it.
        wait_for(lambda: store_a_tile() or os.listdir(previews) == [], message="the served preview evicted")
        assert api(server, f"/api/clips/{clip}/preview")["status"] == "none"
        response, _ = request(server, "GET", f"/media/{clip}/preview.mp4")
        assert response.status == 404
        response, state = post(server, f"/api/clips/{clip}/preview", {})
        assert response.status == 200 and state["status"] in ("running", "done")
        wait_for(lambda: api(server, f"/api/clips/{clip}/preview")["status"] == "done", timeout=60, message="the preview again")
        response, data = request(server, "GET", f"/media/{clip}/preview.mp4")
        assert response.status == 200 and len(data) > 1000
    finally:
        server.stop()


def started_preview(server, name):
    """The clip's id, once its preview is asked for and under way."""
    clip = clip_id(server, name)
    response, state = post(server, f"/api/clips/{clip}/preview", {})
    assert response.status == 200 and state["status"] == "running"
    return clip

@pytest.mark.worker_switches
def test_a_preview_asked_for_before_its_file_exists_is_sent_whole(folder, cache):
    # The page GETs a preview right after its POST; the worker here starts 2 s late, so the GET comes before the
    # file exists. It must wait for it and end with the whole file (it answered 200 and then nothing, forever).
    server = Server(folder, env=dict(cache, VTRIM_TEST_WORKER_DELAY="preview:hevc.mp4"))
    try:
        clip = started_preview(server, "hevc.mp4")
        response, streamed = request(server, "GET", f"/media/{clip}/preview.mp4")
        assert response.status == 200
        assert api(server, f"/api/clips/{clip}/preview")["status"] == "done"
        response, whole = request(server, "GET", f"/media/{clip}/preview.mp4")
        assert response.status == 200 and len(whole) > 1000 and streamed == whole
    finally:
        server.stop()



@pytest.mark.worker_switches
def test_a_preview_whose_file_never_comes_is_a_503_with_retry_after(folder, cache):
    # The preview's worker never answers and never writes: the GET waits its bounded time for the first bytes, then
    # says 503 preview_not_ready with Retry-After (never 200 and then nothing); the server goes on serving.
    server = Server(folder, env=dict(cache, VTRIM_TEST_WORKER_HANG="preview:hevc.mp4"))
    try:
        clip = started_preview(server, "hevc.mp4")
        began = time.monotonic()
        response, data = request(server, "GET", f"/media/{clip}/preview.mp4")
        waited = time.monotonic() - began
        assert response.status == 503, (response.status, data[:200])
        assert json.loads(data)["error"]["code"] == "preview_not_ready", data
        assert response.getheader("Retry-After") == "2"
        # The bound is the server's 10 s (MediaController.previewFileWaitSeconds), not the client's 30 s timeout.
        assert 9 <= waited <= 20, waited
        assert_alive(server)
    finally:
        server.stop()

def test_oversized_tile_and_strip_requests_are_refused(folder, cache):
    server = Server(folder, env=cache)
    try:
        clip = clip_id(server, "h264-aac.mp4")
        for query in ("strip_width=60000&thumb_width=20000&thumb_height=20000&first=0&count=1",
                      "strip_width=1e300&thumb_width=40&thumb_height=50&first=0&count=1",
                      "strip_width=600&thumb_width=40&thumb_height=nan&first=0&count=1"):
            response, _ = request(server, "GET", f"/api/clips/{clip}/filmstrip.png?{query}")
            assert response.status == 400, query
        response, data = request(server, "GET", f"/api/clips/{clip}/timeline?strip_width=1000000&thumb_width=1&thumb_height=1&max=0.001")
        assert response.status in (400, 422), data
        assert_alive(server)
    finally:
        server.stop()


def machine_address():
    """An address of this machine other than loopback, or None."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks the outgoing interface
            address = probe.getsockname()[0]
    except OSError:
        address = None
    if address and not address.startswith("127."):
        return address
    for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
        if not info[4][0].startswith("127."):
            return info[4][0]
    return None


def test_host_allow_list_follows_the_bound_address(folder, cache):
    address = machine_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    server = Server(folder, "--host", "0.0.0.0", env=cache)
    try:
        # Always connecting to 127.0.0.1: only the Host header names the machine's address.
        for host in (f"{address}:{server.port}", f"{socket.gethostname()}:{server.port}", f"127.0.0.1:{server.port}"):
            response, data = request(server, "GET", "/api/clips", host=host)
            assert response.status == 200, (host, data)
        response, _ = request(server, "GET", "/api/clips", host=f"evil.example:{server.port}")
        assert response.status == 403
    finally:
        server.stop()


def test_mixed_load_fails_no_request(folder, cache):
    server = Server(folder, env=cache)
    failures, counts = [], {}
    lock = threading.Lock()
    stop = time.time() + 10
    clips = {name: clip_id(server, name) for name in ("h264-aac.mp4", "hevc.mp4", "rot90.mp4")}
    with open(os.path.join(folder, "h264-aac.mp4"), "rb") as handle:
        whole = handle.read()

    def record(kind, ok, detail=""):
        with lock:
            counts[kind] = counts.get(kind, 0) + 1
            if not ok:
                failures.append((kind, detail))

    def tiles(seed):
        number = 0
        while time.time() < stop:
            clip = list(clips.values())[(seed + number) % 3]
            width = 30 + (seed * 7 + number) % 25  # mostly fresh tiles, some cached
            response, data = request(server, "GET", f"/api/clips/{clip}/filmstrip.png?strip_width=600&thumb_width={width}"
                                                    f"&thumb_height=40&max=2&first=0&count=6")
            record("tile", response.status == 200 and data[:4] == b"\x89PNG", response.status)
            number += 1

    def probes():
        while time.time() < stop:
            for clip in clips.values():
                response, _ = request(server, "GET", f"/api/clips/{clip}")
                record("probe", response.status == 200, response.status)
            response, _ = request(server, "GET", "/api/clips")
            record("list", response.status == 200, response.status)

    def ranges():
        offset = 0
        while time.time() < stop:
            start = offset % (len(whole) - 1000)
            response, data = request(server, "GET", f"/media/{clips['h264-aac.mp4']}", headers={"Range": f"bytes={start}-{start + 999}"})
            record("range", response.status == 206 and data == whole[start:start + 1000], response.status)
            offset += 7919

    def cuts(start):
        response, job = post(server, "/api/cuts", {"clip": clips["h264-aac.mp4"], "start": start, "end": start + 2, "mode": "smart"})
        record("cut", response.status == 202, job)
        if response.status == 202:
            done = wait_cut(server, job["id"])
            record("cut", done["status"] == "done", done.get("error"))
            if done["status"] == "done":
                os.unlink(done["output"])

    threads = [threading.Thread(target=tiles, args=(n,)) for n in range(3)] + [threading.Thread(target=probes) for _ in range(2)] \
        + [threading.Thread(target=ranges)] + [threading.Thread(target=cuts, args=(s,)) for s in (0.6, 1.3)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == [], failures[:5]
        assert counts.get("tile", 0) > 5 and counts.get("range", 0) > 20 and counts.get("probe", 0) > 5, counts
        assert_alive(server)
    finally:
        server.stop()
