#!/usr/bin/env python3
"""bench/probe: `vtrim probe` over every file of ../shared/media (headers, the readable extent and the
first video frame) against an ffprobe loop (headers only) and ffprobe's own -count_packets (which reads
everything, as finding a truncation that way needs); alternating runs, medians. See BENCHMARKS.md."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--media", default=os.path.join(here, "..", "..", "shared", "media"))
parser.add_argument("--vtrim", default=os.path.join(here, "..", ".build", "release", "vtrim"))
args = parser.parse_args()

media = os.path.abspath(args.media)
files = sorted(os.path.join(root, name) for root, _, names in os.walk(media) for name in names
               if not name.endswith((".tsv", ".md", ".txt")))
if not files:
    sys.exit(f"bench: no media in {media}")
vtrim = os.path.abspath(args.vtrim)
q = benchlib.quote
listed = " ".join(q(f) for f in files)
rows = [
    ("vtrim probe --json (-j1)", f"{q(vtrim)} probe --json -j 1 --quiet {listed} || true"),
    ("vtrim probe --json (-j2)", f"{q(vtrim)} probe --json -j 2 --quiet {listed} || true"),
    ("ffprobe loop: -show_format -show_streams", "; ".join(f"ffprobe -v quiet -of json -show_format -show_streams {q(f)}" for f in files) + "; true"),
    ("ffprobe loop: + -count_packets", "; ".join(f"ffprobe -v quiet -of json -count_packets -show_format -show_streams {q(f)}" for f in files) + "; true"),
]
print(f"bench: {len(files)} files in {media}, {args.runs} alternating runs", file=sys.stderr, flush=True)
results = benchlib.run_alternating(rows, args.runs, "probe")
print(f"\n### {len(files)} files of ../shared/media, median of {args.runs} alternating runs\n")
print(benchlib.table(results, rows, {"vtrim -j2": rows[1][0]}))
print(f"\nvtrim probe -j2: {results[rows[1][0]][0]:.2f} s for {len(files)} files (target: well under 1 s)")
