#!/usr/bin/env python3
"""bench/corpus: a corpus split into scene clips — vtrim-ray on a local Ray cluster (a head without CPUs and two
one-CPU worker nodes, whose CPUs sum to this host's two cores; each task's vtrim one thread, as -j2 gives each input),
against `vtrim cut FILE… --propose scenes --output-dir D -j2` on the host alone, and against the re-encode-every-clip
chain video pipelines run (NeMo Curator's: an ffmpeg scene list, then one libx264 encode per clip; two inputs at once,
one thread each). 24 inputs at 1280x720, two to four shots each (--footage: test patterns of 16–20 s, or phone-like
footage of 29–38 s), made once into
$VTRIM_BENCH_CACHE/corpus720 or phone720 (Tests/cluster/corpus.py). The cluster's start is timed apart. Fidelity: each clip's
frames against the source's (PSNR over all clips; identical frames counted as 100 dB). Needs the venv scripts/cluster-test
makes (.venv-ray: ray and vtrim-ray). See BENCHMARKS.md."""
import argparse
import concurrent.futures
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "cluster"))
import benchlib  # noqa: E402
import corpus  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=1)
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
parser.add_argument("--count", type=int, default=24)
parser.add_argument("--footage", choices=["patterns", "phone"], default="patterns",
                    help="patterns: test pictures, a keyframe every 1.6 s, shots of 4.5–9 s; phone: what a phone records "
                         "(a keyframe every second, no B-frames, sensor grain, ~9.5 Mb/s), shots of 8–16 s")
args = parser.parse_args()
vtrim = os.path.abspath(args.vtrim)

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402
import vtrim_ray  # noqa: E402

folder_name, scale = {"patterns": ("corpus720", 4), "phone": ("phone720", 8)}[args.footage]
cache = os.path.join(os.environ.get("VTRIM_BENCH_CACHE", os.path.expanduser("~/.cache/vtrim-bench")), folder_name)
media = corpus.make(cache, count=args.count, size="1280x720", scale=scale, footage=args.footage)
paths = [path for path, _ in media]
work = benchlib.work_directory("vtrim-bench-corpus-")


def chain(out):
    """The re-encode-every-clip chain, per input: ffmpeg's scene score over 0.3 gives the cuts, each clip encoded.
    Returns [(clip, source, start, duration)]."""
    def one(path):
        found = subprocess.run(["ffmpeg", "-hide_banner", "-nostats", "-threads", "1", "-i", path, "-an", "-vf",
                                "select='gt(scene,0.3)',showinfo", "-f", "null", "-"], capture_output=True, text=True).stderr
        cuts = [float(match) for match in re.findall(r"pts_time:([0-9.]+)", found)]
        duration = benchlib.probe_duration(path)
        bounds = [0.0] + [cut for cut in cuts if 0 < cut < duration] + [duration]
        stem = os.path.splitext(os.path.basename(path))[0]
        clips = []
        for index, (start, end) in enumerate(zip(bounds, bounds[1:]), 1):
            clip = os.path.join(out, f"{stem}.{index}.mp4")
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", f"{start:.6f}", "-t", f"{end - start:.6f}", "-i", path,
                            "-c:v", "libx264", "-threads", "1", "-c:a", "aac", clip], check=True)
            clips.append((clip, path, start, end - start))
        return clips
    os.makedirs(out, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return [clip for clips in pool.map(one, paths) for clip in clips]


def psnr(clip, source, start, duration):
    """Per-frame PSNR of `clip` against the source's frames from `start` (identical frames: 100 dB)."""
    log = subprocess.run(["ffmpeg", "-hide_banner", "-nostats", "-i", clip, "-ss", f"{start:.6f}", "-t", f"{duration:.6f}",
                          "-i", source, "-lavfi", "[0:v][1:v]psnr=stats_file=-", "-f", "null", "-"],
                         capture_output=True, text=True).stdout
    values = [float(value) if value != "inf" else 100.0 for value in re.findall(r"psnr_avg:(\S+)", log)]
    return values


timings = {"vtrim-ray": [], "vtrim -j2": [], "chain": []}
cluster_start = []
counts = {}
for round_index in range(args.runs):
    # vtrim alone.
    out = os.path.join(work, f"serial{round_index}")
    started = time.perf_counter()
    subprocess.run([vtrim, "cut", *paths, "--propose", "scenes", "--output-dir", out, "-j", "2", "--quiet", "--json"],
                   stdout=subprocess.DEVNULL, check=True)
    timings["vtrim -j2"].append(time.perf_counter() - started)
    counts["vtrim -j2"] = len(os.listdir(out))
    # vtrim-ray.
    started = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    for _ in range(2):
        cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    cluster.wait_for_nodes()
    cluster_start.append(time.perf_counter() - started)
    out = os.path.join(work, f"ray{round_index}")
    started = time.perf_counter()
    summary = vtrim_ray.run(paths, vtrim_ray.Job(vtrim=vtrim, cpus=1, posters=False), out, progress=lambda *_: None)
    timings["vtrim-ray"].append(time.perf_counter() - started)
    counts["vtrim-ray"] = summary["outputs"]
    ray.shutdown()
    cluster.shutdown()
    # The chain.
    started = time.perf_counter()
    chain_clips = chain(os.path.join(work, f"chain{round_index}"))
    timings["chain"].append(time.perf_counter() - started)
    counts["chain"] = len(chain_clips)
    print(f"round {round_index + 1}: " + ", ".join(f"{name} {values[-1]:.1f} s" for name, values in timings.items()), file=sys.stderr)

# Fidelity of the last round's clips, each against the source's frames over its own range.
manifest = [json.loads(line) for line in open(os.path.join(work, f"ray{args.runs - 1}", "manifest.jsonl"))]
fidelity = {"vtrim-ray": [value for line in manifest for value in psnr(
    os.path.join(work, f"ray{args.runs - 1}", line["clip"]), line["source"], line["start"], line["end"] - line["start"])],
            "chain": [value for clip, source, start, duration in chain_clips for value in psnr(clip, source, start, duration)]}

median = {name: statistics.median(values) for name, values in timings.items()}
print(f"\n{args.count} inputs ({args.footage}), {sum(len(shots) for _, shots in media)} shots; medians of {args.runs} run(s); "
      f"the Ray cluster's start (head + 2 worker nodes): {statistics.median(cluster_start):.1f} s, not counted\n")
print("| command | clips | median wall (s) | ÷ vtrim -j2 | mean PSNR (dB) |")
print("|---|---:|---:|---:|---:|")
for name in ["vtrim-ray", "vtrim -j2", "chain"]:
    quality = fidelity.get(name)
    # vtrim -j2 writes the very clips vtrim-ray does (scripts/cluster-test compares their framemd5).
    shown = f"{statistics.mean(quality):.1f}" if quality else "as vtrim-ray"
    print(f"| {name} | {counts[name]} | {median[name]:.1f} | {median[name] / median['vtrim -j2']:.2f} | {shown} |")
print(f"\nthe chain ÷ vtrim-ray: {median['chain'] / median['vtrim-ray']:.1f}")
