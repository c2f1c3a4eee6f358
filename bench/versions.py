#!/usr/bin/env python3
"""bench/versions: the vtrim commands of bench/cut.py and bench/join.py run by two builds of vtrim, before and after
a change, alternating in one run on the same machine: median wall time and peak RSS of each, and after/before
ratios (a refactoring must stay within 5 %). Build the old commit in a worktree (scripts/build-release --stage)."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--before", required=True, help="the old build's vtrim")
parser.add_argument("--after", default=benchlib.RELEASE_VTRIM, help="the new build's vtrim")
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--exact-runs", type=int, default=3, help="rounds of the exact cut (about 10× a copy's time)")
parser.add_argument("--preset", default="veryfast")
parser.add_argument("--tolerance", type=float, default=0.05)
args = parser.parse_args()

media = benchlib.generated("make-media.sh")
path = next(p for p in media if "1080p" in p)
ts_path = os.path.splitext(path)[0] + ".ts"
if not os.path.exists(ts_path) or os.path.getmtime(ts_path) < os.path.getmtime(path):
    # The same stream in MPEG-TS, as bench/cut.py makes it.
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", path, "-map", "0", "-c", "copy", ts_path + ".part.ts"], check=True)
    os.replace(ts_path + ".part.ts", ts_path)
work = benchlib.work_directory("vtrim-bench-versions-")
q = benchlib.quote
middle = benchlib.probe_duration(path) / 2
s, e = f"{middle - 29:.3f}", f"{middle + 31:.3f}"
# bench/join.py's ten 20 s ranges, each seam half a second into a 2 s GOP.
keeps = " ".join(f"--keep {30.5 + 55 * k:.3f}..{50.5 + 55 * k:.3f}" for k in range(10))

# (name, arguments after `vtrim cut`, output extension, rounds)
commands = [
    ("copy, 60 s", f"{q(path)} --start {s} --end {e}", "mp4", args.runs),
    ("copy, 60 s of MPEG-TS", f"{q(ts_path)} --start {s} --end {e}", "mp4", args.runs),
    ("smart, 60 s", f"{q(path)} --start {s} --end {e} --mode smart --preset {args.preset}", "mp4", args.runs),
    ("smart join, 10 ranges (MP4)", f"{q(path)} {keeps} --mode smart --preset {args.preset}", "mp4", args.runs),
    ("copy join, 10 ranges (MKV)", f"{q(path)} {keeps} --mode copy", "mkv", args.runs),
    ("copy join, 10 ranges (MP4)", f"{q(path)} {keeps} --mode copy", "mp4", args.runs),
    ("exact, 60 s", f"{q(path)} --start {s} --end {e} --mode exact --preset {args.preset} --crf 20", "mp4", args.exact_runs),
]
builds = [("before", os.path.abspath(args.before)), ("after", os.path.abspath(args.after))]
print(f"| command | before (s) | after (s) | after/before time | before (MiB) | after (MiB) | after/before RSS |")
print("|---|---:|---:|---:|---:|---:|---:|")
worst = 1.0
for index, (name, arguments, extension, rounds) in enumerate(commands):
    rows = [(f"{build}: {name}", f"rm -f {q(work)}/{index}-{build}.{extension}; {q(binary)} cut {arguments} -o {q(work)}/{index}-{build}.{extension}")
            for build, binary in builds]
    results = benchlib.run_alternating(rows, rounds, name)
    (before_s, before_mib, _), (after_s, after_mib, _) = (results[row] for row, _ in rows)
    worst = max(worst, after_s / before_s, after_mib / before_mib)
    print(f"| {name} | {before_s:.2f} | {after_s:.2f} | {after_s / before_s:.3f} | {before_mib:.0f} | {after_mib:.0f} | {after_mib / before_mib:.3f} |",
          flush=True)
print(f"\nworst after/before ratio {worst:.3f}; within {args.tolerance:.0%}: {worst <= 1 + args.tolerance}")
