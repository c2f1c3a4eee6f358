"""The true cut on the strip (issue 36, item 3), in a real headless Chromium against a real `vtrim serve`: the clip's
clean starts as keyframe ticks; for the chosen mode the spans the worker's plan writes beyond the selection, shaded
with the plan's own numbers — a copy into MP4 (an edit list hides the lead-in: none shaded), a copy into Matroska
(the lead-in from the keyframe, and frames kept past the end), a smart cut (its re-encoded edges), a smart cut that
falls back (the reason shown); 'snap to keyframe' moving a released handle onto a tick; and the first and last
frame the strip names being the frames the written file shows there (decoded and compared with the source's)."""
import http.client
import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from conftest import FIXTURES, SCREENSHOTS, Server, ffprobe, vtrim, wait_for


def js(driver, script, *arguments):
    return driver.execute_script(script, *arguments)


@pytest.fixture(scope="module")
def folder():
    path = tempfile.mkdtemp(prefix="vtrim-truecut-")
    for name in ("h264-aac.mp4", "h264-aac.mkv"):
        shutil.copy(os.path.join(FIXTURES, name), os.path.join(path, name))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def truecut_server(folder):
    running = Server(folder)
    yield running
    running.stop()


def open_clip(driver, server, name):
    driver.get(server.url)
    driver.get(server.base + "/#/library")
    wait_for(lambda: js(driver, "return window.vtrim && document.readyState === 'complete'"), message="the page")
    clip = wait_for(lambda: js(driver, "return (window.vtrim.clips.find(c => c.name === arguments[0]) || {}).id", name), message=name)
    js(driver, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(driver, "return !!window.vtrim.timeline && window.vtrim.current && window.vtrim.current.id === arguments[0]", clip),
             message="the timeline")
    # Snapping off unless a test turns it on.
    js(driver, "const box = document.getElementById('snap-keyframes'); if (box.checked) box.click();")
    return clip


def settled(driver):
    return js(driver, """const S = window.vtrim;
        return !S.inFlight && !S.pending && S.opsSent === S.ops.map(o => o[0] + ':' + o[1]).join(',');""")


def select(driver, start, end, mode):
    """Types the selection (the I/O keys' operations), picks the mode; waits for the timeline to show it."""
    js(driver, "const m = document.getElementById('cut-mode'); m.value = arguments[0]; m.dispatchEvent(new Event('change'))", mode)
    current = js(driver, "return window.vtrim.timeline.selection.end")
    fields = [("end-time", end), ("start-time", start)] if start >= current else [("start-time", start), ("end-time", end)]
    for field, value in fields:
        js(driver, "const f = document.getElementById(arguments[0]); f.value = arguments[1]; f.dispatchEvent(new Event('change'))", field, value)
    wait_for(lambda: settled(driver) and js(driver, "const s = window.vtrim.timeline.selection; return [s.start, s.end]") == [start, end],
             message=f"the selection {start}–{end}")


def shown(driver):
    """What the strip shows once the plan for the current selection and mode is drawn: the plan id, the spans by kind,
    the ticks, the first and last frame marks, the plan line, the fallback reason."""
    def ready():
        return js(driver, """const m = document.getElementById('plan-marks'), s = window.vtrim.timeline.selection;
            return m.dataset.state === 'ready' && Number(m.dataset.start) === s.start && Number(m.dataset.end) === s.end
                && m.dataset.asked === document.getElementById('cut-mode').value;""")
    wait_for(ready, timeout=30, message="the plan drawn")
    return js(driver, """
        const m = document.getElementById('plan-marks'), tl = window.vtrim.timeline;
        const x = (t) => tl.margin + tl.window_width * ((t - tl.selection.window_start) / tl.max_duration);
        const px = (e) => parseFloat(e.style.left);
        const spans = [...m.querySelectorAll('.plan-span')].map(e => ({
            kind: [...e.classList].filter(c => c !== 'plan-span').join(' '), from: Number(e.dataset.from), to: Number(e.dataset.to),
            placed: Math.abs(px(e) - x(Number(e.dataset.from))) < 0.5
                    && Math.abs(parseFloat(e.style.width) - Math.max(1, x(Number(e.dataset.to)) - x(Number(e.dataset.from)))) < 0.5 }));
        const ticks = [...m.querySelectorAll('.kf-tick')].map(e => ({ time: Number(e.dataset.time), placed: Math.abs(px(e) - x(Number(e.dataset.time))) < 0.5 }));
        const mark = (c) => { const e = m.querySelector('.frame-mark.' + c); return e ? { time: Number(e.dataset.time), text: e.textContent } : null; };
        const reason = document.getElementById('plan-fallback');
        return { plan_id: m.dataset.planId, mode: m.dataset.mode, spans, ticks, first: mark('first'), last: mark('last'),
                 line: document.getElementById('plan-line').textContent, fallback: reason ? (reason.dataset.code || null) : null };""")


