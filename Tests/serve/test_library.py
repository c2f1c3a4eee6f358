"""`vtrim serve` over a library of 10,000 clips (hard links in nested folders, scripts/make-test-library.py): the
paged list (`{items, total, next}`), its orders, search and filters, what it refuses, files that appear and vanish
(inotify, no full rescan), the on-disk index across restarts, the background probes, and a folder that becomes
unreadable."""
import json
import os
import shutil
import sqlite3
import subprocess
import time

import pytest

from conftest import FIXTURES, ROOT, Server, wait_for
from test_http import api, request

# 10,000 in the test run; VTRIM_LIBRARY_CLIPS=100000 runs the same checks at 100,000 by hand.
COUNT = int(os.environ.get("VTRIM_LIBRARY_CLIPS", "10000"))


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    folder = tmp_path_factory.mktemp("library") / "clips"
    subprocess.run([os.path.join(ROOT, "scripts", "make-test-library.py"), str(COUNT), str(folder)], check=True, capture_output=True)
    return str(folder)


@pytest.fixture(scope="module")
def big(library, tmp_path_factory):
    server = Server(library, env={"XDG_CACHE_HOME": str(tmp_path_factory.mktemp("cache"))})
    wait_for(lambda: api(server, "/api/clips?limit=1")["walked"], message="the first walk")
    yield server
    server.stop()


def every_page(server, query=""):
    items, after, pages = [], None, 0
    while True:
        page = api(server, "/api/clips?limit=500" + (f"&after={after}" if after else "") + query)
        items += page["items"]
        pages += 1
        after = page["next"]
        if not after:
            return items, page["total"], pages


def test_pages_cover_the_library_once_in_a_stable_order(big):
    items, total, pages = every_page(big)
    assert total == COUNT and len(items) == COUNT and pages == COUNT // 500
    paths = [i["path"] for i in items]
    assert paths == sorted(paths) and len(set(i["id"] for i in items)) == COUNT
    # Name order, descending: the same clips, each once, by name.
    by_name, _, _ = every_page(big, "&sort=name&order=desc")
    assert [i["name"] for i in by_name] == sorted((i["name"] for i in items), reverse=True)
    # Size, then id: ties (hard links share a size) keep one order from page to page.
    by_size, _, _ = every_page(big, "&sort=size")
    assert len(set(i["id"] for i in by_size)) == COUNT
    assert [i["size"] for i in by_size] == sorted(i["size"] for i in by_size)
    # offset jumps straight to a place (the page's scroll bar), and agrees with the cursor's order.
    last = api(big, f"/api/clips?offset={COUNT - 2}&limit=5")
    assert [i["id"] for i in last["items"]] == [i["id"] for i in items[-2:]] and last["next"] is None


def test_search(big):
    found = api(big, "/api/clips?q=CLIP-0099&limit=500")
    assert found["total"] == 100 and all("clip-0099" in i["path"] for i in found["items"])
    assert api(big, "/api/clips?q=no-such-clip")["total"] == 0


