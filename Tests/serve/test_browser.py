"""`vtrim serve`'s page in a real headless Chromium, driven with real pointer and key events: the library
plays exactly the clip in view, the banner wraps both ways, handle drags equal `vtrim timeline`'s results,
the mini player keeps its time across views, a cut from the page writes what `vtrim cut --json` describes,
the exported list cuts the same frames, ranges kept on the strip join into what `vtrim cut --keep` writes,
and HEVC plays through the preview stand-in. Each view's
screenshot is saved (VTRIM_SCREENSHOTS, default .build/serve-screenshots)."""
import glob
import json
import os
import shutil

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import FIXTURES, SCREENSHOTS, ffprobe, vtrim, wait_for


def js(driver, script, *arguments):
    return driver.execute_script(script, *arguments)


def open_page(driver, server, fragment="#/library"):
    driver.get(server.url)  # sets the token cookie and redirects to /
    driver.get(server.base + "/" + fragment)
    wait_for(lambda: js(driver, "return window.vtrim && document.readyState === 'complete'"), message="the page")


def clip_of(driver, name):
    return wait_for(lambda: js(driver, "return (window.vtrim.clips.find(c => c.name === arguments[0]) || {}).id", name),
                    message=f"clip {name}")


def play_to_end(driver, url):
    """Plays `url` muted in a fresh video element of the page: [currentTime, duration] when it ends, or ['error', why]."""
    driver.set_script_timeout(60)
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const video = document.createElement('video');
        video.muted = true; video.src = arguments[0];
        video.addEventListener('ended', () => done([video.currentTime, video.duration]));
        video.addEventListener('error', () => done(['error', String(video.error && video.error.message)]));
        video.play().catch((e) => done(['error', String(e)]));
    """, url)


def shot(driver, name):
    driver.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))


def paused_states(driver):
    return js(driver, "return [...document.querySelectorAll('#feed video')].map(v => v.paused)")


def test_library_plays_exactly_the_clip_in_view(browser, server):
    open_page(browser, server)
    cards = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#feed .card") if len(browser.find_elements(By.CSS_SELECTOR, "#feed .card")) == 3 else None,
                     message="three cards")
    for index in range(len(cards)):
        js(browser, "arguments[0].scrollIntoView({block: 'start'})", cards[index])
        expected = [i != index for i in range(len(cards))]
        wait_for(lambda: paused_states(browser) == expected, timeout=30, message=f"only card {index} playing")
        # And it really plays: its clock advances (modulo the clip's length: the clips are 2–4 s and loop,
        # so a clock read near the end comes round again below where it was).
        before = js(browser, "return document.querySelectorAll('#feed video')[arguments[0]].currentTime", index)
        advanced = """
            const video = document.querySelectorAll('#feed video')[arguments[0]];
            const length = video.duration;
            if (!(length > 0)) return 0;
            return ((video.currentTime - arguments[1]) % length + length) % length;"""
        state = "const v = document.querySelectorAll('#feed video')[arguments[0]]; return [v.readyState, v.networkState, v.currentSrc, v.error && v.error.code]"
        wait_for(lambda: js(browser, advanced, index, before) > 0.2, timeout=20,
                 message=f"card {index}'s clock (readyState, networkState, src, error: {js(browser, state, index)})")
        if index == 0:
            shot(browser, "library")


def test_banner_wraps_both_ways(browser, server):
    open_page(browser, server)
    wait_for(lambda: js(browser, "return document.getElementById('banner').dataset.current") == "0", message="the banner at its first slide")
    count = js(browser, "return document.querySelectorAll('#banner-dots span').length")

    def settled_on(index):
        return js(browser, """
            const track = document.getElementById('banner-track');
            const slide = Math.round(track.scrollLeft / track.clientWidth);
            return document.getElementById('banner').dataset.current === String(arguments[0])
                && !track.children[slide].classList.contains('copy');""", index)

    browser.find_element(By.ID, "banner-prev").click()
    wait_for(lambda: settled_on(count - 1), message="wrap backwards to the last slide")
    browser.find_element(By.ID, "banner-next").click()
    wait_for(lambda: settled_on(0), message="wrap forwards to the first slide")
    for step in range(1, count + 1):
        browser.find_element(By.ID, "banner-next").click()
        wait_for(lambda: settled_on(step % count), message=f"slide {step % count}")


def selection(browser):
    strip = browser.find_element(By.ID, "strip")
    return float(strip.get_attribute("data-start")), float(strip.get_attribute("data-end"))


def replayed(browser, duration):
    """The page's operations replayed by `vtrim timeline --op …` with the page's own geometry."""
    state = js(browser, "return {ops: window.vtrim.ops, query: window.vtrim.querySent}")
    query = dict(part.split("=") for part in state["query"].split("&"))
    arguments = ["timeline", "--json", "--duration", repr(duration), "--strip-width", query["strip_width"],
                 "--thumb-size", f"{query['thumb_width']}x{query['thumb_height']}"]
    if "max" in query:
        arguments += ["--window-max", query["max"]]
    if "min" in query:
        arguments += ["--window-min", query["min"]]
    for kind, value in state["ops"]:
        arguments += ["--op", f"{kind}:{value!r}"]
    return json.loads(vtrim(*arguments).stdout)["selection"]


def test_handle_drags_equal_vtrim_timeline(browser, server):
    open_page(browser, server)
    clip = clip_of(browser, "h264-aac.mp4")
    js(browser, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(browser, "return !!window.vtrim.timeline"), message="the timeline")
    duration = js(browser, "return window.vtrim.current.info.duration")
    # A window of 1.5 s on a 4 s clip: the strip scrolls, and the limits bite.
    maximum = browser.find_element(By.ID, "max-duration")
    maximum.send_keys("1.5", Keys.TAB)
    wait_for(lambda: "max=1.5" in (js(browser, "return window.vtrim.querySent") or ""), message="max applied")
    left, right = browser.find_element(By.ID, "handle-left"), browser.find_element(By.ID, "handle-right")
    scroller = browser.find_element(By.ID, "strip-scroll")
    width = js(browser, "return window.innerWidth")

    def drag(handle, *targets):
        """Press on the handle's centre, move the pointer to each page x (kept inside the window), release."""
        def act():
            box = js(browser, "const r = arguments[0].getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]", handle)
            chain = ActionChains(browser).click_and_hold(handle)
            x = box[0]
            for target in targets:
                target = min(width - 2, max(2, target))
                chain = chain.move_by_offset(round(target - x), 0)
                x += round(target - x)
            chain.release().perform()
        return act

    steps = [
        ("drag the right handle far past the maximum", drag(right, width - 2)),
        ("drag the left handle onto the right one (past the minimum)", drag(left, width - 2)),
        ("drag the left handle past the clip's start", drag(left, 2)),
        ("scroll the strip", lambda: js(browser, "arguments[0].scrollLeft += 300", scroller)),
        ("drag the right handle back in small steps", drag(right, 700, 650, 600)),
        ("drag the right handle past the strip's end", drag(right, width - 2)),
        ("drag the left handle to the middle", drag(left, width / 2)),
    ]
    for name, act in steps:
        before = js(browser, "return JSON.stringify(window.vtrim.ops)")
        act()
        wait_for(lambda: js(browser, "return JSON.stringify(window.vtrim.ops)") != before and not js(browser, "return window.vtrim.inFlight")
                 and js(browser, "return window.vtrim.opsSent") == js(browser, "return window.vtrim.ops.map(o => o[0] + ':' + o[1]).join(',')"),
                 message=name)
        start, end = selection(browser)
        cli = replayed(browser, duration)
        assert (start, end) == (cli["start"], cli["end"]), name
        assert 0 <= start < end <= duration
        shown = js(browser, "return window.vtrim.timeline.selection")
        assert shown["left_handle_x"] == cli["left_handle_x"] and shown["window_start"] == cli["window_start"], name
        # The handles are drawn where TimelineCore puts them.
        drawn = js(browser, "return document.getElementById('handle-left').getBoundingClientRect().left - document.getElementById('strip').getBoundingClientRect().left")
        assert abs(drawn - cli["left_handle_x"]) < 1, name
    shot(browser, "trimmer")