def plan_for(driver, clip, start, end, mode):
    """The plan POST /api/plans answers for the Cut button's body, asked apart from the page."""
    return js(driver, """return fetch('/api/plans', { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ clip: arguments[0], start: arguments[1], end: arguments[2], mode: arguments[3] }) }).then(r => r.json());""",
              clip, start, end, mode)


def source_frames(path):
    """Presentation times (on vtrim's timeline: from the container's start) and key flags of the video's frames."""
    info = ffprobe(path, "-select_streams", "v:0", "-show_entries", "frame=pts_time,key_frame:format=start_time")
    origin = float(info["format"].get("start_time", 0) or 0)
    return [(round(float(f["pts_time"]) - origin, 6), f["key_frame"] == 1) for f in info["frames"]]


def decoded(path):
    """Every video frame, decoded to 8-bit grey (bytes each), in presentation order."""
    size = 320 * 240
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-vsync", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         capture_output=True, check=True).stdout
    return [raw[i:i + size] for i in range(0, len(raw) - size + 1, size)]


def difference(a, b):
    return sum(abs(x - y) for x, y in zip(a[::7], b[::7])) / len(a[::7])


def source_time_of(frame, source_pictures, times):
    """The source frame a written frame is (the nearest picture) and how near it is."""
    scores = [difference(frame, picture) for picture in source_pictures]
    best = min(range(len(scores)), key=scores.__getitem__)
    return times[best], scores[best], sorted(scores)[1]


def test_copy_into_mp4_shades_no_lead_in_and_ticks_the_keyframes(browser, truecut_server, folder):
    clip = open_clip(browser, truecut_server, "h264-aac.mp4")
    select(browser, 1.5, 2.5, "copy")
    strip = shown(browser)
    plan = plan_for(browser, clip, 1.5, 2.5, "copy")
    # The plan: an edit list hides the lead-in, so the output starts with the frame at start.
    assert plan["mode"] == "copy" and plan["planned"]["start"] == 1.5 and plan["keyframe"] == 1
    keyframes = [t for t, key in source_frames(os.path.join(folder, "h264-aac.mp4")) if key]
    assert [t["time"] for t in strip["ticks"]] == keyframes == [0, 1, 2, 3]
    assert all(t["placed"] for t in strip["ticks"])
    assert not [s for s in strip["spans"] if s["kind"] in ("lead-in", "past-end")], strip["spans"]
    assert strip["first"]["time"] == plan["planned"]["start"]
    browser.save_screenshot(os.path.join(SCREENSHOTS, "true-cut-mp4-copy.png"))


def test_copy_into_mkv_shades_the_lead_in_and_frames_past_the_end(browser, truecut_server, folder):
    clip = open_clip(browser, truecut_server, "h264-aac.mkv")
    select(browser, 1.5, 1.9, "copy")
    strip = shown(browser)
    plan = plan_for(browser, clip, 1.5, 1.9, "copy")
    frames = source_frames(os.path.join(folder, "h264-aac.mkv"))
    keyframe = max(t for t, key in frames if key and t <= 1.5)
    # Matroska has no edit lists: the copy starts at the keyframe and shows it, 0.479 s before start.
    assert plan["planned"]["start"] == keyframe == 1.021
    lead = [s for s in strip["spans"] if s["kind"] == "lead-in"]
    assert lead == [{"kind": "lead-in", "from": plan["planned"]["start"], "to": 1.5, "placed": True}]
    assert "lead-in" in strip["line"] and strip["first"]["time"] == keyframe
    browser.save_screenshot(os.path.join(SCREENSHOTS, "true-cut-mkv-copy.png"))

    # An end the copy cannot stop at: the frames decoding needs past it are kept (and shown) up to planned.end.
    select(browser, 1.2, 1.3, "copy")
    strip = shown(browser)
    plan = plan_for(browser, clip, 1.2, 1.3, "copy")
    assert "frames_past_end" in [n["code"] for n in plan["notes"]]
    kept = [t for t, _ in frames if 1.3 <= t < plan["planned"]["end"] - 1e-6]
    assert kept, "the plan keeps frames past the end"
    past = [s for s in strip["spans"] if s["kind"] == "past-end"]
    assert past == [{"kind": "past-end", "from": 1.3, "to": plan["planned"]["end"], "placed": True}]
    assert strip["last"]["time"] == kept[-1]


