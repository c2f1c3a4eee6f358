"""Fixtures for the stream-input tests (#51): the cached stream media, a loopback origin serving it (plain and TLS),
and runners for vtrim and ffprobe that never reach past 127.0.0.1.

The folder is a package (see __init__.py): test files import with relative names (`from .origin import Origin`,
`from .conftest import run_vtrim`), never `from conftest import …`, which names Tests/serve's conftest."""
import atexit
import functools
import json
import os
import shutil
import subprocess
import tempfile

import pytest

from . import streammedia
from .origin import Origin

ROOT = streammedia.ROOT
VTRIM = os.environ.get("VTRIM_BIN") or os.path.join(ROOT, ".build", "release", "vtrim")
TIMEOUT = 60  # seconds: a hung fetch must fail the test, not the run


def _environment(extra=None):
    # Loopback only, even on a machine with a proxy configured (curl and ffmpeg honour both spellings).
    env = dict(os.environ, no_proxy="127.0.0.1,localhost", NO_PROXY="127.0.0.1,localhost")
    env.update(extra or {})
    return env


@functools.cache
def _home():
    """One scratch folder per test process for vtrim's XDG cache and state: never the home of the user running the
    tests (as Tests/serve), and gone at exit."""
    folder = tempfile.mkdtemp(prefix="vtrim-streams-")
    atexit.register(shutil.rmtree, folder, True)
    return folder


def run_vtrim(*arguments, check=True, env=None, timeout=TIMEOUT):
    """`vtrim arguments…` → CompletedProcess (text). check=True fails the test on a non-zero exit, with stderr."""
    if not os.access(VTRIM, os.X_OK):
        raise AssertionError(f"no vtrim binary at {VTRIM}: build it (swift build -c release) or set VTRIM_BIN")
    extra = dict(env or {})
    extra.setdefault("XDG_CACHE_HOME", os.path.join(_home(), "cache"))
    extra.setdefault("XDG_STATE_HOME", os.path.join(_home(), "state"))
    try:
        result = subprocess.run([VTRIM, *map(str, arguments)], capture_output=True, text=True, timeout=timeout,
                                env=_environment(extra), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"vtrim {' '.join(map(str, arguments))} ran over {timeout} s: {error.stderr}") from None
    if check and result.returncode != 0:
        raise AssertionError(f"vtrim {' '.join(map(str, arguments))} exited {result.returncode}: {result.stderr}")
    return result


def ffprobe_json(path_or_url, *entries, timeout=TIMEOUT):
    """`ffprobe -v error entries… -of json path_or_url` as a dict, e.g. ffprobe_json(url, "-show_entries",
    "stream=codec_type,duration")."""
    result = subprocess.run(["ffprobe", "-v", "error", *entries, "-of", "json", str(path_or_url)], capture_output=True,
                            text=True, timeout=timeout, env=_environment(), stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise AssertionError(f"ffprobe {path_or_url} exited {result.returncode}: {result.stderr}")
    return json.loads(result.stdout)


@pytest.fixture(scope="session")
def media():
    """The stream media folder (made once, cached; see streammedia.py). Tests read it and never change it."""
    return streammedia.media()


@pytest.fixture(scope="session")
def media_facts(media):
    """media.json: segments, durations, sizes, first PTS, as measured when the media was made."""
    return streammedia.manifest(media)


@pytest.fixture
def origin(media):
    """A fresh origin over the media folder, for one test: empty log, no faults, stopped after."""
    with Origin(media) as server:
        server.clear()
        yield server


@pytest.fixture
def https_origin(media):
    """The same over TLS with a self-signed certificate for 127.0.0.1 (https_origin.cafile trusts it)."""
    with Origin(media, tls=True) as server:
        server.clear()
        yield server


@pytest.fixture(name="vtrim")
def vtrim_fixture():
    """run_vtrim: vtrim("probe", url, "--json") → CompletedProcess."""
    return run_vtrim


@pytest.fixture(name="ffprobe_json")
def ffprobe_json_fixture():
    return ffprobe_json
