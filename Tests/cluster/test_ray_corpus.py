"""vtrim-ray on a real Ray cluster: a head without CPUs and three worker nodes of one CPU on this host
(`ray.cluster_utils.Cluster`), 24 generated inputs with known shots, and one worker node killed while a task runs on it.

All clips are written, none half-written, retries are no more than the tasks that were on the killed node, every clip
decodes to the same frames (`-f framemd5`) as a serial `vtrim cut FILE… --propose scenes` of the same inputs, each clip
shows exactly its shot's frames (PSNR ≥ 35 dB against the source's, frame by frame) with its sound on time, and the
manifest is complete and consistent with the files. VTRIM_BIN names the vtrim to run (scripts/cluster-test)."""

import json
import os
import subprocess
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import corpus  # noqa: E402

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

import vtrim_ray  # noqa: E402
from vtrim_ray import inputs as inputs_module  # noqa: E402

VTRIM = os.environ.get("VTRIM_BIN", "vtrim")
WIDTH, HEIGHT = 64, 36


def frames_of(path):
    """Every frame of the video, decoded by ffmpeg and scaled to 64×36 RGB."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-vf", f"scale={WIDTH}:{HEIGHT}",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], check=True, stdout=subprocess.PIPE).stdout
    size = WIDTH * HEIGHT * 3
    return [raw[at:at + size] for at in range(0, len(raw), size)]


def psnr(a, b):
    error = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)
    return float("inf") if error == 0 else 10 * __import__("math").log10(255 ** 2 / error)


def framemd5(path):
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return [line.split(",")[-1].strip() for line in out.splitlines() if line and not line.startswith("#")]


def stream_times(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type,start_time,duration", "-of", "json", path],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return {s["codec_type"]: (float(s["start_time"]), float(s["duration"])) for s in json.loads(out)["streams"]}


def attempt_processes(mark):
    """Processes whose environment holds `mark` (an attempt's VTRIM_ATTEMPT)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                if mark in environ.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    return corpus.make(str(tmp_path_factory.mktemp("corpus")), count=24)


def test_a_killed_node_loses_nothing(media, tmp_path):
    folder = os.path.dirname(media[0][0])
    # The serial reference: vtrim alone over the same inputs, one thread per input as each Ray task has.
    serial = tmp_path / "serial"
    started = time.monotonic()
    run = subprocess.run([VTRIM, "cut", *[path for path, _ in media], "--propose", "scenes", "--output-dir", str(serial),
                          "-j", "2", "--json", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, VTRIM_CORES="2"))
    assert run.returncode == 0, run.stderr
    serial_seconds = time.monotonic() - started

    # The victim: one input's first cut waits (its task running on a worker node) until that node is gone. A wrapper
    # in front of vtrim holds it, so the node is killed mid-task every time, never after the task ended.
    victim = media[5][0]
    started_mark, release = tmp_path / "victim-started", tmp_path / "release"
    wrapper = tmp_path / "vtrim-held"
    wrapper.write_text(f"""#!/bin/sh
if [ "$1" = cut ] && [ "$2" = '{victim}' ] && [ ! -e '{release}' ]; then
  : > '{started_mark}'
  while [ ! -e '{release}' ]; do sleep 0.05; done
fi
exec '{VTRIM}' "$@"
""")
    wrapper.chmod(0o755)

    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "_system_config": {"health_check_period_ms": 1000, "health_check_failure_threshold": 5}})
    workers = [cluster.add_node(num_cpus=1) for _ in range(3)]
    try:
        ray.init(address=cluster.address, log_to_driver=False)
        cluster.wait_for_nodes()
        out = tmp_path / "ray"
        job = vtrim_ray.Job(kind="split", vtrim=str(wrapper), cpus=1)
        result, failure = {}, []

        def drive():
            try:
                result.update(vtrim_ray.run([folder], job, str(out), max_retries=3, progress=lambda *_: None))
            except BaseException as error:  # noqa: BLE001 — reported by the test below
                failure.append(error)

        driver = threading.Thread(target=drive)
        driver.start()
        deadline = time.monotonic() + 300
        while not started_mark.exists() and driver.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert started_mark.exists(), "the victim's task never started"
        attempts = out / inputs_module.folder_name(victim) / ".attempts"
        (victim_attempt,) = os.listdir(attempts)
        marker = json.loads((attempts / victim_attempt).read_text())
        killed = marker["node"]
        node = next(node for node in workers if node.node_id == killed)
        # The machine is lost: the worker running the task, then its node's Ray processes (Cluster.remove_node stops
        # those, not the workers they started).
        try:
            os.kill(marker["pid"], 9)
        except ProcessLookupError:
            pass
        cluster.remove_node(node, allow_graceful=False)
        # What the worker started dies with it (PR_SET_PDEATHSIG): no process of the killed attempt is left.
        mark = f"VTRIM_ATTEMPT={inputs_module.task_key(victim)}:{victim_attempt}".encode()
        until = time.monotonic() + 10
        while time.monotonic() < until and attempt_processes(mark):
            time.sleep(0.05)
        assert not attempt_processes(mark), "vtrim outlived the Ray worker that ran it"
        # What a killed attempt leaves when it dies while writing: vtrim's temporary of a clip (named as vtrim names
        # them, marked with the dead attempt) and a manifest's. The retry must remove both.
        stem = os.path.splitext(os.path.basename(victim))[0]
        victim_folder = out / inputs_module.folder_name(victim)
        planted = [victim_folder / f".{stem}.2.cut.vtrim-tmp-@{inputs_module.task_key(victim)}@{victim_attempt}+4242+7.mp4",
                   victim_folder / f"manifest.jsonl.{victim_attempt}.part"]
        for path in planted:
            path.write_bytes(b"half-written")
        release.touch()
        driver.join(timeout=600)
        assert not driver.is_alive(), "the run did not end"
        assert not failure, failure
    finally:
        ray.shutdown()
        cluster.shutdown()

    # Retries: no more than the tasks that were on the killed node, and the task killed there was one of them.
    on_killed = 0
    for path, _ in media:
        attempts = out / inputs_module.folder_name(path) / ".attempts"
        nodes = [json.loads((attempts / name).read_text())["node"] for name in os.listdir(attempts)]
        on_killed += any(node == killed for node in nodes)
    retries = result["attempts"] - len(media)
    assert len(os.listdir(out / inputs_module.folder_name(victim) / ".attempts")) == 2, "the killed task was not run again"
    assert 1 <= retries <= on_killed, f"{retries} retries, {on_killed} tasks on the killed node"
    assert result["failed"] == [], result
    # Nothing half-written anywhere.
    leftovers = [name for _, folders, names in os.walk(out) for name in folders + names if ".vtrim-tmp-" in name or name.endswith(".part")]
    assert leftovers == [] and not any(path.exists() for path in planted)

    # The manifest: every clip of every input, consistent with the files.
    lines = [json.loads(line) for line in open(out / "manifest.jsonl")]
    assert not [line for line in lines if "error" in line]
    assert len(lines) == sum(len(shots) for _, shots in media)
    for path, shots in media:
        mine = sorted((line for line in lines if line["source"] == path), key=lambda line: line["index"])
        assert [line["index"] for line in mine] == list(range(1, len(shots) + 1)), path
        source = frames_of(path)
        first = 0
        for line, frames in zip(mine, shots):
            clip = out / line["clip"]
            assert clip.is_file() and line["size"] == clip.stat().st_size
            assert line["frames"] == frames, f"{line}: the shot has {frames} frames"
            assert abs(line["start"] - first / corpus.FPS) <= 1e-3, line
            assert (out / line["poster"]).is_file()
            # Smart: only the edges re-encoded — or, a shot without a keyframe inside, all of it, with the warning.
            expected = None if line["resumed"] else ("exact" if "smart_fallback" in line["warnings"] else "smart")
            assert line["mode"] == expected and line["codec"] == "h264", line
            # The same frames as the serial run's clip; the shot's own frames.
            reference = serial / f"{os.path.splitext(os.path.basename(path))[0]}.{line['index']}.cut.mp4"
            assert framemd5(str(clip)) == framemd5(str(reference)), f"{clip} differs from {reference}"
            written = frames_of(str(clip))
            assert len(written) == frames
            for number, picture in enumerate(written):
                assert psnr(picture, source[first + number]) >= 35, f"{clip} frame {number}"
            times = stream_times(str(clip))
            video, audio = times["video"], times["audio"]
            assert abs(audio[0] - video[0]) <= 0.025 and abs(audio[1] - video[1]) <= 0.05, f"{clip}: {times}"
            first += frames
    print(f"ray: {result['inputs']} inputs, {result['outputs']} clips in {result['seconds']} s with a node killed "
          f"({retries} retry); serial vtrim -j2 {serial_seconds:.2f} s")
