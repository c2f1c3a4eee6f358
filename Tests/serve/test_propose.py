"""The page's Propose menu: `vtrim propose` in a worker puts the ranges it finds on the strip as ordinary ranges,
and Join cuts them as `vtrim cut --propose … --join` does; the route refuses what it cannot take."""
import json
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import Server, vtrim, wait_for
from test_browser import clip_of, js, open_page, play_to_end, shot


def make_talk(path):
    """Two sentences of espeak-ng speech around a 1.5 s digital pause, over a moving picture; a keyframe every 0.5 s."""
    folder = tempfile.mkdtemp(prefix="vtrim-talk-")
    try:
        parts = []
        for index, text in enumerate(["The first part of this talk is about trimming.", "And after a pause, the second part."]):
            raw, trimmed = os.path.join(folder, f"raw{index}.wav"), os.path.join(folder, f"s{index}.wav")
            subprocess.run(["espeak-ng", "-w", raw, "-s", "165", text], check=True, capture_output=True)
            subprocess.run(["sox", raw, "-r", "48000", trimmed, "silence", "1", "0.02", "1%", "reverse", "silence", "1", "0.02", "1%",
                            "reverse"], check=True, capture_output=True)
            parts.append(trimmed)
        pause = os.path.join(folder, "pause.wav")
        subprocess.run(["sox", "-n", "-r", "48000", "-c", "1", pause, "trim", "0", "1.5"], check=True, capture_output=True)
        speech = os.path.join(folder, "speech.wav")
        subprocess.run(["sox", parts[0], pause, parts[1], speech], check=True, capture_output=True)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30", "-i", speech, "-shortest",
                        "-c:v", "libx264", "-g", "15", "-pix_fmt", "yuv420p", "-c:a", "aac", path], check=True, capture_output=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def talk_server():
    folder = tempfile.mkdtemp(prefix="vtrim-serve-talk-")
    make_talk(os.path.join(folder, "talk.mp4"))
    running = Server(folder)
    yield running
    running.stop()
    shutil.rmtree(folder, ignore_errors=True)


def get(server, path):
    request = urllib.request.Request(server.base + path, headers={"Authorization": "Bearer " + server.token})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_propose_puts_ranges_on_the_strip_and_join_cuts_them(browser, talk_server):
    source = os.path.join(talk_server.folder, "talk.mp4")
    # Removing silence takes the pause down to its pads by default (issue 49): the seam is not on a keyframe and needs
    # edges; snapped onto keyframes (on request) it is copied.
    cli = json.loads(vtrim("propose", source, "--silence", "--json").stdout)
    assert len(cli["ranges"]) == 2 and cli["seams"]["copy_only"] == 0 and cli["seams"]["need_edges"] == 1, cli
    snapped = json.loads(vtrim("propose", source, "--silence", "--snap", "keyframes", "--json").stdout)
    assert len(snapped["ranges"]) == 2 and snapped["seams"]["copy_only"] == 1, snapped
    open_page(browser, talk_server)
    clip = clip_of(browser, "talk.mp4")
    js(browser, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(browser, "return !!window.vtrim.timeline"), message="the timeline")
    js(browser, "window.vtrim.ranges = []; document.getElementById('propose-kinds').value = 'silence'")
    # A selection the user shaped (a typed start) and did not add: the proposal replaces the ranges, and nothing is said
    # about that selection overlapping them (it is no candidate range any more).
    field = browser.find_element(By.ID, "start-time")
    field.clear()
    field.send_keys("1", Keys.ENTER)
    wait_for(lambda: abs(js(browser, "return window.vtrim.timeline.selection.start") - 1) < 1e-6, message="the typed start")
    browser.find_element(By.ID, "propose-button").click()
    wait_for(lambda: len(js(browser, "return window.vtrim.ranges")) == 2, timeout=60, message="the proposed ranges")
    wait_for(lambda: not js(browser, "return window.vtrim.inFlight || window.vtrim.pending"), message="the strip")
    assert not browser.find_element(By.ID, "range-problem").is_displayed(), browser.find_element(By.ID, "range-problem").text
    shown = js(browser, "return window.vtrim.ranges.map(r => [r.start, r.end])")
    assert all(abs(a - b) <= 1e-6 for got, want in zip(shown, cli["ranges"]) for a, b in zip(got, [want["start"], want["end"]])), (shown, cli)
    assert "0 of 1 seams copy-only, 1 need an edge encode" in browser.find_element(By.ID, "status").text
    # Ordinary ranges: their bands are on the strip and Join cuts them as the command line's one-step cut does.
    assert len(browser.find_elements(By.CSS_SELECTOR, "#range-bands .band")) == 2
    shot(browser, "trimmer-proposed")
    browser.find_element(By.ID, "join-button").click()
    box = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#cuts > .cut.join:first-child[data-status='done']"), timeout=90, message="the join")
    job = js(browser, "return fetch('/api/cuts/' + arguments[0]).then(r => r.json())", box.get_attribute("data-cut"))
    planned = json.loads(vtrim("cut", source, "--propose", "silence", "--join", "-o", "/tmp/unused-proposed.mp4", "--dry-run", "--json").stdout)
    assert [s["requested"] for s in job["segments"]] == [s["requested"] for s in planned["segments"]]
    # The seam sits where the pads put it: its edges are encoded again.
    assert job["mode"] == "smart" and (job["segments"][1]["smart"]["head"] is not None or job["segments"][0]["smart"]["tail"] is not None), job["segments"]
    # The join plays to its end in Chromium.
    played = play_to_end(browser, job["url"])
    assert played[0] != "error", played
    assert abs(played[0] - job["actual"]["duration"]) <= 0.05, (played, job["actual"])
    os.unlink(job["output"])


def test_the_proposal_route_refuses_what_it_cannot_take(talk_server):
    status, body = get(talk_server, "/api/clips")
    clip = body[0]["id"] if isinstance(body, list) else body["items"][0]["id"]
    assert get(talk_server, f"/api/clips/{clip}/proposal")[0] == 400
    assert get(talk_server, f"/api/clips/{clip}/proposal?kinds=silence&pad=nan")[0] == 400
    assert get(talk_server, f"/api/clips/{clip}/proposal?kinds=silence&snap=maybe")[0] == 400
    status, body = get(talk_server, f"/api/clips/{clip}/proposal?kinds=applause")
    assert status == 422 and "unknown kind" in body["error"]["message"], body
    status, body = get(talk_server, f"/api/clips/{clip}/proposal?kinds=silence=-35,scenes&snap=none")
    assert status == 200 and body["path"] == "talk.mp4" and [d["kind"] for d in body["detections"]].count("silence") == 1, body
