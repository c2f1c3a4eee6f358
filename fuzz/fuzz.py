#!/usr/bin/env python3
"""Mutation fuzzing of vtrim's probe, thumbs and cut over damaged copies of real media.

Each case takes a seed file (the fixtures, and ../shared/media when present), damages it one way —
bit flips, zeroed byte runs, truncation, a corrupted MP4 box size, two swapped chunks, an extreme value
in an MP4 timing box — and runs one
vtrim command on it under a timeout. A case passes when vtrim ends with a documented exit status
(0, or 1 with a one-line `vtrim: error:` message per failed input) within the timeout; a signal
(crash), a hang or any other status fails it. Failing inputs are kept in fuzz/findings/ with the
command, so each can become a regression test.

    fuzz/fuzz.py --cases 200 --seed 1            # the bounded set CI runs (a few minutes)
    fuzz/fuzz.py --cases 20000 --seed 7 --jobs 2 # a long campaign
"""
import argparse
import concurrent.futures
import hashlib
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--cases", type=int, default=200)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--jobs", type=int, default=2)
parser.add_argument("--timeout", type=float, default=30.0, help="seconds per run before it counts as a hang")
parser.add_argument("--exact-every", type=int, default=40, help="one exact cut every N cases")
parser.add_argument("--smart-every", type=int, default=40, help="one smart cut every N cases (halfway between exact ones)")
parser.add_argument("--vtrim", default=os.environ.get("VTRIM_BIN", os.path.join(ROOT, ".build", "debug", "vtrim")))
parser.add_argument("--shared-media", default=os.path.join(os.path.dirname(ROOT), "shared", "media"))
parser.add_argument("--max-seed-bytes", type=int, default=4 << 20, help="skip seed files larger than this")
parser.add_argument("--findings", default=os.path.join(HERE, "findings"))
args = parser.parse_args()


def seed_files():
    files = []
    for name in sorted(os.listdir(os.path.join(ROOT, "fixtures"))):
        path = os.path.join(ROOT, "fixtures", name)
        if os.path.isfile(path) and os.path.getsize(path) > 0 and not name.endswith((".sh", ".md")) and name != "not-video.mp4":
            files.append(path)
    if os.path.isdir(args.shared_media):
        for folder, _, names in sorted(os.walk(args.shared_media)):
            for name in sorted(names):
                path = os.path.join(folder, name)
                if name.endswith((".tsv", ".md")) or os.path.getsize(path) > args.max_seed_bytes:
                    continue
                files.append(path)
    return files


# ---------------------------------------------------------------- mutations

def bit_flips(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 64)):
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    return bytes(data)


def zero_run(data, rng):
    data = bytearray(data)
    length = rng.randint(1, min(len(data), 4096))
    start = rng.randrange(len(data) - length + 1)
    data[start:start + length] = bytes(length)
    return bytes(data)


def truncate(data, rng):
    return data[:rng.randrange(1, len(data))]


def mp4_boxes(data):
    """(offset, size, type) of every box, walking into containers."""
    boxes = []
    containers = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"udta", b"dinf", b"mvex", b"moof", b"traf"}

    def walk(start, end):
        i = start
        while i + 8 <= end:
            size, kind = struct.unpack(">I4s", data[i:i + 8])
            header = 8
            if size == 1 and i + 16 <= end:
                size = struct.unpack(">Q", data[i + 8:i + 16])[0]
                header = 16
            if size < header or i + size > end:
                break
            boxes.append((i, size, kind))
            if kind in containers:
                walk(i + header, i + size)
            i += size
    walk(0, len(data))
    return boxes


def box_size(data, rng):
    boxes = [b for b in mp4_boxes(data) if b[1] < 1 << 32]
    if not boxes:
        return bit_flips(data, rng)
    offset, size, _ = rng.choice(boxes)
    new = rng.choice([0, 1, 7, size - 1, size + 1, size * 2, 0xFFFFFFFF, rng.randrange(1 << 32)])
    return data[:offset] + struct.pack(">I", new & 0xFFFFFFFF) + data[offset + 4:]