def test_filters_and_the_duration_order_once_probed(tmp_path):
    """On 400 clips (probing 10,000 in a debug build would take the suite a minute): the background probes reach
    every clip; then the filters and the duration order hold."""
    count = 400
    folder = tmp_path / "small"
    subprocess.run([os.path.join(ROOT, "scripts", "make-test-library.py"), str(count), str(folder)], check=True, capture_output=True)
    small = Server(str(folder), env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    try:
        wait_for(lambda: api(small, "/api/clips?limit=1")["probed"] >= count, timeout=120, interval=0.5, message="every clip probed")
        hevc = api(small, "/api/clips?codec=hevc&limit=500")
        assert hevc["total"] == count // 4 and all(i["codec"] == "hevc" for i in hevc["items"])
        sound = api(small, "/api/clips?video=0&limit=3")
        assert sound["total"] == count // 4 and all(i["has_video"] is False and i["path"].endswith(".m4a") for i in sound["items"])
        longest = api(small, "/api/clips?sort=duration&order=desc&limit=2")["items"]
        shortest = api(small, "/api/clips?sort=duration&limit=2")["items"]
        assert longest[0]["duration"] > shortest[0]["duration"]
        between = api(small, f"/api/clips?min_duration={shortest[0]['duration']}&max_duration={shortest[0]['duration']}")
        assert between["total"] > 0 and all(i["duration"] == shortest[0]["duration"] for i in between["items"])
    finally:
        small.stop()


@pytest.mark.parametrize("query, reason", [
    ("limit=0", "limit"), ("limit=1000000000", "limit"), ("limit=ten", "limit"), ("sort=colour", "sort"),
    ("order=up", "order"), ("after=c1.bm90LW91cnM", "cursor"), ("after=x", "cursor"), ("after=c1.!!", "cursor"),
    ("offset=-1", "offset"), ("offset=3&after=c1.x", "not both"), ("codec=h%20264", "codec"), ("video=maybe", "video"),
    ("min_duration=nan", "min_duration"), ("min_duration=5&max_duration=1", "more than"), ("colour=red", "unknown parameter"),
    ("q=" + "x" * 201, "at most"),
])
def test_refuses_what_is_not_a_listing(big, query, reason):
    response, data = request(big, "GET", "/api/clips?" + query)
    assert response.status == 400, (query, data)
    assert reason in json.loads(data)["error"]["message"], (query, data)
    assert request(big, "GET", "/api/clips?limit=1")[0].status == 200


def test_a_cursor_belongs_to_its_order(big):
    page = api(big, "/api/clips?sort=name&limit=2")
    response, data = request(big, "GET", f"/api/clips?sort=size&limit=2&after={page['next']}")
    assert response.status == 400 and "listing by name asc" in json.loads(data)["error"]["message"]
    # A cursor survives its item going away: the next page starts after where it was.
    assert api(big, f"/api/clips?sort=name&limit=2&after={page['next']}")["items"][0]["id"] not in [i["id"] for i in page["items"]]


def test_files_that_appear_and_vanish_show_within_5_seconds(big, library):
    # The 5 s are the normal build's promise; scripts/thread-sanitizer runs this against a build 5–15 times slower
    # for its races, not its seconds.
    within = 30 if os.environ.get("VTRIM_SANITIZED") else 5
    assert api(big, "/api/clips?limit=1")["watching"] is True
    added = os.path.join(library, "a004", "b2", "zz-new.mp4")
    shutil.copy(os.path.join(FIXTURES, "h264-aac-nob.mp4"), added)
    started = time.time()
    try:
        wait_for(lambda: api(big, "/api/clips?q=zz-new")["total"] == 1, timeout=within, message="the new file listed")
        assert api(big, "/api/clips?limit=1")["total"] == COUNT + 1
        print(f"listed after {time.time() - started:.2f} s")
        folder = os.path.join(library, "new-folder", "deeper")
        os.makedirs(folder)
        shutil.copy(os.path.join(FIXTURES, "hevc.mp4"), os.path.join(folder, "fresh.mp4"))
        wait_for(lambda: api(big, "/api/clips?q=new-folder/deeper/fresh")["total"] == 1, timeout=within, message="a file in a new folder")
    finally:
        os.unlink(added)
        shutil.rmtree(os.path.join(library, "new-folder"), ignore_errors=True)
    wait_for(lambda: api(big, "/api/clips?limit=1")["total"] == COUNT, timeout=within, message="the files gone")


def state_rows(database, sql):
    """Rows of the server's state database (read as a second program would, beside a running server too)."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        return connection.execute(sql).fetchall()
    finally:
        connection.close()


def server_cpu_seconds(server):
    """The server process's own CPU time so far (its workers are other processes)."""
    with open(f"/proc/{server.process.pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_file_being_written_is_listed_once_it_settles(big, library):
    """A 200 MB file written into the served library over 20 s: not listed (so never probed) while it is written, no
    listing published for its writes, at most 10 % of a core more server CPU than without the writes; listed once nothing has written to it for --settle (3 s),
    still open; gone again when removed."""
    path = os.path.join(library, "a003", "b1", "zz-recording.mp4")
    with open(os.path.join(FIXTURES, "h264-aac.mp4"), "rb") as handle:
        head = handle.read()
    version = api(big, "/api/clips?limit=1")["version"]
    # What the server spends meanwhile anyway (the background prober's answers, at 10,000 clips still probing).
    cpu, quiet_from = server_cpu_seconds(big), time.monotonic()
    time.sleep(5)
    quiet_rate = (server_cpu_seconds(big) - cpu) / (time.monotonic() - quiet_from)
    cpu = server_cpu_seconds(big)
    started = time.monotonic()
    seen_while_writing = 0
    with open(path, "wb") as recording:
        recording.write(head)
        for step in range(80):
            recording.write(b"\0" * (2500 * 1024))
            recording.flush()
            if step % 8 == 0 and api(big, "/api/clips?q=zz-recording")["total"] != 0:
                seen_while_writing += 1
            time.sleep(max(0, started + (step + 1) * 0.25 - time.monotonic()))
        writing_cpu = server_cpu_seconds(big) - cpu
        written = time.monotonic()
        during = api(big, "/api/clips?limit=1")["version"] - version
        # Still open: listed when the writes have stopped for the settle time.
        wait_for(lambda: api(big, "/api/clips?q=zz-recording")["total"] == 1, timeout=30, message="the settled file listed")
        settled_after = time.monotonic() - written
    try:
        added = writing_cpu - quiet_rate * (written - started)
        print(f"200 MB over {written - started:.1f} s: server CPU {writing_cpu:.2f} s ({added:+.2f} s beside {quiet_rate:.2f} s/s without "
              f"writes), listing versions {during} while written, listed {settled_after:.1f} s after the last write")
        assert seen_while_writing == 0
        assert during == 0
        assert api(big, "/api/clips?limit=1")["version"] - version <= 2
        if not os.environ.get("VTRIM_SANITIZED"):
            assert added <= 0.1 * (written - started), added
            assert 2.5 <= settled_after <= 8, settled_after
    finally:
        os.unlink(path)
    wait_for(lambda: api(big, "/api/clips?q=zz-recording")["total"] == 0, timeout=10, message="the file gone")


@pytest.mark.worker_switches
def test_the_library_state_survives_a_restart(library, tmp_path):
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = Server(library, env=cache)
    try:
        wait_for(lambda: api(first, "/api/clips?limit=1")["probed"] >= 200, timeout=60, message="some probes")
    finally:
        first.stop()
    database = tmp_path / "cache-state" / "vtrim" / "vtrim.sqlite3"
    probed = state_rows(database, "SELECT count(*) FROM files WHERE probed = 1")[0][0]
    assert probed >= 200
    # Every probe of the second server hangs (a debug build's test switch): what it knows is the database's.
    second = Server(library, env=dict(cache, VTRIM_TEST_WORKER_HANG="probe:clips/"))
    try:
        page = wait_for(lambda: (lambda p: p if p["total"] == COUNT else None)(api(second, "/api/clips?limit=1")),
                        message="the listing from the database")
        assert page["probed"] >= 200
        # A probed clip opens from its kept probe: the engine, which would hang, is not asked.
        item = next(item for item in api(second, "/api/clips?limit=500&sort=duration")["items"] if item["duration"] is not None)
        started = time.monotonic()
        opened = api(second, f"/api/clips/{item['id']}")
        assert opened["id"] == item["id"] and opened["duration"] == pytest.approx(item["duration"])
        assert time.monotonic() - started < 5
    finally:
        second.stop()


def test_the_library_state_is_kept_outside_the_cache(tmp_path):
    """The index sat in the tile cache's folder and was evicted like a tile: with a small cache it was gone after four
    tiles, and the next start probed every clip again. It is a database in the state folder; the cache counts only its
    own; every probe is kept whole, so a clip opened after a restart asks the engine nothing."""
    folder = tmp_path / "clips"
    os.makedirs(folder)
    names = ["h264-aac.mp4", "hevc.mp4", "rot90.mp4"]
    for name in names:
        shutil.copy(os.path.join(FIXTURES, name), folder / name)
    cache, state = tmp_path / "cache", tmp_path / "state"
    env = {"XDG_CACHE_HOME": str(cache), "XDG_STATE_HOME": str(state)}
    # The tab-separated index of earlier versions, where they kept it: removed.
    os.makedirs(cache / "vtrim" / "serve")
    first = Server(str(folder), "--cache-size", "10K", env=env)
    try:
        items = wait_for(lambda: (lambda page: page["items"] if page["probed"] == 3 else None)(api(first, "/api/clips")),
                         timeout=60, message="every clip probed")
        for item in items:
            for count in (1, 2, 3, 4):
                response, data = request(first, "GET", f"/api/clips/{item['id']}/filmstrip.png?strip_width=600&thumb_width=40"
                                                       f"&thumb_height=50&max=2&first=0&count={count}")
                assert response.status == 200 and data[:4] == b"\x89PNG"
        probes = {item["id"]: api(first, f"/api/clips/{item['id']}") for item in items}
    finally:
        first.stop()
    database = state / "vtrim" / "vtrim.sqlite3"
    rows = state_rows(database, "SELECT display, probed, codec FROM files ORDER BY display")
    assert [(name, 1) for name in sorted(names)] == [row[:2] for row in rows], rows
    assert {row[2] for row in rows} == {"h264", "hevc"}
    assert state_rows(database, "SELECT count(*) FROM probes")[0][0] == 3
    assert set(os.listdir(cache / "vtrim" / "serve")) <= {"tiles", "previews"}
    second = Server(str(folder), env=env)
    try:
        assert api(second, "/api/clips?limit=1")["total"] == 3
        for clip_id, probe in probes.items():
            assert api(second, f"/api/clips/{clip_id}") == probe
    finally:
        second.stop()


def test_a_damaged_state_database_is_moved_aside_and_the_library_served(tmp_path):
    folder = tmp_path / "clips"
    os.makedirs(folder)
    shutil.copy(os.path.join(FIXTURES, "h264-aac.mp4"), folder / "a.mp4")
    state = tmp_path / "state"
    os.makedirs(state / "vtrim")
    damaged = b"SQLite format 3\x00" + b"\x07" * 4096
    (state / "vtrim" / "vtrim.sqlite3").write_bytes(damaged)
    server = Server(str(folder), env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(state)})
    try:
        wait_for(lambda: api(server, "/api/clips")["probed"] == 1, timeout=30, message="the clip probed")
        lines = [line for line in server.stderr().splitlines() if "moved aside" in line]
        assert len(lines) == 1 and "vtrim.sqlite3" in lines[0], server.stderr()
    finally:
        server.stop()
    aside = [name for name in os.listdir(state / "vtrim") if name.startswith("vtrim.sqlite3.damaged-")]
    assert len(aside) == 1 and (state / "vtrim" / aside[0]).read_bytes() == damaged
    assert state_rows(state / "vtrim" / "vtrim.sqlite3", "SELECT display, probed FROM files") == [("a.mp4", 1)]


def test_a_state_folder_that_cannot_be_written_is_said_and_the_library_served(tmp_path):
    folder = tmp_path / "clips"
    os.makedirs(folder)
    shutil.copy(os.path.join(FIXTURES, "h264-aac.mp4"), folder / "a.mp4")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the state folder would go")
    server = Server(str(folder), "--state-dir", str(blocker / "vtrim"), env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    try:
        assert api(server, "/api/clips")["total"] == 1
        lines = [line for line in server.stderr().splitlines() if "library's state" in line]
        assert len(lines) == 1 and str(blocker / "vtrim") in lines[0] and "this run only" in lines[0], server.stderr()
        assert "Not a directory" in lines[0], lines[0]
    finally:
        server.stop()


def test_a_folder_that_becomes_unreadable_is_marked_and_the_rest_served():
    """Run as `nobody` (root reads any folder): the folder's clips stay listed, marked, and the rest is served."""
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        pytest.skip("needs root and setpriv to run the server as nobody")
    import pathlib
    import tempfile
    # Not pytest's tmp_path: its parents are closed to other users.
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="vtrim-unreadable-"))
    folder = tmp_path / "clips"
    for sub in ("open", "closed"):
        os.makedirs(folder / sub)
        shutil.copy(os.path.join(FIXTURES, "h264-aac-nob.mp4"), folder / sub / "clip.mp4")
    os.makedirs(tmp_path / "cache")
    for path in (tmp_path, folder, folder / "open", folder / "closed", tmp_path / "cache"):
        os.chmod(path, 0o777)
    server = Server(str(folder), env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
                    prefix=("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"))
    try:
        assert api(server, "/api/clips")["total"] == 2
        os.chmod(folder / "closed", 0o000)
        listing = wait_for(lambda: (lambda page: page if page["problems"] else None)(api(server, "/api/clips")),
                           timeout=5, message="the folder marked")
        assert listing["problems"][0]["folder"] == "closed" and "ermission" in listing["problems"][0]["reason"]
        closed = next(i for i in listing["items"] if i["path"] == "closed/clip.mp4")
        assert closed["folder_problem"]
        opened = next(i for i in listing["items"] if i["path"] == "open/clip.mp4")
        assert opened["folder_problem"] is None
        assert api(server, f"/api/clips/{opened['id']}")["duration"] > 0
        # Readable again: listed again, unmarked.
        os.chmod(folder / "closed", 0o777)
        wait_for(lambda: not api(server, "/api/clips")["problems"], timeout=5, message="the folder readable again")
        assert all(i["folder_problem"] is None for i in api(server, "/api/clips")["items"])
    finally:
        os.chmod(folder / "closed", 0o755)
        server.stop()
        shutil.rmtree(tmp_path, ignore_errors=True)


