"""The trimmer never changes what was typed behind the user's back (issue 36, item 4), in a real headless Chromium
on a 14 s clip at 20 fps, typing as a user does (select the field, type, Tab): typed ranges that overlap, touch or
come out of order keep what was typed, or nothing is added and the reason (which range, what to change) shows next
to the start and end fields; the fields of a new range move no range, those of a range being edited move it only;
the trimmer's controls are whole at 1280×720 and 390×844 (screenshots saved under SCREENSHOTS); a cut's result
comes into view; and the browser console has no errors (no 404, not even a favicon's)."""
import os
import shutil
import subprocess
import tempfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import SCREENSHOTS, Server, chromium, wait_for
from test_browser import clip_of, js, open_page


@pytest.fixture(scope="module")
def fourteen():
    """A folder of one 14 s clip at 20 fps (a frame is 0.05 s, as in the issue) and the server on it."""
    folder = tempfile.mkdtemp(prefix="vtrim-fields-")
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=d=14:s=320x240:r=20", "-f", "lavfi", "-i",
                    "sine=d=14", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "20", "-c:a", "aac", "-shortest",
                    os.path.join(folder, "fourteen.mp4")], check=True)
    running = Server(folder)
    yield running
    running.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def driver():
    """A Chromium of this file's own: the shared one keeps no console log, and this one's viewport changes."""
    chrome = chromium(console_log=True)
    viewport(chrome, 1280, 720)
    os.makedirs(SCREENSHOTS, exist_ok=True)
    yield chrome
    chrome.quit()


def viewport(driver, width, height):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def console_errors(driver):
    """The console's errors since the last call (reading the log empties it)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def settled(driver):
    return js(driver, "const S = window.vtrim; return !S.inFlight && !S.pending && "
                      "S.opsSent === S.ops.map(o => o[0] + ':' + o[1]).join(',')")


def open_fourteen(driver, server):
    open_page(driver, server)
    clip = clip_of(driver, "fourteen.mp4")
    js(driver, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(driver, "return !!window.vtrim.timeline && window.vtrim.current.id === arguments[0]", clip), message="the timeline")
    wait_for(lambda: settled(driver), message="the first timeline")
    assert js(driver, "return window.vtrim.ranges.length") == 0


def type_time(driver, field_id, value):
    """As a user types: into the field, all of it selected, the time, then Tab (the change event)."""
    field = driver.find_element(By.ID, field_id)
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(str(value), Keys.TAB)
    wait_for(lambda: settled(driver), message=f"{field_id} {value}")


def type_range(driver, start, end, end_first=False):
    for field, value in ([("end-time", end), ("start-time", start)] if end_first else [("start-time", start), ("end-time", end)]):
        type_time(driver, field, value)


def fields(driver):
    return [float(driver.find_element(By.ID, i).get_attribute("value")) for i in ("start-time", "end-time")]


def selection(driver):
    return js(driver, "const s = window.vtrim.timeline.selection; return [s.start, s.end]")


def ranges(driver):
    return js(driver, "return window.vtrim.ranges.map(r => [r.start, r.end])")


def problem(driver):
    """The reason shown next to the fields, or None."""
    return js(driver, "const p = document.getElementById('range-problem'); return p && !p.hidden ? p.textContent : null")


def add(driver, added=True):
    """Add range: waits until the page has answered the click (`addsAnswered`), then checks the range was added, or
    (refused) that none was."""
    before, answered = ranges(driver), js(driver, "return window.vtrim.addsAnswered")
    driver.find_element(By.ID, "add-button").click()
    wait_for(lambda: js(driver, "return window.vtrim.addsAnswered") > answered, timeout=10, message="the page's answer to Add")
    if added:
        assert ranges(driver) != before, "not added"
    else:
        assert ranges(driver) == before, f"added although refused: {before} → {ranges(driver)}"
    return ranges(driver)


def assert_next_to_the_fields(driver):
    """The reason is in the fields' own row, just after them, in sight: not (only) in the top bar."""
    where = js(driver, """const p = document.getElementById('range-problem'), end = document.getElementById('end-time');
        const a = p.getBoundingClientRect(), b = end.getBoundingClientRect();
        return {row: p.parentElement === end.closest('.controls'), after: !!(end.compareDocumentPosition(p) & Node.DOCUMENT_POSITION_FOLLOWING),
                gap: a.top - b.bottom, width: a.width, height: window.innerHeight, top: a.top, bottom: a.bottom,
                color: getComputedStyle(p).color};""")
    assert where["row"] and where["after"], where
    assert where["width"] > 0 and where["gap"] < 24, where
    assert 0 <= where["top"] and where["bottom"] <= where["height"], where


