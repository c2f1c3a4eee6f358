"""Cut lists exchanged with the real OpenTimelineIO (PyPI opentimelineio with its CMX3600 adapter): what vtrim
writes, OpenTimelineIO reads as the same ranges; what OpenTimelineIO writes, vtrim reads and joins."""
import json
import os
import subprocess

import opentimelineio as otio
import pytest

from conftest import FIXTURES, vtrim

SOURCE = os.path.join(FIXTURES, "h264-aac.mp4")  # 4 s, 30 fps
RANGES = [(0.5, 1.7), (2.1, 3.6)]


def keep_arguments():
    return [argument for start, end in RANGES for argument in ("--keep", f"{start}..{end}")]


@pytest.mark.parametrize("extension", ["otio", "edl"])
def test_opentimelineio_reads_what_vtrim_writes(tmp_path, extension):
    listed = tmp_path / f"ranges.{extension}"
    vtrim("cut", SOURCE, *keep_arguments(), "--mode", "copy", "--export-list", str(listed), "-o", str(tmp_path / "out.mkv"))
    assert_read_back(listed, 30, RANGES)


def assert_read_back(listed, rate, ranges):
    options = {"rate": rate} if str(listed).endswith(".edl") else {}
    timeline = otio.adapters.read_from_file(str(listed), **options)
    clips = list(timeline.video_tracks()[0].find_clips())
    read = [(clip.source_range.start_time.to_seconds(), clip.source_range.end_time_exclusive().to_seconds()) for clip in clips]
    assert len(read) == len(ranges)
    for (start, end), (want_start, want_end) in zip(read, ranges):
        assert abs(start - want_start) <= 0.5 / rate + 1e-9 and abs(end - want_end) <= 0.5 / rate + 1e-9, read


def clip_at(folder, rate, name=None, timecode=None):
    """A 3 s clip at `rate` (ffmpeg's rational), with a start timecode when given."""
    path = os.path.join(folder, name or f"clip-{rate.replace('/', '_')}.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc=size=64x36:rate={rate}:duration=3",
                    *(["-timecode", timecode] if timecode else []), "-c:v", "libx264", "-g", "10", path], check=True)
    return path


# (clip's rate for ffmpeg, --list-rate or None, the rate OpenTimelineIO reads at): every SMPTE rate of a clip, and
# clips at other rates written at the rate asked for.
EDL_RATES = [("24000/1001", None, 24000 / 1001), ("24", None, 24), ("25", None, 25), ("30000/1001", None, 30000 / 1001),
             ("30000/1001", "29.97df", 30000 / 1001), ("30", None, 30), ("50", None, 50), ("60000/1001", None, 60000 / 1001),
             ("60", None, 60), ("20", "25", 25), ("10", "30", 30)]


@pytest.mark.parametrize("clip_rate,list_rate,read_rate", EDL_RATES)
def test_every_edl_vtrim_writes_is_read_by_opentimelineio(tmp_path, clip_rate, list_rate, read_rate):
    source = clip_at(str(tmp_path), clip_rate)
    ranges = [(0.2, 1.1), (1.5, 2.6)]
    listed = tmp_path / "ranges.edl"
    arguments = [argument for start, end in ranges for argument in ("--keep", f"{start}..{end}")]
    vtrim("cut", source, *arguments, "--mode", "copy", "--export-list", str(listed), "-o", str(tmp_path / "out.mkv"),
          *(["--list-rate", list_rate] if list_rate else []))
    text = listed.read_text()
    assert ("FCM: DROP FRAME" in text) == (list_rate == "29.97df"), text
    assert_read_back(listed, read_rate, ranges)
    # And vtrim reads it back as the same ranges.
    report = json.loads(vtrim("cut", "--json", source, "--list", str(listed), "--join", "--dry-run", "-o", str(tmp_path / "again.mkv"),
                              *(["--list-rate", list_rate] if list_rate else [])).stdout)
    for segment, (start, end) in zip(report["segments"], ranges):
        assert abs(segment["requested"]["start"] - start) <= 0.5 / read_rate + 1e-9 and abs(segment["requested"]["end"] - end) <= 0.5 / read_rate + 1e-9


def test_an_edl_of_a_clip_at_no_timecode_rate_needs_list_rate(tmp_path):
    source = clip_at(str(tmp_path), "20")
    result = vtrim("cut", source, "--keep", "0.5..1.5", "-o", str(tmp_path / "out.mkv"), "--export-list", str(tmp_path / "r.edl"), check=False)
    assert result.returncode == 1 and "--list-rate" in result.stderr and "20.000 fps" in result.stderr, result.stderr
    assert not (tmp_path / "r.edl").exists() and not (tmp_path / "out.mkv").exists()


def test_an_edl_made_at_another_rate_is_read_at_list_rate(tmp_path):
    """An editor's 25 fps timeline cutting a 20 fps clip: 4.0–6.48 s, not the 4.0–6.6 s the clip's rate would give."""
    source = clip_at(str(tmp_path), "20", name="long.mp4")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x36:rate=20:duration=8", "-c:v", "libx264",
                    source], check=True)
    listed = tmp_path / "made.edl"
    listed.write_text("TITLE: made\nFCM: NON-DROP FRAME\n\n001  AX V C 00:00:04:00 00:00:06:12 00:00:00:00 00:00:02:12\n")
    without = vtrim("cut", "--json", source, "--list", str(listed), "--join", "--dry-run", "-o", str(tmp_path / "a.mkv"), check=False)
    assert without.returncode == 64 and "--list-rate" in without.stderr, without.stderr
    report = json.loads(vtrim("cut", "--json", source, "--list", str(listed), "--list-rate", "25", "--join", "--dry-run",
                              "-o", str(tmp_path / "a.mkv")).stdout)
    assert report["segments"][0]["requested"] == {"start": 4, "end": 6.48}


