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
parser.add_argument("--long", action="store_true",
                    help="the 2-hour 1080p30 VOD (made once into $VTRIM_BENCH_CACHE/streams2h, ~15 GB): 30 s cuts from HLS-TS, "
                         "HLS-fMP4 and DASH against the transfer and a local cut of the same segments, and a 30-minute manifest cut")
args = parser.parse_args()

work = benchlib.work_directory("vtrim-bench-streams-")
env = dict(os.environ, no_proxy="127.0.0.1,localhost")


def frames(path):
    result = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_frames", "-show_entries", "stream=nb_read_frames",
                             "-of", "json", path], capture_output=True, text=True)
    try:
        return int(json.loads(result.stdout)["streams"][0]["nb_read_frames"])
    except (ValueError, KeyError, IndexError):
        return 0


def mp4_boxes(path):
    import struct
    found, position, size_total = [], 0, os.path.getsize(path)
    with open(path, "rb") as handle:
        while position + 8 <= size_total:
            handle.seek(position)
            size, kind = struct.unpack(">I4s", handle.read(8))
            if size == 1:
                size = struct.unpack(">Q", handle.read(8))[0]
            if size < 8:
                break
            found.append((kind.decode("latin-1"), position, size))
            position += size
    return found


def long_vod():
    """60 s of 1080p30 H.264 (4 Mb/s) + AAC looped to 2 hours, as HLS-TS, HLS-fMP4 and DASH of 6 s segments."""
    folder = os.path.join(os.environ.get("VTRIM_BENCH_CACHE", os.path.expanduser("~/.cache/vtrim-bench")), "streams2h")
    if os.path.exists(os.path.join(folder, "dash", "manifest.mpd")):
        return folder
    os.makedirs(folder, exist_ok=True)
    one, long = os.path.join(folder, "one.mp4"), os.path.join(folder, "long.mp4")
    steps = [
        ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=60", "-f", "lavfi", "-i",
         "sine=frequency=440:sample_rate=48000:duration=60", "-c:v", "libx264", "-preset", "veryfast", "-b:v", "4M", "-maxrate", "5M",
         "-bufsize", "8M", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", "-shortest", one],
        ["ffmpeg", "-v", "error", "-y", "-stream_loop", "119", "-i", one, "-c", "copy", "-movflags", "+faststart", long],
    ]
    for kind, extra in (("ts", []), ("fmp4", ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"])):
        os.makedirs(os.path.join(folder, kind), exist_ok=True)
        steps.append(["ffmpeg", "-v", "error", "-y", "-i", long, "-c", "copy", "-f", "hls", "-hls_time", "6", "-hls_playlist_type", "vod", *extra,
                      "-hls_segment_filename", os.path.join(folder, kind, "seg%04d." + ("ts" if kind == "ts" else "m4s")),
                      os.path.join(folder, kind, "index.m3u8")])
    os.makedirs(os.path.join(folder, "dash"), exist_ok=True)
    steps.append(["ffmpeg", "-v", "error", "-y", "-i", long, "-c", "copy", "-f", "dash", "-seg_duration", "6", "-use_template", "1",
                  "-use_timeline", "1", "-init_seg_name", "init-$RepresentationID$.m4s", "-media_seg_name", "chunk-$RepresentationID$-$Number%05d$.m4s",
                  os.path.join(folder, "dash", "manifest.mpd")])
    for step in steps:
        subprocess.run(step, check=True)
    return folder


def ideal_frames(folder, kind, start, end):
    """The frames the range [start, end) of the playlist `kind/index.m3u8` shows (DESIGN.md's ideal: from the frame shown
    at `start` through the last beginning before `end`), on the URL's timeline (0 at the earliest first timestamp of
    segment 0), read by ffprobe from the source's own segments around the range, through local playlists."""
    lines = open(os.path.join(folder, kind, "index.m3u8")).read().splitlines()
    root = os.path.join(folder, kind)
    header = [line.replace('URI="', f'URI="{root}/') for line in lines if line.startswith("#EXT-X-MAP")]
    entries = [(float(line[8:].split(",")[0]), lines[i + 1]) for i, line in enumerate(lines) if line.startswith("#EXTINF:")]

    def times(indices, stream):
        path = os.path.join(work, f"ideal-{kind}.m3u8")
        with open(path, "w") as out:
            out.write("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:7\n#EXT-X-PLAYLIST-TYPE:VOD\n" + "".join(line + "\n" for line in header))
            out.write("".join(f"#EXTINF:{entries[i][0]:.6f},\n{root}/{entries[i][1]}\n" for i in indices) + "#EXT-X-ENDLIST\n")
        result = subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time", "-of", "csv=p=0", path],
                                capture_output=True, text=True, check=True)
        values = (line.split(",")[0] for line in result.stdout.split())
        return sorted(float(value) for value in values if value not in ("", "N/A"))

    origin = min(times([0], "v")[0], times([0], "a")[0])
    starts = [sum(duration for duration, _ in entries[:i]) for i in range(len(entries))]
    first = max(0, max(i for i, at in enumerate(starts) if at <= start) - 1)
    last = min(len(entries) - 1, max(i for i, at in enumerate(starts) if at < end) + 1)
    shown = times(range(first, last + 1), "v")
    return sum(1 for at, after in zip(shown, shown[1:]) if at - origin < end - 1e-6 and after - origin > start + 1e-6)


def start_time(path):
    """The file's earliest first timestamp (seconds of container time), as ffprobe reads it."""
    result = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", path],
                            capture_output=True, text=True, check=True)
    return float(result.stdout.strip())