def test_frame_step_keys_follow_the_frames(browser, server):
    open_page(browser, server)
    clip = clip_of(browser, "h264-aac.mp4")
    js(browser, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(browser, "return !!(window.vtrim.frames && window.vtrim.timeline)"), message="frame times")
    frames = js(browser, "return window.vtrim.frames")
    body = browser.find_element(By.TAG_NAME, "body")
    js(browser, "document.getElementById('player').pause(); document.getElementById('player').currentTime = arguments[0] + 1e-4", frames[10])
    wait_for(lambda: abs(js(browser, "return document.getElementById('player').currentTime") - frames[10]) < 2e-3, message="seek")
    body.send_keys(Keys.ARROW_RIGHT)
    wait_for(lambda: abs(js(browser, "return document.getElementById('player').currentTime") - frames[11]) < 2e-3, message="one frame on")
    body.send_keys(Keys.ARROW_LEFT)
    body.send_keys(Keys.ARROW_LEFT)
    wait_for(lambda: abs(js(browser, "return document.getElementById('player').currentTime") - frames[9]) < 2e-3, message="two frames back")


def test_mini_player_keeps_its_time_across_views(browser, server):
    open_page(browser, server)
    clip = clip_of(browser, "rot90.mp4")
    js(browser, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(browser, "return !!window.vtrim.timeline && document.getElementById('player').readyState >= 2"), message="the player")
    selected = selection(browser)
    js(browser, "document.getElementById('player').muted = true; document.getElementById('player').play()")
    wait_for(lambda: js(browser, "return document.getElementById('player').currentTime") > 0.3, message="playback")
    browser.find_element(By.ID, "dock-button").click()
    wait_for(lambda: js(browser, "return location.hash") == "#/library" and browser.find_element(By.ID, "mini").is_displayed(),
             message="the mini player")
    docked_at = js(browser, "return document.getElementById('player').currentTime")
    assert js(browser, "return document.getElementById('player').parentElement.id") == "mini-slot"
    wait_for(lambda: js(browser, "return !document.getElementById('player').paused"), message="still playing")
    shot(browser, "mini-player")
    # Kept playing from the same time (it loops inside the selection, so any other time is playing on).
    wait_for(lambda: js(browser, "return document.getElementById('player').currentTime") != docked_at, message="playing on, docked")
    browser.find_element(By.ID, "mini-restore").click()
    wait_for(lambda: js(browser, "return location.hash") == "#/trim/" + clip and js(browser, "return document.getElementById('player').parentElement.id") == "player-slot",
             message="back in the trimmer")
    assert selection(browser) == selected
    assert not browser.find_element(By.ID, "mini").is_displayed()


