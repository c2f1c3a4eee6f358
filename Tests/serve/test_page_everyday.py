"""The trimmer on everyday clips, in a real headless Chromium: it opens on the whole clip, its labels
(milliseconds) never overlap, typed start/end times move the handles, switching away from an unreadable
clip leaves no trace, and an audio-only clip plays with its waveform strip; library cards carry badges and
the banner shows only clips with pictures."""
import os
import shutil
import subprocess
import tempfile

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select

from conftest import FIXTURES, Server, wait_for
from test_browser import clip_of, js, open_page, shot
from test_http import api, clip_id, post


@pytest.fixture(scope="module")
def everyday():
    """A folder of a 12 s clip, the 4 s fixture, an audio-only M4A and a file that is not media."""
    folder = tempfile.mkdtemp(prefix="vtrim-everyday-")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=d=12:s=320x240:r=30", "-f", "lavfi", "-i",
                    "sine=d=12", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "30", "-c:a", "aac", "-shortest",
                    os.path.join(folder, "twelve.mp4")], check=True)
    for name in ("h264-aac.mp4", "audio-only.m4a", "not-video.mp4"):
        shutil.copy(os.path.join(FIXTURES, name), os.path.join(folder, name))
    running = Server(folder)
    yield running
    running.stop()
    shutil.rmtree(folder, ignore_errors=True)


def open_clip(browser, server, name):
    clip = clip_of(browser, name)
    js(browser, "location.hash = '#/trim/' + arguments[0]", clip)
    return clip


def settled(browser):
    return not js(browser, "return window.vtrim.inFlight || window.vtrim.pending") and \
        js(browser, "return window.vtrim.opsSent") == js(browser, "return window.vtrim.ops.map(o => o[0] + ':' + o[1]).join(',')")


def waveform_pixels(browser, image):
    """Pixels of an image in the waveform's bar colour (not only the background): the engine drew the sound."""
    return js(browser, """const image = arguments[0], canvas = document.createElement('canvas');
        canvas.width = image.naturalWidth; canvas.height = image.naturalHeight;
        const context = canvas.getContext('2d'); context.drawImage(image, 0, 0);
        const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
        let count = 0; for (let i = 0; i < data.length; i += 4) if (data[i + 2] > 200 && data[i] > 100) count++;
        return count;""", image)


def test_the_trimmer_opens_on_the_whole_clip(browser, everyday):
    open_page(browser, everyday)
    open_clip(browser, everyday, "twelve.mp4")
    wait_for(lambda: js(browser, "return window.vtrim.timeline && window.vtrim.current.clip.name === 'twelve.mp4'"), message="the timeline")
    duration = js(browser, "return window.vtrim.current.info.duration")
    assert duration > 11.9
    selection = js(browser, "return window.vtrim.timeline.selection")
    assert selection["start"] == 0 and abs(selection["end"] - duration) < 1e-6, selection
    # The shortest selection is one frame: the right handle dragged onto the left one leaves 1/30 s. Dragged once the
    # page has settled on the clip (on a loaded machine the handle was read before the strip's last layout).
    wait_for(lambda: settled(browser), message="the opened clip")
    right = browser.find_element(By.ID, "handle-right")
    x = js(browser, "const r = arguments[0].getBoundingClientRect(); return r.left + r.width / 2", right)
    ActionChains(browser).click_and_hold(right).move_by_offset(-round(x - 5), 0).release().perform()
    wait_for(lambda: js(browser, "return window.vtrim.ops.length") > 0 and settled(browser), message="the drag")
    selection = js(browser, "return window.vtrim.timeline.selection")
    assert abs(selection["end"] - selection["start"] - 1 / 30) < 2e-3, selection
    shot(browser, "trimmer-whole-clip")


def label_boxes(browser):
    return js(browser, """return ['label-start', 'label-duration', 'label-end'].map(id => {
        const r = document.getElementById(id).getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom, document.getElementById(id).textContent]; })""")


