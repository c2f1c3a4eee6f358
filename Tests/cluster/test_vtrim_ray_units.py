"""vtrim-ray's parts without a cluster: inputs, command lines, strides and manifest lines (tables and a property),
and one input's task run for real with the built vtrim (VTRIM_BIN): a stride split, and a damaged input recorded in
the manifest with vtrim's error code while the task ends normally."""

import json
import math
import os
import random
import shutil

import pytest

from vtrim_ray import Job, run_input
from vtrim_ray import inputs as inputs_module
from vtrim_ray.jobs import stride_rows
from vtrim_ray.manifest import clip_line, failure_line, merge

import corpus

VTRIM = os.environ.get("VTRIM_BIN", "vtrim")


@pytest.mark.parametrize("duration, stride, rows", [
    (10, 4, [(0, 4), (4, 8), (8, 10)]),
    (9, 4, [(0, 4), (4, 8), (8, 9)]),
    (8.5, 4, [(0, 4), (4, 8.5)]),
    (4, 4, [(0, 4)]),
    (3, 4, [(0, 3)]),
    (0, 4, []),
    (-1, 4, []),
    (10, 0, []),
    (float("nan"), 4, []),
])
def test_strides(duration, stride, rows):
    assert stride_rows(duration, stride) == rows


def test_strides_cover_the_file_for_any_length():
    rng = random.Random(52)
    for _ in range(2000):
        duration, stride = rng.uniform(0.01, 500), rng.uniform(0.1, 60)
        rows = stride_rows(duration, stride)
        assert rows[0][0] == 0 and math.isclose(rows[-1][1], round(duration, 6), abs_tol=1e-6)
        assert all(a[1] == b[0] for a, b in zip(rows, rows[1:]))
        assert all(end - start > 0 for start, end in rows)
        assert all(end - start <= stride * 1.25 + 1e-6 for start, end in rows)


def test_inputs_are_collected_once_in_order(tmp_path):
    (tmp_path / "b").mkdir()
    for name in ["b/z.mp4", "b/a.MOV", "a.mkv", "notes.txt.bak", "a.cut.mp4", ".a.vtrim-tmp-h+1+2.mp4", "a.1.cut.mp4", "x.jpg"]:
        (tmp_path / name).write_bytes(b"")
    listing = tmp_path / "more.list"
    listing.write_text(f"# inputs\n\nhttps://example.test/v.m3u8\n{tmp_path / 'a.mkv'}\n")
    found = inputs_module.collect([str(tmp_path), str(listing), str(tmp_path / "a.mkv")])
    assert found == [str(tmp_path / "a.mkv"), str(tmp_path / "b/a.MOV"), str(tmp_path / "b/z.mp4"), "https://example.test/v.m3u8"]


def test_tasks_are_submitted_largest_file_first_then_urls_in_order(tmp_path):
    sizes = {"a.mp4": 10, "b.mp4": 300, "c.mp4": 20, "d.mp4": 300}
    for name, size in sizes.items():
        (tmp_path / name).write_bytes(b"x" * size)
    items = [str(tmp_path / "a.mp4"), "https://example.test/1.m3u8", str(tmp_path / "b.mp4"), str(tmp_path / "gone.mp4"),
             str(tmp_path / "c.mp4"), "https://example.test/2.mpd", str(tmp_path / "d.mp4")]
    assert inputs_module.submission_order(items) == [
        str(tmp_path / "b.mp4"), str(tmp_path / "d.mp4"), str(tmp_path / "c.mp4"), str(tmp_path / "a.mp4"),
        "https://example.test/1.m3u8", str(tmp_path / "gone.mp4"), "https://example.test/2.mpd"]


def test_the_submission_order_is_a_permutation_for_any_sizes():
    rng = random.Random(52)
    for _ in range(500):
        items = [f"/in/{index}.mp4" for index in range(rng.randint(0, 30))]
        sizes = {item: rng.choice([None, rng.randint(0, 5)]) for item in items}
        ordered = inputs_module.submission_order(items, size_of=sizes.get)
        assert sorted(ordered) == sorted(items)
        known = [sizes[item] for item in ordered if sizes[item] is not None]
        assert known == sorted(known, reverse=True)
        assert [item for item in ordered if sizes[item] is None] == [item for item in items if sizes[item] is None]
        # Every known size (an empty file's 0 included) comes before every unknown one; equal sizes keep their order.
        first_unknown = next((index for index, item in enumerate(ordered) if sizes[item] is None), len(ordered))
        assert all(sizes[item] is None for item in ordered[first_unknown:])
        for size in set(known):
            assert [item for item in ordered if sizes[item] == size] == [item for item in items if sizes[item] == size]


