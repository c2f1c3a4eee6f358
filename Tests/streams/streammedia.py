"""The stream tests' media (#51), made once per ffmpeg version and recipe and cached in
`$VTRIM_TEST_MEDIA/streams-<hash>` (else `~/.cache/vtrim/test-media/streams-<hash>`, as the Swift tests' media): a 60 s 320x180 clip and its
HLS (TS, fMP4, single-file byte ranges, open GOP, a separate audio rendition), a hand-written master over two
variants, and DASH (SegmentTimeline and $Number$), plus `media.json`: the facts tests check against (segments,
durations, byte sizes, first PTS), measured here rather than assumed from the commands.

    folder = media()            # the cached folder (made on first use, ~5 s on 2 cores)
    facts = manifest()          # media.json as a dict

`python3 streammedia.py` makes it and prints the folder and a summary.
"""
import concurrent.futures
import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Bump when media.json's layout or the hand-written master changes: both are part of what the cache key names.
LAYOUT = "streams media.json 1, master 1"

SOURCE = ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=60",
          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=60"]
# A keyframe every 2 s, no scene cuts: every 6 s HLS/DASH segment starts on one, so segment times are predictable.
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0",
        "-pix_fmt", "yuv420p"]
AAC = ["-c:a", "aac", "-b:a", "64k"]
HLS = ["-f", "hls", "-hls_time", "6", "-hls_playlist_type", "vod"]
DASH = ["-f", "dash", "-seg_duration", "6", "-use_template", "1",
        "-init_seg_name", "init-$RepresentationID$.m4s", "-media_seg_name", "chunk-$RepresentationID$-$Number%05d$.m4s"]

# Each job is a list of ffmpeg commands (arguments after `ffmpeg -v error -nostdin -y`), run in order in the build
# folder; the jobs of one stage run in parallel. Their text is part of the cache key.
STAGES = [
    {
        "src": [SOURCE + X264 + AAC + ["-shortest", "-movflags", "+faststart", "src.mp4"]],
        # Open GOP: the keyframes after the first are recovery-point I frames whose leading B frames reference the
        # previous GOP, so an HLS segment cut there does not open on a clean start. b-adapt=0 (always 3 B frames)
        # gives every such keyframe leading pictures; x264's adaptive choice left some segments without any.
        # 720p at 6 Mb/s: segment 0 (~4 MB) holds its first fragment's sound far past the 256 KiB head read for the
        # timeline's origin (fMP4 writes a fragment's pictures before its sound).
        "big.mp4": [["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=12", "-f", "lavfi", "-i",
                     "sine=frequency=440:sample_rate=48000:duration=12", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "6M",
                     "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-pix_fmt", "yuv420p"] + AAC + ["-shortest", "big.mp4"]],
        "opengop.mp4": [SOURCE + X264 + ["-bf", "3", "-x264-params", "open_gop=1:b-adapt=0"] + AAC
                        + ["-shortest", "opengop.mp4"]],
    },
    {
        # Without +faststart the mp4 muxer writes moov after mdat: the plain-URL probe's worst case.
        "moovlast": [["-i", "src.mp4", "-c", "copy", "moovlast.mp4"]],
        "ts": [["-i", "src.mp4", "-c", "copy"] + HLS + ["-hls_segment_filename", "ts/seg%03d.ts", "ts/index.m3u8"]],
        "fmp4": [["-i", "src.mp4", "-c", "copy"] + HLS
                 + ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                    "-hls_segment_filename", "fmp4/seg%03d.m4s", "fmp4/index.m3u8"]],
        "fmp4big": [["-i", "big.mp4", "-c", "copy"] + HLS
                    + ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                       "-hls_segment_filename", "fmp4big/seg%03d.m4s", "fmp4big/index.m3u8"]],
        "br": [["-i", "src.mp4", "-c", "copy"] + HLS
               + ["-hls_segment_type", "fmp4", "-hls_flags", "single_file", "-hls_fmp4_init_filename", "init.mp4",
                  "-hls_segment_filename", "br/media.m4s", "br/index.m3u8"]],
        # Only the first keyframe of an open-GOP stream is an IDR, and the TS muxer's mp4toannexb repeats SPS/PPS only
        # before IDRs: dump_extra puts them before every keyframe, so each segment decodes on its own (as an
        # encoder's own HLS would) and only the leading B frames are missing their references.
        "opengop": [["-i", "opengop.mp4", "-c", "copy", "-bsf:v", "h264_mp4toannexb,dump_extra=freq=keyframe"] + HLS
                    + ["-hls_segment_filename", "opengop/seg%03d.ts", "opengop/index.m3u8"]],
        "low": [["-i", "src.mp4", "-vf", "scale=160:90"] + X264 + ["-c:a", "copy", "low.mp4"],
                ["-i", "low.mp4", "-c", "copy"] + HLS + ["-hls_segment_filename", "low/seg%03d.ts", "low/index.m3u8"]],
        "alt": [["-i", "src.mp4", "-map", "0:v", "-map", "0:a", "-c", "copy"] + HLS
                + ["-var_stream_map", "v:0,agroup:aud a:0,agroup:aud", "-master_pl_name", "master.m3u8",
                   "-hls_segment_filename", "alt/s%v_%03d.ts", "alt/v%v.m3u8"]],
        # The TS playlist again with its 90 kHz timestamps (33 bits) wrapping to 0 at 33 s, inside segment 5.
        "wrap": [["-i", "src.mp4", "-c", "copy", "-output_ts_offset", f"{2 ** 33 / 90000 - 33:.6f}"] + HLS
                 + ["-hls_segment_filename", "wrap/seg%03d.ts", "wrap/index.m3u8"]],
        "dash": [["-i", "src.mp4", "-c", "copy"] + DASH + ["-use_timeline", "1", "dash/manifest.mpd"]],
        "dashnum": [["-i", "src.mp4", "-c", "copy"] + DASH + ["-use_timeline", "0", "dashnum/manifest.mpd"]],
    },
]
FOLDERS = ["ts", "fmp4", "fmp4big", "br", "opengop", "low", "alt", "dash", "dashnum", "wrap"]