def test_labels_show_milliseconds_and_never_overlap(browser, everyday):
    open_page(browser, everyday)
    open_clip(browser, everyday, "twelve.mp4")
    wait_for(lambda: js(browser, "return window.vtrim.timeline && window.vtrim.current.clip.name === 'twelve.mp4'"), message="the timeline")
    start_field, end_field = browser.find_element(By.ID, "start-time"), browser.find_element(By.ID, "end-time")
    for start, end in [(0.562, 11.5), (5.0, 5.2), (0.0, 0.1), (11.9, 12.0), (3.25, 7.75)]:
        before = js(browser, "return JSON.stringify(window.vtrim.ops)")
        # In the order that keeps start before end throughout (TimelineCore clamps each move).
        fields = [(end_field, end), (start_field, start)]
        if start < js(browser, "return window.vtrim.timeline.selection.start"):
            fields.reverse()
        for field, value in fields:
            field.clear()
            field.send_keys(str(value), Keys.TAB)
        wait_for(lambda: js(browser, "return JSON.stringify(window.vtrim.ops)") != before and settled(browser), message=f"{start}–{end}")
        shown = js(browser, "return window.vtrim.timeline.selection")
        assert abs(shown["start"] - start) < 0.04 and abs(shown["end"] - end) < 0.04, (start, end, shown)
        boxes = label_boxes(browser)
        for i in range(3):
            assert boxes[i][2] > boxes[i][0], boxes  # drawn
            for j in range(i + 1, 3):
                a, b = boxes[i], boxes[j]
                apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
                assert apart, f"{start}–{end}: {a} overlaps {b}"
        if start == 0.562:
            assert boxes[0][4] in ("0:00.562", "0:00.6"), boxes
        shot(browser, f"labels-{start}-{end}")


def test_switching_from_an_unreadable_clip_leaves_no_trace(browser, everyday):
    open_page(browser, everyday)
    open_clip(browser, everyday, "not-video.mp4")
    wait_for(lambda: browser.find_element(By.ID, "trim-error").is_displayed(), message="the clip's error in place")
    assert "cannot be read" in browser.find_element(By.ID, "trim-error").text
    assert not browser.find_element(By.ID, "cut-button").is_enabled()
    assert "NaN" not in browser.find_element(By.TAG_NAME, "body").text
    shot(browser, "trimmer-unreadable")
    clip = open_clip(browser, everyday, "h264-aac.mp4")
    wait_for(lambda: js(browser, "return !!window.vtrim.timeline && window.vtrim.current.id === arguments[0]", clip), message="the good clip")
    assert not browser.find_element(By.ID, "trim-error").is_displayed()
    assert browser.find_element(By.ID, "status").text == ""
    assert browser.find_element(By.ID, "cut-button").is_enabled()
    wait_for(lambda: js(browser, "return [...document.querySelectorAll('#strip-content .tile')].length > 0 && "
                                 "[...document.querySelectorAll('#strip-content .tile')].every(t => t.dataset.src.includes(arguments[0]))", clip),
             message="the good clip's tiles only")


def test_an_audio_only_clip_plays_and_shows_its_waveform(browser, everyday):
    open_page(browser, everyday)
    open_clip(browser, everyday, "audio-only.m4a")
    wait_for(lambda: js(browser, "return !!window.vtrim.timeline && window.vtrim.current.clip.name === 'audio-only.m4a'"), message="the timeline")
    assert js(browser, "return document.querySelector('#player-slot audio') !== null")
    assert not browser.find_element(By.ID, "preview-note").is_displayed()  # no preview asked of a clip without pictures
    # Space, the page's play key: a user's gesture, which Chromium wants before sound plays.
    js(browser, "document.activeElement && document.activeElement.blur()")
    ActionChains(browser).send_keys(" ").perform()
    state = "const a = document.getElementById('audio-player'); return [a.readyState, a.networkState, a.currentSrc, a.error && a.error.code, a.currentTime]"
    wait_for(lambda: js(browser, "return document.getElementById('audio-player').currentTime") > 0.2, timeout=20,
             message=f"audio playback ({js(browser, state)})")
    tile = wait_for(lambda: js(browser, "return [...document.querySelectorAll('#strip-content .tile')].find(t => t.dataset.loaded && t.naturalWidth > 0)"),
                    timeout=30, message="a waveform tile")
    coloured = waveform_pixels(browser, tile)
    assert coloured > 20, coloured
    # Sound alone has no frames: the page never asks for them (the route answers 422, once from each of two places).
    clip = js(browser, "return window.vtrim.current.id")
    asked = js(browser, "return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/api/clips/' + arguments[0] + '/frames'))", clip)
    assert asked == [], asked
    shot(browser, "trimmer-audio-only")


