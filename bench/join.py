#!/usr/bin/env python3
"""bench/cut --joins: 10 ranges of the cached 10-minute 1080p file joined into one, vtrim's smart, copy and exact
joins against LosslessCut's way (each range `ffmpeg -ss S -to E -i IN -c copy`, then the concat demuxer):
time (alternating runs, medians) and how many presented frames differ from the ideal (each output's frames
decoded small and matched to the source's). See BENCHMARKS.md."""
import argparse
import difflib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--preset", default="veryfast")
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
parser.add_argument("--no-frames", action="store_true", help="skip the frame comparison (it decodes the whole source)")
args = parser.parse_args()

media = benchlib.generated("make-media.sh")
path = next(p for p in media if "1080p" in p)
work = benchlib.work_directory("vtrim-bench-join-")
vtrim = os.path.abspath(args.vtrim)
q = benchlib.quote
duration = benchlib.probe_duration(path)
# Ten ranges of 20 s, each starting and ending half a second into a 2 s GOP (keyframes on even seconds), so
# every seam has a head and a tail to re-encode: 200 s kept of 600.
ranges = [(30.5 + 55 * k, 50.5 + 55 * k) for k in range(10)]
total = sum(end - start for start, end in ranges)
keeps = " ".join(f"--keep {start:.3f}..{end:.3f}" for start, end in ranges)
out = os.path.join(work, "join")

# The seams' frames alone: every edge a smart join re-encodes (from its own plan), encoded exactly at the
# smart cut's quality, one after another.
edges = []
for start, end in ranges:
    plan = json.loads(subprocess.run([vtrim, "cut", path, "--start", f"{start:.3f}", "--end", f"{end:.3f}", "--mode", "smart", "--dry-run",
                                      "--json", "-o", out + "-plan.mp4"], capture_output=True, text=True, check=True).stdout)
    edges += [span for span in (plan["smart"]["head"], plan["smart"]["tail"]) if span]
edge_commands = "; ".join(f"{q(vtrim)} cut {q(path)} --start {a:.6f} --end {b:.6f} --mode exact --crf 16 --preset {args.preset} -o {q(out)}-e{i}.mp4 --overwrite"
                          for i, (a, b) in enumerate(edges))
parts = "; ".join(f"ffmpeg -v error -y -ss {start:.3f} -to {end:.3f} -i {q(path)} -c copy -avoid_negative_ts make_zero {q(out)}-p{i}.mp4"
                  for i, (start, end) in enumerate(ranges))
concat_list = os.path.join(work, "concat.txt")
with open(concat_list, "w") as listed:
    listed.write("".join(f"file '{out}-p{i}.mp4'\n" for i in range(len(ranges))))
middle = duration / 2
rows = [
    ("vtrim smart join (MP4)", f"rm -f {q(out)}-s.mp4; {q(vtrim)} cut {q(path)} {keeps} --mode smart --preset {args.preset} -o {q(out)}-s.mp4"),
    ("vtrim copy join (MKV)", f"rm -f {q(out)}-c.mkv; {q(vtrim)} cut {q(path)} {keeps} --mode copy -o {q(out)}-c.mkv"),
    (f"vtrim copy, one {total:.0f} s range (MKV)",
     f"rm -f {q(out)}-one.mkv; {q(vtrim)} cut {q(path)} --start {middle - total / 2:.3f} --end {middle + total / 2:.3f} -o {q(out)}-one.mkv"),
    (f"the seams' {len(edges)} edges alone, exact", edge_commands),
    ("LosslessCut's way: ffmpeg -ss -to -c copy ×10, concat", f"{parts}; ffmpeg -v error -y -f concat -safe 0 -i {q(concat_list)} -c copy {q(out)}-l.mp4"),
    ("vtrim copy join (MP4, an edit per range)", f"rm -f {q(out)}-c.mp4; {q(vtrim)} cut {q(path)} {keeps} --mode copy -o {q(out)}-c.mp4"),
]
print(f"bench: joins of {len(ranges)} ranges ({total:.0f} s) of {os.path.basename(path)}, {args.runs} alternating runs", file=sys.stderr, flush=True)
results = benchlib.run_alternating(rows, args.runs, "join")
exact_row = [(f"vtrim exact join --preset {args.preset}", f"rm -f {q(out)}-x.mp4; {q(vtrim)} cut {q(path)} {keeps} --mode exact --preset {args.preset} -o {q(out)}-x.mp4")]
print("bench: the exact join, once (minutes)", file=sys.stderr, flush=True)
results.update(benchlib.run_alternating(exact_row, 1, "join"))
rows += exact_row
print(f"\n### {len(ranges)} ranges of 20 s ({total:.0f} s) joined from {os.path.basename(path)} ({duration:.0f} s 1080p30), median of {args.runs} alternating runs (exact: 1 run)\n")
print(benchlib.table(results, rows, {"vtrim copy join": rows[1][0]}))
smart, copy, single, seams, _ = (results[name][0] for name, _ in rows[:5])
copy_mp4 = results[rows[5][0]][0]
exact = results[rows[-1][0]][0]
print(f"\nsmart join {smart:.2f} s; target copy join + 1.3 × seams = {copy:.2f} + 1.3 × {seams:.2f} = {copy + 1.3 * seams:.2f} s; met: {smart <= copy + 1.3 * seams}")
print(f"exact join / smart join: {exact / smart:.1f}× (target ≥ 10)")
print(f"copy join / one copy of the same length: {copy / single:.2f} (target ≤ 1.2); MP4 copy join / one MKV copy: {copy_mp4 / single:.2f}")

