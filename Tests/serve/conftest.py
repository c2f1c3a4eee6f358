"""Shared fixtures for the `vtrim serve` tests: the built binary, a folder of clips, a running server,
a headless Chromium. The server is the real one (the binary the README's commands build), the browser
Debian's chromium driven through chromedriver."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "fixtures")
VTRIM = os.environ.get("VTRIM_BIN") or os.path.join(ROOT, ".build", "release", "vtrim")
SCREENSHOTS = os.environ.get("VTRIM_SCREENSHOTS") or os.path.join(ROOT, ".build", "serve-screenshots")


def _has_worker_switches(path):
    try:
        with open(path, "rb") as handle:
            return b"VTRIM_TEST_WORKER" in handle.read()
    except OSError:
        return False


def pytest_configure(config):
    config.addinivalue_line("markers", "worker_switches: needs a debug build's VTRIM_TEST_WORKER_* switches "
                                       "(a worker told to crash, hang or wait); scripts/thread-sanitizer runs them")


def pytest_collection_modifyitems(config, items):
    # A release build has no test switches (scripts/install-test checks it): tests that need one are skipped, said
    # so, and run against the ThreadSanitizer debug build (scripts/thread-sanitizer), which has them.
    if _has_worker_switches(VTRIM):
        return
    if os.environ.get("VTRIM_REQUIRE_WORKER_SWITCHES"):
        # scripts/thread-sanitizer is where these tests run: skipping them there would leave them run nowhere.
        raise pytest.UsageError(f"{VTRIM} has no VTRIM_TEST_WORKER_* switches, and this run must run the tests that need them")
    skip = pytest.mark.skip(reason=f"{VTRIM} is a release build without the VTRIM_TEST_WORKER_* switches "
                                   "(scripts/thread-sanitizer runs this test against its debug build)")
    for item in items:
        if "worker_switches" in item.keywords:
            item.add_marker(skip)


def vtrim(*arguments, check=True):
    result = subprocess.run([VTRIM, *arguments], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"vtrim {' '.join(arguments)} exited {result.returncode}: {result.stderr}")
    return result


def ffprobe(path, *entries):
    result = subprocess.run(["ffprobe", "-v", "error", *entries, "-of", "json", path], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


class Server:
    """`vtrim serve` on a folder, started with --json so the first stdout line gives url, port and token."""

    def __init__(self, folder, *extra, env=None, prefix=()):
        self.folder = folder
        # stderr to a file: a pipe nobody reads would fill up (crashing workers print backtraces) and stall it.
        self.log = tempfile.NamedTemporaryFile(prefix="vtrim-serve-", suffix=".log", delete=False)
        env = dict(env or {})
        if "XDG_STATE_HOME" not in env:
            # The library's state beside the test's cache (a restart given the same cache finds it), else a folder of
            # its own: never the home of the user running the tests.
            env["XDG_STATE_HOME"] = (env["XDG_CACHE_HOME"] + "-state" if "XDG_CACHE_HOME" in env
                                     else tempfile.mkdtemp(prefix="vtrim-state-"))
        self.process = subprocess.Popen([*prefix, VTRIM, "serve", folder, "--json", *extra], stdout=subprocess.PIPE,
                                        stderr=self.log, text=True, env=dict(os.environ, **env))
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError("vtrim serve printed nothing: " + self.stderr())
        info = json.loads(line)
        self.url, self.port, self.token = info["url"], info["port"], info["token"]
        self.base = f"http://127.0.0.1:{self.port}"

    def alive(self):
        return self.process.poll() is None

    def stderr(self):
        with open(self.log.name, errors="replace") as handle:
            return handle.read()

    def children(self):
        """(pid, state, command line) of this server's child processes."""
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    command = handle.read().split(b"\0")
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:
                found.append((int(name), fields[0], command))
        return found

    def workers(self):
        """Pids of this server's worker processes (children running `vtrim _worker`)."""
        return [pid for pid, _, command in self.children() if b"_worker" in command]

    def zombies(self):
        """Pids of this server's children that have ended and not been reaped."""
        return [pid for pid, state, _ in self.children() if state == "Z"]

    def stop(self, sig=signal.SIGINT, timeout=15):
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # Under ThreadSanitizer (scripts/thread-sanitizer) a race in the server or its workers fails the test.
        assert "WARNING: ThreadSanitizer" not in self.stderr(), self.stderr()[-4000:]
        return self.process.returncode


def make_clips(folder):
    """The fixtures the page is tested on: H.264 with audio, a clip stored rotated, HEVC (the preview path),
    in two subfolders; plus a symlink that leads out of the folder, which must never be served."""
    os.makedirs(os.path.join(folder, "phone"), exist_ok=True)
    os.makedirs(os.path.join(folder, "camera"), exist_ok=True)
    shutil.copy(os.path.join(FIXTURES, "h264-aac.mp4"), os.path.join(folder, "camera", "h264-aac.mp4"))
    shutil.copy(os.path.join(FIXTURES, "rot90.mp4"), os.path.join(folder, "phone", "rot90.mp4"))
    shutil.copy(os.path.join(FIXTURES, "hevc.mp4"), os.path.join(folder, "phone", "hevc.mp4"))
    outside = tempfile.mkdtemp(prefix="vtrim-outside-")
    shutil.copy(os.path.join(FIXTURES, "vfr.mp4"), os.path.join(outside, "secret.mp4"))
    os.symlink(os.path.join(outside, "secret.mp4"), os.path.join(folder, "escape.mp4"))
    os.symlink(outside, os.path.join(folder, "elsewhere"))
    return outside


@pytest.fixture(scope="session")
def clips_folder():
    folder = tempfile.mkdtemp(prefix="vtrim-serve-")
    outside = make_clips(folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(outside, ignore_errors=True)


@pytest.fixture(scope="session")
def server(clips_folder):
    running = Server(clips_folder)
    yield running
    running.stop()


def chromium(console_log=False):
    """Debian's headless Chromium through chromedriver; `console_log` keeps the page's console (goog:loggingPrefs)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/lib/chromium/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--mute-audio"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"download.default_directory": tempfile.mkdtemp(prefix="vtrim-downloads-"),
                                              "download.prompt_for_download": False})
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


@pytest.fixture(scope="session")
def browser():
    driver = chromium()
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    os.makedirs(SCREENSHOTS, exist_ok=True)
    yield driver
    driver.quit()


def wait_for(predicate, timeout=20.0, interval=0.1, message="condition"):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except Exception as error:  # noqa: BLE001 - the page may not be ready yet
            last = error
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {message} (last: {last!r})")