def url_origin(folder, source):
    """Where the URL's timeline begins (container seconds): the earliest first timestamp of segment 0 of each track."""
    kind = source.split("/")[0]
    if kind == "dash":
        pairs = [("init-0.m4s", "chunk-0-00001.m4s"), ("init-1.m4s", "chunk-1-00001.m4s")]
    elif kind == "fmp4":
        pairs = [("init.mp4", "seg0000.m4s")]
    else:
        pairs = [(None, "seg0000.ts")]
    times = []
    for init, segment in pairs:
        path = os.path.join(work, "segment0" + (".ts" if init is None else ".mp4"))
        with open(path, "wb") as handle:
            for name in ([init] if init else []) + [segment]:
                handle.write(open(os.path.join(folder, kind, name), "rb").read())
        times.append(start_time(path))
    return min(times)


def long_bench():
    folder = long_vod()
    with Origin(folder) as origin:
        print(f"\n### 2-hour 1080p30 VOD: 30 s from 1:00:00 (3600–3630 s); times: medians of {args.runs} alternating rounds\n")
        print("| source | vtrim (s) | curl of the same bytes (s) | local smart cut of those segments (s) | ÷ (curl + local) | video segments | bytes fetched | ÷ those segments' bytes | frames | ffmpeg -ss copy: frames, bytes |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        joined = []
        for source in ("ts/index.m3u8", "fmp4/index.m3u8", "dash/manifest.mpd"):
            url, out = origin.url(source), os.path.join(work, "long.mp4")
            origin.clear()
            wall, _ = benchlib.measure(f"{benchlib.quote(args.vtrim)} cut {url} --start 3600 --end 3630 -o {out} --overwrite")
            requests = origin.requests()
            media_requests = [e for e in requests if not e["path"].endswith((".m3u8", ".mpd")) and "init" not in e["path"] and not e["range"]]
            fetched, segment_bytes = origin.bytes_sent(), sum(e["bytes_sent"] for e in media_requests)
            urls = " ".join(origin.url(e["path"]) for e in requests)
            # The local file: the same segments (init sections first), the DASH sound's muxed beside its video (not timed).
            tracks = [sorted(e["path"] for e in media_requests if "chunk-1" not in e["path"])]
            if source.startswith("dash"):
                tracks.append(sorted(e["path"] for e in media_requests if "chunk-1" in e["path"]))
            parts = []
            for number, paths in enumerate(tracks):
                init = [e["path"] for e in requests if "init" in e["path"] and (not source.startswith("dash") or f"init-{number}" in e["path"])]
                part = os.path.join(work, f"segments-{number}" + (".ts" if source.startswith("ts") else ".mp4"))
                with open(part, "wb") as handle:
                    for path in init[:1] + paths:
                        handle.write(open(os.path.join(folder, path.lstrip("/")), "rb").read())
                parts.append(part)
            local = parts[0]
            if len(parts) > 1:
                local = os.path.join(work, "segments-merged.mp4")
                join = f"ffmpeg -v error -y -copyts -i {parts[0]} -i {parts[1]} -map 0 -map 1 -c copy {local}"
                subprocess.run(join, shell=True, check=True)
            # The same range on the local file's timeline: the URL's begins at segment 0's earliest timestamp, the
            # local file's at its own segments' earliest.
            offset = 3600 - (min(start_time(part) for part in parts) - url_origin(folder, source))
            local_out = os.path.join(work, "local.mp4")
            # The three timed alternately, --runs rounds, medians (the run above counted the requests).
            timed = benchlib.run_alternating([
                ("vtrim", f"{benchlib.quote(args.vtrim)} cut {url} --start 3600 --end 3630 -o {out} --overwrite"),
                ("curl", f"curl -s -o /dev/null {urls}"),
                ("local", f"{benchlib.quote(args.vtrim)} cut {local} --start {offset:.6f} --end {offset + 30:.6f} --mode smart -o {local_out} --overwrite"),
            ] + ([("join", join)] if len(parts) > 1 else []), args.runs, label=source)
            wall, curl, local_wall = (timed[name][0] for name in ("vtrim", "curl", "local"))
            if "join" in timed:
                # DASH's two tracks are two files: a local cut needs them joined first (vtrim reads one input).
                joined.append(f"{source}: the local path joins the video and sound first ({timed['join'][0]:.2f} s, ffmpeg -c copy): "
                              f"÷ (curl + join + local) = {wall / (curl + timed['join'][0] + local_wall):.2f}")
            origin.clear()
            copy = os.path.join(work, "copy.mp4")
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", "3600", "-t", "30", "-i", url, "-c", "copy", copy], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            ideal = ideal_frames(folder, source.split("/")[0], 3600, 3630) if source.endswith(".m3u8") else "—"
            print(f"| {source} | {wall:.2f} | {curl:.2f} | {local_wall:.2f} | {wall / (curl + local_wall):.2f} | {len(tracks[0])} | {fetched:,} | "
                  f"{fetched / max(1, segment_bytes):.2f} | {frames(out)} ({frames(local_out)} local, {ideal} ideal) | {frames(copy)}, {origin.bytes_sent():,} |")
        for line in joined:
            print(f"\n{line}")
        mp4 = os.path.join(folder, "long.mp4")
        moov = next(size for kind, offset, size in mp4_boxes(mp4) if kind == "moov")
        origin.clear()
        subprocess.run([args.vtrim, "probe", origin.url("long.mp4")], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        probe_bytes = origin.bytes_sent()
        packets = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,size,flags", "-of", "csv=p=0", mp4],
                                 capture_output=True, text=True).stdout.split()
        keyframe_sizes = {round(float(line.split(",")[0]), 3): int(line.split(",")[1]) for line in packets if "K" in line.split(",")[2]}
        print(f"\nPlain URL, the 2-hour MP4 ({os.path.getsize(mp4):,} bytes, moov {moov:,}): `vtrim probe` fetched {probe_bytes:,} bytes "
              f"(moov + {probe_bytes - moov:,}).")
        # 20 cells fall 0.03 ms before the keyframes that open the 60 s loops: decoded before those times, shown just
        # after, so each cell shows the keyframe before (the sample table says so; the later one is not read). 19 cells
        # fall mid-GOP. Bounds: moov + the N largest keyframes (the issue's), and moov + the first keyframe (stream
        # analysis decodes it for the picture format) + the keyframes the cells show.
        for count in (20, 19):
            origin.clear()
            sheet = os.path.join(work, "fast.png")
            shown = json.loads(subprocess.run([args.vtrim, "thumbs", origin.url("long.mp4"), "--mode", "fast", "--count", str(count), "-o", sheet,
                                               "--overwrite", "--json"], env=env, capture_output=True, text=True).stdout)
            thumbs_bytes, thumbs_requests, largest = origin.bytes_sent(), len(origin.requests()), origin.largest_range()
            bound = moov + sum(sorted(keyframe_sizes.values(), reverse=True)[:count])
            exact = moov + keyframe_sizes[0.0] + sum(keyframe_sizes[round(time, 3)] for time in {cell["pts"] for cell in shown["cells"]})
            print(f"`vtrim thumbs --mode fast --count {count}` fetched {thumbs_bytes:,} bytes in {thumbs_requests} requests (largest {largest:,}): "
                  f"{thumbs_bytes / bound:.4f}× moov + the {count} largest keyframes ({bound:,}), "
                  f"{thumbs_bytes / exact:.4f}× moov + the first keyframe + the cells' own ({exact:,}).")
        for kind in ("ts", "fmp4"):
            playlist = os.path.join(work, f"half-hour-{kind}.m3u8")
            origin.clear()
            wall, _ = benchlib.measure(f"{benchlib.quote(args.vtrim)} cut {origin.url(kind + '/index.m3u8')} --start 3000 --end 4800 -o {playlist} --overwrite")
            cut_bytes, cut_requests = origin.bytes_sent(), len(origin.requests())
            written = sum(os.path.getsize(os.path.join(work, name)) for name in os.listdir(work) if name.startswith(f"half-hour-{kind}."))
            segments = [os.path.join(folder, kind, name) for name in os.listdir(os.path.join(folder, kind)) if name.startswith("seg")]
            segment_bytes = sum(os.path.getsize(path) for path in segments) / max(1, len(segments))
            packets = subprocess.run(["ffprobe", "-v", "error", "-protocol_whitelist", "file,http,tcp", "-select_streams", "v", "-count_packets",
                                      "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", playlist], capture_output=True, text=True).stdout.split()[0]
            # Not 54,000: the 60 s loop's video runs 10.7 ms short of its sound, so each loop's frames sit that much later.
            print(f"\n30-minute manifest cut (3000–4800 s) of the HLS-{kind.upper()} VOD: {wall:.2f} s, {cut_bytes:,} bytes fetched "
                  f"({cut_requests} requests), {written:,} bytes written (playlist and edges; a segment averages {segment_bytes:,.0f}), "
                  f"{packets} video packets read back through the playlist ({ideal_frames(folder, kind, 3000, 4800):,} ideal).")

if args.long:
    long_bench()
    raise SystemExit(0)

media = streammedia.media()
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