def test_smart_shades_the_reencoded_edges(browser, truecut_server):
    clip = open_clip(browser, truecut_server, "h264-aac.mp4")
    select(browser, 0.5, 2.5, "smart")
    strip = shown(browser)
    plan = plan_for(browser, clip, 0.5, 2.5, "smart")
    assert plan["mode"] == "smart" and plan["smart"]["fallback"] is None
    spans = {s["kind"]: s for s in strip["spans"]}
    assert [spans["reencode head"]["from"], spans["reencode head"]["to"]] == plan["smart"]["head"] == [0.5, 1]
    assert [spans["reencode tail"]["from"], spans["reencode tail"]["to"]] == plan["smart"]["tail"] == [2, 2.5]
    assert [spans["copied"]["from"], spans["copied"]["to"]] == plan["smart"]["copied"]
    assert all(s["placed"] for s in strip["spans"])
    assert strip["fallback"] is None and "falls back" not in strip["line"]
    browser.save_screenshot(os.path.join(SCREENSHOTS, "true-cut-smart.png"))


def test_a_smart_fallback_shows_its_reason(browser, truecut_server):
    clip = open_clip(browser, truecut_server, "h264-aac.mp4")
    # One keyframe (1 s) inside 0.5–1.5: no whole group of pictures to copy, so smart falls back to exact.
    select(browser, 0.5, 1.5, "smart")
    strip = shown(browser)
    plan = plan_for(browser, clip, 0.5, 1.5, "smart")
    assert plan["mode"] == "exact" and plan["smart"]["fallback"] == "nothing_to_copy"
    reason = next(w["message"] for w in plan["warnings"] if w["code"] == "smart_fallback")
    assert strip["fallback"] == "nothing_to_copy" and reason in strip["line"]
    assert [(s["kind"], s["from"], s["to"]) for s in strip["spans"]] == [("reencode whole", plan["planned"]["start"], plan["planned"]["end"])]
    browser.save_screenshot(os.path.join(SCREENSHOTS, "true-cut-fallback.png"))


def drag_left_handle(driver, seconds):
    """Drags the left handle by `seconds` of the strip's scale and releases it; returns the start TimelineCore gave the
    drag itself (the operations before any snap, replayed by the server)."""
    handle = driver.find_element(By.ID, "handle-left")
    tl = js(driver, "return window.vtrim.timeline")
    before = js(driver, "return window.vtrim.ops.length")
    ActionChains(driver).click_and_hold(handle).move_by_offset(round(seconds * tl["window_width"] / tl["max_duration"]), 0).release().perform()
    wait_for(lambda: js(driver, "return window.vtrim.ops.length") > before and settled(driver), message="the drag")
    return js(driver, """const S = window.vtrim, i = S.ops.findIndex((o, k) => k >= arguments[0] && o[0] === 'drag-left');
        const ops = S.ops.slice(0, i + 1).map(o => o[0] + ':' + o[1]).join(',');
        return fetch(`/api/clips/${S.current.id}/timeline?${S.querySent}&ops=${encodeURIComponent(ops)}`).then(r => r.json()).then(t => t.selection.start);""",
              before)