def test_folders_are_named_apart():
    one, two = inputs_module.folder_name("/a/clip.mp4"), inputs_module.folder_name("/b/clip.mp4")
    assert one != two and one.startswith("clip-") and two.startswith("clip-")
    assert inputs_module.folder_name("https://h.test/live/index.m3u8?token=x").startswith("index-")
    assert inputs_module.folder_name("/a/we ird$.mp4").startswith("we_ird_-")


@pytest.mark.parametrize("job, problem", [
    (Job(kind="split"), None),
    (Job(kind="nope"), "the job is one of"),
    (Job(kind="split", stride_seconds=5, cut_list="/x.csv"), "give one of"),
    (Job(kind="split", stride_seconds=0.01), "the stride is"),
    (Job(kind="split", cut_list="/nonexistent.csv"), "no cut list"),
    (Job(kind="thumbs", cpus=0), "cpus is"),
])
def test_jobs_are_checked(job, problem):
    assert (job.problem() is None) if problem is None else (problem in job.problem())


def test_command_lines():
    common = ["--output-dir", "F", "--skip-existing", "--json", "--quiet", "-j", "1"]
    assert Job().main_command("in.mp4", "F") == ["vtrim", "cut", "in.mp4", "--propose", "scenes", "--mode", "smart", *common]
    assert Job(scenes_threshold=12, min_scene_seconds=1.5).main_command("in.mp4", "F")[3:7] == ["--propose", "scenes=12", "--min-scene", "1.5"]
    assert Job(stride_seconds=5).main_command("in.mp4", "F", "F/strides.csv")[3:5] == ["--list", "F/strides.csv"]
    assert Job(kind="cut", extra=("--start", "1", "--end", "2")).main_command("in.mp4", "F") == \
        ["vtrim", "cut", "in.mp4", "--start", "1", "--end", "2", *common]
    assert Job(kind="storyboard", storyboard="bif").main_command("in.mp4", "F")[:5] == ["vtrim", "thumbs", "in.mp4", "--storyboard", "bif"]


def test_manifest_lines(tmp_path):
    clip = tmp_path / "in-1/c.1.cut.mp4"
    clip.parent.mkdir()
    clip.write_bytes(b"12345")
    report = {"output": str(clip), "mode": "smart", "effective": {"start": 1.5, "end": 3}, "actual": {"frames": 45},
              "segment": {"index": 2, "scene_score": 31.5}, "streams": [{"kind": "audio", "codec": "aac"}, {"kind": "video", "codec": "h264"}],
              "warnings": [{"code": "smart_fallback", "message": "…"}]}
    line = clip_line("/src/c.mp4", report, None, str(tmp_path))
    assert line == {"clip": "in-1/c.1.cut.mp4", "source": "/src/c.mp4", "index": 2, "start": 1.5, "end": 3, "frames": 45,
                    "scene_score": 31.5, "mode": "smart", "codec": "h264", "size": 5, "poster": None, "resumed": False,
                    "warnings": ["smart_fallback"]}
    failed = failure_line("/src/x.mp4", {"error": {"code": "not_media", "message": "not a media file"}}, 1, "")
    assert failed["error"] == {"code": "not_media", "message": "not a media file"}
    assert failure_line("/src/x.mp4", None, -9, "vtrim: error: x\nlast words\n")["error"] == {"code": "exit_-9", "message": "last words"}
    one, two = tmp_path / "1.jsonl", tmp_path / "2.jsonl"
    one.write_text(json.dumps({"a": 1}) + "\n")
    two.write_text(json.dumps({"b": 2}) + "\n\n")
    assert merge([str(one), str(tmp_path / "missing.jsonl"), str(two)], str(tmp_path / "all.jsonl")) == [{"a": 1}, {"b": 2}]
    assert [name for name in os.listdir(tmp_path) if name.endswith(".part")] == []


