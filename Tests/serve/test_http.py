"""`vtrim serve` over plain HTTP (http.client: no client library, no TLS): the security model, Range
requests, and a cut through the API equal to `vtrim cut --json` for the same range. After each refused
request the server is still serving."""
import http.client
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time

from conftest import FIXTURES, Server, ffprobe, vtrim, wait_for


def request(server, method, path, body=None, headers=None, host=None, token=True):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    sent = {"Host": host or f"127.0.0.1:{server.port}"}
    if token:
        sent["Authorization"] = f"Bearer {server.token}"
    sent.update(headers or {})
    connection.request(method, path, body=body, headers=sent)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response, data


def api(server, path):
    response, data = request(server, "GET", path)
    assert response.status == 200, (path, response.status, data)
    return json.loads(data)


def listed(server, query=""):
    """Every clip, page after page (`/api/clips` answers pages: {items, total, next})."""
    items, after = [], None
    while True:
        page = api(server, "/api/clips?limit=500" + (f"&after={after}" if after else "") + query)
        items += page["items"]
        after = page["next"]
        if not after:
            assert len(items) == page["total"]
            return items


def clip_id(server, name):
    return next(c["id"] for c in listed(server) if c["name"] == name)


def assert_alive(server):
    assert server.alive()
    response, _ = request(server, "GET", "/api/clips")
    assert response.status == 200


def test_lists_the_clips_under_the_folder_and_nothing_outside(server):
    clips = listed(server)
    assert sorted(c["path"] for c in clips) == ["camera/h264-aac.mp4", "phone/hevc.mp4", "phone/rot90.mp4"]
    assert all(len(c["id"]) == 16 for c in clips)
    # Ids are stable: the same on the next listing.
    assert [c["id"] for c in listed(server)] == [c["id"] for c in clips]


def test_no_token_is_401_and_a_wrong_one_too(server):
    response, data = request(server, "GET", "/api/clips", token=False)
    assert response.status == 401 and json.loads(data)["error"]["code"] == "unauthorized"
    response, _ = request(server, "GET", "/api/clips", token=False, headers={"Authorization": "Bearer nope"})
    assert response.status == 401
    response, _ = request(server, "GET", "/", token=False, headers={"Cookie": f"vtrim_token_{server.port}=wrong"})
    assert response.status == 401
    assert_alive(server)


def test_the_printed_url_sets_the_cookie(server):
    response, _ = request(server, "GET", "/?token=" + server.token, token=False)
    assert response.status == 303 and response.getheader("Location") == "/"
    cookie = response.getheader("Set-Cookie")
    assert cookie.startswith(f"vtrim_token_{server.port}={server.token}") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    response, data = request(server, "GET", "/", token=False, headers={"Cookie": f"vtrim_token_{server.port}={server.token}"})
    assert response.status == 200 and b"<title>vtrim</title>" in data


def test_a_foreign_host_is_403(server):
    for host in (f"evil.example:{server.port}", "127.0.0.1:1", "localhost"):
        response, data = request(server, "GET", "/api/clips", host=host)
        assert response.status == 403, host
        assert json.loads(data)["error"]["code"] == "foreign_host"
    response, _ = request(server, "GET", "/api/clips", host=f"localhost:{server.port}")
    assert response.status == 200
    assert_alive(server)


def test_traversal_and_symlink_escapes_are_404(server):
    for path in ("/media/../../etc/passwd", "/media/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/api/clips/../../etc/passwd",
                 "/media/0123456789abcdef", "/media/escape.mp4", "/api/clips/not-an-id", "/etc/passwd"):
        response, _ = request(server, "GET", path)
        assert response.status == 404, path
    assert_alive(server)