def test_snapping_moves_a_released_handle_onto_a_keyframe_tick(browser, truecut_server):
    open_clip(browser, truecut_server, "h264-aac.mp4")
    select(browser, 0.3, 3.7, "copy")
    # Off: the handle stays where it was dropped, between ticks.
    dropped = drag_left_handle(browser, 1.0)
    assert 1.1 < dropped < 1.5
    wait_for(lambda: settled(browser), message="settled")
    assert js(browser, "return window.vtrim.timeline.selection.start") == dropped

    select(browser, 0.3, 3.7, "copy")
    browser.find_element(By.ID, "snap-keyframes").click()
    dropped = drag_left_handle(browser, 1.0)
    assert 1.1 < dropped < 1.5
    wait_for(lambda: settled(browser) and js(browser, "return window.vtrim.timeline.selection.start") != dropped, message="the snap")
    start = js(browser, "return window.vtrim.timeline.selection.start")
    ticks = [t["time"] for t in shown(browser)["ticks"]]
    assert start == min(ticks, key=lambda k: abs(k - dropped)) == 1
    assert js(browser, "return window.vtrim.ops[window.vtrim.ops.length - 1]") == ["move-left", 1]
    # The handle's edge is drawn at the tick.
    placed = js(browser, """const tl = window.vtrim.timeline, tick = document.querySelector('#plan-marks .kf-tick[data-time="1"]');
        return [parseFloat(tick.style.left), tl.margin + tl.window_width * ((tl.selection.start - tl.selection.window_start) / tl.max_duration)];""")
    assert abs(placed[0] - placed[1]) < 0.5
    # The right handle too.
    handle = browser.find_element(By.ID, "handle-right")
    tl = js(browser, "return window.vtrim.timeline")
    ActionChains(browser).click_and_hold(handle).move_by_offset(-round(0.4 * tl["window_width"] / tl["max_duration"]), 0).release().perform()
    wait_for(lambda: settled(browser) and js(browser, "return window.vtrim.timeline.selection.end") in (2, 3), message="the right snap")
    browser.find_element(By.ID, "snap-keyframes").click()


@pytest.mark.parametrize("name, start, end, mode", [
    ("h264-aac.mkv", 1.5, 1.9, "copy"),
    ("h264-aac.mkv", 1.2, 1.3, "copy"),
    ("h264-aac.mp4", 1.5, 2.5, "copy"),
    ("h264-aac.mp4", 0.5, 2.5, "smart"),
    ("h264-aac.mp4", 0.5, 1.5, "smart"),
])
def test_the_first_and_last_frames_shown_are_the_written_ones(browser, truecut_server, folder, name, start, end, mode):
    open_clip(browser, truecut_server, name)
    select(browser, start, end, mode)
    strip = shown(browser)
    browser.find_element(By.ID, "cut-button").click()
    box = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#cuts > .cut:first-child[data-status='done']"), timeout=90, message="the cut")
    job = js(browser, "return fetch('/api/cuts/' + arguments[0]).then(r => r.json())", box.get_attribute("data-cut"))
    js(browser, "document.getElementById('cuts').textContent = ''")
    try:
        # The cut ran the plan the strip showed, as it was.
        assert job["plan_id"] == strip["plan_id"]
        source = os.path.join(folder, name)
        times = [t for t, _ in source_frames(source)]
        pictures = decoded(source)
        assert len(pictures) == len(times)
        written = decoded(job["output"])
        for frame, mark in ((written[0], strip["first"]), (written[-1], strip["last"])):
            at, score, runner_up = source_time_of(frame, pictures, times)
            assert abs(at - mark["time"]) < 1e-3, (mark, at, score, runner_up)
            # Copied frames decode to the source's own pixels; re-encoded ones stay far nearer it than its neighbours.
            if mode == "copy":
                assert score == 0
            else:
                assert score < runner_up / 2
    finally:
        os.unlink(job["output"])


def post(server, path, body):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request("POST", path, body=body if isinstance(body, str) else json.dumps(body),
                       headers={"Host": f"127.0.0.1:{server.port}", "Authorization": f"Bearer {server.token}", "Content-Type": "application/json"})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, json.loads(data)


def get(server, path):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request("GET", path, headers={"Host": f"127.0.0.1:{server.port}", "Authorization": f"Bearer {server.token}"})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, json.loads(data)


def clip_named(server, name):
    return wait_for(lambda: next((c["id"] for c in get(server, "/api/clips")[1]["items"] if c["name"] == name), None), message=name)