# The media playlists media.json describes, by name: (playlist, the local file its stream came from).
PLAYLISTS = {"ts": "ts/index.m3u8", "fmp4": "fmp4/index.m3u8", "br": "br/index.m3u8", "opengop": "opengop/index.m3u8",
             "low": "low/index.m3u8", "alt/v0": "alt/v0.m3u8", "alt/v1": "alt/v1.m3u8"}

_made = {}
_made_lock = threading.Lock()


def cache_folder():
    # As TestSupport/TestMedia.swift: $VTRIM_TEST_MEDIA, else ~/.cache/vtrim/test-media.
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.environ.get("VTRIM_TEST_MEDIA") or os.path.join(home, "vtrim", "test-media")


@functools.cache
def key():
    """What names the cache folder: the ffmpeg build and every command (and LAYOUT)."""
    version = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    recipe = [version, LAYOUT] + [f"{name}: {shlex.join(command)}" for stage in STAGES
                                  for name, commands in sorted(stage.items()) for command in commands]
    return hashlib.sha256("\n".join(recipe).encode()).hexdigest()[:16]


def media():
    """The folder of stream media, made if this ffmpeg and recipe have none cached yet."""
    with _made_lock:  # one make per process, however many fixtures ask
        identity = key()
        if identity in _made:
            return _made[identity]
        parent = cache_folder()
        final = os.path.join(parent, f"streams-{identity}")
        if not os.path.exists(os.path.join(final, "media.json")):
            os.makedirs(parent, exist_ok=True)
            # Built beside the final folder and renamed into place, so a folder with that name is always complete,
            # even when a run is killed or two runs make it at once.
            temporary = tempfile.mkdtemp(prefix=f".streams-{identity}.tmp-", dir=parent)
            try:
                _make(temporary, identity)
                os.chmod(temporary, 0o755)  # mkdtemp's 0700 would hide it from another user's test run
                os.rename(temporary, final)
            except OSError:
                if not os.path.exists(os.path.join(final, "media.json")):
                    raise
                # Another run made it meanwhile: theirs stands.
            finally:
                shutil.rmtree(temporary, ignore_errors=True)
        _made[identity] = final
        return final