def test_state_changes_need_json_from_this_origin(server):
    clip = clip_id(server, "h264-aac.mp4")
    form = f"clip={clip}&start=1&end=2"
    response, data = request(server, "POST", "/api/cuts", body=form, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status == 415 and json.loads(data)["error"]["code"] == "json_required"
    response, _ = request(server, "POST", "/api/cuts", body="{not json", headers={"Content-Type": "application/json"})
    assert response.status == 400
    body = json.dumps({"clip": clip, "start": 1, "end": 2})
    response, data = request(server, "POST", "/api/cuts", body=body,
                             headers={"Content-Type": "application/json", "Origin": "http://evil.example"})
    assert response.status == 403 and json.loads(data)["error"]["code"] == "foreign_origin"
    response, _ = request(server, "POST", "/api/cuts", body=json.dumps({"clip": "0000000000000000", "start": 1, "end": 2}),
                          headers={"Content-Type": "application/json"})
    assert response.status == 404
    response, _ = request(server, "POST", "/api/cuts", body=json.dumps({"clip": clip, "start": 2, "end": 1}),
                          headers={"Content-Type": "application/json"})
    assert response.status == 400
    assert_alive(server)


def test_range_requests(server, clips_folder):
    clip = clip_id(server, "h264-aac.mp4")
    with open(os.path.join(clips_folder, "camera", "h264-aac.mp4"), "rb") as file:
        whole = file.read()
    size = len(whole)
    response, data = request(server, "GET", f"/media/{clip}", headers={"Range": "bytes=100-199"})
    assert response.status == 206
    assert response.getheader("Content-Range") == f"bytes 100-199/{size}"
    assert data == whole[100:200]
    response, data = request(server, "GET", f"/media/{clip}", headers={"Range": f"bytes={size - 10}-"})
    assert response.status == 206 and data == whole[-10:]
    response, data = request(server, "GET", f"/media/{clip}", headers={"Range": "bytes=-16"})
    assert response.status == 206 and data == whole[-16:]
    response, _ = request(server, "GET", f"/media/{clip}", headers={"Range": f"bytes={size + 5}-"})
    assert response.status == 416 and response.getheader("Content-Range") == f"bytes */{size}"
    response, data = request(server, "GET", f"/media/{clip}")
    assert response.status == 200 and data == whole and response.getheader("Accept-Ranges") == "bytes"
    assert_alive(server)


def test_probe_and_timeline_objects_are_the_command_lines(server, clips_folder):
    clip = clip_id(server, "rot90.mp4")
    probe = api(server, f"/api/clips/{clip}")
    cli = json.loads(vtrim("probe", "--json", os.path.join(clips_folder, "phone", "rot90.mp4")).stdout)
    for key in ("duration", "start_time", "size", "format", "video", "audio"):
        assert probe[key] == cli[key], key
    query = "strip_width=600&thumb_width=40&thumb_height=50&max=1.5&ops=drag-right:400,scroll:0.25,drag-left:90"
    timeline = api(server, f"/api/clips/{clip}/timeline?{query}")
    cli = json.loads(vtrim("timeline", "--json", "--duration", str(probe["duration"]), "--strip-width", "600", "--thumb-size", "40x50",
                           "--window-max", "1.5", "--op", "drag-right:400", "--op", "scroll:0.25", "--op", "drag-left:90").stdout)
    assert timeline["selection"] == cli["selection"]
    assert timeline["cells"] == cli["cells"]
    response, _ = request(server, "GET", f"/api/clips/{clip}/timeline?strip_width=600&thumb_width=40&thumb_height=50&ops=jump:3")
    assert response.status == 400


def test_filmstrip_tiles_are_pngs_of_the_visible_cells(server):
    clip = clip_id(server, "h264-aac.mp4")
    query = "strip_width=600&thumb_width=40&thumb_height=50&max=2"
    timeline = api(server, f"/api/clips/{clip}/timeline?{query}")
    response, data = request(server, "GET", f"/api/clips/{clip}/filmstrip.png?{query}&first=2&count=3")
    assert response.status == 200 and response.getheader("Content-Type") == "image/png"
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(data[16:20], "big")
    height = int.from_bytes(data[20:24], "big")
    assert width == round(sum(c["width"] for c in timeline["cells"][2:5])) and height == 50
    response, _ = request(server, "GET", f"/api/clips/{clip}/filmstrip.png?{query}&first=0&count=0")
    assert response.status == 400


def test_a_cut_through_the_api_equals_vtrim_cut(server, clips_folder, tmp_path):
    clip = clip_id(server, "h264-aac.mp4")
    body = json.dumps({"clip": clip, "start": 1.25, "end": 2.75, "mode": "copy"})
    response, data = request(server, "POST", "/api/cuts", body=body, headers={"Content-Type": "application/json"})
    assert response.status == 202, data
    job = json.loads(data)
    assert job["status"] in ("queued", "running") and job["dry_run"] is True and job["requested"]["start"] == 1.25
    assert job["output"].endswith("h264-aac.1.25-2.75.cut.mp4")
    job = wait_for(lambda: (lambda j: j if j["status"] not in ("queued", "running") else None)(api(server, f"/api/cuts/{job['id']}")),
                   message="the cut to finish")
    assert job["status"] == "done", job
    reference = tmp_path / "cli.mp4"
    cli = json.loads(vtrim("cut", "--json", os.path.join(clips_folder, "camera", "h264-aac.mp4"), "--start", "1.25", "--end", "2.75",
                           "-o", str(reference)).stdout)
    assert job["actual"] == cli["actual"] and job["mode"] == cli["mode"]
    ours = ffprobe(job["output"], "-show_entries", "format=duration:stream=nb_frames")
    theirs = ffprobe(str(reference), "-show_entries", "format=duration:stream=nb_frames")
    assert ours == theirs
    # A second cut of the same range does not collide.
    response, data = request(server, "POST", "/api/cuts", body=body, headers={"Content-Type": "application/json"})
    assert json.loads(data)["output"].endswith("h264-aac.1.25-2.75.cut-2.mp4")
    # The written cut plays from the page's server, with ranges.
    response, _ = request(server, "GET", f"/media/cuts/{job['id']}", headers={"Range": "bytes=0-99"})
    assert response.status == 206
    os.unlink(job["output"])


def test_a_failing_cut_answers_with_the_error_and_the_server_keeps_serving(server):
    clip = clip_id(server, "rot90.mp4")
    response, data = request(server, "POST", "/api/cuts", body=json.dumps({"clip": clip, "start": 50, "end": 60}),
                             headers={"Content-Type": "application/json"})
    assert response.status == 422
    assert json.loads(data)["error"]["code"] == "invalid_range"
    assert_alive(server)


def post(server, path, body):
    response, data = request(server, "POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
    return response.status, json.loads(data)


def test_a_join_through_the_api_equals_vtrim_cut_keep(server, clips_folder, tmp_path):
    clip = clip_id(server, "h264-aac.mp4")
    ranges = [{"start": 0.2, "end": 2.2, "label": "a"}, {"start": 2.4, "end": 3.0, "label": None}]
    status, job = post(server, "/api/cuts", {"clip": clip, "ranges": ranges, "mode": "exact"})
    assert status == 202, job
    assert [s["requested"] for s in job["segments"]] == [{"start": 0.2, "end": 2.2}, {"start": 2.4, "end": 3.0}]
    done = wait_for(lambda: (lambda j: j if j["status"] in ("done", "failed") else None)(api(server, "/api/cuts/" + job["id"])),
                    timeout=60, message="the join")
    assert done["status"] == "done", done
    reference = tmp_path / "reference.mp4"
    cli = json.loads(vtrim("cut", "--json", os.path.join(clips_folder, "camera", "h264-aac.mp4"), "--keep", "0.2..2.2", "--keep", "2.4..3",
                           "--mode", "exact", "-o", str(reference)).stdout)
    assert done["actual"] == cli["actual"] and done["segments"][0]["label"] == "a"
    assert [s["actual"] for s in done["segments"]] == [s["actual"] for s in cli["segments"]]
    os.unlink(done["output"])


def test_a_running_server_keeps_a_sign_of_life_and_takes_it_away(clips_folder, tmp_path):
    """Its heartbeat in the state database (how a server in another container or on another host over the same state
    folder knows this one's cuts are still running), renewed while it runs and removed when it stops."""
    import sqlite3
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state")}
    database = tmp_path / "state" / "vtrim" / "vtrim.sqlite3"

    def signs():
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
            return connection.execute("SELECT owner, seen FROM servers").fetchall()

    server = Server(clips_folder, env=env)
    try:
        rows = wait_for(lambda: signs(), message="the server's heartbeat")
        assert len(rows) == 1 and f" {server.process.pid} " in rows[0][0] and abs(rows[0][1] - time.time()) < 30, rows
    finally:
        server.stop()
    assert signs() == []


def test_cuts_and_their_outputs_survive_a_restart(clips_folder, tmp_path):
    """What was cut, when, where the output is and its report: kept in the state database, so a restarted server lists
    the cuts made before and serves their outputs; a new cut takes a new id."""
    out = tmp_path / "out"
    out.mkdir()
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state")}
    first = Server(clips_folder, "--output-dir", str(out), env=env)
    try:
        clip = clip_id(first, "h264-aac.mp4")
        status, job = post(first, "/api/cuts", {"clip": clip, "start": 0.5, "end": 1.5})
        assert status == 202, job
        done = wait_for(lambda: (lambda j: j if j["status"] in ("done", "failed") else None)(api(first, "/api/cuts/" + job["id"])),
                        timeout=60, message="the cut")
        assert done["status"] == "done" and done["created_at"] <= done["ended_at"], done
        response, written = request(first, "GET", done["url"])
        assert response.status == 200 and written
    finally:
        first.stop()
    second = Server(clips_folder, "--output-dir", str(out), env=env)
    try:
        kept = next(cut for cut in api(second, "/api/cuts") if cut["id"] == job["id"])
        for key in ("status", "clip", "output", "actual", "mode", "created_at", "ended_at", "url"):
            assert kept[key] == done[key], key
        response, served = request(second, "GET", kept["url"])
        assert response.status == 200 and served == written
        status, again = post(second, "/api/cuts", {"clip": clip, "start": 2, "end": 3})
        assert status == 202 and again["id"] != job["id"], again
    finally:
        second.stop()


def test_bad_ranges_and_lists_are_refused_and_the_server_keeps_serving(server):
    clip = clip_id(server, "h264-aac.mp4")
    status, answer = post(server, "/api/cuts", {"clip": clip, "ranges": [{"start": 2, "end": 3}, {"start": 1, "end": 2.5}]})
    assert status == 400 and "time order" in answer["error"]["message"]
    status, answer = post(server, "/api/cuts", {"clip": clip, "ranges": [{"start": 2, "end": 2}]})
    assert status == 400
    status, answer = post(server, "/api/lists/parse", {"format": "chapters", "text": "0:00 Intro\nnot a time\n", "duration": 4, "fps": 30})
    assert status == 422 and answer["error"]["message"].startswith("line 2:"), answer
    status, answer = post(server, "/api/lists/parse", {"format": "csv", "text": "1,end-1,a\n", "duration": 4, "fps": 30})
    assert status == 200 and answer["ranges"] == [{"start": 1, "end": 3, "label": "a"}], answer
    status, answer = post(server, "/api/lists/render", {"format": "chapters", "ranges": [{"start": 0, "end": 1}, {"start": 2, "end": 3}],
                                                        "duration": 4, "fps": 30, "name": "x.mp4"})
    assert status == 422 and "contiguous" in answer["error"]["message"]
    status, answer = post(server, "/api/lists/render", {"format": "edl", "ranges": [{"start": 0.5, "end": 1.5, "label": "x"}],
                                                        "duration": 4, "fps": 30, "name": "x.mp4"})
    assert status == 200 and "00:00:00:15 00:00:01:15" in answer["text"] and answer["file_name"] == "x.cuts.edl"
    # Times no list holds (they overflowed the writers' integers in the server process): refused.
    for format in ("chapters", "edl"):
        status, answer = post(server, "/api/lists/render", {"format": format, "ranges": [{"start": 1e18, "end": 2e20}], "fps": 30, "name": "x.mp4"})
        assert status == 400, answer
    # An EDL of a 0.3 fps clip (a timelapse): no timecode counts at that rate, so the page gets the reason, with
    # list_rate it gets the list; the server keeps serving either way (the writers run in a worker).
    slow = {"format": "edl", "ranges": [{"start": 0, "end": 10}, {"start": 12, "end": 20}], "fps": 0.3, "duration": 30, "name": "slow.mp4"}
    status, answer = post(server, "/api/lists/render", slow)
    assert status == 422 and "list-rate" in answer["error"]["message"], answer
    status, answer = post(server, "/api/lists/render", dict(slow, list_rate="25"))
    assert status == 200 and "00:00:12:00 00:00:20:00" in answer["text"], answer
    status, answer = post(server, "/api/lists/render", dict(slow, list_rate="20"))
    assert status == 422 and "SMPTE" in answer["error"]["message"], answer
    status, answer = post(server, "/api/lists/parse", {"format": "edl", "fps": 20, "duration": 60, "list_rate": "25",
                                                       "text": "001  AX V C 00:00:04:00 00:00:06:12 00:00:00:00 00:00:02:12\n"})
    assert status == 200 and answer["ranges"][0]["end"] == 6.48, answer
    # A camera's start timecode: EDL source times count from it.
    status, answer = post(server, "/api/lists/parse", {"format": "edl", "fps": 25, "duration": 60, "timecode": "10:00:00:00",
                                                       "text": "001  AX V C 10:00:01:00 10:00:02:12 00:00:00:00 00:00:01:12\n"})
    assert status == 200 and answer["ranges"][0]["start"] == 1 and abs(answer["ranges"][0]["end"] - 2.48) < 1e-9, answer
    assert_alive(server)


def test_sigint_stops_cleanly_and_cancels_cuts(clips_folder, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    running = Server(clips_folder, "--output-dir", str(out))
    clip = clip_id(running, "hevc.mp4")
    response, data = request(running, "POST", "/api/cuts", body=json.dumps({"clip": clip, "start": 0, "end": 2, "mode": "exact"}),
                             headers={"Content-Type": "application/json"})
    assert response.status == 202, data
    job = json.loads(data)
    wait_for(lambda: api(running, f"/api/cuts/{job['id']}")["status"] == "running", message="the cut to start")
    started = time.time()
    status = running.stop(signal.SIGINT)
    assert status == 130
    assert time.time() - started < 5
    leftovers = [name for name in os.listdir(out) if "vtrim-tmp" in name]
    assert leftovers == []


def test_a_single_clip_is_served_alone_and_vtrims_outputs_are_not_clips(tmp_path):
    """`vtrim serve clip.mp4` serves that clip (it said "is not a folder"); a folder's cuts written by vtrim
    (`*.cut.*`) are not listed as clips of their own but under the clip they were cut from, and play."""
    import shutil
    for name in ("one.mp4", "two.mp4", "one.cut.mp4", "one.1.5-3.cut.mp4", "one.1.5-3.25.cut-2.mp4"):
        shutil.copy(os.path.join(FIXTURES, "h264-aac-nob.mp4"), tmp_path / name)
    single = Server(str(tmp_path / "one.mp4"))
    try:
        assert [c["name"] for c in listed(single)] == ["one.mp4"]
    finally:
        single.stop()
    whole = Server(str(tmp_path))
    try:
        clips = listed(whole)
        assert sorted(c["name"] for c in clips) == ["one.mp4", "two.mp4"]
        one = next(c for c in clips if c["name"] == "one.mp4")
        assert sorted(cut["name"] for cut in one["cuts"]) == ["one.1.5-3.25.cut-2.mp4", "one.1.5-3.cut.mp4", "one.cut.mp4"]
        assert next(c for c in clips if c["name"] == "two.mp4")["cuts"] == []
        played, head = request(whole, "GET", one["cuts"][0]["url"], headers={"Range": "bytes=0-7"})
        assert played.status == 206 and head[4:8] == b"ftyp"
    finally:
        whole.stop()


def test_a_name_that_is_not_utf8_is_listed_probed_served_and_cut(tmp_path):
    # `caf\xe9.mp4`, Latin-1 from an old Samba share or a ZIP: the page shows its byte escaped; everything else works.
    folder = bytes(tmp_path) + b"/clips"
    os.makedirs(folder)
    shutil.copy(os.path.join(FIXTURES, "h264-aac.mp4"), folder + b"/caf\xe9.mp4")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    server = Server(os.fsdecode(folder), env=env)
    try:
        wait_for(lambda: api(server, "/api/clips")["walked"], message="the first walk")
        items = api(server, "/api/clips")["items"]
        assert [item["name"] for item in items] == ["caf\\xe9.mp4"], items
        clip = items[0]["id"]
        probe = api(server, f"/api/clips/{clip}")
        assert probe["name"] == "caf\\xe9.mp4" and probe["duration"] > 1, probe
        response, data = request(server, "GET", f"/media/{clip}", headers={"Range": "bytes=0-99"})
        assert response.status == 206 and len(data) == 100, (response.status, data[:200])
        query = "strip_width=600&thumb_width=40&thumb_height=50&max=2"
        response, data = request(server, "GET", f"/api/clips/{clip}/filmstrip.png?{query}&first=0&count=2")
        assert response.status == 200 and data.startswith(b"\x89PNG"), (response.status, data[:200])
        body = json.dumps({"clip": clip, "start": 1, "end": 2, "mode": "copy"})
        response, data = request(server, "POST", "/api/cuts", body=body, headers={"Content-Type": "application/json"})
        assert response.status == 202, data
        job = json.loads(data)
        assert job["output"].endswith("/caf\\xe9.1-2.cut.mp4"), job
        job = wait_for(lambda: (lambda j: j if j["status"] not in ("queued", "running") else None)(api(server, f"/api/cuts/{job['id']}")),
                       message="the cut to finish")
        assert job["status"] == "done", job
        assert sorted(os.listdir(folder)) == [b"caf\xe9.1-2.cut.mp4", b"caf\xe9.mp4"]
        response, _ = request(server, "GET", f"/media/cuts/{job['id']}", headers={"Range": "bytes=0-99"})
        assert response.status == 206
        # A folder so named, made while served, is watched like any other: a clip copied into it is listed.
        os.makedirs(folder + b"/d\xe9j\xe0")
        shutil.copy(os.path.join(FIXTURES, "h264-aac.mp4"), folder + b"/d\xe9j\xe0/one.mp4")
        wait_for(lambda: len(api(server, "/api/clips")["items"]) == 2, message="the clip in the new folder")
        shutil.copy(os.path.join(FIXTURES, "h264-aac.mp4"), folder + b"/d\xe9j\xe0/two.mp4")
        wait_for(lambda: sorted(i["path"] for i in api(server, "/api/clips")["items"]) == ["caf\\xe9.mp4", "d\\xe9j\\xe0/one.mp4", "d\\xe9j\\xe0/two.mp4"],
                 message="a clip copied into the watched folder")
        assert not api(server, "/api/clips")["problems"]
        shutil.rmtree(folder + b"/d\xe9j\xe0")
        wait_for(lambda: len(api(server, "/api/clips")["items"]) == 1, message="the folder gone")
    finally:
        server.stop()
    # Its rows in the state database are its bytes (the display column escaped): after a restart it is the same clip,
    # its probe and its cut kept.
    with sqlite3.connect(os.path.join(env["XDG_CACHE_HOME"] + "-state", "vtrim", "vtrim.sqlite3")) as database:
        assert database.execute("SELECT relative, display FROM files").fetchall() == [(b"caf\xe9.mp4", "caf\\xe9.mp4")]
        assert database.execute("SELECT source, output FROM cuts").fetchall() == [(folder + b"/caf\xe9.mp4", folder + b"/caf\xe9.1-2.cut.mp4")]
    server = Server(os.fsdecode(folder), env=env)
    try:
        items = api(server, "/api/clips")["items"]
        assert [(item["id"], item["name"]) for item in items] == [(clip, "caf\\xe9.mp4")], items
        assert api(server, f"/api/clips/{clip}")["duration"] == probe["duration"]
        cuts = api(server, "/api/cuts")
        cuts = cuts["items"] if isinstance(cuts, dict) else cuts
        assert [c["output"] for c in cuts] == [job["output"]], cuts
    finally:
        server.stop()
