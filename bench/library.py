#!/usr/bin/env python3
"""bench/thumbs --library: Jellyfin-format storyboards (a thumbnail every 10 s, 320 px wide, 10x10 sheets) for a
generated library of 20 films (bench/make-library-media.sh, about 21 minutes of video), vtrim against the command
Jellyfin runs — its software chain with Debian's ffmpeg, one film per process with `-threads 1`, `fps=0.1`, scale,
mjpeg at `-qscale:v 4`, then the thumbnails tiled into sheets — by default and with `-skip_frame nokey` (its
keyframe-only option), at equal parallelism (vtrim -j CORES; Jellyfin's films CORES at a time). Alternating runs,
medians. Also checks vtrim's cells: accurate cells show the frame at their time, fast ones a keyframe at or
before it (no more than one interval before)."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
args = parser.parse_args()

library = benchlib.generated("make-library-media.sh")[0]
films = sorted(glob.glob(os.path.join(library, "*.mp4")))
minutes = sum(benchlib.probe_duration(f) for f in films) / 60
work = benchlib.work_directory("vtrim-bench-library-")
vtrim = os.path.abspath(args.vtrim)
q = benchlib.quote
jobs = args.jobs

# Jellyfin 10.10's software trickplay chain for one film (MediaEncoder.ExtractVideoImagesOnIntervalAccelerated
# without hardware): decode (all frames, or keyframes only), fps=1/10, scale to 320 wide, mjpeg q4 — then its
# tiler lays the thumbnails into 10x10 sheets (here ffmpeg's tile filter, q4 as well).
jellyfin_film = r'''
film="$1"; out="$2/$(basename "${film%.*}")"; mkdir -p "$out/thumbs" "$out/sheets"
ffmpeg -loglevel error -threads 1 $SKIP -i "$film" -an -sn -dn \
  -vf "fps=1/10,scale=w=320:h=-2:flags=bicubic,format=yuvj420p" -threads 1 -c:v mjpeg -qscale:v 4 -f image2 "$out/thumbs/%08d.jpg"
ffmpeg -loglevel error -framerate 1 -i "$out/thumbs/%08d.jpg" -vf "tile=10x10" -qscale:v 4 -start_number 0 "$out/sheets/%d.jpg"
'''
script = os.path.join(work, "jellyfin-film.sh")
with open(script, "w") as handle:
    handle.write(jellyfin_film)
film_list = " ".join(q(f) for f in films)


def jellyfin(skip):
    out = os.path.join(work, "jf-key" if skip else "jf")
    env = "SKIP='-skip_frame nokey'" if skip else "SKIP=''"
    return f"rm -rf {q(out)}; printf '%s\\n' {film_list} | {env} xargs -P {jobs} -I{{}} bash {q(script)} {{}} {q(out)}"


def vtrim_row(mode):
    out = os.path.join(work, f"vtrim-{mode}")
    return (f"rm -rf {q(out)}; {q(vtrim)} thumbs -r {q(library)} --storyboard jellyfin --mode {mode} --output-dir {q(out)} "
            f"-j {jobs} --json > {q(out)}.jsonl")


rows = [
    ("vtrim --storyboard jellyfin (accurate)", vtrim_row("accurate")),
    ("vtrim --storyboard jellyfin --mode fast", vtrim_row("fast")),
    ("Jellyfin's chain (full decode)", jellyfin(False)),
    ("Jellyfin's chain, keyframes only (-skip_frame nokey)", jellyfin(True)),
]
print(f"bench: library of {len(films)} films ({minutes:.1f} min), {args.runs} alternating runs, {jobs} at a time", file=sys.stderr, flush=True)
results = benchlib.run_alternating(rows, args.runs, "library")
print(f"\n#### {len(films)} films, {minutes:.1f} minutes of video (19 at 1080p30 H.264/HEVC with GOPs of 1–10 s, one 30 s 4K HDR10), "
      f"a thumbnail every 10 s at 320 px in 10x10 sheets, {jobs} at a time; median of {args.runs} alternating runs\n")
print(benchlib.table(results, rows, {"vtrim accurate": rows[0][0], "vtrim fast": rows[1][0]}))
accurate, fast, default, keyframes = (results[name][0] for name, _ in rows)
print(f"\nJellyfin's default / vtrim accurate: {default / accurate:.2f}× (goal ≥ 3); "
      f"Jellyfin's keyframe-only / vtrim fast: {keyframes / fast:.2f}× (goal ≥ 1); "
      f"Jellyfin's keyframe-only / vtrim accurate: {keyframes / accurate:.2f}×")

# vtrim's cells: the frame at each time (accurate), or a keyframe at most one interval before (fast).
for mode in ("accurate", "fast"):
    entries = [json.loads(line) for line in open(os.path.join(work, f"vtrim-{mode}.jsonl")) if line.strip()]
    cells = [c for e in entries for c in e.get("cells", [])]
    late = [c for c in cells if c.get("pts") is None or c["pts"] > c["time"] + 1e-6 or c["time"] - c["pts"] > (1 / 29.97 if mode == "accurate" else 10) + 1e-6]
    drawn = sum(e.get("storyboard", {}).get("drawn_accurately", 0) for e in entries)
    sheets = sum(len(e.get("storyboard", {}).get("files", [])) for e in entries)
    print(f"vtrim {mode}: {len(entries)} films, {len(cells)} thumbnails in {sheets} sheets; "
          f"{len(cells) - len(late)} within {'a frame' if mode == 'accurate' else 'an interval'} before their time"
          + (f"; {drawn} drawn from their own frame (keyframe over 10 s before)" if mode == "fast" else ""))
jf_sheets = len(glob.glob(os.path.join(work, "jf", "*", "sheets", "*.jpg")))
print(f"Jellyfin's chain: {jf_sheets} sheets")
shutil.rmtree(work, ignore_errors=True)