@pytest.mark.skipif(not shutil.which(VTRIM) and not os.path.isfile(VTRIM), reason="no vtrim to run")
def test_one_input_split_in_strides_and_a_damaged_one_recorded(tmp_path):
    (path, shots), = corpus.make(str(tmp_path / "media"), count=1)
    summary = run_input(path, Job(stride_seconds=1.5, vtrim=VTRIM, posters=False), str(tmp_path / "out"))
    assert not summary["failed"] and summary["written"] == summary["outputs"] == 3, summary
    lines = [json.loads(line) for line in open(os.path.join(summary["folder"], "manifest.jsonl"))]
    assert sum(line["frames"] for line in lines) == sum(shots)
    assert [line["start"] for line in lines] == [0, 1.5, 3]
    again = run_input(path, Job(stride_seconds=1.5, vtrim=VTRIM, posters=False), str(tmp_path / "out"))
    assert again["skipped"] == 3 and again["written"] == 0 and again["attempts"] == 2
    damaged = tmp_path / "media/damaged.mp4"
    damaged.write_bytes(b"\0\0\0\x18ftypisom" + os.urandom(2000))
    summary = run_input(str(damaged), Job(vtrim=VTRIM), str(tmp_path / "out"))
    assert summary["failed"]
    lines = [json.loads(line) for line in open(os.path.join(summary["folder"], "manifest.jsonl"))]
    assert len(lines) == 1 and lines[0]["error"]["code"] in ("not_media", "unreadable", "no_video", "damaged"), lines


@pytest.mark.skipif(not shutil.which(VTRIM) and not os.path.isfile(VTRIM), reason="no vtrim to run")
def test_a_retry_by_another_vtrim_build_cuts_the_input_afresh(tmp_path):
    (path, shots), = corpus.make(str(tmp_path / "media"), count=1)
    job = Job(vtrim=VTRIM, posters=False)
    first = run_input(path, job, str(tmp_path / "out"))
    assert not first["failed"] and first["written"] == len(shots) and not first["rewritten"], first
    # The same build again: every clip resumed.
    same = run_input(path, job, str(tmp_path / "out"))
    assert same["skipped"] == len(shots) and not same["rewritten"], same
    # An earlier attempt by another build (a node with another install) wrote a clip that is not this build's.
    clip = os.path.join(first["folder"], sorted(name for name in os.listdir(first["folder"]) if name.endswith(".mp4"))[0])
    with open(clip, "wb") as stale:
        stale.write(b"another build's clip")
    with open(os.path.join(first["folder"], ".attempts", "0123456789abcdef"), "w") as marker:
        json.dump({"node": "elsewhere", "pid": 1, "started": 0, "vtrim": "/opt/old/vtrim:1:2"}, marker)
    fresh = run_input(path, job, str(tmp_path / "out"))
    assert fresh["rewritten"] and fresh["written"] == len(shots) and fresh["skipped"] == 0, fresh
    assert os.path.getsize(clip) > 1000
    lines = [json.loads(line) for line in open(os.path.join(fresh["folder"], "manifest.jsonl"))]
    assert [line["frames"] for line in lines] == shots


def _framemd5(path):
    import subprocess
    lines = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    return [line for line in lines if not line.startswith("#")]


@pytest.mark.skipif(not shutil.which(VTRIM) and not os.path.isfile(VTRIM), reason="no vtrim to run")
def test_a_url_input_is_split_into_the_clips_of_its_file(tmp_path):
    """An input named by its URL (vtrim reads it by bounded range requests; here from the stream tests' loopback
    origin): split into the same clips, frame for frame, as the file itself, its manifest naming the URL."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "streams"))
    from origin import Origin

    (path, shots), = corpus.make(str(tmp_path / "media"), count=1)
    job = Job(vtrim=VTRIM, posters=True)
    local = run_input(path, job, str(tmp_path / "local"))
    with Origin(str(tmp_path / "media")) as origin:
        url = origin.url(os.path.basename(path))
        remote = run_input(url, job, str(tmp_path / "remote"))
        assert origin.requests() and all(entry["range"] for entry in origin.requests()), origin.requests()
    assert not remote["failed"] and remote["written"] == len(shots), remote
    lines = [json.loads(line) for line in open(os.path.join(remote["folder"], "manifest.jsonl"))]
    local_lines = [json.loads(line) for line in open(os.path.join(local["folder"], "manifest.jsonl"))]
    assert [line["source"] for line in lines] == [url] * len(shots)
    assert [line["frames"] for line in lines] == shots and all(line["poster"] for line in lines), lines
    assert [(line["start"], line["end"]) for line in lines] == [(line["start"], line["end"]) for line in local_lines]
    for line, local_line in zip(lines, local_lines):
        assert _framemd5(str(tmp_path / "remote" / line["clip"])) == _framemd5(str(tmp_path / "local" / local_line["clip"]))