def swap_chunks(data, rng):
    if len(data) < 64:
        return bit_flips(data, rng)
    length = rng.randint(16, max(16, min(len(data) // 4, 65536)))
    a = rng.randrange(0, len(data) - length)
    b = rng.randrange(0, len(data) - length)
    first, second = sorted((a, b))
    if second < first + length:
        return zero_run(data, rng)
    return data[:first] + data[second:second + length] + data[first + length:second] + data[first:first + length] + data[second + length:]


def extreme_times(data, rng):
    """An extreme value (0, 1, 2^31-1, 2^31, 2^32-1, 2^63-1, -2^63) written over a field of an MP4 timing
    box (time scales, durations, edit list times, sample deltas, composition offsets, fragment decode
    times): timestamp arithmetic on values from the file must never trap."""
    timing = {b"mvhd", b"mdhd", b"tkhd", b"elst", b"stts", b"ctts", b"tfdt", b"mehd", b"trun", b"sidx"}
    boxes = [b for b in mp4_boxes(data) if b[2] in timing and b[1] >= 16]
    if not boxes:
        return truncate(data, rng)
    offset, size, _ = rng.choice(boxes)
    width = rng.choice([4, 8])
    field = offset + 8 + 4 * rng.randrange(max(1, (size - 8 - width) // 4 + 1))
    if field + width > offset + size:
        field = offset + size - width
    values4 = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]
    values8 = [0, 1, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF]
    value = rng.choice(values4 if width == 4 else values8)
    return data[:field] + value.to_bytes(width, "big") + data[field + width:]


MUTATIONS = [("bitflip", bit_flips), ("zeros", zero_run), ("truncate", truncate), ("boxsize", box_size), ("swap", swap_chunks),
             ("times", extreme_times)]


# ---------------------------------------------------------------- commands

def commands(rng, index, path, out):
    """One command per case, rotating through probe, thumbs (both modes) and cuts (copy; now and then
    exact and smart)."""
    kind = index % 5
    if args.exact_every and index % args.exact_every == args.exact_every - 1:
        return ["cut", path, "--start", "0.3", "--end", "1.2", "--mode", "exact", "--preset", "ultrafast", "-o", out + ".mp4"]
    if args.smart_every and index % args.smart_every == args.smart_every // 2 - 1:
        return ["cut", path, "--start", "0.5", "--end", "3.5", "--mode", "smart", "--preset", "ultrafast", "-o", out + ".mp4"]
    if kind == 0:
        return ["probe", "--json", path]
    if kind == 1:
        return ["thumbs", path, "--count", str(rng.randint(1, 6)), "--height", "48", "-o", out + ".png"]
    if kind == 2:
        return ["thumbs", path, "--count", str(rng.randint(1, 6)), "--height", "48", "--mode", "fast", "-o", out + ".png"]
    ext = os.path.splitext(path)[1] or ".mp4"
    # Cuts are written to the containers vtrim reads back exactly; others go to Matroska (as by default).
    if ext.lower() not in (".mp4", ".mov", ".m4v", ".3gp", ".3g2", ".mkv", ".webm", ".ts", ".m2ts", ".mts", ".avi"):
        ext = ".mkv"
    start = rng.choice(["0", "0.4", "1", "end-1"])
    return ["cut", path, "--start", start, "--end", rng.choice(["end", "2", "9"]), "-o", out + ext]


def run_case(index, seeds, root):
    work = os.path.join(root, f"c{index}")
    os.makedirs(work, exist_ok=True)
    rng = random.Random(f"{args.seed}-{index}")
    seed = rng.choice(seeds)
    name, mutate = rng.choice(MUTATIONS)
    with open(seed, "rb") as handle:
        data = handle.read()
    damaged = mutate(data, rng)
    ext = os.path.splitext(seed)[1] or ".bin"
    path = os.path.join(work, f"case{index}{ext}")
    with open(path, "wb") as handle:
        handle.write(damaged)
    out = os.path.join(work, f"out{index}")
    command = commands(rng, index, path, out)
    started = time.monotonic()
    try:
        result = subprocess.run([args.vtrim] + command, capture_output=True, timeout=args.timeout,
                                env=dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "")))
        elapsed = time.monotonic() - started
        stderr = result.stderr.decode(errors="replace")
        lines = [line for line in stderr.splitlines() if line.strip()]
        problem = None
        if result.returncode < 0:
            problem = f"killed by signal {-result.returncode}"
        elif result.returncode not in (0, 1):
            problem = f"exit status {result.returncode}"
        elif result.returncode == 1 and not any(line.startswith("vtrim: error: ") for line in lines):
            problem = "exit 1 without an error line"
        elif any(not line.startswith("vtrim: ") for line in lines):
            problem = "stderr line not in vtrim's words: " + next(line for line in lines if not line.startswith("vtrim: "))
        leftovers = [n for n in os.listdir(work) if "vtrim-tmp" in n]
        if leftovers and problem is None:
            problem = f"temporary files left: {leftovers}"
    except subprocess.TimeoutExpired:
        elapsed = args.timeout
        problem = f"hang: no result in {args.timeout:.0f} s"
        result = None
    finding = None
    if problem:
        digest = hashlib.sha1(damaged).hexdigest()[:12]
        os.makedirs(args.findings, exist_ok=True)
        kept = os.path.join(args.findings, f"{digest}{ext}")
        shutil.copyfile(path, kept)
        with open(kept + ".txt", "w") as handle:
            handle.write(f"seed: {seed}\nmutation: {name}\ncommand: vtrim {' '.join(command)}\nproblem: {problem}\n")
            if result is not None:
                handle.write("stderr:\n" + result.stderr.decode(errors="replace")[-4000:])
        finding = (index, seed, name, command[0], problem, kept)
    shutil.rmtree(work, ignore_errors=True)
    return index, command[0] + ("/" + command[command.index("--mode") + 1] if "--mode" in command else ""), name, elapsed, \
        (result.returncode if result else None), finding


def main():
    if not os.access(args.vtrim, os.X_OK):
        sys.exit(f"fuzz: no vtrim binary at {args.vtrim}; build first (swift build) or pass --vtrim")
    seeds = seed_files()
    work = tempfile.mkdtemp(prefix="vtrim-fuzz-")
    started = time.monotonic()
    findings, counts, statuses = [], {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for index, kind, mutation, elapsed, status, finding in pool.map(lambda i: run_case(i, seeds, work), range(args.cases)):
            counts[kind] = counts.get(kind, 0) + 1
            statuses[status] = statuses.get(status, 0) + 1
            if finding:
                findings.append(finding)
                print(f"fuzz: FINDING case {index}: {finding[3]} on {os.path.basename(finding[1])} ({mutation}): {finding[4]} -> {finding[5]}", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    total = time.monotonic() - started
    crashes = sum(1 for f in findings if "signal" in f[4])
    hangs = sum(1 for f in findings if f[4].startswith("hang"))
    print(f"fuzz: {args.cases} cases from {len(seeds)} seed files (seed {args.seed}) in {total:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"fuzz: exit statuses {dict(sorted((str(k), v) for k, v in statuses.items()))}; "
          f"findings {len(findings)} (crashes {crashes}, hangs {hangs}, other {len(findings) - crashes - hangs})")
    sys.exit(1 if findings else 0)


main()
