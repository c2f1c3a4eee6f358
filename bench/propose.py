#!/usr/bin/env python3
"""bench/propose: `vtrim propose` against its peers on a generated talk — a --minutes long (default 10) video at
--height (default 1080p), 30 fps: espeak-ng sentences with a pause of digital silence (1.0–2.5 s) every ~20 s, over
shots of distinct lavfi test sources (5–40 s each, some animated) cut at known frames, H.264 (libx264 veryfast, a
keyframe every 2 s, no scene-cut keyframes) + AAC in MP4, generated once into the bench cache with a JSON sidecar of
the true silences and cuts. Alternating runs, medians:

- silence: `vtrim propose --silence=-30 --json` against `ffmpeg -vn -af silencedetect=n=-30dB:d=0.5` (target ≥ 1.5×;
  `ffmpeg -af silencedetect` without -vn, which decodes the video as well, in a group of its own), and how far each
  tool's silences lie from the other's and from the truth;
- scenes: `vtrim propose --scenes --json` against PySceneDetect's `detect-content` (its defaults: threshold 27, minimum
  scene 0.6 s; PyPI `scenedetect` with `opencv-python-headless` in a venv the script makes, bench/.venv-propose), F1
  of both against the known cuts, a cut matching within ±2 frames (target ≥ 1.5× at F1 ≥ 0.95);
- removing the silences end to end: `vtrim cut --propose silence=-30 --join` (a smart join) against the chain
  auto-editor performs — ffmpeg silencedetect, then the kept parts (padded by 0.15 s) re-encoded through one ffmpeg
  trim/atrim + concat with libx264's default preset and AAC (target ≥ 10×); vtrim's output against its own ranges
  (duration within a frame) and, frame by frame (a 16-bit frame number drawn as a bar at the bottom left of every
  frame), against the frames its ranges hold and the frames of the true speech;
- agreement with PySceneDetect on the real clips of ../shared/media (video, undamaged, at most 60 s, at most --clips
  of them): cuts found by each and how many agree within ±2 frames.

A cut is matched within ±2 frames: both detectors report the first frame of the new shot, so a correct one lands on
the frame itself; the slack allows for a decoder or timeline that is a frame off (real clips with edit lists, B-frame
reordering) without letting a neighbouring cut count. At the defaults a run takes about 25 minutes on 2 cores (the
chain ~8 minutes, PySceneDetect ~1.5 minutes a run), and the first one about 7 more to generate the talk.

--peers-only runs everything but vtrim (the media, the venv and the peers' rows), for a machine without a release
build that has `vtrim propose`. See BENCHMARKS.md."""
import argparse
import array
import bisect
import csv
import difflib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--chain-runs", type=int, default=1, help="runs of the re-encoding chain (many minutes each at 1080p)")
parser.add_argument("--literal-runs", type=int, default=1,
                    help="runs of `ffmpeg -af silencedetect` without -vn (it decodes the video too); 0 skips it")
parser.add_argument("--minutes", type=float, default=10)
parser.add_argument("--height", type=int, default=1080)
parser.add_argument("--fps", type=int, default=30)
parser.add_argument("--only", default="silence,scenes,join,clips", help="sections, comma-separated: silence,scenes,join,clips")
parser.add_argument("--clips", type=int, default=15, help="at most this many real clips")
parser.add_argument("--media", default=os.path.join(benchlib.HERE, "..", "..", "shared", "media"), help="the real clips' folder")
parser.add_argument("--no-frames", action="store_true", help="skip the frame-by-frame check of the joined outputs")
parser.add_argument("--peers-only", action="store_true", help="no vtrim rows: the media, the venv and the peers alone")
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
args = parser.parse_args()
sections = set(args.only.split(","))
unknown = sections - {"silence", "scenes", "join", "clips"}
if unknown:
    sys.exit(f"bench: unknown section(s) {', '.join(sorted(unknown))} in --only")

q = benchlib.quote
vtrim = None if args.peers_only else os.path.abspath(args.vtrim)
THRESHOLD_DB, MIN_SILENCE, PAD = -30, 0.5, 0.15
TOLERANCE_FRAMES = 2
RATE = 48000
# Sentences are cut at their first and last sample at or above this level: a sharp edge 10 dB over the detection
# threshold, so that after AAC the -30 dB silence still starts and ends where the pause does (a tail that fades
# through -30 dB would make the truth depend on the codec's rounding).
EDGE_DB = THRESHOLD_DB + 10


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


# vtrim first: a missing build or one from before `propose` should stop the run before minutes of generation.
if vtrim:
    if not os.access(vtrim, os.X_OK):
        sys.exit(f"bench: no vtrim at {vtrim}: build it (scripts/build-release, or bench/propose builds and runs this), "
                 "give another with --vtrim, or run the media and the peers alone with --peers-only")
    if subprocess.run([vtrim, "propose", "--help"], capture_output=True).returncode != 0:
        sys.exit(f"bench: {vtrim} has no `propose` command (built before it?): rebuild it (scripts/build-release), "
                 "or run the media and the peers alone with --peers-only")