def test_a_plan_is_the_dry_run_writes_nothing_and_refuses_bad_numbers(truecut_server, folder):
    clip = clip_named(truecut_server, "h264-aac.mkv")
    before = sorted(os.listdir(folder))
    status, plan = post(truecut_server, "/api/plans", {"clip": clip, "start": 1.5, "end": 1.9, "mode": "copy"})
    assert status == 200 and plan["plan_id"] and plan["clip"] == clip
    # What `vtrim cut --dry-run --json` prints for the same cut into the same output.
    cli = json.loads(vtrim("cut", os.path.join(folder, "h264-aac.mkv"), "--start", "1.5", "--end", "1.9", "--mode", "copy",
                           "--dry-run", "--json", "-o", plan["output"]).stdout)
    assert {k: v for k, v in plan.items() if k not in ("plan_id", "clip")} == cli
    # A join's body plans as a join.
    status, join = post(truecut_server, "/api/plans", {"clip": clip, "ranges": [{"start": 0.2, "end": 0.6}, {"start": 1.2, "end": 1.6}]})
    assert status == 200 and len(join["segments"]) == 2
    for bad in ({"clip": clip, "start": -1, "end": 1}, {"clip": clip, "start": 1, "end": 1}, {"clip": clip, "start": 1.9, "end": 1.5},
                {"clip": clip, "start": 0, "end": 1e308 * 10}, {"clip": clip, "start": "0", "end": 1}, {"clip": clip, "start": 0, "end": 1, "mode": "fast"},
                {"clip": clip, "ranges": []}, {"clip": clip, "ranges": [{"start": 0, "end": 1}, {"start": 0.5, "end": 1.5}]}):
        status, answer = post(truecut_server, "/api/plans", bad)
        assert status == 400 and "error" in answer, (bad, answer)
    assert post(truecut_server, "/api/plans", {"clip": "nope", "start": 0, "end": 1})[0] == 404
    assert post(truecut_server, "/api/plans", "[1, 2")[0] == 400
    # Nothing was written or queued.
    assert sorted(os.listdir(folder)) == before
    assert all(job["clip"] != clip or job.get("plan_id") != plan["plan_id"] for job in get(truecut_server, "/api/cuts")[1])


def test_a_cut_runs_the_shown_plan_only_for_the_same_body(truecut_server, folder):
    clip = clip_named(truecut_server, "h264-aac.mp4")
    body = {"clip": clip, "start": 1.25, "end": 2.75, "mode": "copy"}
    _, plan = post(truecut_server, "/api/plans", body)

    def finished(job):
        return wait_for(lambda: (lambda j: j if j["status"] in ("done", "failed", "cancelled") else None)(get(truecut_server, "/api/cuts/" + job["id"])[1]),
                        timeout=60, message="the cut")

    # Another body with the plan's id: planned afresh.
    status, other = post(truecut_server, "/api/cuts", dict(body, end=2.5, plan=plan["plan_id"]))
    assert status == 202 and "plan_id" not in other
    other = finished(other)
    # The same body: that plan runs, into the output it named.
    status, job = post(truecut_server, "/api/cuts", dict(body, plan=plan["plan_id"]))
    assert status == 202 and job["plan_id"] == plan["plan_id"] and job["output"] == plan["output"]
    job = finished(job)
    assert job["status"] == "done" and job["planned"] == plan["planned"] and os.path.exists(plan["output"])
    # Again: its output exists now, so the cut is planned afresh into the next free name.
    status, again = post(truecut_server, "/api/cuts", dict(body, plan=plan["plan_id"]))
    assert status == 202 and "plan_id" not in again and again["output"] != plan["output"]
    again = finished(again)
    for written in (other, job, again):
        os.unlink(written["output"])