def test_a_cut_from_the_page_is_what_vtrim_cut_describes(browser, server, clips_folder, tmp_path):
    open_page(browser, server)
    clip = clip_of(browser, "h264-aac.mp4")
    js(browser, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(browser, "return !!window.vtrim.timeline"), message="the timeline")
    right = browser.find_element(By.ID, "handle-right")
    ActionChains(browser).click_and_hold(right).move_by_offset(-150, 0).release().perform()
    # The drag's operations all sent and answered: the strip shows the selection the cut takes.
    wait_for(lambda: js(browser, "const S = window.vtrim; return S.ops.length > 0 && !S.inFlight && !S.pending && "
                                 "S.opsSent === S.ops.map(o => o[0] + ':' + o[1]).join(',')"), message="a settled selection")
    start, end = selection(browser)
    browser.find_element(By.ID, "cut-button").click()
    box = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#cuts > .cut:first-child[data-status='done']"), timeout=60, message="the cut")
    job_id = box.get_attribute("data-cut")
    job = js(browser, "return fetch('/api/cuts/' + arguments[0]).then(r => r.json())", job_id)
    reference = tmp_path / "reference.mp4"
    cli = json.loads(vtrim("cut", "--json", os.path.join(clips_folder, "camera", "h264-aac.mp4"), "--start", repr(start), "--end", repr(end),
                           "-o", str(reference)).stdout)
    assert job["actual"] == cli["actual"]
    entries = ("-show_entries", "format=duration:stream=codec_type,nb_frames,duration")
    assert ffprobe(job["output"], *entries) == ffprobe(str(reference), *entries)
    shot(browser, "trimmer-cut")
    os.unlink(job["output"])