def test_library_badges_and_a_banner_of_clips_with_pictures(browser, everyday):
    open_page(browser, everyday)
    for name, text in (("audio-only.m4a", "audio only"), ("not-video.mp4", "unreadable")):
        card = wait_for(lambda: js(browser, "return [...document.querySelectorAll('#feed .card')].find(c => c.querySelector('.name').title === arguments[0])", name),
                        message=f"{name}'s card")
        js(browser, "arguments[0].scrollIntoView({block: 'start'})", card)
        wait_for(lambda: text in [b.text for b in card.find_elements(By.CSS_SELECTOR, ".badge")], timeout=20, message=f"the {text} badge")
    slides = wait_for(lambda: js(browser, "return [...document.querySelectorAll('#banner .slide:not(.copy)')].map(s => s.dataset.clip)"),
                      message="the banner")
    names = js(browser, "return window.vtrim.clips.filter(c => arguments[0].includes(c.id)).map(c => c.name).sort()", slides)
    assert names == ["h264-aac.mp4", "twelve.mp4"], names


def test_a_clip_shows_only_its_own_cuts_player_and_usable_buttons(browser, everyday):
    open_page(browser, everyday)
    first = open_clip(browser, everyday, "h264-aac.mp4")
    wait_for(lambda: js(browser, "return !!window.vtrim.timeline && window.vtrim.current.id === arguments[0]", first), message="the first clip")
    wait_for(lambda: settled(browser), message="the first timeline")
    browser.find_element(By.ID, "cut-button").click()
    box = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#cuts > .cut:first-child[data-status='done']"), timeout=60, message="the cut")
    job = js(browser, "return fetch('/api/cuts/' + arguments[0]).then(r => r.json())", box.get_attribute("data-cut"))
    try:
        other = open_clip(browser, everyday, "twelve.mp4")
        wait_for(lambda: js(browser, "return !!window.vtrim.timeline && window.vtrim.current.id === arguments[0]", other), message="the other clip")
        assert js(browser, "return document.querySelectorAll('#cuts .cut').length") == 0, "another clip's cut is shown"
        # Back on the first clip its cut is listed again, from the server (as after a reload).
        open_clip(browser, everyday, "h264-aac.mp4")
        wait_for(lambda: js(browser, "return [...document.querySelectorAll('#cuts .cut')].map(b => [b.dataset.cut, b.dataset.status])")
                 == [[job["id"], "done"]], message="the first clip's own cut")
        # An unreadable clip opened after an audio-only one: no player of the audio clip is left in its place.
        open_clip(browser, everyday, "audio-only.m4a")
        wait_for(lambda: js(browser, "return !!document.querySelector('#player-slot #audio-player')"), message="the audio player")
        open_clip(browser, everyday, "not-video.mp4")
        wait_for(lambda: browser.find_element(By.ID, "trim-error").is_displayed(), message="the clip's error")
        assert js(browser, "return document.getElementById('player-slot').children.length") == 0
        assert js(browser, "return document.querySelectorAll('#cuts .cut').length") == 0
        # Buttons that cannot be used look it, the primary one included.
        for id in ("cut-button", "join-button", "add-button"):
            assert not browser.find_element(By.ID, id).is_enabled()
            assert float(js(browser, "return getComputedStyle(document.getElementById(arguments[0])).opacity", id)) < 0.6, id
        shot(browser, "trimmer-unreadable-after-audio")
    finally:
        if os.path.exists(job.get("output", "")):
            os.unlink(job["output"])