def test_typed_times_are_kept_and_an_overlap_is_refused_next_to_the_fields(driver, fourteen):
    """The issue's session: 1–3 added; then 5 and 7.5 (the start was clamped to 2.950 and the range refused in the
    top bar); then 9 and 11 (7.450–11.000 was added silently); then one that overlaps."""
    console_errors(driver)
    open_fourteen(driver, fourteen)
    type_range(driver, 1, 3)
    assert selection(driver) == [1, 3]
    assert add(driver) == [[1, 3]]
    # A start past the old end is kept as typed; what is missing (an end after it) is said next to the fields.
    type_time(driver, "start-time", 5)
    assert fields(driver)[0] == 5, fields(driver)
    assert selection(driver)[0] != 2.95, "the typed start was clamped to the old end minus a frame"
    reason = problem(driver)
    assert reason and "5.000" in reason and "end" in reason, reason
    assert_next_to_the_fields(driver)
    add(driver, added=False)  # the fields show what the strip does not: nothing to add yet
    type_time(driver, "end-time", 7.5)
    assert selection(driver) == [5, 7.5] and fields(driver) == [5, 7.5]
    assert problem(driver) is None
    assert add(driver) == [[1, 3], [5, 7.5]]
    type_range(driver, 9, 11)
    assert selection(driver) == [9, 11] and fields(driver) == [9, 11]
    assert add(driver) == [[1, 3], [5, 7.5], [9, 11]]
    # 7–8 overlaps range 2 (5–7.5): shown in place (the strip shows it, the fields keep it), the reason says which
    # range and what to change, and Add adds nothing.
    type_range(driver, 7, 8)
    assert fields(driver) == [7, 8] and selection(driver) == [7, 8]
    reason = problem(driver)
    assert reason and "range 2" in reason and "5.000–7.500" in reason and "start 7.500 or later" in reason, reason
    assert_next_to_the_fields(driver)
    add(driver, added=False)
    assert problem(driver) == reason
    assert fields(driver) == [7, 8]
    driver.save_screenshot(os.path.join(SCREENSHOTS, "trimmer-fields-overlap.png"))
    # Doing what it says: a start at 7.5 touches range 2, and is added as typed.
    type_time(driver, "start-time", 7.5)
    assert problem(driver) is None
    assert add(driver) == [[1, 3], [5, 7.5], [7.5, 8], [9, 11]]
    assert console_errors(driver) == []


def test_touching_ranges_are_added_as_typed(driver, fourteen):
    console_errors(driver)
    open_fourteen(driver, fourteen)
    type_range(driver, 2, 4)
    add(driver)
    # The next starts where the last ends: typed after it, the start equal to the shown end, nothing clamped.
    type_range(driver, 4, 6)
    assert selection(driver) == [4, 6]
    assert problem(driver) is None
    add(driver)
    # And one that ends where the first starts.
    type_range(driver, 0.5, 2)
    assert selection(driver) == [0.5, 2]
    assert problem(driver) is None
    assert add(driver) == [[0.5, 2], [2, 4], [4, 6]]
    assert console_errors(driver) == []


def test_ranges_typed_out_of_order_are_kept_and_listed_in_time_order(driver, fourteen):
    console_errors(driver)
    open_fourteen(driver, fourteen)
    type_range(driver, 8, 10)
    add(driver)
    type_range(driver, 2, 4)
    add(driver)
    # The end typed first, after the start shown: the pair applies once it makes sense.
    type_range(driver, 11, 13, end_first=True)
    assert selection(driver) == [11, 13]
    add(driver)
    # The end typed first, before the start shown (11): kept in its field with what to change, then the start.
    type_time(driver, "end-time", 7)
    assert fields(driver)[1] == 7, fields(driver)
    reason = problem(driver)
    assert reason and "7.000" in reason and "start before 7.000" in reason, reason
    assert_next_to_the_fields(driver)
    type_time(driver, "start-time", 5)
    assert selection(driver) == [5, 7] and fields(driver) == [5, 7]
    assert problem(driver) is None
    assert add(driver) == [[2, 4], [5, 7], [8, 10], [11, 13]]
    listed = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#ranges .range .times")]
    assert [text.split(" ")[0] for text in listed] == ["2.000", "5.000", "8.000", "11.000"], listed
    assert console_errors(driver) == []