def manifest(folder=None):
    with open(os.path.join(folder or media(), "media.json")) as handle:
        return json.load(handle)


# -- making

def _make(folder, identity):
    began = time.monotonic()
    for name in FOLDERS:
        os.makedirs(os.path.join(folder, name))
    workers = max(2, os.cpu_count() or 2)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for stage in STAGES:
            for job in [pool.submit(_run_job, folder, commands) for commands in stage.values()]:
                job.result()
        made_in = time.monotonic() - began
        facts = _facts(folder, pool)
    facts["key"] = identity
    facts["make_seconds"] = {"ffmpeg": round(made_in, 2), "total": round(time.monotonic() - began, 2)}
    _check(facts)
    with open(os.path.join(folder, "media.json"), "w") as handle:
        json.dump(facts, handle, indent=1)


def _run_job(folder, commands):
    for command in commands:
        result = subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", *command], cwd=folder,
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"ffmpeg {shlex.join(command)} failed: {result.stderr[-2000:]}")


def _check(facts):
    """The layout the tests are written for; a different ffmpeg that splits otherwise fails here, said plainly,
    rather than in thirty tests."""
    for name in ("ts", "fmp4", "br", "low", "alt/v0"):
        durations = [s["duration"] for s in facts["hls"][name]["segments"]]
        if durations != [6.0] * 10:
            raise RuntimeError(f"{name}: expected ten 6 s segments, ffmpeg wrote {durations}")
    for name in ("dash", "dashnum"):
        counts = {r["stream"]: len(r["segments"]) for r in facts["dash"][name]["representations"].values()}
        if counts.get("video") != 10:
            raise RuntimeError(f"{name}: expected ten video chunks, ffmpeg wrote {counts}")
    if facts["src"]["video"]["frames"] != 1800:
        raise RuntimeError(f"src.mp4: expected 1800 frames, got {facts['src']['video']['frames']}")
    fast, last = ([b["type"] for b in facts[name]["boxes"]] for name in ("src", "moovlast"))
    if fast.index("moov") > fast.index("mdat") or last.index("moov") < last.index("mdat"):
        raise RuntimeError(f"moov placement: src.mp4 {fast}, moovlast.mp4 {last}")
    leading = [s["leading_pictures"] for s in facts["hls"]["opengop"]["segments"]]
    if leading[0] != 0 or 0 in leading[1:] or any(s["leading_pictures"] for s in facts["hls"]["ts"]["segments"]):
        raise RuntimeError(f"open GOP: leading pictures per segment {leading} (expected none in the first only)")


# -- facts

def _facts(folder, pool):
    facts = {"ffmpeg": subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True).stdout.splitlines()[0]}
    for name, file in (("src", "src.mp4"), ("moovlast", "moovlast.mp4"), ("opengop_src", "opengop.mp4"),
                       ("low_src", "low.mp4")):
        facts[name] = _file_facts(folder, file)
    facts["hls"] = {name: _playlist_facts(folder, playlist, pool) for name, playlist in PLAYLISTS.items()}
    facts["dash"] = {name: _dash_facts(folder, name, pool) for name in ("dash", "dashnum")}
    facts["alt"] = {"master": "alt/master.m3u8", "text": _read(folder, "alt/master.m3u8")}
    facts["master"] = _write_master(folder, facts)
    return facts