def test_cuts_made_before_a_restart_are_listed_with_their_outputs(browser, tmp_path):
    folder = tmp_path / "clips"
    os.makedirs(folder)
    shutil.copy(os.path.join(FIXTURES, "h264-aac.mp4"), folder / "trip.mp4")
    shutil.copy(os.path.join(FIXTURES, "rot90.mp4"), folder / "dance.mp4")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "state")}
    first = Server(str(folder), "--output-dir", str(tmp_path / "out"), env=env)
    try:
        clip = clip_id(first, "trip.mp4")
        status, job = post(first, "/api/cuts", {"clip": clip, "start": 1, "end": 2})
        assert status == 202, job
        wait_for(lambda: api(first, "/api/cuts/" + job["id"])["status"] == "done", timeout=60, message="the cut")
        other_clip = clip_id(first, "dance.mp4")
        status, other = post(first, "/api/cuts", {"clip": other_clip, "start": 0.2, "end": 1})
        assert status == 202, other
        wait_for(lambda: api(first, "/api/cuts/" + other["id"])["status"] == "done", timeout=60, message="the second cut")
    finally:
        first.stop()
    second = Server(str(folder), "--output-dir", str(tmp_path / "out"), env=env)
    try:
        open_page(browser, second)
        open_clip(browser, second, "trip.mp4")
        box = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, f"#cuts > .cut[data-cut='{job['id']}'][data-status='done']"),
                       timeout=20, message="the cut made before the restart")
        head = box.find_element(By.CLASS_NAME, "cut-head").text
        assert job["output"] in head and "done" in head, head
        link = box.find_element(By.TAG_NAME, "a").get_attribute("href")
        status = js(browser, "return fetch(arguments[0]).then(r => r.status)", link)
        assert status == 200, link
        # A clip's page shows its own cuts only; the library's list (Cuts) shows both, newest first, each naming its
        # clip, and a clip's name opens it.
        assert not browser.find_elements(By.CSS_SELECTOR, f"#cuts > .cut[data-cut='{other['id']}']")
        browser.find_element(By.ID, "nav-cuts").click()
        wait_for(lambda: [row.get_attribute("data-cut") for row in browser.find_elements(By.CSS_SELECTOR, "#library-cuts > .cut")]
                 == [other["id"], job["id"]], timeout=20, message="the library's cuts, newest first")
        rows = browser.find_elements(By.CSS_SELECTOR, "#library-cuts > .cut")
        assert [row.find_element(By.CLASS_NAME, "cut-clip").text for row in rows] == ["dance.mp4", "trip.mp4"]
        assert all(row.get_attribute("data-status") == "done" for row in rows)
        assert other["output"] in rows[0].find_element(By.CLASS_NAME, "cut-head").text
        assert browser.find_element(By.ID, "view-library").get_attribute("hidden") is not None
        rows[0].find_element(By.CLASS_NAME, "cut-clip").click()
        wait_for(lambda: js(browser, "return !!window.vtrim.current && window.vtrim.current.id === arguments[0]", other_clip),
                 message="the cut's clip opened")
    finally:
        second.stop()


def test_the_player_follows_a_typed_start(browser, everyday):
    open_page(browser, everyday)
    clip = open_clip(browser, everyday, "twelve.mp4")
    wait_for(lambda: js(browser, "return !!window.vtrim.timeline && window.vtrim.current.id === arguments[0] && "
                                 "document.getElementById('player').readyState >= 1", clip), message="the clip and its player")
    field = browser.find_element(By.ID, "start-time")
    field.clear()
    field.send_keys("7.5", Keys.ENTER)
    position = "return document.getElementById('player').currentTime"
    wait_for(lambda: abs(js(browser, position) - 7.5) < 0.05, message="the player at the typed start")
    wait_for(lambda: settled(browser) and abs(js(browser, "return window.vtrim.timeline.selection.start") - 7.5) < 1e-6, message="the selection")



