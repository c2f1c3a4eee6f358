"""Cut lists exchanged with the real OpenTimelineIO (PyPI opentimelineio with its CMX3600 adapter): what vtrim
writes, OpenTimelineIO reads as the same ranges; what OpenTimelineIO writes, vtrim reads and joins."""
import json
import os

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
    vtrim("cut", SOURCE, *keep_arguments(), "--dry-run", "--export-list", str(listed), "-o", str(tmp_path / "out.mp4"))
    options = {"rate": 30} if extension == "edl" else {}
    timeline = otio.adapters.read_from_file(str(listed), **options)
    clips = list(timeline.video_tracks()[0].find_clips())
    read = [(clip.source_range.start_time.to_seconds(), clip.source_range.end_time_exclusive().to_seconds()) for clip in clips]
    assert len(read) == len(RANGES)
    for (start, end), (want_start, want_end) in zip(read, RANGES):
        assert abs(start - want_start) <= 0.5 / 30 and abs(end - want_end) <= 0.5 / 30, read


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