def test_the_fields_of_a_new_range_move_no_range_and_those_of_an_edited_one_only_it(driver, fourteen):
    console_errors(driver)
    open_fourteen(driver, fourteen)
    type_range(driver, 1, 3)
    add(driver)
    type_range(driver, 5, 7)
    add(driver)
    # Edit puts the handles exactly on the range, even from a selection whose end is just past its start (moved
    # start first, the start was clamped to a frame before that end, and the range followed).
    type_range(driver, 1, 5.02)
    driver.find_elements(By.CSS_SELECTOR, "#ranges .edit-range")[1].click()
    wait_for(lambda: settled(driver) and js(driver, "return !!window.vtrim.editing"), message="the handles on range 2")
    assert selection(driver) == [5, 7] and ranges(driver) == [[1, 3], [5, 7]]
    driver.find_elements(By.CSS_SELECTOR, "#ranges .edit-range")[1].click()  # Done
    type_range(driver, 9, 10)  # a new range's times, not added: the ranges stay as they are
    assert ranges(driver) == [[1, 3], [5, 7]]
    driver.find_elements(By.CSS_SELECTOR, "#ranges .edit-range")[0].click()
    wait_for(lambda: settled(driver) and selection(driver) == [1, 3], message="the handles on range 1")
    type_time(driver, "end-time", 2.5)
    assert ranges(driver) == [[1, 2.5], [5, 7]]
    # An edit that would overlap range 2 moves nothing; the field keeps it and the reason says what to change.
    type_time(driver, "end-time", 6)
    assert ranges(driver) == [[1, 2.5], [5, 7]]
    assert fields(driver)[1] == 6
    reason = problem(driver)
    assert reason and "range 2" in reason and "end 5.000 or earlier" in reason, reason
    assert_next_to_the_fields(driver)
    type_time(driver, "end-time", 5)
    assert ranges(driver) == [[1, 5], [5, 7]] and problem(driver) is None
    driver.find_elements(By.CSS_SELECTOR, "#ranges .edit-range")[0].click()
    type_range(driver, 11, 12)
    assert ranges(driver) == [[1, 5], [5, 7]]
    assert console_errors(driver) == []


# Every control of the trimmer's .controls rows (and what is inside their labels): inside the viewport, inside its
# parent, its content not cut off (scrollWidth ≤ clientWidth), placeholders readable whole.
CONTROLS_CHECK = """
const viewportWidth = document.documentElement.clientWidth, problems = [];
const controls = [...document.querySelectorAll('#view-trim .controls > *, #view-trim .controls label > *')];
const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden' && getComputedStyle(el).opacity !== '0';
const name = (el) => el.id || (el.textContent || '').trim().slice(0, 24) || el.tagName;
const canvas = document.createElement('canvas').getContext('2d');
for (const el of controls.filter(shown)) {
  const r = el.getBoundingClientRect(), p = el.parentElement.getBoundingClientRect();
  if (r.left < -0.5 || r.right > viewportWidth + 0.5) problems.push(`${name(el)} outside the viewport: ${r.left}–${r.right} of ${viewportWidth}`);
  if (r.left < p.left - 0.5 || r.right > p.right + 0.5) problems.push(`${name(el)} outside its parent: ${r.left}–${r.right} in ${p.left}–${p.right}`);
  if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) problems.push(`${name(el)} cut off: ${el.scrollWidth} > ${el.clientWidth}`);
  if (el.placeholder) {
    const style = getComputedStyle(el);
    canvas.font = style.font;
    const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - (el.type === 'number' ? 16 : 0);
    const needs = canvas.measureText(el.placeholder).width;
    if (needs > room) problems.push(`${name(el)}: placeholder "${el.placeholder}" needs ${needs.toFixed(1)} px, has ${room.toFixed(1)}`);
  }
}
return {problems, count: controls.filter(shown).length, width: window.innerWidth};
"""


