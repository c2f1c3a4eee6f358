#!/usr/bin/env python3
"""bench/thumbs: 20 cells at 160 px high from the cached 10-minute 1080p file and the 4K clip, vtrim
against the ways a user would otherwise script it, alternating runs, medians. See BENCHMARKS.md."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--cells", type=int, default=20)
parser.add_argument("--height", type=int, default=160)
parser.add_argument("--storyboard-runs", type=int, default=3,
                    help="runs of the storyboard row (--every 1.7 over the 10-minute file; ffmpeg takes ~90 s a run)")
parser.add_argument("--only", choices=["cells", "storyboard"], help="run one part only")
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
args = parser.parse_args()

media = benchlib.generated("make-media.sh")
work = benchlib.work_directory("vtrim-bench-thumbs-")
vtrim = os.path.abspath(args.vtrim)
q = benchlib.quote

for path in media if args.only != "storyboard" else []:
    duration = benchlib.probe_duration(path)
    n, h = args.cells, args.height
    times = [(i + 0.5) * duration / n for i in range(n)]
    out = os.path.join(work, "out")
    fps = f"fps={n}/{duration:.6f}"
    ffmpeg_loop = "; ".join(f"ffmpeg -v error -y -ss {t:.3f} -i {q(path)} -frames:v 1 -vf scale=-2:{h} {q(out)}-{i}.png"
                            for i, t in enumerate(times))
    # ffmpegthumbnailer seeks in whole seconds (-t hh:mm:ss) and sizes the longer side (-s).
    side = round(h * 16 / 9)
    def hms(t):
        t = int(t)
        return f"{t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d}"
    thumbnailer_loop = "; ".join(f"ffmpegthumbnailer -i {q(path)} -o {q(out)}-t{i}.png -s {side} -t {hms(t)} -q 8"
                                 for i, t in enumerate(times))
    rows = [
        ("vtrim accurate", f"{q(vtrim)} thumbs {q(path)} --count {n} --height {h} -o {q(out)}-va.png --overwrite"),
        ("vtrim fast", f"{q(vtrim)} thumbs {q(path)} --count {n} --height {h} --mode fast -o {q(out)}-vf.png --overwrite"),
        ("ffmpeg fps+scale+tile (decodes everything)",
         f"ffmpeg -v error -y -i {q(path)} -vf {fps},scale=-2:{h},tile={n}x1 -frames:v 1 {q(out)}-tile.png"),
        ("ffmpeg -skip_frame nokey, fps+tile (keyframes only)",
         f"ffmpeg -v error -y -skip_frame nokey -i {q(path)} -vf {fps},scale=-2:{h},tile={n}x1 -frames:v 1 {q(out)}-key.png"),
        (f"{n}× ffmpeg -ss T -i IN -frames:v 1 (vcsi's way)", ffmpeg_loop),
        (f"{n}× ffmpegthumbnailer -t T", thumbnailer_loop),
        ("1× ffmpeg -ss T -i IN -frames:v 1 -f null - (RSS reference)",
         f"ffmpeg -v error -ss {times[n // 2]:.3f} -i {q(path)} -frames:v 1 -f null -"),
    ]
    print(f"bench: {os.path.basename(path)} ({duration:.0f} s), {n} cells at {h} px, {args.runs} alternating runs",
          file=sys.stderr, flush=True)
    results = benchlib.run_alternating(rows, args.runs, os.path.basename(path))
    print(f"\n### {os.path.basename(path)} ({duration:.0f} s), {n} cells at {h} px high, median of {args.runs} alternating runs\n")
    print(benchlib.table(results, rows, {"vtrim accurate": "vtrim accurate", "vtrim fast": "vtrim fast"}))
    va, vf = results["vtrim accurate"], results["vtrim fast"]
    reference_rss = results[rows[-1][0]][1]
    print(f"\nvtrim peak RSS ÷ single-frame ffmpeg: accurate {va[1] / reference_rss:.2f}, fast {vf[1] / reference_rss:.2f}")
    sys.stdout.flush()

# Storyboard: a cell every 1.7 s (mid-GOP samples in a 2 s GOP) over the whole 10-minute film, as a web
# player's scrubbing sheet, JPEG; vtrim against ffmpeg's fps+scale+tile, which decodes every frame.
if args.only != "cells":
    path = media[0]
    duration = benchlib.probe_duration(path)
    spacing, h, columns = 1.7, args.height, 20
    cells = int(duration // spacing) + (1 if duration % spacing > 0 else 0)
    rows_count = -(-cells // columns)
    out = os.path.join(work, "story")
    rows = [
        ("vtrim accurate --every 1.7 (storyboard)",
         f"{q(vtrim)} thumbs {q(path)} --every {spacing} --height {h} --columns {columns} --vtt -o {q(out)}-v.jpg --overwrite"),
        ("ffmpeg fps=1/1.7,scale,tile (decodes everything)",
         f"ffmpeg -v error -y -i {q(path)} -vf fps=1/{spacing},scale=-2:{h},tile={columns}x{rows_count} -frames:v 1 {q(out)}-f.jpg"),
    ]
    print(f"bench: storyboard of {os.path.basename(path)}, {cells} cells, {args.storyboard_runs} alternating runs",
          file=sys.stderr, flush=True)
    results = benchlib.run_alternating(rows, args.storyboard_runs, "storyboard")
    print(f"\n### Storyboard: {os.path.basename(path)} ({duration:.0f} s), a cell every {spacing} s ({cells} cells) at {h} px, "
          f"{columns} columns, JPEG, median of {args.storyboard_runs} alternating runs\n")
    print(benchlib.table(results, rows, {"vtrim": rows[0][0]}))
    ratio = results[rows[1][0]][0] / results[rows[0][0]][0]
    print(f"\nffmpeg fps+tile ÷ vtrim = {ratio:.2f} (target ≥ 3)")