def test_a_cut_planned_again_says_so(browser, truecut_server, folder):
    """The clip changes after the strip showed its plan: the cut is planned again (the shown plan is not run on
    another file version) and the page says that this is not the plan it showed."""
    name = "h264-aac.mp4"
    open_clip(browser, truecut_server, name)
    select(browser, 1.5, 2.5, "copy")
    strip = shown(browser)
    stamp = time.time() + 5
    os.utime(os.path.join(folder, name), (stamp, stamp))
    browser.find_element(By.ID, "cut-button").click()
    box = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#cuts > .cut:first-child[data-status='done']"), timeout=90, message="the cut")
    job = js(browser, "return fetch('/api/cuts/' + arguments[0]).then(r => r.json())", box.get_attribute("data-cut"))
    try:
        assert job.get("plan_id") != strip["plan_id"]
        assert "Planned again" in box.find_element(By.CSS_SELECTOR, ".replanned").text
    finally:
        js(browser, "document.getElementById('cuts').textContent = ''")
        os.unlink(job["output"])


def test_a_joins_ranges_show_their_first_and_last_frames_as_written(browser, truecut_server, folder):
    """Two ranges on the strip, smart: the join's plan is drawn (each range's first and last frame, its re-encoded
    edges), equal to POST /api/plans for Join's body; Join runs that plan, and the output shows those frames at each
    range's start and end."""
    name = "h264-aac.mp4"
    clip = open_clip(browser, truecut_server, name)
    js(browser, "window.vtrim.ranges = []")
    for start, end in ((0.5, 2.5), (2.7, 3.9)):
        select(browser, start, end, "smart")
        browser.find_element(By.ID, "add-button").click()
        wait_for(lambda: any(r["start"] == start and r["end"] == end for r in js(browser, "return window.vtrim.ranges")), message="the range added")
    body = {"clip": clip, "ranges": [{"start": 0.5, "end": 2.5, "label": None}, {"start": 2.7, "end": 3.9, "label": None}], "mode": "smart"}
    status, plan = post(truecut_server, "/api/plans", body)
    assert status == 200 and plan["mode"] == "smart"
    line = wait_for(lambda: js(browser, "const l = document.getElementById('join-plan-line'); return l.dataset.planId && l.dataset.ranges === '2' ? l : null"),
                    timeout=30, message="the join's plan drawn")
    marks = js(browser, """return [...document.querySelectorAll('#plan-marks .seam-mark')].map(e => ({
        index: Number(e.dataset.index), kind: e.classList.contains('first') ? 'first' : 'last', time: Number(e.dataset.time) }))""")
    spans = js(browser, """return [...document.querySelectorAll('#plan-marks .plan-span.join')].map(e => ({
        index: Number(e.dataset.index), from: Number(e.dataset.from), to: Number(e.dataset.to), kind: e.className }))""")
    times = [t for t, _ in source_frames(os.path.join(folder, name))]
    for segment in plan["segments"]:
        first = next(m["time"] for m in marks if m["index"] == segment["index"] and m["kind"] == "first")
        last = next(m["time"] for m in marks if m["index"] == segment["index"] and m["kind"] == "last")
        assert first == segment["planned"]["start"]
        assert last == max(t for t in times if t < segment["planned"]["end"] - 1e-6)
        edges = [e for e in (segment["smart"]["head"], segment["smart"]["tail"]) if e]
        assert sorted((s["from"], s["to"]) for s in spans if s["index"] == segment["index"]) == sorted(tuple(e) for e in edges)
    shown_id = line.get_attribute("data-plan-id")
    browser.find_element(By.ID, "join-button").click()
    box = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#cuts > .cut.join:first-child[data-status='done']"), timeout=120, message="the join")
    job = js(browser, "return fetch('/api/cuts/' + arguments[0]).then(r => r.json())", box.get_attribute("data-cut"))
    try:
        assert job["plan_id"] == shown_id
        pictures, written = decoded(os.path.join(folder, name)), decoded(job["output"])
        out_times = [t for t, _ in source_frames(job["output"])]
        for segment in job["segments"]:
            first = next(m["time"] for m in marks if m["index"] == segment["index"] and m["kind"] == "first")
            # The output's frame at the range's own start is the source's frame the strip named.
            at_output = min(range(len(out_times)), key=lambda i: abs(out_times[i] - segment["output_start"]))
            at, score, runner_up = source_time_of(written[at_output], pictures, times)
            assert abs(at - first) < 1e-3 and score < runner_up / 2, (segment, at, score, runner_up)
    finally:
        js(browser, "document.getElementById('cuts').textContent = ''; window.vtrim.ranges = []")
        os.unlink(job["output"])