@pytest.fixture(scope="module")
def many():
    """25 short clips: more than the feed's first screens."""
    folder = tempfile.mkdtemp(prefix="vtrim-many-")
    for index in range(1, 26):
        shutil.copy(os.path.join(FIXTURES, "h264-aac.mp4"), os.path.join(folder, f"clip{index:02d}.mp4"))
    running = Server(folder)
    yield running
    running.stop()
    shutil.rmtree(folder, ignore_errors=True)


def test_the_feed_opens_at_the_first_clip(browser, many):
    open_page(browser, many)
    wait_for(lambda: js(browser, "return document.querySelectorAll('#feed .card').length") >= 3, message="the feed's cards")
    # Every card made so far laid out, over a few frames (cards are made at most six a frame).
    browser.set_script_timeout(10)
    state = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        let frames = 0;
        const next = () => {
          if (++frames < 20) { requestAnimationFrame(next); return; }
          const feed = document.getElementById('feed');
          const first = [...feed.querySelectorAll('.card')].find(c => {
            const r = c.getBoundingClientRect(), f = feed.getBoundingClientRect();
            return r.bottom > f.top + 1 && r.top < f.bottom - 1; });
          done([feed.scrollTop, first ? first.dataset.index : null, first ? first.querySelector('.name').title : null]);
        };
        requestAnimationFrame(next);""")
    assert state[0] == 0 and state[1] == "0", state
    assert state[2].endswith("clip01.mp4"), state
    shot(browser, "feed-opens-at-the-first-clip")


@pytest.mark.parametrize("width", [1400, 420])
def test_the_grid_fills_the_width(browser, many, width):
    before = browser.get_window_size()
    browser.set_window_size(width, 900)
    try:
        open_page(browser, many)
        Select(browser.find_element(By.ID, "library-view")).select_by_value("grid")
        wait_for(lambda: js(browser, "return document.querySelectorAll('#feed.grid .card').length") >= 2, message="grid cards")
        # The first row's cards, laid out (once a frame).
        row = wait_for(lambda: (lambda r: r if r and all(c[2] > 0 for c in r) else None)(js(browser, """
            const feed = document.getElementById('feed'), f = feed.getBoundingClientRect();
            const cards = [...feed.querySelectorAll('.card')].map(c => c.getBoundingClientRect()).filter(r => Math.abs(r.top - f.top - 4) < 2);
            return cards.map(r => [r.left - f.left, r.right - f.left, r.width, feed.clientWidth]);""")), message="the first row")
        shot(browser, f"grid-{width}")
        inner = row[0][3]
        # No empty strip on the right (at most a margin) and no narrow card alone.
        assert max(r[1] for r in row) >= inner - 10, row
        assert min(r[0] for r in row) <= 6, row
        if len(row) == 1:
            assert row[0][2] >= inner * 0.9, row
    finally:
        browser.set_window_size(before["width"], before["height"])


def test_a_grid_card_of_sound_shows_its_badge_and_waveform(browser, everyday):
    open_page(browser, everyday)
    Select(browser.find_element(By.ID, "library-view")).select_by_value("grid")
    card = wait_for(lambda: js(browser, "return [...document.querySelectorAll('#feed.grid .card')].find(c => c.querySelector('.name').title === 'audio-only.m4a')"),
                    message="the audio clip's grid card")
    wait_for(lambda: "audio only" in [b.text for b in card.find_elements(By.CSS_SELECTOR, ".badge")], timeout=20, message="the audio only badge")
    poster = wait_for(lambda: js(browser, "const p = arguments[0].querySelector('.poster'); return p && !p.hidden && p.complete && p.naturalWidth > 0 ? p : null", card),
                      timeout=30, message="the waveform poster")
    coloured = waveform_pixels(browser, poster)
    assert coloured > 20, coloured
    shot(browser, "grid-audio-only")