if not args.no_frames:
    # Presented frames against the ideal: each output decoded to 64×36 grey, every frame matched to the source
    # frame it shows (exactly where copied, nearest where re-encoded); frames that differ = extra + missing
    # against the ideal sequence (the ranges' frames in order).
    width, height = 64, 36
    size = width * height

    def frames(name):
        raw = subprocess.run(["ffmpeg", "-v", "error", "-i", name, "-map", "0:v:0", "-vf", f"scale={width}:{height}", "-fps_mode", "passthrough",
                              "-f", "rawvideo", "-pix_fmt", "gray", "-"], capture_output=True, check=True).stdout
        return [raw[i:i + size] for i in range(0, len(raw) - size + 1, size)]

    print("bench: decoding the source and the outputs for the frame comparison", file=sys.stderr, flush=True)
    source = frames(path)
    times = sorted(float(t) for t in subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                                                      "-of", "csv=p=0", path], capture_output=True, text=True, check=True).stdout.split())
    start_time = float(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", path],
                                      capture_output=True, text=True, check=True).stdout.strip() or 0)
    times = [t - start_time for t in times]
    ideal = []
    for start, end in ranges:
        first = max(i for i, t in enumerate(times) if t <= start + 5e-7)
        last = max(i for i, t in enumerate(times) if t < end - 5e-7)
        ideal += list(range(first, last + 1))
    where = {}
    for index, frame in enumerate(source):
        where.setdefault(frame, index)

    def distance(a, b):
        return sum(abs(x - y) for x, y in zip(a[::3], b[::3]))

    def matched(name):
        # A copied frame decodes to the source's own pixels: matched exactly. A re-encoded one is the ideal frame
        # at its place when it is at least as close to that frame as to its neighbours (ties: frames that look
        # the same at this size count as the same); otherwise its nearest neighbour.
        shown = []
        for position, frame in enumerate(frames(name)):
            index = where.get(frame)
            if index is None:
                expected = ideal[min(position, len(ideal) - 1)]
                window = range(max(0, expected - 3), min(len(source), expected + 4))
                best = min(window, key=lambda i: distance(source[i], frame))
                index = expected if distance(source[expected], frame) <= distance(source[best], frame) * 1.02 + size // 3 else best
            shown.append(index)
        return shown

    print("\nFrames shown against the ideal (copied frames matched exactly, re-encoded ones to the nearest of the ideal frame"
          " and its neighbours at 64×36):")
    print(f"\n| output | presented frames | ideal | extra | missing |\n|---|---:|---:|---:|---:|")
    for label, name in [("vtrim smart join", out + "-s.mp4"), ("vtrim exact join", out + "-x.mp4"), ("vtrim copy join (MKV)", out + "-c.mkv"),
                        ("vtrim copy join (MP4)", out + "-c.mp4"), ("LosslessCut's way", out + "-l.mp4")]:
        shown = matched(name)
        common = sum(block.size for block in difflib.SequenceMatcher(None, shown, ideal, autojunk=False).get_matching_blocks())
        print(f"| {label} | {len(shown)} | {len(ideal)} | {len(shown) - common} | {len(ideal) - common} |")
