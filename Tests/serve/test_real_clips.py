"""Real phone, camera and browser files from ../shared/media in the trimmer of a headless Chromium: each plays to its
end — the source where Chromium plays it, else the preview the server makes (HEVC in MPEG-TS, MPEG-4 Part 2 and
Motion JPEG in AVI, AVCHD with AC-3) — an unreadable file says so, and the page's console has no error. Skipped where
../shared/media is absent."""
import os
import shutil
import tempfile

import pytest
from selenium.webdriver.common.by import By

from conftest import FIXTURES, ROOT, Server, chromium, wait_for
from test_browser import clip_of, js, open_page
from test_http import api

SHARED_MEDIA = os.environ.get("VTRIM_SHARED_MEDIA") or os.path.join(ROOT, "..", "shared", "media")
# One of each kind the page must handle: HEVC in MPEG-TS (two), MPEG-4 Part 2 and Motion JPEG in AVI, a camera's
# AVCHD .mts, H.264 in Matroska, AAC alone in MP4.
REAL = ["androidx-media/ts_sample_h265.ts", "mediabunny/entry24-segment3.ts", "debian-opencv-doc/Megamind_bugy.avi",
        "metadata-extractor-images/MVI_4823.AVI", "metadata-extractor-images/Sony_ILCE-7M3_A7M3.mts",
        "androidx-media/mkv_sample.mkv", "mp4parse-rust/afconvert-aac-0.5s.mp4"]


@pytest.fixture(scope="module")
def real_library():
    present = [path for path in REAL if os.path.exists(os.path.join(SHARED_MEDIA, path))]
    if not present:
        pytest.skip(f"{SHARED_MEDIA} is absent")
    folder = tempfile.mkdtemp(prefix="vtrim-real-")
    for path in present:
        shutil.copy(os.path.join(SHARED_MEDIA, path), os.path.join(folder, os.path.basename(path)))
    shutil.copy(os.path.join(FIXTURES, "not-video.mp4"), os.path.join(folder, "unreadable.mp4"))
    driver = chromium(console_log=True)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    server = Server(folder)
    yield server, driver, [os.path.basename(path) for path in present]
    server.stop()
    driver.quit()
    shutil.rmtree(folder, ignore_errors=True)


def console_errors(driver):
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def test_every_real_clip_plays_to_its_end_in_the_trimmer(real_library):
    server, driver, names = real_library
    # Opened once the background probes are done, as a returning user's library is: what the listing knows (an
    # unreadable file) the page never asks for again. (A clip opened before its background probe gets the probe's
    # 422 answer, which Chromium logs.)
    wait_for(lambda: (lambda page: page["probed"] == page["total"] == len(names) + 1)(api(server, "/api/clips?limit=1")),
             timeout=60, message="the background probes")
    open_page(driver, server)
    # A click first, as a user's would be: Chromium lets sound play only in a page the user has interacted with.
    driver.find_element(By.ID, "library-count").click()
    played = {}
    for name in names:
        clip = clip_of(driver, name)
        js(driver, "location.hash = '#/trim/' + arguments[0]", clip)
        # The source, or the preview once its file exists; then from a second before the end, muted, to the end.
        wait_for(lambda: js(driver, "const v = document.querySelector('#player-slot video, #player-slot audio'); return window.vtrim.current && "
                                    "window.vtrim.current.id === arguments[0] && !!window.vtrim.timeline && !!v && v.readyState >= 1 && "
                                    "Number.isFinite(v.duration)", clip), timeout=90, message=f"{name} loaded")
        driver.set_script_timeout(90)
        # The trimmer loops inside the selection (the whole clip): played to the end is reaching the selection's end,
        # then the loop back (or `ended`), watched each animation frame.
        outcome = driver.execute_async_script("""
            const done = arguments[arguments.length - 1], video = document.querySelector('#player-slot video, #player-slot audio');
            const end = window.vtrim.timeline.selection.end;
            let furthest = 0, finished = false;
            const finish = (how) => { if (!finished) { finished = true; done([how, furthest, end, video.dataset.source || 'source']); } };
            video.muted = true;
            video.addEventListener('ended', () => finish('ended'), {once: true});
            video.addEventListener('error', () => { finished = true; done(['error', video.error && video.error.code, video.error && video.error.message]); }, {once: true});
            const watch = () => {
              if (finished) return;
              const now = video.currentTime;
              if (now > furthest) furthest = now;
              else if (furthest > end - 1.2 && now < furthest - 0.2) { finish('looped'); return; }
              requestAnimationFrame(watch);
            };
            video.currentTime = Math.max(0, end - 1);
            video.play().then(() => requestAnimationFrame(watch)).catch((error) => done(['error', 'play', String(error)]));""")
        assert outcome[0] in ("ended", "looped"), (name, outcome)
        assert outcome[1] >= outcome[2] - 0.1, (name, outcome)
        played[name] = outcome[3]
        assert not js(driver, "return !document.getElementById('trim-error').hidden"), name
    # Chromium on Linux cannot play HEVC, MPEG-4 Part 2, Motion JPEG AVI or AC-3: those played their previews.
    for name in names:
        if name.endswith((".ts", ".avi", ".AVI", ".mts")):
            assert played[name] == "preview", (name, played)
    # Back in the library, whose card says the file is unreadable once the background probe has been there, and
    # opened from it: the trimmer says so without asking for a probe that can only fail (a 422 in the console).
    js(driver, "location.hash = '#/library'")
    clip = clip_of(driver, "unreadable.mp4")
    wait_for(lambda: js(driver, "return !!(window.vtrim.clipById.get(arguments[0]) || {}).unreadable", clip), timeout=30,
             message="the listing to know the unreadable clip")
    js(driver, "location.hash = '#/trim/' + arguments[0]", clip)
    wait_for(lambda: js(driver, "return !document.getElementById('trim-error').hidden"), message="the unreadable clip's error")
    assert "cannot be read" in js(driver, "return document.getElementById('trim-error').textContent")
    errors = console_errors(driver)
    assert not errors, errors