# The page over the same 10,000 clips, in headless Chromium.

FIRST_CARD_AND_LONG_TASKS = """
window.__vtrimFirstCard = null;
window.__vtrimLongTasks = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__vtrimLongTasks.push(e.duration); })
  .observe({type: 'longtask', buffered: true});
new MutationObserver((records, observer) => {
  if (document.querySelector('#feed .card .name')) { window.__vtrimFirstCard = performance.now(); observer.disconnect(); }
}).observe(document, {childList: true, subtree: true});
"""


@pytest.fixture()
def page(browser, big):
    from test_browser import js
    script = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FIRST_CARD_AND_LONG_TASKS})
    browser.get(big.url)
    browser.get(big.base + "/#/library")
    wait_for(lambda: js(browser, "return window.__vtrimFirstCard"), timeout=20, message="the first card")
    yield browser
    browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})


def last_index_shown(driver):
    from test_browser import js
    return js(driver, "return Math.max(-1, ...[...document.querySelectorAll('#feed .card')].map(c => +c.dataset.index))")


def scroll_to_end_and_find(driver, server, message):
    from test_browser import js
    last = api(server, f"/api/clips?offset={COUNT - 1}&limit=1")["items"][0]
    js(driver, "const f = document.getElementById('feed'); f.scrollTop = f.scrollHeight")
    card = wait_for(lambda: js(driver, "return document.querySelector(`#feed .card[data-index='${arguments[0]}']`)", COUNT - 1),
                    timeout=10, message=message)
    assert card.get_attribute("data-clip") == last["id"]
    # The last card is on screen, not only in the DOM.
    assert js(driver, """const r = arguments[0].getBoundingClientRect(), f = document.getElementById('feed').getBoundingClientRect();
                         return r.bottom > f.top && r.top < f.bottom""", card)


