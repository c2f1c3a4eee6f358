#!/usr/bin/env python3
"""bench/cut --codecs: smart cuts of the frame-spliced codecs at 1080p30. The first 200 s of the cached 10-minute 1080p
file is encoded once per family — VP9 into WebM, VP8 into WebM, AV1 (libsvtav1 preset 12) into Matroska with Opus audio,
MPEG-2 (15 Mbit/s, at most 20, two B-frames, open GOPs) into MPEG-TS with MP2 audio, each with a keyframe every 2 s —
and cached beside it. Per family, alternating runs, medians: a 60 s smart cut against
a copy of the same range plus the longer of its two edges cut exactly alone (target: smart ≤ (copy + longer edge) × 1.10)
and against the exact cut (target ≥ 10× faster); then, for VP9, AV1 and MPEG-2, a 10-range smart join against the exact join
(target ≥ 10× faster). See BENCHMARKS.md."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--exact-runs", type=int, default=1, help="runs of the exact cuts and joins (minutes each)")
parser.add_argument("--preset", default="veryfast")
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
parser.add_argument("--families", default="vp9,vp8,av1,mpeg2")
parser.add_argument("--no-join", action="store_true", help="skip the 10-range joins")
parser.add_argument("--no-single", action="store_true", help="skip the 60 s cuts (joins only)")
args = parser.parse_args()

media = benchlib.generated("make-media.sh")
mp4 = next(p for p in media if "1080p" in p)
work = benchlib.work_directory("vtrim-bench-codecs-")
vtrim = os.path.abspath(args.vtrim)
q = benchlib.quote
SECONDS = 200
ENCODINGS = {
    "vp9": ("webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1", "-b:v", "6M"]),
    "vp8": ("webm", ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "8M"]),
    "av1": ("mkv", ["-c:v", "libsvtav1", "-preset", "12", "-crf", "35"]),
    "mpeg2": ("ts", ["-c:v", "mpeg2video", "-b:v", "15M", "-maxrate", "20M", "-bufsize", "9781k", "-bf", "2"]),
}
AUDIO = {"mpeg2": ["-c:a", "mp2", "-b:a", "192k"]}


def encoded(family):
    """The first 200 s of the cached file in this family's codec, made once beside it (minutes)."""
    ext, arguments = ENCODINGS[family]
    path = os.path.splitext(mp4)[0] + f"-{SECONDS}s-{family}.{ext}"
    if not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(mp4):
        print(f"bench: encoding {os.path.basename(path)} (once)", file=sys.stderr, flush=True)
        part = path + ".part." + ext
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", mp4, "-t", str(SECONDS), "-map", "0:v:0", "-map", "0:a:0", *arguments,
                        "-g", "60", "-keyint_min", "60",
                        *AUDIO.get(family, ["-c:a", "libopus", "-b:a", "128k"]), part], check=True,
                       env={**os.environ, "SVT_LOG": "1"})
        os.replace(part, path)
    return path


def run_join(family, path, ext, out):
    """A 10-range smart join against the exact join (VP9, AV1 and MPEG-2)."""
    if family not in ("vp9", "av1", "mpeg2"):
        return
    # Ten ranges of 18 s, each edge 1 s into a 2 s GOP: 2 s of every 18 re-encoded (bench/join.py's H.264 ranges
    # re-encode 2 s of every 20).
    ranges = [(1.0 + 20 * k, 19.0 + 20 * k) for k in range(10)]
    keeps = " ".join(f"--keep {a:.3f}..{b:.3f}" for a, b in ranges)
    rows = [(f"vtrim smart join ({family})", f"rm -f {q(out)}-js.{ext}; {q(vtrim)} cut {q(path)} {keeps} --mode smart --preset {args.preset} -o {q(out)}-js.{ext}")]
    exact = [(f"vtrim exact join ({family})", f"rm -f {q(out)}-je.{ext}; {q(vtrim)} cut {q(path)} {keeps} --mode exact --preset {args.preset} -o {q(out)}-je.{ext}")]
    print(f"bench: 10-range joins of {family}", file=sys.stderr, flush=True)
    results = benchlib.run_alternating(rows, args.runs, "join")
    results.update(benchlib.run_alternating(exact, args.exact_runs, "join"))
    print(f"\n### 10 ranges of 18 s joined from {os.path.basename(path)}, medians of {args.runs} runs ({args.exact_runs} of the exact join)\n")
    print(benchlib.table(results, rows + exact, {"vtrim smart": rows[0][0]}))
    line = f"{family} join: exact/smart {results[exact[0][0]][0] / results[rows[0][0]][0]:.1f}× (target ≥ 10)"
    print("\n" + line)
    summary.append(line)
    sys.stdout.flush()


summary = []
families = args.families.split(",")
# Every source first: their encodes are not timed, and nothing timed runs beside them.
paths = {family: encoded(family) for family in families}
print("bench: sources ready", file=sys.stderr, flush=True)
for family in families:
    path = paths[family]
    ext = ENCODINGS[family][0]
    out = os.path.join(work, family)
    if args.no_single:
        run_join(family, path, ext, out)
        continue
    # Both edges 1 s into a 2 s GOP, so the smart cut has a head and a tail to re-encode.
    start, end = 71.0, 131.0
    plan, rows, exact = benchlib.smart_budget_rows(vtrim, path, out, ext, start, end, args.preset)
    edges = plan["smart"]["edges"]
    print(f"bench: 60 s of {family}, {args.runs} alternating runs", file=sys.stderr, flush=True)
    results = benchlib.run_alternating(rows, args.runs, family)
    results.update(benchlib.run_alternating(exact, args.exact_runs, family))
    print(f"\n### 60 s ({start:.3f}–{end:.3f}) of {os.path.basename(path)}, smart edges by {edges['encoder']}; medians of {args.runs} alternating"
          f" runs ({args.exact_runs} of the exact cut)\n")
    print(benchlib.table(results, rows + exact, {"vtrim copy": rows[0][0]}))
    line = benchlib.budget_line(f"{family}: ", results, rows, exact)
    print("\n" + line)
    summary.append(line)
    sys.stdout.flush()

    if not args.no_join:
        run_join(family, path, ext, out)

print("\n" + "\n".join(summary))