def add_range(browser, start, end):
    """Types the selection's start and end (TimelineCore clamps them, as the I and O keys), waits for the server's
    timeline, adds the selection as a range; returns the ranges."""
    current = js(browser, "return window.vtrim.timeline.selection.end")
    fields = [("end-time", end), ("start-time", start)] if start >= current else [("start-time", start), ("end-time", end)]
    for field, value in fields:
        js(browser, "const f = document.getElementById(arguments[0]); f.value = arguments[1]; f.dispatchEvent(new Event('change'))", field, value)
    wait_for(lambda: not js(browser, "return window.vtrim.inFlight")
             and js(browser, "const s = window.vtrim.timeline.selection; return [s.start, s.end]") == [start, end], message="the typed selection")
    answered = js(browser, "return window.vtrim.addsAnswered")
    browser.find_element(By.ID, "add-button").click()
    # The page's answer to Add is asynchronous: a click on the ranges before it comes can be undone by it.
    wait_for(lambda: js(browser, "return window.vtrim.addsAnswered") > answered, timeout=10, message="the page's answer to Add")
    return js(browser, "return window.vtrim.ranges.map(r => [r.start, r.end])")


def test_exported_list_cuts_the_same_frames(browser, server, clips_folder, tmp_path):
    open_page(browser, server)
    clip = clip_of(browser, "h264-aac.mp4")
    js(browser, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(browser, "return !!window.vtrim.timeline"), message="the timeline")
    js(browser, "window.vtrim.ranges = []")
    add_range(browser, 0.5, 1.5)
    rows = add_range(browser, 2, 3.25)
    assert len(rows) == 2
    download = str(tmp_path / "downloads")
    os.makedirs(download)
    browser.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": download})
    browser.find_element(By.ID, "export-button").click()
    csv = wait_for(lambda: glob.glob(os.path.join(download, "*.cuts.csv")), message="the exported list")[0]
    source = os.path.join(clips_folder, "camera", "h264-aac.mp4")
    parts = tmp_path / "parts"
    listed = [json.loads(line) for line in vtrim("cut", "--json", source, "--list", csv, "--output-dir", str(parts)).stdout.splitlines()]
    assert len(listed) == 2
    for (start, end), part in zip(rows, listed):
        single = tmp_path / f"single-{start}.mp4"
        cli = json.loads(vtrim("cut", "--json", source, "--start", repr(start), "--end", repr(end), "-o", str(single)).stdout)
        assert part["actual"] == cli["actual"]
        entries = ("-show_entries", "stream=codec_type,nb_frames,duration")
        assert ffprobe(part["output"], *entries) == ffprobe(str(single), *entries)


def frame_times(path):
    return [frame["best_effort_timestamp_time"] for frame in
            ffprobe(path, "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time")["frames"]]