def _probe(path, *arguments):
    result = subprocess.run(["ffprobe", "-v", "error", *arguments, "-of", "json", path], capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise RuntimeError(f"ffprobe {path}: {result.stderr[-2000:]}")
    return json.loads(result.stdout)


def _file_facts(folder, file):
    path = os.path.join(folder, file)
    info = _probe(path, "-count_packets", "-show_entries",
                  "stream=index,codec_type,codec_name,profile,level,width,height,time_base,start_time,duration,"
                  "nb_read_packets,extradata:format=duration,bit_rate", "-show_data")
    facts = {"file": file, "size": os.path.getsize(path), "duration": float(info["format"]["duration"]),
             "bit_rate": int(info["format"]["bit_rate"]), "boxes": _boxes(path)}
    for stream in info["streams"]:
        kind = stream["codec_type"]
        first = _first_packet(path, "v" if kind == "video" else "a")
        entry = {"index": stream["index"], "codec": stream["codec_name"], "time_base": stream["time_base"],
                 "start_time": float(stream["start_time"]), "first_pts": first["pts"],
                 "first_pts_time": first["pts_time"], "packets": int(stream["nb_read_packets"])}
        if kind == "video":
            entry.update(width=stream["width"], height=stream["height"], frames=int(stream["nb_read_packets"]),
                         codecs=_avc_codecs(stream.get("extradata", "")))
        facts[kind] = entry
    return facts


def _first_packet(path, selector, look=1):
    """The first packet (in file order) of the first `selector` stream: {"pts", "pts_time", "keyframe",
    "leading"}, where leading counts the next `look` - 1 packets shown before it: an open GOP's leading pictures,
    which reference the GOP before (none after a closed GOP's IDR)."""
    packets = _probe(path, "-select_streams", selector, "-show_entries", "packet=pts,pts_time,flags",
                     "-read_intervals", f"%+#{look}")["packets"]
    if not packets:
        return {"pts": None, "pts_time": None, "keyframe": None, "leading": None}
    packet = packets[0]
    return {"pts": packet.get("pts"), "pts_time": float(packet["pts_time"]) if "pts_time" in packet else None,
            "keyframe": packet.get("flags", "").startswith("K"),
            "leading": sum(1 for p in packets[1:] if "pts" in p and "pts" in packet and p["pts"] < packet["pts"])}


def _avc_codecs(extradata):
    """The RFC 6381 name (avc1.PPCCLL) from an avcC record as ffprobe dumps it, for the master's CODECS."""
    data = "".join(re.findall(r"^[0-9a-f]{8}: ((?:[0-9a-f]{2,4} ?)+)", extradata, re.M)).replace(" ", "")
    return f"avc1.{data[2:8]}" if data.startswith("01") and len(data) >= 8 else None


def _boxes(path):
    """The top-level ISO BMFF boxes: [{"type", "offset", "size"}] (where moov sits bounds a plain-URL probe)."""
    boxes = []
    with open(path, "rb") as handle:
        total = os.path.getsize(path)
        offset = 0
        while offset + 8 <= total:
            handle.seek(offset)
            header = handle.read(16)
            size, kind = int.from_bytes(header[:4], "big"), header[4:8].decode("latin-1")
            if size == 1:
                size = int.from_bytes(header[8:16], "big")
            elif size == 0:
                size = total - offset
            if size < 8:
                break
            boxes.append({"type": kind, "offset": offset, "size": size})
            offset += size
    return boxes


def _read(folder, relative):
    with open(os.path.join(folder, relative)) as handle:
        return handle.read()


def _attributes(text):
    return {k: v.strip('"') for k, v in re.findall(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)', text)}


def _byterange(text, previous_end):
    length, _, offset = text.partition("@")
    return int(length), int(offset) if offset else previous_end


def parse_media_playlist(text):
    """A media playlist's init section and segments: {"map": {uri, offset, size} | None, "segments": [{uri,
    duration, offset, size}]} (offset/size only where EXT-X-BYTERANGE gives them). Small: the Swift parser is the
    real one; this reads what the 5.1 muxers write."""
    init, segments, duration, byterange, ends = None, [], None, None, {}
    for line in (line.strip() for line in text.splitlines()):
        if line.startswith("#EXTINF:"):
            duration = float(line[len("#EXTINF:"):].split(",")[0])
        elif line.startswith("#EXT-X-BYTERANGE:"):
            byterange = line[len("#EXT-X-BYTERANGE:"):]
        elif line.startswith("#EXT-X-MAP:"):
            attributes = _attributes(line[len("#EXT-X-MAP:"):])
            init = {"uri": attributes["URI"], "offset": None, "size": None}
            if "BYTERANGE" in attributes:
                init["size"], init["offset"] = _byterange(attributes["BYTERANGE"], 0)
        elif line and not line.startswith("#"):
            segment = {"uri": line, "duration": duration, "offset": None, "size": None}
            if byterange:
                segment["size"], segment["offset"] = _byterange(byterange, ends.get(line, 0))
                ends[line] = segment["offset"] + segment["size"]
            segments.append(segment)
            duration = byterange = None
    return {"map": init, "segments": segments}


def _slice(folder, relative, offset, size):
    with open(os.path.join(folder, relative), "rb") as handle:
        if offset is None:
            return handle.read()
        handle.seek(offset)
        return handle.read(size)


def _segment_first(folder, pieces, selector):
    """First packet of `selector` in the bytes of `pieces` ([(path, offset, size)]: init then segment), probed as a
    file of its own, the way a spool of that one segment would be."""
    with tempfile.NamedTemporaryFile(suffix=os.path.splitext(pieces[-1][0])[1], dir=folder, delete=False) as temp:
        for piece in pieces:
            temp.write(_slice(folder, *piece))
    try:
        return _first_packet(temp.name, selector, look=8 if selector == "v" else 1)
    finally:
        os.unlink(temp.name)


def _playlist_facts(folder, playlist, pool):
    parsed = parse_media_playlist(_read(folder, playlist))
    base = os.path.dirname(playlist)
    init = parsed["map"]
    if init:
        init["path"] = os.path.join(base, init["uri"])
        if init["size"] is None:
            init["size"] = os.path.getsize(os.path.join(folder, init["path"]))
    segments = parsed["segments"]
    for segment in segments:
        segment["path"] = os.path.join(base, segment["uri"])
        if segment["size"] is None:
            segment["size"] = os.path.getsize(os.path.join(folder, segment["path"]))
    # A playlist is audio-only when its first segment has no video (alt/v1).
    head = [(init["path"], init["offset"], init["size"])] if init else []
    kinds = _probe(os.path.join(folder, segments[0]["path"]) if not init else os.path.join(folder, init["path"]),
                   "-show_entries", "stream=codec_type")["streams"]
    selector = "v" if any(s["codec_type"] == "video" for s in kinds) else "a"
    firsts = pool.map(lambda s: _segment_first(folder, head + [(s["path"], s["offset"], s["size"])], selector),
                      segments)
    for segment, first in zip(segments, firsts):
        segment["first_pts"], segment["first_pts_time"] = first["pts"], first["pts_time"]
        segment["opens_on_keyframe"], segment["leading_pictures"] = first["keyframe"], first["leading"]
    total = sum(s["size"] for s in segments)
    duration = sum(s["duration"] for s in segments)
    return {"playlist": playlist, "stream": "video" if selector == "v" else "audio", "map": init,
            "segments": segments, "duration": round(duration, 6), "bytes": total,
            # As RFC 8216 defines them: the peak segment bit rate (over segments of at least half the target
            # duration: alt/v1's last, 21 ms of audio in a few TS packets, would claim 350 kb/s), and the average.
            "bandwidth": max(int(s["size"] * 8 / s["duration"]) + 1 for s in segments if s["duration"] >= 3),
            "average_bandwidth": int(total * 8 / duration) + 1,
            "head": "\n".join(_read(folder, playlist).splitlines()[:8])}


def _dash_facts(folder, name, pool):
    """Per Representation of the MPD: its files (init and chunks, in number order), sizes, and for video the first
    PTS of each chunk probed with its init."""
    mpd = os.path.join(name, "manifest.mpd")
    representations = {}
    for file in sorted(os.listdir(os.path.join(folder, name))):
        match = re.fullmatch(r"chunk-(\w+)-(\d+)\.m4s", file)
        if match:
            representations.setdefault(match[1], []).append((int(match[2]), os.path.join(name, file)))
    facts = {"mpd": mpd, "representations": {}, "text": _read(folder, mpd)}
    for rid, chunks in sorted(representations.items()):
        init = os.path.join(name, f"init-{rid}.m4s")
        kinds = _probe(os.path.join(folder, init), "-show_entries", "stream=codec_type")["streams"]
        selector = "v" if any(s["codec_type"] == "video" for s in kinds) else "a"
        chunks.sort()
        firsts = pool.map(lambda c: _segment_first(folder, [(init, None, None), (c[1], None, None)], selector),
                          chunks)
        facts["representations"][rid] = {
            "stream": "video" if selector == "v" else "audio",
            "init": {"path": init, "size": os.path.getsize(os.path.join(folder, init))},
            "segments": [{"number": number, "path": path, "size": os.path.getsize(os.path.join(folder, path)),
                          "first_pts": first["pts"], "first_pts_time": first["pts_time"],
                          "leading_pictures": first["leading"]}
                         for (number, path), first in zip(chunks, firsts)]}
    return facts


def _write_master(folder, facts):
    """master.m3u8: ts/ (320x180) and low/ (160x90) as variants, with BANDWIDTH measured from their segments, and
    ffmpeg's audio-only alt/v1.m3u8 as a third STREAM-INF (CODECS mp4a only, no RESOLUTION), listed between them, which
    a variant chooser must skip whichever rule it picks by."""
    audio = facts["hls"]["alt/v1"]
    variants = [
        {"uri": "ts/index.m3u8", "bandwidth": facts["hls"]["ts"]["bandwidth"],
         "average_bandwidth": facts["hls"]["ts"]["average_bandwidth"], "resolution": "320x180",
         "codecs": f"{facts['src']['video']['codecs']},mp4a.40.2"},
        {"uri": "alt/v1.m3u8", "bandwidth": audio["bandwidth"], "average_bandwidth": audio["average_bandwidth"],
         "resolution": None, "codecs": "mp4a.40.2"},
        {"uri": "low/index.m3u8", "bandwidth": facts["hls"]["low"]["bandwidth"],
         "average_bandwidth": facts["hls"]["low"]["average_bandwidth"], "resolution": "160x90",
         "codecs": f"{facts['low_src']['video']['codecs']},mp4a.40.2"},
    ]
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"]
    for variant in variants:
        attributes = [f"BANDWIDTH={variant['bandwidth']}", f"AVERAGE-BANDWIDTH={variant['average_bandwidth']}",
                      f"CODECS=\"{variant['codecs']}\""]
        if variant["resolution"]:
            attributes += [f"RESOLUTION={variant['resolution']}", "FRAME-RATE=30.000"]
        lines += ["#EXT-X-STREAM-INF:" + ",".join(attributes), variant["uri"]]
    with open(os.path.join(folder, "master.m3u8"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return {"playlist": "master.m3u8", "variants": variants}


def _summary(folder, facts):
    lines = [folder, f"{facts['ffmpeg']}; made in {facts['make_seconds']}"]
    for name in ("src", "moovlast", "opengop_src", "low_src"):
        f = facts[name]
        lines.append(f"{name}: {f['size'] / 1e6:.2f} MB, {f['duration']} s, video first pts "
                     f"{f['video']['first_pts_time']}, {f['video']['frames']} frames, "
                     f"boxes {[b['type'] for b in f['boxes']]}")
    for name, p in facts["hls"].items():
        sizes = [s["size"] for s in p["segments"]]
        lines.append(f"{name}: {len(sizes)} segments, {p['duration']} s, {p['bytes'] / 1e6:.2f} MB "
                     f"(segments {min(sizes) / 1e6:.3f}-{max(sizes) / 1e6:.3f} MB), BANDWIDTH {p['bandwidth']}, "
                     f"map {p['map'] and (p['map']['uri'], p['map']['offset'], p['map']['size'])}")
        lines.append(f"   durations {[s['duration'] for s in p['segments']]}")
        lines.append(f"   first {p['stream']} pts {[s['first_pts_time'] for s in p['segments']]}")
        if p["stream"] == "video":
            lines.append(f"   leading pictures {[s['leading_pictures'] for s in p['segments']]}")
    for name, d in facts["dash"].items():
        for rid, r in d["representations"].items():
            sizes = [s["size"] for s in r["segments"]]
            lines.append(f"{name} rep {rid} ({r['stream']}): {len(sizes)} chunks, {sum(sizes) / 1e6:.2f} MB, "
                         f"first pts {[s['first_pts_time'] for s in r['segments']]}")
    return "\n".join(lines)


if __name__ == "__main__":
    began = time.monotonic()
    where = media()
    print(_summary(where, manifest(where)))
    print(f"media() returned in {time.monotonic() - began:.2f} s")