def test_the_first_cards_show_within_a_second_and_the_dom_stays_small(page, big):
    from test_browser import js
    first = js(page, "return window.__vtrimFirstCard")
    navigation = js(page, "return performance.getEntriesByType('navigation')[0].startTime")
    print(f"first card {first - navigation:.0f} ms after navigation")
    assert first - navigation <= 1000
    assert js(page, "return document.querySelectorAll('#feed .card').length") <= 10
    assert js(page, "return document.querySelectorAll('video').length") <= 12
    assert f"{COUNT:,}" in js(page, "return document.getElementById('library-count').textContent")


def scroll_and_search(page, big):
    """Scrolls the feed and the grid to their ends and searches; returns the long tasks seen meanwhile (ms) and puts
    the page back as it was (feed view, no search, the usual cap, at the top)."""
    from selenium.webdriver.common.by import By
    from test_browser import js, shot
    js(page, "window.__vtrimLongTasks = []")
    # Steps down the feed, a frame apart, as a wheel would.
    for step in range(40):
        js(page, "const f = document.getElementById('feed'); f.scrollTop += f.clientHeight * 7.3")
        js(page, "return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    scroll_to_end_and_find(page, big, "the last clip's card in the feed")
    # The grid, with the scroll height capped so low that positions map onto rows.
    Select = __import__("selenium.webdriver.support.select", fromlist=["Select"]).Select
    Select(page.find_element(By.ID, "library-view")).select_by_value("grid")
    js(page, "window.vtrim.library.maxScrollPixels = 100000")
    wait_for(lambda: js(page, "return document.querySelector('#feed .card .poster') !== null"), message="grid cards")
    wait_for(lambda: js(page, "return [...document.querySelectorAll('#feed .card .poster')].filter(p => p.complete && p.naturalWidth > 0).length") >= 10,
             timeout=60, message="the posters in view drawn")
    shot(page, "library-grid")
    js(page, "document.getElementById('feed').dispatchEvent(new Event('scroll'))")
    wait_for(lambda: js(page, "return document.getElementById('feed').scrollHeight") <= 100000, message="the capped height")
    scroll_to_end_and_find(page, big, "the last clip's card in the capped grid")
    # Search, typed.
    search = page.find_element(By.ID, "library-search")
    search.send_keys("clip-000777")
    wait_for(lambda: "1 clip" in js(page, "return document.getElementById('library-count').textContent"), message="the search's count")
    names = lambda: js(page, "return [...document.querySelectorAll('#feed .card .name')].map(n => n.title)")
    try:
        wait_for(lambda: names() == ["a000/b7/clip-000777.mp4"], message="the one clip found")
    except AssertionError:
        raise AssertionError((names(), js(page, "return [document.getElementById('feed').scrollTop, document.getElementById('feed').scrollHeight, document.getElementById('library-count').textContent]")))
    long_tasks = js(page, "return window.__vtrimLongTasks")
    # Emptied as typing would (clear() sends no input event).
    js(page, "const s = document.getElementById('library-search'); s.value = ''; s.dispatchEvent(new Event('input'))")
    js(page, "window.vtrim.library.maxScrollPixels = 8000000")
    Select(page.find_element(By.ID, "library-view")).select_by_value("feed")
    wait_for(lambda: f"{COUNT:,} clips" in js(page, "return document.getElementById('library-count').textContent"),
             message="the whole library listed again")
    wait_for(lambda: js(page, "return document.querySelector('#feed .card .name') !== null"), message="feed cards")
    return long_tasks


def test_scrolling_and_searching_reach_every_clip_without_long_tasks(page, big):
    # A first pass can see one or two tasks just over 50 ms on a loaded 2-core machine (seen at the search's reset
    # and the first switch to the grid: first-time work and collection); work the page repeats — a render that
    # makes every card of a long jump in one frame — passes 50 ms on every pass (checked: without the six-cards-a-frame
    # bound every pass fails). So a pass with a long task is run again, up to three passes, and one must have none (a
    # fresh-clone CI run saw a single 55 ms task on a second pass, with the sanitizer builds beside it).
    passes = [scroll_and_search(page, big)]
    print(f"long tasks while scrolling and searching: {passes[0]} ms")
    while max(passes[-1], default=0) > 50 and len(passes) < 3:
        passes.append(scroll_and_search(page, big))
        print(f"long tasks on pass {len(passes)}: {passes[-1]} ms")
    assert max(passes[-1], default=0) <= 50, passes