def test_three_ranges_edited_and_joined_are_what_vtrim_cut_keeps(browser, server, clips_folder, tmp_path):
    """Three ranges on the strip, the second edited with the handles, Join: the result's segments, actual span and
    frames equal `vtrim cut --keep …`'s; the join plays to its end in Chromium; export then import restores the ranges."""
    open_page(browser, server)
    clip = clip_of(browser, "h264-aac.mp4")
    js(browser, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(browser, "return !!window.vtrim.timeline"), message="the timeline")
    js(browser, "window.vtrim.ranges = []; document.getElementById('cut-mode').value = 'smart'")
    add_range(browser, 0.2, 2.2)
    add_range(browser, 2.4, 3)
    ranges = add_range(browser, 3.2, 3.9)
    assert len(ranges) == 3, ranges
    bands = browser.find_elements(By.CSS_SELECTOR, "#range-bands .band")
    assert len(bands) == 3
    # Edit the second: its handles move it (the server clamps as ever).
    browser.find_elements(By.CSS_SELECTOR, "#ranges .edit-range")[1].click()
    second = ranges[1]
    wait_for(lambda: js(browser, "const s = window.vtrim.timeline.selection; return [s.start, s.end]") == second and
             not js(browser, "return window.vtrim.inFlight"), message="the handles on the second range")
    right = browser.find_element(By.ID, "handle-right")
    ActionChains(browser).click_and_hold(right).move_by_offset(-60, 0).release().perform()
    wait_for(lambda: js(browser, "return window.vtrim.ranges[1].end") < second[1] and not js(browser, "return window.vtrim.inFlight"),
             message="the edited range")
    browser.find_elements(By.CSS_SELECTOR, "#ranges .edit-range")[1].click()
    ranges = js(browser, "return window.vtrim.ranges.map(r => [r.start, r.end])")
    assert ranges[1][1] < second[1] and ranges[0] != ranges[1]
    js(browser, "window.vtrim.ranges[0].label = 'opening'")
    browser.find_element(By.ID, "join-button").click()
    box = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#cuts > .cut.join:first-child[data-status='done']"), timeout=90, message="the join")
    job = js(browser, "return fetch('/api/cuts/' + arguments[0]).then(r => r.json())", box.get_attribute("data-cut"))
    source = os.path.join(clips_folder, "camera", "h264-aac.mp4")
    reference = tmp_path / "reference.mp4"
    keeps = [argument for start, end in ranges for argument in ("--keep", f"{start!r}..{end!r}")]
    cli = json.loads(vtrim("cut", "--json", source, *keeps, "--mode", "smart", "-o", str(reference)).stdout)
    assert job["mode"] == cli["mode"] == "smart"
    strip = lambda segments: [{k: v for k, v in s.items() if k != "label"} for s in segments]
    assert strip(job["segments"]) == strip(cli["segments"])
    assert job["segments"][0]["label"] == "opening"
    assert job["actual"] == cli["actual"]
    assert frame_times(job["output"]) == frame_times(str(reference))
    # The join plays to its end in the page's own video element.
    played = play_to_end(browser, job["url"])
    assert played[0] != "error", played
    assert abs(played[0] - job["actual"]["duration"]) <= 0.05 and abs(played[1] - job["actual"]["duration"]) <= 0.05, played
    # Export, clear, import: the same ranges.
    download = str(tmp_path / "downloads")
    os.makedirs(download)
    browser.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": download})
    js(browser, "document.getElementById('list-format').value = 'otio'")
    browser.find_element(By.ID, "export-button").click()
    listed = wait_for(lambda: glob.glob(os.path.join(download, "*.cuts.otio")), message="the exported list")[0]
    js(browser, "window.vtrim.ranges = []")
    browser.find_element(By.ID, "import-input").send_keys(listed)
    wait_for(lambda: len(js(browser, "return window.vtrim.ranges")) == 3, message="the imported ranges")
    imported = js(browser, "return window.vtrim.ranges.map(r => [r.start, r.end])")
    assert all(abs(a - b) <= 1e-6 for got, want in zip(imported, ranges) for a, b in zip(got, want)), (imported, ranges)
    assert js(browser, "return window.vtrim.ranges[0].label") == "opening"
    shot(browser, "trimmer-join")
    os.unlink(job["output"])


