#!/usr/bin/env python3
"""bench/streams: cutting 31–37 s out of a 60 s HLS VOD (ten 6 s segments; TS and fMP4) and a 60 s MP4 whose index
sits at its end, all served by a loopback origin that counts what is fetched — vtrim against the ffmpeg commands a
user would run (`-ss` before `-i` with stream copy; `-ss` after `-i`, re-encoding). Per command: median wall time,
requests and bytes fetched, and frames written against the frames the range shows (181 on the streams' timeline, where
video starts 21 ms after the sound; 180 in the MP4, whose edit list starts both at 0). See BENCHMARKS.md."""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "Tests"))
import benchlib  # noqa: E402
from streams import streammedia  # noqa: E402
from streams.origin import Origin  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
args = parser.parse_args()

media = streammedia.media()
work = benchlib.work_directory("vtrim-bench-streams-")
env = dict(os.environ, no_proxy="127.0.0.1,localhost")


def frames(path):
    result = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_frames", "-show_entries", "stream=nb_read_frames",
                             "-of", "json", path], capture_output=True, text=True)
    try:
        return int(json.loads(result.stdout)["streams"][0]["nb_read_frames"])
    except (ValueError, KeyError, IndexError):
        return 0


with Origin(media) as origin:
    for source, ideal in (("ts/index.m3u8", 181), ("fmp4/index.m3u8", 181), ("moovlast.mp4", 180)):
        url = origin.url(source)
        out = os.path.join(work, "out.mp4")
        rows = [
            ("vtrim cut URL --start 31 --end 37 (smart)", f"{benchlib.quote(args.vtrim)} cut {url} --start 31 --end 37 -o {out} --overwrite"),
            ("ffmpeg -ss 31 -t 6 -i URL -c copy", f"ffmpeg -v error -y -ss 31 -t 6 -i {url} -c copy {out}"),
            ("ffmpeg -i URL -ss 31 -t 6 (re-encode)", f"ffmpeg -v error -y -i {url} -ss 31 -t 6 -c:v libx264 -preset veryfast -c:a aac {out}"),
        ]
        fetched = {}
        for name, command in rows:
            origin.clear()
            subprocess.run(["bash", "-c", command], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            fetched[name] = (len(origin.requests()), origin.bytes_sent(), frames(out), origin.largest_range())
        results = benchlib.run_alternating(rows, args.runs, label=source)
        print(f"\n### {source} (31–37 s: {ideal} frames)\n")
        print("| command | median wall (s) | ÷ vtrim | requests | bytes fetched | largest answer | frames written |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        base = results[rows[0][0]][0]
        for name, _ in rows:
            requests, bytes_sent, count, largest = fetched[name]
            print(f"| {name} | {results[name][0]:.2f} | {results[name][0] / base:.2f} | {requests} | {bytes_sent:,} | {largest:,} | {count} |")