def test_an_edl_counting_from_zero_for_a_clip_with_a_start_timecode(tmp_path):
    """OpenTimelineIO writes events from 00:00:00:00; a camera clip starts at 19:26:48:04. Read from 0 with a warning,
    or refused with --list-origin timecode — never a negative range."""
    source = clip_at(str(tmp_path), "30000/1001", name="camera.mp4", timecode="19:26:48:04")
    listed = tmp_path / "zero.edl"
    listed.write_text("TITLE: t\nFCM: NON-DROP FRAME\n\n001  AX V C 00:00:00:15 00:00:01:15 00:00:00:00 00:00:01:00\n")
    result = vtrim("cut", "--json", source, "--list", str(listed), "--join", "--dry-run", "-o", str(tmp_path / "a.mkv"))
    report = json.loads(result.stdout)
    assert abs(report["segments"][0]["requested"]["start"] - 15 * 1001 / 30000) < 1e-6
    assert any(w["code"] == "list_origin" and "19:26:48:04" in w["message"] for w in report["warnings"]), report["warnings"]
    refused = vtrim("cut", source, "--list", str(listed), "--list-origin", "timecode", "--join", "--dry-run", "-o", str(tmp_path / "a.mkv"),
                    check=False)
    # No negative time in the message (the list's own path, under pytest's numbered folders, is left out of the look).
    message = refused.stderr.replace(str(listed), "LIST")
    assert refused.returncode == 64 and "--list-origin zero" in message and "-7" not in message, refused.stderr
    strict = vtrim("cut", source, "--list", str(listed), "--join", "--strict", "-o", str(tmp_path / "a.mkv"), check=False)
    assert strict.returncode == 1 and not (tmp_path / "a.mkv").exists()


def test_export_list_writes_nothing_in_a_dry_run_and_never_replaces_a_list(tmp_path):
    listed = tmp_path / "r.csv"
    vtrim("cut", SOURCE, *keep_arguments(), "--dry-run", "--export-list", str(listed), "-o", str(tmp_path / "out.mkv"))
    assert not listed.exists()
    listed.write_text("kept\n")
    result = vtrim("cut", SOURCE, *keep_arguments(), "--export-list", str(listed), "-o", str(tmp_path / "out.mkv"), check=False)
    assert result.returncode == 1 and "--overwrite" in result.stderr and listed.read_text() == "kept\n"
    vtrim("cut", SOURCE, *keep_arguments(), "--export-list", str(listed), "--overwrite", "-o", str(tmp_path / "out.mkv"))
    assert listed.read_text().startswith("0.5,1.7,")


def test_export_list_is_written_only_with_the_cut_it_describes(tmp_path):
    """The list says what the output holds: a cut that fails (its output exists) leaves no list behind."""
    listed, output = tmp_path / "r.csv", tmp_path / "out.mkv"
    output.write_text("earlier\n")
    result = vtrim("cut", SOURCE, *keep_arguments(), "--export-list", str(listed), "-o", str(output), check=False)
    assert result.returncode == 1 and "already exists" in result.stderr, result.stderr
    assert not listed.exists() and output.read_text() == "earlier\n"


@pytest.mark.parametrize("extension", ["otio", "edl"])
def test_vtrim_joins_what_opentimelineio_writes(tmp_path, extension):
    timeline = otio.schema.Timeline(name="made by OpenTimelineIO")
    track = otio.schema.Track(kind=otio.schema.TrackKind.Video)
    timeline.tracks.append(track)
    media = otio.schema.ExternalReference(target_url="file://" + SOURCE, available_range=otio.opentime.TimeRange(
        otio.opentime.RationalTime(0, 30), otio.opentime.RationalTime(120, 30)))
    for index, (start, end) in enumerate(RANGES):
        if index:
            track.append(otio.schema.Gap(source_range=otio.opentime.TimeRange(duration=otio.opentime.RationalTime(10, 30))))
        track.append(otio.schema.Clip(name=f"Shot {index + 1}", media_reference=media, source_range=otio.opentime.TimeRange(
            otio.opentime.RationalTime(start * 30, 30), otio.opentime.RationalTime((end - start) * 30, 30))))
    listed = tmp_path / f"made.{extension}"
    otio.adapters.write_to_file(timeline, str(listed), **({"adapter_name": "cmx_3600"} if extension == "edl" else {}))
    output = tmp_path / "joined.mkv"
    report = json.loads(vtrim("cut", "--json", SOURCE, "--list", str(listed), "--join", "--mode", "exact", "-o", str(output)).stdout)
    segments = report["segments"]
    assert [(s["requested"]["start"], s["requested"]["end"]) for s in segments] == pytest.approx(RANGES, abs=1e-6)
    assert [s["label"] for s in segments] == ["Shot 1", "Shot 2"]
    assert report["actual"]["duration"] == pytest.approx(sum(end - start for start, end in RANGES), abs=0.0015)
