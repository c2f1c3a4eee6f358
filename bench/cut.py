#!/usr/bin/env python3
"""bench/cut: cuts from the middle of the cached 10-minute 1080p file, vtrim against the ffmpeg command a
user would otherwise run, alternating runs, medians. See BENCHMARKS.md."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--preset", default="veryfast")
parser.add_argument("--crf", type=int, default=20)
parser.add_argument("--exact-long", action="store_true", help="also time exact cuts of the 5-minute segment (slow)")
parser.add_argument("--copy-only", action="store_true", help="time only the stream copies")
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
args = parser.parse_args()

media = benchlib.generated("make-media.sh")
path = next(p for p in media if "1080p" in p)
work = benchlib.work_directory("vtrim-bench-cut-")
vtrim = os.path.abspath(args.vtrim)
q = benchlib.quote
duration = benchlib.probe_duration(path)
middle = duration / 2

# Every command writes a fresh file (the previous round's output is removed first, inside the timed
# command, for both tools): replacing an existing output costs differently for an atomic rename than
# for ffmpeg's truncate-and-overwrite, and users mostly cut to new files.
# Both edges 1 s into a 2 s GOP (the file's keyframes are on even seconds), so a smart cut has a head
# and a tail to re-encode (on keyframes it would be a plain copy).
# The same stream in MPEG-TS (Annex B, sets in band), as cameras and recorders write it: copies and smart
# cuts into MP4 repackage it (lengths, sets into the sample entry).
ts_path = os.path.splitext(path)[0] + ".ts"
if not os.path.exists(ts_path) or os.path.getmtime(ts_path) < os.path.getmtime(path):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", path, "-map", "0", "-c", "copy", ts_path + ".part.ts"], check=True)
    os.replace(ts_path + ".part.ts", ts_path)
segments = [("60 s", path, middle - 29, middle + 31, True), ("5 min", path, middle - 149, middle + 151, args.exact_long),
            ("60 s MPEG-TS", ts_path, middle - 29, middle + 31, True)]
for label, path, start, end, with_exact in segments:
    s, e = f"{start:.3f}", f"{end:.3f}"
    out = os.path.join(work, label.replace(" ", ""))
    rows = [
        ("vtrim cut (copy)", f"rm -f {q(out)}-v.mp4; {q(vtrim)} cut {q(path)} --start {s} --end {e} -o {q(out)}-v.mp4"),
        ("ffmpeg -ss S -to E -i IN -c copy", f"rm -f {q(out)}-f.mp4; ffmpeg -v error -y -ss {s} -to {e} -i {q(path)} -c copy {q(out)}-f.mp4"),
    ]
    if not args.copy_only:
        # Smart: re-encodes only the partial GOPs at the edges (same preset; its own default CRF).
        rows.append((f"vtrim cut --mode smart --preset {args.preset}",
                     f"rm -f {q(out)}-vs.mp4; {q(vtrim)} cut {q(path)} --start {s} --end {e} --mode smart --preset {args.preset} -o {q(out)}-vs.mp4"))
    baselines = {"vtrim copy": "vtrim cut (copy)"}
    exact_rows = []
    if with_exact and not args.copy_only:
        exact_rows = [
            (f"vtrim cut --mode exact --preset {args.preset} --crf {args.crf}",
             f"rm -f {q(out)}-ve.mp4; {q(vtrim)} cut {q(path)} --start {s} --end {e} --mode exact --preset {args.preset} --crf {args.crf} -o {q(out)}-ve.mp4"),
            (f"ffmpeg -ss S -to E -i IN -c:v libx264 -preset {args.preset} -crf {args.crf} -c:a aac",
             f"rm -f {q(out)}-fe.mp4; ffmpeg -v error -y -ss {s} -to {e} -i {q(path)} -c:v libx264 -preset {args.preset} -crf {args.crf} -c:a aac {q(out)}-fe.mp4"),
        ]
        baselines["vtrim exact"] = exact_rows[0][0]
    print(f"bench: {label} cut of {os.path.basename(path)}, {args.runs} alternating runs", file=sys.stderr, flush=True)
    # Copy and exact cuts alternate within their own group, so minutes of encoding never sit between
    # two sub-second copy runs.
    results = benchlib.run_alternating(rows, args.runs, label)
    if exact_rows:
        results.update(benchlib.run_alternating(exact_rows, args.runs, label))
    rows += exact_rows
    with_exact = bool(exact_rows)
    print(f"\n### {label} from the middle of {os.path.basename(path)} ({duration:.0f} s 1080p30) into MP4, median of {args.runs} alternating runs\n")
    print(benchlib.table(results, rows, baselines))
    copy, ffcopy = results[rows[0][0]], results[rows[1][0]]
    print(f"\ncopy: speed ratio ffmpeg/vtrim {ffcopy[0] / copy[0]:.2f} (target ≥ 0.95), peak RSS vtrim/ffmpeg {copy[1] / ffcopy[1]:.2f}")
    smart = next((results[name] for name, _ in rows if "--mode smart" in name), None)
    if smart:
        print(f"smart: time smart/copy {smart[0] / copy[0]:.1f}")
    if with_exact:
        exact_name = exact_rows[0][0]
        exact, ffexact = results[exact_name], results[exact_rows[1][0]]
        print(f"exact: time vtrim/ffmpeg {exact[0] / ffexact[0]:.3f} (target ≤ 1.05), peak RSS vtrim/ffmpeg {exact[1] / ffexact[1]:.2f}")
        if smart:
            print(f"smart: exact/smart speed-up {exact[0] / smart[0]:.1f}× (target ≥ 15 for 60 s)")
    sys.stdout.flush()

# Smart cut budget (issue 23): a smart cut should take at most a copy of the same range plus the longer of
# its two edges cut exactly on their own — the head and the tail are encoded concurrently while the middle
# is copied. The edges come from the smart plan itself (`--dry-run --json`), all four commands alternate in
# one group, and one more smart run prints where its time goes (VTRIM_STAGE_TIMES) and how many encoders it
# opened; the edges' PSNR against the source is the lowest of any frame.
if not args.copy_only:
    import json
    path = next(p for p in media if "1080p" in p)
    start, end = middle - 29, middle + 31
    s, e = f"{start:.3f}", f"{end:.3f}"
    out = os.path.join(work, "budget")
    smart_args = f"--mode smart --preset {args.preset}"
    plan = json.loads(subprocess.run([vtrim, "cut", path, "--start", s, "--end", e, "--mode", "smart", "--preset", args.preset,
                                      "--dry-run", "--json", "-o", out + "-plan.mp4"], capture_output=True, text=True, check=True).stdout)
    head, tail = plan["smart"]["head"], plan["smart"]["tail"]
    rows = [
        ("vtrim cut (copy)", f"rm -f {q(out)}-c.mp4; {q(vtrim)} cut {q(path)} --start {s} --end {e} -o {q(out)}-c.mp4"),
        (f"vtrim cut {smart_args}", f"rm -f {q(out)}-s.mp4; {q(vtrim)} cut {q(path)} --start {s} --end {e} {smart_args} -o {q(out)}-s.mp4"),
        # The edges at the smart cut's own quality (its default CRF, 16).
        (f"head alone: exact {head[0]:.3f}–{head[1]:.3f}",
         f"rm -f {q(out)}-h.mp4; {q(vtrim)} cut {q(path)} --start {head[0]:.6f} --end {head[1]:.6f} --mode exact --crf 16 --preset {args.preset} -o {q(out)}-h.mp4"),
        (f"tail alone: exact {tail[0]:.3f}–{tail[1]:.3f}",
         f"rm -f {q(out)}-t.mp4; {q(vtrim)} cut {q(path)} --start {tail[0]:.6f} --end {tail[1]:.6f} --mode exact --crf 16 --preset {args.preset} -o {q(out)}-t.mp4"),
    ]
    print(f"bench: smart budget, 60 s of {os.path.basename(path)}, {args.runs} alternating runs", file=sys.stderr, flush=True)
    results = benchlib.run_alternating(rows, args.runs, "budget")
    print(f"\n### Smart budget: 60 s ({s}–{e}) of {os.path.basename(path)}, median of {args.runs} alternating runs\n")
    print(benchlib.table(results, rows, {"vtrim copy": rows[0][0]}))
    copy_s, smart_s, head_s, tail_s = (results[name][0] for name, _ in rows)
    target = copy_s + max(head_s, tail_s)
    print(f"\nsmart {smart_s:.2f} s; target copy + max(head, tail) = {copy_s:.2f} + {max(head_s, tail_s):.2f} = {target:.2f} s;"
          f" smart/target {smart_s / target:.2f} (met when ≤ 1.00)")
    staged = subprocess.run(f"{q(vtrim)} cut {q(path)} --start {s} --end {e} {smart_args} -o {q(out)}-st.mp4 --overwrite",
                            shell=True, capture_output=True, text=True, env=dict(os.environ, VTRIM_STAGE_TIMES="1"))
    print("where the time goes: " + next((line.split("stages: ", 1)[1] for line in staged.stderr.splitlines() if "stages:" in line), "?"))
    # Lowest per-frame PSNR of the smart output against the source's same frames (copied frames are identical).
    stats = os.path.join(work, "psnr.log")
    subprocess.run(["ffmpeg", "-v", "error", "-i", f"{out}-s.mp4", "-ss", s, "-to", e, "-i", path, "-lavfi",
                    f"[0:v]setpts=PTS-STARTPTS[a];[1:v]setpts=PTS-STARTPTS[b];[a][b]psnr=stats_file={stats}", "-f", "null", "-"],
                   check=True)
    values = [float(field.split(":")[1]) for line in open(stats) for field in line.split() if field.startswith("psnr_avg:")
              and field.split(":")[1] != "inf"]
    print(f"edges: lowest frame PSNR {min(values):.1f} dB over {len(values)} re-encoded frames (target ≥ 40)" if values else "edges: no re-encoded frames")
