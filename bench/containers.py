#!/usr/bin/env python3
"""bench/cut --containers: smart cuts and joins into Matroska and MPEG-TS from the cached 10-minute 1080p file
remuxed into each (as a screen recorder or a camera writes them). Per container, alternating runs, medians: a 60 s
smart cut against a copy of the same range plus the longer of its two edges cut exactly alone (target: smart ≤
(copy + longer edge) × 1.10) and against the exact cut (target ≥ 10× faster); then a 10-range smart join into
MKV against the exact join (target ≥ 10× faster). See BENCHMARKS.md."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--preset", default="veryfast")
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
parser.add_argument("--no-join", action="store_true", help="skip the 10-range joins (the exact join takes minutes)")
args = parser.parse_args()

media = benchlib.generated("make-media.sh")
mp4 = next(p for p in media if "1080p" in p)
work = benchlib.work_directory("vtrim-bench-containers-")
vtrim = os.path.abspath(args.vtrim)
q = benchlib.quote
duration = benchlib.probe_duration(mp4)
middle = duration / 2


def remuxed(ext):
    """The same streams in another container, made once beside the cached file."""
    path = os.path.splitext(mp4)[0] + "." + ext
    if not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(mp4):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", mp4, "-map", "0", "-c", "copy", path + ".part." + ext], check=True)
        os.replace(path + ".part." + ext, path)
    return path


# Both edges 1 s into a 2 s GOP (keyframes on even seconds), so the smart cut has a head and a tail to re-encode.
start, end = middle - 29, middle + 31
s, e = f"{start:.3f}", f"{end:.3f}"
for ext in ("mkv", "ts"):
    path = remuxed(ext)
    out = os.path.join(work, "cut")
    plan, rows, exact = benchlib.smart_budget_rows(vtrim, path, out, ext, start, end, args.preset)
    print(f"bench: 60 s into {ext}, {args.runs} alternating runs", file=sys.stderr, flush=True)
    results = benchlib.run_alternating(rows, args.runs, ext)
    results.update(benchlib.run_alternating(exact, args.runs, ext))
    print(f"\n### 60 s ({s}–{e}) of {os.path.basename(path)} into {ext.upper()}, median of {args.runs} alternating runs\n")
    print(benchlib.table(results, rows + exact, {"vtrim copy": rows[0][0]}))
    print("\n" + benchlib.budget_line("", results, rows, exact))
    sys.stdout.flush()

if not args.no_join:
    path = remuxed("mkv")
    # Ten ranges of 20 s, each edge half a second into a 2 s GOP (bench/join.py's).
    ranges = [(30.5 + 55 * k, 50.5 + 55 * k) for k in range(10)]
    keeps = " ".join(f"--keep {a:.3f}..{b:.3f}" for a, b in ranges)
    out = os.path.join(work, "join")
    rows = [("vtrim smart join (MKV)", f"rm -f {q(out)}-s.mkv; {q(vtrim)} cut {q(path)} {keeps} --mode smart --preset {args.preset} -o {q(out)}-s.mkv"),
            ("vtrim exact join (MKV)", f"rm -f {q(out)}-e.mkv; {q(vtrim)} cut {q(path)} {keeps} --mode exact --preset {args.preset} -o {q(out)}-e.mkv")]
    print(f"bench: 10-range joins into MKV, {args.runs} alternating runs", file=sys.stderr, flush=True)
    results = benchlib.run_alternating(rows, args.runs, "join")
    print(f"\n### 10 ranges of 20 s joined from {os.path.basename(path)} into MKV, median of {args.runs} alternating runs\n")
    print(benchlib.table(results, rows, {"vtrim smart": rows[0][0]}))
    print(f"\nexact/smart {results[rows[1][0]][0] / results[rows[0][0]][0]:.1f}× (target ≥ 10)")
