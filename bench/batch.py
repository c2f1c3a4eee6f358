#!/usr/bin/env python3
"""bench/batch: thumbs and copy cuts over a folder of 60 short clips, vtrim at -j1 and -j2 against a
shell loop of ffmpeg commands, alternating runs, medians. See BENCHMARKS.md."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
args = parser.parse_args()

folder = benchlib.generated("make-batch-media.sh")[0]
clips = sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".mp4") and not name.startswith("."))
work = benchlib.work_directory("vtrim-bench-batch-")
vtrim = os.path.abspath(args.vtrim)
q = benchlib.quote

# The shell loops a user would write: one ffmpeg per file (fps+scale+tile for a 10-cell strip;
# -ss/-to stream copy for a cut that drops the first and last second).
thumb_loop, cut_loop = [], []
for clip in clips:
    duration = benchlib.probe_duration(clip)
    stem = os.path.splitext(os.path.basename(clip))[0]
    thumb_loop.append(f"ffmpeg -v error -y -i {q(clip)} -vf fps=10/{duration:.3f},scale=-2:90,tile=10x1 -frames:v 1 {q(work)}/loop-{stem}.png")
    cut_loop.append(f"ffmpeg -v error -y -ss 1 -to {duration - 1:.3f} -i {q(clip)} -c copy {q(work)}/loop-{stem}.mp4")

out = os.path.join(work, "out")
rows = [
    ("vtrim thumbs -r -j1", f"{q(vtrim)} thumbs -r {q(folder)} --count 10 --height 90 --output-dir {q(out)}1 --overwrite -j 1 --quiet"),
    ("vtrim thumbs -r -j2", f"{q(vtrim)} thumbs -r {q(folder)} --count 10 --height 90 --output-dir {q(out)}2 --overwrite -j 2 --quiet"),
    ("ffmpeg loop: fps+scale+tile per file", "; ".join(thumb_loop)),
    ("vtrim cut -r -j1 (copy)", f"rm -rf {q(out)}c1; {q(vtrim)} cut -r {q(folder)} --start 1 --end end-1 --output-dir {q(out)}c1 -j 1 --quiet"),
    ("vtrim cut -r -j2 (copy)", f"rm -rf {q(out)}c2; {q(vtrim)} cut -r {q(folder)} --start 1 --end end-1 --output-dir {q(out)}c2 -j 2 --quiet"),
    ("ffmpeg loop: -ss/-to -c copy per file", f"rm -f {q(work)}/loop-*.mp4; " + "; ".join(cut_loop)),
]
print(f"bench: {len(clips)} clips in {folder}, {args.runs} alternating runs", file=sys.stderr, flush=True)
results = benchlib.run_alternating(rows, args.runs, "batch")
print(f"\n### {len(clips)} short clips (640x360 12 s, 1280x720 8 s, 1920x1080 5 s; every 4th rotated), median of {args.runs} alternating runs\n")
print(benchlib.table(results, rows, {"vtrim thumbs -j2": rows[1][0], "vtrim cut -j2": rows[4][0]}))
t1, t2, tl = (results[rows[i][0]][0] for i in (0, 1, 2))
c1, c2, cl = (results[rows[i][0]][0] for i in (3, 4, 5))
print(f"\nthumbs: -j2 is {t1 / t2:.2f}× faster than -j1 (target ≥ 1.3); ffmpeg loop ÷ vtrim -j2 = {tl / t2:.2f} (target ≥ 3)")
print(f"cut: -j2 is {c1 / c2:.2f}× faster than -j1 (target ≥ 1.3); ffmpeg loop ÷ vtrim -j2 = {cl / c2:.2f}")