def test_hevc_plays_through_the_preview(browser, server):
    open_page(browser, server)
    clip = clip_of(browser, "hevc.mp4")
    js(browser, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(browser, "return document.getElementById('player').dataset.source") == "preview", timeout=30,
             message="the preview stand-in")
    wait_for(lambda: js(browser, "return document.getElementById('player').videoWidth") > 0, timeout=60, message="a picture")
    js(browser, "document.getElementById('player').muted = true; document.getElementById('player').play()")
    wait_for(lambda: js(browser, "return document.getElementById('player').currentTime") > 0.2, timeout=20, message="preview playback")
    status = js(browser, "return fetch('/api/clips/' + arguments[0] + '/preview').then(r => r.json())", clip)
    assert status["status"] in ("running", "done")
    shot(browser, "trimmer-hevc-preview")


def test_the_library_follows_files_that_appear_and_vanish(browser, server, clips_folder):
    open_page(browser, server)
    count = lambda: js(browser, "return document.querySelectorAll('#feed .card').length")
    wait_for(lambda: count() == 3, message="three cards")
    added = os.path.join(clips_folder, "camera", "new.mp4")
    shutil.copy(os.path.join(FIXTURES, "h264-aac-nob.mp4"), added)
    try:
        wait_for(lambda: count() == 4, timeout=15, message="the new clip's card")
    finally:
        os.unlink(added)
    wait_for(lambda: count() == 3, timeout=15, message="the card gone with its file")


def test_a_smart_cut_plays_to_its_end(browser, server):
    """A smart cut (re-encoded head and tail, copied middle, one avc1 record holding both encoders' sets)
    plays through in Chromium to its last frame with no media error."""
    open_page(browser, server)
    clip = clip_of(browser, "h264-aac.mp4")
    job = js(browser, """
        return fetch('/api/cuts', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                   body: JSON.stringify({clip: arguments[0], start: 0.5, end: 3.5, mode: 'smart'})})
            .then(r => r.json())""", clip)
    finished = wait_for(lambda: (lambda j: j if j["status"] not in ("queued", "running") else None)(
        js(browser, "return fetch('/api/cuts/' + arguments[0]).then(r => r.json())", job["id"])), timeout=60, message="the smart cut")
    assert finished["status"] == "done" and finished["mode"] == "smart", finished
    entry = finished["sample_entry"]
    assert (entry["type"], entry["parameter_sets"]) == ("avc1", "out_of_band"), finished
    # One record: the source's SPS/PPS and the smart encoder's, under ids of their own.
    assert sorted((s["type"], s["id"]) for s in entry["record"]) == [("pps", 0), ("pps", 1), ("sps", 0), ("sps", 1)], finished
    js(browser, """
        const video = document.createElement('video');
        video.id = 'smart-check';
        video.muted = true;
        window.smartCheck = {ended: false, error: null, frames: 0};
        video.addEventListener('ended', () => { window.smartCheck.ended = true; });
        video.addEventListener('error', () => { window.smartCheck.error = video.error && video.error.code; });
        video.src = '/media/cuts/' + arguments[0];
        document.body.appendChild(video);
        video.play();""", job["id"])
    state = "const v = document.getElementById('smart-check'); return [window.smartCheck, v.currentTime, v.duration, v.readyState]"
    wait_for(lambda: js(browser, "return window.smartCheck.ended || window.smartCheck.error !== null"), timeout=30,
             message=f"the end of the smart cut ({js(browser, state)})")
    check, current, duration, _ = js(browser, state)
    assert check["error"] is None, check
    assert abs(current - 3.0) < 0.05 and abs(duration - 3.0) < 0.05, (current, duration)
    frames = js(browser, "return document.getElementById('smart-check').getVideoPlaybackQuality().totalVideoFrames")
    assert frames >= 85, f"{frames} frames shown of 90"
    js(browser, "document.getElementById('smart-check').remove()")
    os.unlink(finished["output"])