for tool in ("ffmpeg", "ffprobe", "espeak-ng", "sox", "/usr/bin/time"):
    if not shutil.which(tool):
        sys.exit(f"bench: {tool} is missing: scripts/install-deps time espeak-ng sox python3-venv")

# ---------------------------------------------------------------------------------------------------------------------
# The peers' venv: PySceneDetect from PyPI with OpenCV's headless wheel. `scenedetect` 0.7 requires `opencv-python`
# (the GUI wheel, which installs the same cv2 module), so it is installed without its requirements and they are
# pinned here, the headless OpenCV in its place (the same code as the `scenedetect-headless` package).
VENV = os.path.join(benchlib.HERE, ".venv-propose")
PEER_PACKAGES = ["opencv-python-headless==5.0.0.93", "numpy==2.4.6", "click==8.5.1", "platformdirs==4.14.8", "tqdm==4.70.1"]
SCENEDETECT = "scenedetect==0.7.2"


def peer_venv():
    scenedetect = os.path.join(VENV, "bin", "scenedetect")
    marker = os.path.join(VENV, "bench-requirements.txt")
    wanted = "\n".join(PEER_PACKAGES + [SCENEDETECT]) + "\n"
    if os.path.exists(marker) and open(marker).read() == wanted and os.access(scenedetect, os.X_OK):
        return scenedetect
    log(f"making the peers' venv {VENV} ({SCENEDETECT}, {PEER_PACKAGES[0]})")
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    pip = [os.path.join(VENV, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(pip + PEER_PACKAGES, check=True)
    subprocess.run(pip + ["--no-deps", SCENEDETECT], check=True)
    with open(marker, "w") as handle:
        handle.write(wanted)
    return scenedetect


# ---------------------------------------------------------------------------------------------------------------------
# The talk. Speech: a pool of espeak-ng sentences, each trimmed of its edge silence by sox (at 1 %, -40 dBFS),
# resampled to 48 kHz, then cut at its first and last sample at or above -20 dBFS (EDGE_DB), so that a pause inserted
# between two sentences is, to the sample, the silence a -30 dB detector should find. Sentences whose own quiet
# stretches reach 0.4 s are left out of the pool; within a block of ~16–24 s the gaps between sentences are 0.06–0.22
# s (no silence at a 0.5 s minimum), between blocks a pause of 1.0–2.5 s of digital silence. No pause starts in the
# last 3 s. Video: shots of lavfi sources, 5–40 s each, never two of one family in a row (bars, test patterns, noisy
# flat colour, a Mandelbrot zoom, moving gradients; testsrc2, the zoom and the gradients are animated: measured with
# PySceneDetect's stats at 1080p, their strongest frame-to-frame content score was under 9, cuts between families over
# 60), cut at known frames, with a 16-bit frame number drawn as a black-and-white bar at the bottom left (a fraction of
# a content score per frame; it identifies every frame of an output, copied or re-encoded). H.264 (libx264 veryfast, CRF 23) with a keyframe every 2 s and no scene-cut keyframes,
# as a camera writes it and as the project's other bench media are: with pauses of 1.0–2.5 s less 2 × 0.15 s of pad,
# the slack of a seam (0.7–2.2 s) holds a keyframe only part of the time, so the end-to-end row meets both seams that
# snap onto keyframes and seams that need their edges re-encoded (with a 1 s GOP nearly every seam would snap).
GENERATOR_VERSION = 1
SUBJECTS = ["The new schedule", "Our main server", "This quarter's budget", "The design team", "Every customer", "The second prototype",
            "A simple test", "The night shift", "The final report", "Most of the data", "The support desk", "Our largest partner"]
VERBS = ["depends on", "improves", "was built around", "has to match", "will replace", "keeps track of", "should simplify",
         "clearly changes", "barely affects", "goes beyond"]
OBJECTS = ["the delivery plan", "how we measure progress", "the nightly backups", "our support workflow", "the public release",
           "every regional office", "the way we train people", "the size of the archive", "the storage costs", "the test results"]
TAILS = ["next month", "in the northern region", "before the summer", "for the whole company", "without extra cost",
         "as we discussed last week", "in most cases", "from now on", "according to the survey", "on every platform"]
FAMILIES = {
    "bars": ["smptebars", "smptehdbars", "pal100bars"],
    "pattern": ["testsrc2", "testsrc", "rgbtestsrc", "yuvtestsrc"],
    "colour": ["color"],
    "zoom": ["mandelbrot"],
    "gradients": ["gradients"],
}


def cache_folder():
    return os.path.join(os.environ.get("VTRIM_BENCH_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "vtrim-bench")), "propose")


def loud_limit(db=THRESHOLD_DB):
    """The smallest 16-bit magnitude at or above `db` dBFS."""
    return int(-(-(10 ** (db / 20)) * 32768 // 1))


def longest_quiet(samples, limit):
    longest = run = 0
    for value in samples:
        if -limit < value < limit:
            run += 1
            if run > longest:
                longest = run
        else:
            run = 0
    return longest


def sentence_pool(folder, rng, count=48):
    texts = set()
    while len(texts) < count:
        texts.add(f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TAILS)}.")
    limit, edge = loud_limit(), loud_limit(EDGE_DB)
    pool = []
    for index, text in enumerate(sorted(texts)):
        raw, trimmed = os.path.join(folder, f"s{index}.wav"), os.path.join(folder, f"s{index}-48k.wav")
        subprocess.run(["espeak-ng", "-w", raw, "-s", str(rng.randint(150, 175)), text], check=True)
        subprocess.run(["sox", raw, "-r", str(RATE), "-b", "16", "-c", "1", trimmed,
                        "silence", "1", "0.02", "1%", "reverse", "silence", "1", "0.02", "1%", "reverse"], check=True)
        with wave.open(trimmed) as handle:
            samples = array.array("h", handle.readframes(handle.getnframes()))
        if sys.byteorder == "big":
            samples.byteswap()
        first = next((i for i, v in enumerate(samples) if abs(v) >= edge), None)
        if first is None:
            continue
        last = len(samples) - 1 - next(i for i, v in enumerate(reversed(samples)) if abs(v) >= edge)
        samples = samples[first:last + 1]
        if longest_quiet(samples, limit) >= 0.4 * RATE:
            continue
        pool.append(samples)
    if len(pool) < count // 2:
        sys.exit(f"bench: only {len(pool)} of {count} espeak-ng sentences are usable (quiet stretches of 0.4 s or more)")
    return pool


def speech_track(folder, rng, total):
    """`total` samples of speech at RATE; returns (samples, true silences [(start, end)] in seconds)."""
    pool = sentence_pool(folder, rng)
    out = array.array("h")
    silences = []
    gap_due = False
    while len(out) < total:
        block_end = len(out) + int(rng.uniform(16, 24) * RATE)
        while len(out) < min(block_end, total):
            if gap_due:
                out.extend(array.array("h", bytes(2 * int(rng.uniform(0.06, 0.22) * RATE))))
            out.extend(rng.choice(pool))
            gap_due = True
        if len(out) >= total:
            break
        pause = int(rng.uniform(1.0, 2.5) * RATE)
        if len(out) + pause + 3 * RATE >= total:
            continue
        silences.append((len(out) / RATE, (len(out) + pause) / RATE))
        out.extend(array.array("h", bytes(2 * pause)))
        gap_due = False
    del out[total:]
    return out, silences


def shot_plan(rng, frames, fps):
    """[(family, source filter, first frame, frame count)]: shots of 5–40 s, no family twice in a row, the first
    animated (testsrc2)."""
    shots = []
    at = 0
    previous = None
    while at < frames:
        length = rng.randint(5 * fps, 40 * fps)
        if frames - (at + length) < 5 * fps:
            length = frames - at
        family = "pattern" if previous is None else rng.choice([f for f in FAMILIES if f != previous])
        name = "testsrc2" if previous is None else rng.choice(FAMILIES[family])
        shots.append((family, name, at, length))
        previous = family
        at += length
    return shots


def source_filter(name, rng, width, height, fps):
    size = f"s={width}x{height}:r={fps}"
    small = f"s={max(64, width // 4) // 2 * 2}x{max(36, height // 4) // 2 * 2}:r={fps}"
    upscale = f"format=yuv420p,scale={width}:{height}"
    if name == "color":
        colour = "0x%02x%02x%02x" % tuple(rng.randint(30, 225) for _ in range(3))
        return f"color=c={colour}:{size},noise=alls=10:allf=t+u"
    if name == "mandelbrot":
        return f"mandelbrot={small}:maxiter=64:inner=black,{upscale}"
    if name == "gradients":
        return f"gradients={small}:speed=0.02:seed={rng.randint(1, 1 << 30)},{upscale}"
    return f"{name}={size}"


def bar_geometry(width, height):
    """The frame-number bar: 16 bits, each a block of (bit width × bar height) pixels, at the bottom left."""
    return max(2, width // 32), max(2, height // 18)


def encode_talk(path, wav, shots, width, height, fps, frames, rng):
    bit, bar_height = bar_geometry(width, height)
    parts = []
    for index, (_, name, _, length) in enumerate(shots):
        parts.append(f"{source_filter(name, rng, width, height, fps)},trim=end_frame={length},setpts=PTS-STARTPTS,format=yuv420p,setsar=1[s{index}]")
    parts.append("".join(f"[s{i}]" for i in range(len(shots))) + f"concat=n={len(shots)}:v=1:a=0,settb=1/{fps},setpts=N[shots]")
    parts.append(f"color=c=black:s=16x1:r={fps},format=gray,geq=lum='255*mod(floor(N/pow(2,X)),2)',"
                 f"scale={16 * bit}:{bar_height}:flags=neighbor,format=yuv420p[bar]")
    parts.append("[shots][bar]overlay=x=0:y=H-h:shortest=1,format=yuv420p[v]")
    partial = path + ".part.mp4"
    command = ["ffmpeg", "-hide_banner", "-v", "error", "-nostdin", "-y", "-i", wav, "-filter_complex", ";".join(parts),
               "-map", "[v]", "-map", "0:a", "-frames:v", str(frames),
               "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", "-g", str(2 * fps),
               "-keyint_min", str(2 * fps), "-sc_threshold", "0",
               "-c:a", "aac", "-b:a", "128k", "-ar", str(RATE), "-ac", "2", "-map_metadata", "-1",
               "-progress", "pipe:1", "-nostats", partial]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    reported = -1
    for line in process.stdout:
        if line.startswith("frame="):
            percent = int(int(line.split("=", 1)[1]) * 100 / frames)
            if percent >= reported + 5:
                reported = percent
                log(f"encoding {os.path.basename(path)}: {percent} %")
    if process.wait() != 0:
        sys.exit(f"bench: encoding {os.path.basename(path)} failed")
    os.replace(partial, path)


def talk():
    """The talk and its sidecar (generated once, again when missing or made with other parameters)."""
    fps, height = args.fps, args.height
    width = (height * 16 // 9 + 1) // 2 * 2
    frames = round(args.minutes * 60 * fps)
    name = f"talk-{args.minutes:g}min-{height}p{fps}"
    folder = cache_folder()
    path, sidecar = os.path.join(folder, name + ".mp4"), os.path.join(folder, name + ".json")
    wanted = {"version": GENERATOR_VERSION, "frames": frames, "fps": fps, "width": width, "height": height}
    if os.path.exists(path) and os.path.exists(sidecar):
        truth = json.load(open(sidecar))
        if {k: truth.get(k) for k in wanted} == wanted and abs(benchlib.probe_duration(path) - frames / fps) <= 0.5:
            log(f"{path} is up to date")
            return path, truth
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(20261128)
    with tempfile.TemporaryDirectory(prefix="vtrim-bench-talk-") as scratch:
        log(f"generating {path} ({frames / fps:g} s, {width}x{height}, {fps} fps): speech")
        samples, silences = speech_track(scratch, rng, frames * RATE // fps)
        if sys.byteorder == "big":
            samples.byteswap()
        wav = os.path.join(scratch, "talk.wav")
        with wave.open(wav, "wb") as handle:
            handle.setnchannels(1)
            handle.setsampwidth(2)
            handle.setframerate(RATE)
            handle.writeframes(samples.tobytes())
        shots = shot_plan(rng, frames, fps)
        log(f"{len(silences)} pauses, {len(shots)} shots; encoding (about 7 minutes for 10 minutes of 1080p on 2 cores)")
        encode_talk(path, wav, shots, width, height, fps, frames, rng)
    bit, bar_height = bar_geometry(width, height)
    truth = dict(wanted, duration=frames / fps, gop=2 * fps, silences=[[round(a, 6), round(b, 6)] for a, b in silences],
                 cut_frames=[first for _, _, first, _ in shots[1:]], cut_times=[round(first / fps, 6) for _, _, first, _ in shots[1:]],
                 shots=[{"source": source, "first_frame": first, "frames": length} for _, source, first, length in shots],
                 bar={"bit_width": bit, "height": bar_height, "bits": 16})
    with open(sidecar + ".part", "w") as handle:
        json.dump(truth, handle, indent=1)
    os.replace(sidecar + ".part", sidecar)
    return path, truth


# ---------------------------------------------------------------------------------------------------------------------
# Parsing and scoring.
def ffmpeg_silences(text, duration):
    starts = [float(x) for x in re.findall(r"silence_start: (-?[0-9.e+-]+)", text)]
    ends = [float(x) for x in re.findall(r"silence_end: (-?[0-9.e+-]+)", text)]
    return [(max(0.0, s), ends[i] if i < len(ends) else duration) for i, s in enumerate(starts)]


def vtrim_report(path):
    """The first JSON line of a `vtrim propose --json` output file."""
    for line in open(path):
        if line.strip():
            report = json.loads(line)
            if "detections" not in report:
                sys.exit(f"bench: vtrim propose reported no detections: {line.strip()[:500]}")
            return report
    sys.exit(f"bench: vtrim propose printed nothing into {path}")


def vtrim_spans(report, kind):
    return sorted((d["start"], d["end"]) for d in report["detections"] if d["kind"] == kind)


def vtrim_cut_times(report):
    scenes = vtrim_spans(report, "scene")
    return [start for start, _ in scenes[1:] if start > scenes[0][0]]


def pyscenedetect_cut_frames(path):
    """0-based frame numbers of the cuts in a `list-scenes -s` CSV (its Start Frame counts from 1)."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    return [int(row["Start Frame"]) - 1 for row in rows[1:]]


def matched_count(found, truth, tolerance):
    """Greedy one-to-one matching of frame numbers within ±tolerance, nearest pairs first."""
    pairs = sorted((abs(a - b), i, j) for i, a in enumerate(found) for j, b in enumerate(truth) if abs(a - b) <= tolerance)
    used_found, used_truth = set(), set()
    for _, i, j in pairs:
        if i not in used_found and j not in used_truth:
            used_found.add(i)
            used_truth.add(j)
    return len(used_found)


def f1_line(label, found, truth):
    hits = matched_count(found, truth, TOLERANCE_FRAMES)
    precision = hits / len(found) if found else (1.0 if not truth else 0.0)
    recall = hits / len(truth) if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return f1, f"| {label} | {len(found)} | {len(truth)} | {hits} | {precision:.3f} | {recall:.3f} | {f1:.3f} |"


def compare_spans(label, spans, reference):
    """Each reference span paired with the span overlapping it most; the largest start and end differences (ms)."""
    deltas = []
    for a, b in reference:
        best = max(spans, key=lambda s: min(b, s[1]) - max(a, s[0]), default=None)
        if best is not None and min(b, best[1]) > max(a, best[0]):
            deltas.append((best[0] - a, best[1] - b))
    unpaired = len(spans) - len(deltas)
    if not deltas:
        return f"| {label} | {len(spans)} | {len(reference)} | 0 | – | – | – | – |"
    starts, ends = [d[0] * 1000 for d in deltas], [d[1] * 1000 for d in deltas]
    return (f"| {label} | {len(spans)} | {len(reference)} | {len(deltas)} | {max(abs(x) for x in starts):.1f} | {sum(starts) / len(starts):+.1f}"
            f" | {max(abs(x) for x in ends):.1f} | {sum(ends) / len(ends):+.1f} |" + ("" if unpaired <= 0 else f" ({unpaired} unpaired)"))


SPAN_HEADER = ("| spans | found | reference | paired | max \\|Δstart\\| (ms) | mean Δstart (ms) | max \\|Δend\\| (ms) | mean Δend (ms) |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|")


def frame_numbers(path, truth):
    """The frame number drawn into every frame of `path`, in presentation order (-1 where unreadable)."""
    bit, bar_height = truth["bar"]["bit_width"], truth["bar"]["height"]
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough", "-vf",
                          f"crop={16 * bit}:{bar_height}:0:ih-{bar_height},scale=16:1:flags=area,format=gray", "-f", "rawvideo", "-"],
                         capture_output=True, check=True).stdout
    numbers = []
    for offset in range(0, len(raw) - 15, 16):
        cells = raw[offset:offset + 16]
        if any(40 < value < 200 for value in cells):
            numbers.append(-1)
        else:
            numbers.append(sum(1 << i for i, value in enumerate(cells) if value >= 128))
    return numbers


def frames_in(ranges, fps, frames):
    """The frames shown in the ranges: those whose display interval overlaps one (the frame shown at its start on)."""
    chosen = []
    for start, end in ranges:
        first = max(0, int((start + 1e-6) * fps))
        last = min(frames - 1, int(-(-(end - 1e-6) * fps // 1)) - 1)
        chosen += range(first, last + 1)
    return chosen


def speech_spans(truth):
    spans, at = [], 0.0
    for start, end in truth["silences"]:
        spans.append((at, start))
        at = end
    spans.append((at, truth["duration"]))
    return [(a, b) for a, b in spans if b > a]


# The chain auto-editor performs, as one command: detect with ffmpeg's silencedetect (audio only), keep the rest with
# 0.15 s of pad on both sides of each silence, re-encode the kept parts through one trim/atrim + concat graph with
# libx264's default preset (medium, CRF 23) and AAC.
CHAIN = r'''import re, subprocess, sys
source, out, db, minimum, pad = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
found = subprocess.run(["ffmpeg", "-hide_banner", "-nostats", "-i", source, "-vn", "-af", f"silencedetect=n={db}dB:d={minimum}",
                        "-f", "null", "-"], capture_output=True, text=True, check=True).stderr
duration = float(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", source],
                                capture_output=True, text=True, check=True).stdout)
starts = [float(x) for x in re.findall(r"silence_start: (-?[0-9.e+-]+)", found)]
ends = [float(x) for x in re.findall(r"silence_end: (-?[0-9.e+-]+)", found)]
keep, at = [], 0.0
for index, start in enumerate(starts):
    end = ends[index] if index < len(ends) else duration
    cut_from, cut_to = max(0.0, start) + pad, end - pad
    if cut_to <= cut_from:
        continue
    if cut_from - at > 0.001:
        keep.append((at, cut_from))
    at = cut_to
if duration - at > 0.001:
    keep.append((at, duration))
n = len(keep)
graph = ["[0:v]split=%d%s" % (n, "".join("[v%d]" % i for i in range(n))), "[0:a]asplit=%d%s" % (n, "".join("[a%d]" % i for i in range(n)))]
for i, (a, b) in enumerate(keep):
    graph.append("[v%d]trim=start=%.6f:end=%.6f,setpts=PTS-STARTPTS[vt%d]" % (i, a, b, i))
    graph.append("[a%d]atrim=start=%.6f:end=%.6f,asetpts=PTS-STARTPTS[at%d]" % (i, a, b, i))
graph.append("".join("[vt%d][at%d]" % (i, i) for i in range(n)) + "concat=n=%d:v=1:a=1[v][a]" % n)
subprocess.run(["ffmpeg", "-hide_banner", "-v", "error", "-nostdin", "-y", "-i", source, "-filter_complex", ";".join(graph),
                "-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-c:a", "aac", out], check=True)
with open(out + ".ranges.json", "w") as handle:
    handle.write(repr(keep).replace("(", "[").replace(")", "]"))
'''


# ---------------------------------------------------------------------------------------------------------------------
summary = []
work = benchlib.work_directory("vtrim-bench-propose-")
needs_talk = sections & {"silence", "scenes", "join"}
scenedetect = peer_venv() if sections & {"scenes", "clips"} else None
path, truth = talk() if needs_talk else (None, None)
fps = args.fps
label = ""
if path:
    duration = benchlib.probe_duration(path)
    label = f"{os.path.basename(path)} ({duration:.0f} s, {truth['width']}x{truth['height']} {fps} fps, {len(truth['silences'])} pauses, {len(truth['cut_frames'])} cuts)"


def verdict(holds):
    return "**met**" if holds else "**missed**"


if "silence" in sections:
    out = os.path.join(work, "silence")
    ffmpeg_vn = (f"ffmpeg -vn -af silencedetect=n={THRESHOLD_DB}dB:d={MIN_SILENCE}",
                 f"ffmpeg -hide_banner -nostats -i {q(path)} -vn -af silencedetect=n={THRESHOLD_DB}dB:d={MIN_SILENCE} -f null - 2> {q(out)}-ffmpeg.log")
    rows = ([(f"vtrim propose --silence={THRESHOLD_DB} --json",
              f"{q(vtrim)} propose {q(path)} --silence={THRESHOLD_DB} --json > {q(out)}-vtrim.jsonl")] if vtrim else []) + [ffmpeg_vn]
    log(f"silence: {args.runs} alternating runs")
    results = benchlib.run_alternating(rows, args.runs, "silence")
    literal = []
    if args.literal_runs > 0:
        literal = [(f"ffmpeg -af silencedetect=n={THRESHOLD_DB}dB:d={MIN_SILENCE} (video decoded too)",
                    f"ffmpeg -hide_banner -nostats -i {q(path)} -af silencedetect=n={THRESHOLD_DB}dB:d={MIN_SILENCE} -f null - 2> {q(out)}-literal.log")]
        log(f"silence: `ffmpeg -af silencedetect` without -vn, {args.literal_runs} run(s)")
        results.update(benchlib.run_alternating(literal, args.literal_runs, "silence"))
    print(f"\n### Silences in {label}: -30 dB, at least 0.5 s; median of {args.runs} alternating runs"
          + (f" ({args.literal_runs} without -vn)" if literal else "") + "\n")
    print(benchlib.table(results, rows + literal, {"vtrim" if vtrim else "ffmpeg -vn": rows[0][0]}))
    found_ffmpeg = ffmpeg_silences(open(out + "-ffmpeg.log").read(), duration)
    reference = [tuple(s) for s in truth["silences"]]
    print("\nSilences against each other and the truth (the pauses inserted, to the sample; Δ = found − reference):\n")
    print(SPAN_HEADER)
    if vtrim:
        found_vtrim = vtrim_spans(vtrim_report(out + "-vtrim.jsonl"), "silence")
        print(compare_spans("vtrim against ffmpeg silencedetect", found_vtrim, found_ffmpeg))
        print(compare_spans("vtrim against the truth", found_vtrim, reference))
    print(compare_spans("ffmpeg silencedetect against the truth", found_ffmpeg, reference))
    if vtrim:
        ratio = results[ffmpeg_vn[0]][0] / results[rows[0][0]][0]
        line = f"silence: ffmpeg -vn silencedetect / vtrim {ratio:.2f}× (target ≥ 1.5) {verdict(ratio >= 1.5)}"
        print("\n" + line)
        summary.append(line)
    sys.stdout.flush()

if "scenes" in sections:
    out = os.path.join(work, "scenes")
    peer = ("PySceneDetect detect-content (scenedetect 0.7.2, OpenCV headless)",
            f"{q(scenedetect)} -i {q(path)} -q -o {q(work)} detect-content list-scenes -s -f scenes-pyscenedetect.csv")
    rows = ([("vtrim propose --scenes --json", f"{q(vtrim)} propose {q(path)} --scenes --json > {q(out)}-vtrim.jsonl")] if vtrim else []) + [peer]
    log(f"scenes: {args.runs} alternating runs")
    results = benchlib.run_alternating(rows, args.runs, "scenes")
    print(f"\n### Scene cuts in {label}: threshold 27, scenes of at least 0.6 s; median of {args.runs} alternating runs\n")
    print(benchlib.table(results, rows, {"vtrim" if vtrim else "PySceneDetect": rows[0][0]}))
    print(f"\nCuts against the {len(truth['cut_frames'])} known ones (a match within ±{TOLERANCE_FRAMES} frames, one to one):\n")
    print("| detector | cuts found | known cuts | matched | precision | recall | F1 |\n|---|---:|---:|---:|---:|---:|---:|")
    known = truth["cut_frames"]
    f1_vtrim = None
    if vtrim:
        f1_vtrim, line = f1_line("vtrim propose --scenes", [round(t * fps) for t in vtrim_cut_times(vtrim_report(out + "-vtrim.jsonl"))], known)
        print(line)
    f1_peer, line = f1_line("PySceneDetect detect-content", pyscenedetect_cut_frames(os.path.join(work, "scenes-pyscenedetect.csv")), known)
    print(line)
    if vtrim:
        ratio = results[peer[0]][0] / results[rows[0][0]][0]
        line = (f"scenes: PySceneDetect / vtrim {ratio:.2f}× (target ≥ 1.5) {verdict(ratio >= 1.5)}; vtrim F1 {f1_vtrim:.3f} (target ≥ 0.95)"
                f" {verdict(f1_vtrim >= 0.95)}; PySceneDetect F1 {f1_peer:.3f}")
        print("\n" + line)
        summary.append(line)
    sys.stdout.flush()

if "join" in sections:
    out = os.path.join(work, "join")
    chain_script = os.path.join(work, "chain.py")
    with open(chain_script, "w") as handle:
        handle.write(CHAIN)
    chain = ("auto-editor's chain: ffmpeg silencedetect, then trim/concat through libx264 (medium) + AAC",
             f"rm -f {q(out)}-chain.mp4; {q(sys.executable)} {q(chain_script)} {q(path)} {q(out)}-chain.mp4 {THRESHOLD_DB} {MIN_SILENCE} {PAD}")
    rows = []
    if vtrim:
        rows = [(f"vtrim cut --propose silence={THRESHOLD_DB} --join (smart)",
                 f"rm -f {q(out)}-vtrim.mp4; {q(vtrim)} cut {q(path)} --propose silence={THRESHOLD_DB} --join -o {q(out)}-vtrim.mp4")]
        log(f"join: {args.runs} runs of vtrim")
        results = benchlib.run_alternating(rows, args.runs, "join")
    else:
        results = {}
    log(f"join: {args.chain_runs} run(s) of the re-encoding chain (many minutes at 1080p)")
    results.update(benchlib.run_alternating([chain], args.chain_runs, "join"))
    print(f"\n### Removing the silences of {label}: -30 dB, at least 0.5 s, 0.15 s of pad; median of {args.runs} runs of vtrim,"
          f" {args.chain_runs} of the chain\n")
    print(benchlib.table(results, rows + [chain], {"vtrim" if vtrim else "the chain": (rows + [chain])[0][0]}))
    chain_ranges = json.loads(open(out + "-chain.mp4.ranges.json").read())
    speech = speech_spans(truth)
    checks = []
    if vtrim:
        report_path = out + "-propose.jsonl"
        with open(report_path, "w") as handle:
            subprocess.run([vtrim, "propose", path, f"--silence={THRESHOLD_DB}", "--json"], stdout=handle, check=True)
        report = vtrim_report(report_path)
        kept = [(r["start"], r["end"]) for r in report["ranges"]]
        kept_duration = report.get("kept_duration", sum(b - a for a, b in kept))
        out_duration = benchlib.probe_duration(out + "-vtrim.mp4")
        video_duration = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration", "-of", "csv=p=0",
                                         out + "-vtrim.mp4"], capture_output=True, text=True, check=True).stdout.strip()
        seams = report["seams"]
        uncovered = [s for s in speech if not any(a <= s[0] + 1e-6 and s[1] - 1e-6 <= b for a, b in kept)]
        # The ideal join shows whole frames: each range lasts from its start to the end of the last frame that begins before
        # its end, so each may run up to a frame past its own length.
        duration_ok = -1 / fps - 1e-6 <= out_duration - kept_duration <= len(kept) / fps + 1e-6
        checks.append(duration_ok and not uncovered)
        print(f"\nvtrim's proposal (`vtrim propose --silence={THRESHOLD_DB} --json`): {len(kept)} ranges, {kept_duration:.3f} s kept of {duration:.3f} s;"
              f" seams {seams.get('count')}, snapped onto keyframes {seams.get('snapped')}, needing edges {seams.get('need_edges')};"
              f" the chain kept {len(chain_ranges)} ranges, {sum(b - a for a, b in chain_ranges):.3f} s")
        print(f"vtrim's output: {out_duration:.3f} s (its video stream {video_duration} s) against the {kept_duration:.3f} s its ranges hold"
              f" (Δ {1000 * (out_duration - kept_duration):+.1f} ms; within a frame per range: {'yes' if duration_ok else 'no'});"
              f" true speech spans inside a kept range: {len(speech) - len(uncovered)} of {len(speech)}")
    if not args.no_frames:
        log("join: reading the frame numbers of the outputs")
        frames = truth["frames"]
        speech_frames = set(frames_in(speech, fps, frames))
        print("\nFrames of the outputs (each frame's number read from its bar) against the frames the tool's own ranges hold, in order"
              " (a frame is held when the time it is shown overlaps a range; extra and missing), and against the frames of the true"
              " speech (missing):\n")
        print("| output | frames | its ranges' frames | extra | missing | unreadable | speech frames missing |\n|---|---:|---:|---:|---:|---:|---:|")
        outputs = ([("vtrim smart join", out + "-vtrim.mp4", kept)] if vtrim else []) + [("the chain (re-encoded)", out + "-chain.mp4", chain_ranges)]
        for name, output, ranges in outputs:
            shown = frame_numbers(output, truth)
            ideal = frames_in(ranges, fps, frames)
            common = sum(block.size for block in difflib.SequenceMatcher(None, shown, ideal, autojunk=False).get_matching_blocks())
            missing_speech = len(speech_frames - set(shown))
            print(f"| {name} | {len(shown)} | {len(ideal)} | {len(shown) - common} | {len(ideal) - common} | {shown.count(-1)} | {missing_speech} |")
            if name.startswith("vtrim"):
                checks.append(len(shown) == common == len(ideal) and missing_speech == 0)
    if vtrim:
        ratio = results[chain[0]][0] / results[rows[0][0]][0]
        line = (f"remove silences: chain / vtrim {ratio:.1f}× (target ≥ 10) {verdict(ratio >= 10)}; vtrim's output keeps every"
                f" non-silent frame and its duration matches its ranges: {verdict(all(checks))}"
                + ("" if not args.no_frames else " (frames not checked: --no-frames)"))
        print("\n" + line)
        summary.append(line)
    sys.stdout.flush()

if "clips" in sections:
    manifest = os.path.join(args.media, "MANIFEST.tsv")
    if not os.path.exists(manifest):
        log(f"clips: no {manifest}; skipped")
    else:
        with open(manifest, newline="") as handle:
            entries = list(csv.DictReader(handle, delimiter="\t"))

        def usable(entry):
            try:
                return (entry["video_codec"] not in ("", "?") and entry["damaged"] == "no" and float(entry["format_duration_s"]) <= 60
                        and int(entry["decoded_video_frames"] or 0) >= 30 and os.path.exists(os.path.join(args.media, entry["file"])))
            except ValueError:
                return False

        clips = sorted((e for e in entries if usable(e)), key=lambda e: (-int(e["decoded_video_frames"]), e["file"]))[:args.clips]
        log(f"clips: {len(clips)} real clips, one run each")
        print(f"\n### Agreement with PySceneDetect's content detector on {len(clips)} real clips of ../shared/media"
              f" (video, undamaged, at most 60 s, the most frames first; a cut agrees within ±{TOLERANCE_FRAMES} frames)\n")
        print("| clip | codec | frames | vtrim cuts | PySceneDetect cuts | agree | vtrim (s) | PySceneDetect (s) |\n|---|---|---:|---:|---:|---:|---:|---:|")
        totals = [0, 0, 0]
        for entry in clips:
            clip = os.path.join(args.media, entry["file"])
            stem = os.path.join(work, "clip")
            csv_name = "clip-pyscenedetect.csv"
            for leftover in (stem + ".jsonl", os.path.join(work, csv_name)):
                if os.path.exists(leftover):
                    os.remove(leftover)
            try:
                peer_s, _ = benchlib.measure(f"{q(scenedetect)} -i {q(clip)} -q -o {q(work)} detect-content list-scenes -s -f {csv_name}")
                peer_cuts = pyscenedetect_cut_frames(os.path.join(work, csv_name))
            except SystemExit:
                peer_s, peer_cuts = None, None
            vtrim_s, vtrim_cuts = None, None
            if vtrim:
                try:
                    vtrim_s, _ = benchlib.measure(f"{q(vtrim)} propose {q(clip)} --scenes --json > {q(stem)}.jsonl")
                    times = vtrim_cut_times(vtrim_report(stem + ".jsonl"))
                    # vtrim's times are on its timeline (from the file's start time); each cut is the frame shown then.
                    shown = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp_time",
                                            "-of", "csv=p=0", clip], capture_output=True, text=True).stdout.split()
                    start_time = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", clip],
                                                capture_output=True, text=True).stdout.strip()
                    origin = float(start_time) if start_time not in ("", "N/A") else 0.0
                    frame_times = sorted(float(t.rstrip(",")) - origin for t in shown if t.rstrip(",") not in ("", "N/A"))
                    vtrim_cuts = [max(0, bisect.bisect_right(frame_times, t + 1e-4) - 1) for t in times]
                except SystemExit:
                    vtrim_s, vtrim_cuts = None, None
            agree = matched_count(vtrim_cuts, peer_cuts, TOLERANCE_FRAMES) if vtrim_cuts is not None and peer_cuts is not None else None

            def shown_value(value, fmt="{}"):
                return "failed" if value is None else fmt.format(value)

            if vtrim_cuts is not None and peer_cuts is not None:
                totals = [totals[0] + len(vtrim_cuts), totals[1] + len(peer_cuts), totals[2] + agree]
            print(f"| {entry['file']} | {entry['video_codec']} | {entry['decoded_video_frames']} | "
                  f"{shown_value(None if vtrim_cuts is None else len(vtrim_cuts)) if vtrim else '–'} | "
                  f"{shown_value(None if peer_cuts is None else len(peer_cuts))} | {shown_value(agree) if vtrim else '–'} | "
                  f"{shown_value(vtrim_s, '{:.2f}') if vtrim else '–'} | {shown_value(peer_s, '{:.2f}')} |")
            sys.stdout.flush()
        if vtrim:
            line = (f"real clips: {totals[2]} cuts agree of vtrim's {totals[0]} and PySceneDetect's {totals[1]}"
                    f" (on the clips both read)")
            print("\n" + line)
            summary.append(line)

if summary:
    print("\n" + "\n".join(summary))