@pytest.mark.parametrize("width,height", [(1280, 720), (390, 844)])
def test_every_trimmer_control_is_whole(driver, fourteen, width, height):
    console_errors(driver)
    viewport(driver, width, height)
    try:
        open_fourteen(driver, fourteen)
        assert js(driver, "return window.innerWidth") == width
        type_range(driver, 1, 3)
        add(driver)
        checked = js(driver, CONTROLS_CHECK)
        assert checked["count"] >= 20, checked
        assert checked["problems"] == [], checked["problems"]
        type_range(driver, 2, 6)  # overlaps range 1: the reason's line shows too, and moves the rest down
        assert problem(driver)
        checked = js(driver, CONTROLS_CHECK)
        assert checked["problems"] == [], checked["problems"]
        js(driver, "document.querySelector('#view-trim .controls').scrollIntoView({block: 'start'})")
        driver.save_screenshot(os.path.join(SCREENSHOTS, f"trimmer-controls-{width}x{height}.png"))
        assert console_errors(driver) == []
    finally:
        viewport(driver, 1280, 720)


def test_a_cut_result_comes_into_view(driver, fourteen):
    """At 1280×720 with ranges listed below the controls, a cut's box (its plan, progress and result) shows where
    the user is looking instead of below the fold."""
    console_errors(driver)
    open_fourteen(driver, fourteen)
    for start, end in ((1, 2), (3, 4), (5, 6), (7, 8), (9, 10)):
        type_range(driver, start, end, end_first=True)
        add(driver)
    type_range(driver, 11, 12, end_first=True)
    js(driver, "document.getElementById('view-trim').scrollTop = 0")
    button = driver.find_element(By.ID, "cut-button")
    assert js(driver, "const r = arguments[0].getBoundingClientRect(); return r.bottom <= window.innerHeight", button)
    button.click()
    box = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, "#cuts > .cut:first-child[data-status='done']"), timeout=60, message="the cut")
    in_view = js(driver, """const r = arguments[0].getBoundingClientRect(), bar = document.getElementById('bar').getBoundingClientRect();
        return [r.top, r.bottom, bar.bottom, window.innerHeight]""", box)
    assert in_view[0] >= in_view[2] - 0.5 and in_view[1] <= in_view[3] + 0.5, in_view
    job = js(driver, "return fetch('/api/cuts/' + arguments[0]).then(r => r.json())", box.get_attribute("data-cut"))
    assert abs(job["actual"]["start"] - 11) < 1 and abs(job["actual"]["end"] - 12) < 1, job["actual"]
    driver.save_screenshot(os.path.join(SCREENSHOTS, "trimmer-cut-in-view.png"))
    assert console_errors(driver) == []
    if os.path.exists(job["output"]):
        os.unlink(job["output"])


def test_the_page_asks_for_nothing_that_is_not_there(driver, fourteen):
    """A fresh load of the library and the trimmer: no console errors, no failed request, and the page's icon is
    there (a favicon that answers 404 is a console error in a browser with tabs)."""
    driver.get("about:blank")
    console_errors(driver)
    open_fourteen(driver, fourteen)
    # Every request the load made has ended (the icon's among them where the browser asks for one).
    wait_for(lambda: js(driver, "return document.readyState === 'complete' && performance.getEntriesByType('resource')"
                                ".every(e => e.responseEnd > 0)"), message="the load's requests")
    assert console_errors(driver) == []
    failed = js(driver, "return performance.getEntriesByType('resource').filter(e => e.responseStatus >= 400).map(e => e.name)")
    assert failed == [], failed
    # Headless Chromium asks for no icon; a browser with tabs asks for the one the page names, else /favicon.ico.
    icon = js(driver, "const l = document.querySelector('link[rel~=icon]'); return l ? l.href : location.origin + '/favicon.ico'")
    answer = js(driver, "return fetch(arguments[0]).then(r => [r.status, r.headers.get('content-type')])", icon)
    assert answer[0] == 200 and answer[1].startswith("image/"), (icon, answer)
    assert console_errors(driver) == []
