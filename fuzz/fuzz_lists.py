#!/usr/bin/env python3
"""Mutation fuzzing of what vtrim reads besides media: cut lists and the server's request bodies.

lists: every list format vtrim writes (LosslessCut CSV and .llc, OpenTimelineIO, CMX3600 EDL, chapter text), made by
vtrim from a fixture, damaged one way — bit flips, bytes inserted or dropped, truncation, a number swapped for an
extreme one (1e308, -1, nan, 2^64, 0), a timecode field swapped (99:99:99:99, 00:00:00;00), a line doubled, dropped
or moved, a quote or a line break inserted — and given to `vtrim cut --list` (joined and one output per row, EDLs also
at --list-rate 25 and --list-origin zero), dry runs. A case passes when vtrim ends within the timeout with 0, 1 or 64
and speaks in its own words.

serve: one `vtrim serve` over the fixtures, and request bodies for every POST route (cuts, list parse and render,
previews) and DELETE, made from valid ones with a value swapped for another type or an extreme, a key dropped or
added, or the bytes damaged. A case passes when the server answers within the timeout with anything but an engine
crash or timeout (a worker that died or hung on a list or a plan), and stays up.

    fuzz/fuzz_lists.py --cases 300 --seed 1      # the bounded set CI runs (scripts/fuzz)
    fuzz/fuzz_lists.py --cases 5000 --seed 9 --only serve
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import concurrent.futures

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURE = os.path.join(ROOT, "fixtures", "h264-aac.mp4")

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--cases", type=int, default=300, help="cases of each kind")
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--jobs", type=int, default=2)
parser.add_argument("--timeout", type=float, default=30.0)
parser.add_argument("--only", choices=["lists", "serve"])
parser.add_argument("--vtrim", default=os.environ.get("VTRIM_BIN", os.path.join(ROOT, ".build", "release", "vtrim")))
parser.add_argument("--findings", default=os.path.join(HERE, "findings"))
args = parser.parse_args()

FORMATS = ["csv", "llc", "otio", "edl", "chapters"]
EXTREMES = ["1e308", "-1e308", "-1", "0", "-0", "nan", "inf", "18446744073709551616", "9223372036854775807", "1e-320",
            "0.0000001", "86400000", "99:99:99:99", "00:00:00;00", "23:59:59:29", "end-1e308", ""]


def seed_lists(work):
    """Each format as vtrim writes it: two labelled ranges of the 4 s fixture (chapter text: contiguous ranges)."""
    seeds = {}
    for fmt in FORMATS:
        path = os.path.join(work, f"seed.{'txt' if fmt == 'chapters' else fmt}")
        keeps = ["--keep", "0..1.7", "--keep", "1.7..3.6"] if fmt == "chapters" else ["--keep", "0.5..1.7", "--keep", "2.1..3.6"]
        subprocess.run([args.vtrim, "cut", FIXTURE, *keeps, "--mode", "copy", "--list-format", fmt, "--export-list", path,
                        "-o", os.path.join(work, f"seed-{fmt}.mkv")], check=True, capture_output=True)
        with open(path, "rb") as handle:
            seeds[fmt] = handle.read()
    return seeds


def mutate(data, rng):
    """One damage of a list's bytes, and its name."""
    data = bytearray(data)
    kind = rng.randrange(8)
    if kind == 0 and data:
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return bytes(data), "bit flips"
    if kind == 1:
        at = rng.randrange(len(data) + 1)
        return bytes(data[:at] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) + data[at:]), "bytes inserted"
    if kind == 2 and data:
        at = rng.randrange(len(data))
        return bytes(data[:at] + data[at + rng.randint(1, 32):]), "bytes dropped"
    if kind == 3:
        return bytes(data[:rng.randrange(len(data) + 1)]), "truncated"
    text = data.decode("utf-8", errors="replace")
    if kind == 4:
        tokens = [i for i, c in enumerate(text) if c.isdigit() and (i == 0 or not text[i - 1].isdigit())]
        if tokens:
            start = rng.choice(tokens)
            end = start
            while end < len(text) and (text[end].isdigit() or text[end] in ".:;"):
                end += 1
            return (text[:start] + rng.choice(EXTREMES) + text[end:]).encode(), "number swapped"
    lines = text.split("\n")
    if kind == 5 and lines:
        line = rng.randrange(len(lines))
        action = rng.randrange(3)
        if action == 0:
            lines.insert(line, lines[line])
        elif action == 1:
            del lines[line]
        else:
            lines.insert(rng.randrange(len(lines) + 1), lines.pop(line))
        return "\n".join(lines).encode(), "line doubled, dropped or moved"
    at = rng.randrange(len(text) + 1)
    return (text[:at] + rng.choice(["\"", "\n", "\r\n", ",", "\u0000", "é", "{", "]", "..", ":", ";", "\\"]) + text[at:]).encode(), \
        "character inserted"


def run(command):
    """(exit status or None, stderr, problem): a timeout or signal is a problem; so is a status other than 0, 1, 64
    or a line not in vtrim's (or the argument parser's) words."""
    try:
        result = subprocess.run([args.vtrim] + command, capture_output=True, timeout=args.timeout,
                                env=dict(os.environ, SWIFT_BACKTRACE="enable=yes,interactive=no,color=no"))
    except subprocess.TimeoutExpired as expired:
        return None, (expired.stderr or b"").decode(errors="replace"), f"hang: no result in {args.timeout:.0f} s"
    stderr = result.stderr.decode(errors="replace")
    if result.returncode < 0:
        return result.returncode, stderr, f"killed by signal {-result.returncode}"
    if result.returncode not in (0, 1, 64):
        return result.returncode, stderr, f"exit status {result.returncode}"
    lines = [line for line in stderr.splitlines() if line.strip()]
    words = ("vtrim: ", "Error: ", "Usage: ", "  See 'vtrim")
    if any(not line.startswith(words) for line in lines):
        return result.returncode, stderr, "stderr line not in vtrim's words: " + next(l for l in lines if not l.startswith(words))
    return result.returncode, stderr, None


def list_case(index, seeds, root):
    rng = random.Random(f"{args.seed}-list-{index}")
    fmt = rng.choice(FORMATS)
    data, mutation = mutate(seeds[fmt], rng)
    work = os.path.join(root, f"l{index}")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, f"case.{'txt' if fmt == 'chapters' else fmt}")
    with open(path, "wb") as handle:
        handle.write(data)
    extra = rng.choice([[], ["--list-rate", "25"], ["--list-origin", "zero"], ["--list-rate", "29.97df", "--list-origin", "timecode"]]) \
        if fmt == "edl" else []
    join = rng.random() < 0.6
    command = ["cut", FIXTURE, "--list", path, "--list-format", fmt, "--dry-run", "--json", *extra] \
        + (["--join", "-o", os.path.join(work, "out.mkv")] if join else ["--output-dir", os.path.join(work, "out")])
    status, stderr, problem = run(command)
    finding = None
    if problem:
        os.makedirs(args.findings, exist_ok=True)
        kept = os.path.join(args.findings, f"list-{args.seed}-{index}.{fmt}")
        shutil.copyfile(path, kept)
        with open(kept + ".txt", "w") as handle:
            handle.write(f"mutation: {mutation}\ncommand: vtrim {' '.join(kept if p == path else p for p in command)}\nproblem: {problem}\n"
                         f"stderr:\n{stderr[-6000:]}")
        finding = (index, fmt, mutation, problem, kept)
    shutil.rmtree(work, ignore_errors=True)
    return status, finding


# ---------------------------------------------------------------- serve

class Server:
    def __init__(self, folder):
        self.log = tempfile.NamedTemporaryFile(prefix="vtrim-fuzz-serve-", suffix=".log", delete=False)
        # Its cache and library state beside the clips (removed with them), never in the home of whoever runs it.
        parent = os.path.dirname(folder)
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(parent, "cache"), XDG_STATE_HOME=os.path.join(parent, "state"))
        self.process = subprocess.Popen([args.vtrim, "serve", folder, "--json", "--worker-timeout", "20"], stdout=subprocess.PIPE,
                                        stderr=self.log, text=True, env=env)
        info = json.loads(self.process.stdout.readline())
        self.port, self.token = info["port"], info["token"]

    def request(self, method, path, body=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=args.timeout)
        headers = {"Authorization": f"Bearer {self.token}", "Host": f"127.0.0.1:{self.port}"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, data

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.alive():
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        with open(self.log.name, errors="replace") as handle:
            return handle.read()


def wild_value(rng):
    return rng.choice([None, True, 0, -0.0, -1, 1e308, -1e308, 5e-324, 2 ** 63, 2 ** 64, 1e15, "", "x" * 70_000, "é\u0000",
                       "../../etc/passwd", [], {}, [1, 2], {"start": 1}, "nan", 0.5, 3, 86_400_000])


def mutate_body(body, rng):
    """A body made from a valid one: a value swapped, a key dropped or added, or its bytes damaged; and its name."""
    kind = rng.randrange(5)
    value = json.loads(json.dumps(body))
    def pick_container(node):
        containers = []
        def walk(item):
            if isinstance(item, dict):
                containers.append(item)
                for child in item.values():
                    walk(child)
            elif isinstance(item, list):
                containers.append(item)
                for child in item:
                    walk(child)
        walk(node)
        return rng.choice(containers)
    target = pick_container(value)
    if kind == 0 and target:
        key = rng.choice(list(target.keys())) if isinstance(target, dict) else rng.randrange(len(target))
        target[key] = wild_value(rng)
        return json.dumps(value, allow_nan=True), f"value swapped at {key}"
    if kind == 1 and isinstance(target, dict) and target:
        del target[rng.choice(list(target.keys()))]
        return json.dumps(value), "key dropped"
    if kind == 2 and isinstance(target, dict):
        target[rng.choice(["extra", "ranges", "mode", "list_rate", "format", "start"])] = wild_value(rng)
        return json.dumps(value, allow_nan=True), "key added"
    if kind == 3 and isinstance(target, list):
        target.extend([target[0] if target else wild_value(rng)] * rng.randint(1, 1200))
        return json.dumps(value, allow_nan=True), "array grown"
    text = bytearray(json.dumps(value).encode())
    for _ in range(rng.randint(1, 4)):
        if text:
            text[rng.randrange(len(text))] = rng.randrange(256)
    return bytes(text), "bytes damaged"


def serve_cases(root):
    folder = os.path.join(root, "clips")
    os.makedirs(folder)
    for name in ("h264-aac.mp4", "hevc.mp4"):
        shutil.copy(os.path.join(ROOT, "fixtures", name), os.path.join(folder, name))
    server = Server(folder)
    findings, statuses = [], {}
    try:
        status, data = server.request("GET", "/api/clips")
        clips = [clip["id"] for clip in json.loads(data)["items"]]
        edl = "TITLE: x\nFCM: NON-DROP FRAME\n\n001  AX V C 00:00:00:15 00:00:01:15 00:00:00:00 00:00:01:00\n"
        valid = [
            ("POST", "/api/cuts", {"clip": clips[0], "start": 0.5, "end": 2, "mode": "copy"}),
            ("POST", "/api/cuts", {"clip": clips[0], "ranges": [{"start": 0.2, "end": 1, "label": "a"}, {"start": 1.5, "end": 2.5}], "mode": "smart"}),
            ("POST", "/api/lists/parse", {"format": "edl", "text": edl, "duration": 4, "fps": 30, "name": "a.mp4", "timecode": "00:00:00:00"}),
            ("POST", "/api/lists/parse", {"format": "csv", "text": "0.5,1.7,a\n2.1,end,b\n", "duration": 4, "fps": 30}),
            ("POST", "/api/lists/render", {"format": "edl", "ranges": [{"start": 0.5, "end": 1.5, "label": "x"}], "fps": 0.3,
                                           "duration": 30, "name": "slow.mp4", "list_rate": "25"}),
            ("POST", "/api/lists/render", {"format": "otio", "ranges": [{"start": 0, "end": 1}], "fps": 30, "duration": 4, "name": "a.mp4"}),
            ("POST", f"/api/clips/{clips[-1]}/preview", {}),
        ]
        for index in range(args.cases):
            rng = random.Random(f"{args.seed}-serve-{index}")
            method, path, body = rng.choice(valid)
            sent, mutation = mutate_body(body, rng)
            try:
                status, data = server.request(method, path, sent)
            except (OSError, http.client.HTTPException) as error:
                findings.append((index, path, mutation, f"no answer: {error}"))
                break
            statuses[status] = statuses.get(status, 0) + 1
            answer = data[:400].decode(errors="replace")
            if status in (500, 504) and ("engine_crashed" in answer or "engine_timeout" in answer):
                findings.append((index, path, mutation, f"{status}: {answer}"))
            if status == 202:
                try:
                    cut = json.loads(data)["id"]
                    server.request("DELETE", f"/api/cuts/{cut}", "{}")
                except (ValueError, KeyError, OSError, http.client.HTTPException) as error:
                    findings.append((index, path, mutation, f"cancel failed: {error}"))
            if not server.alive():
                findings.append((index, path, mutation, "the server died"))
                break
        status, _ = server.request("GET", "/api/clips") if server.alive() else (0, b"")
        if status != 200:
            findings.append((args.cases, "/api/clips", "after the cases", f"status {status}"))
    finally:
        log = server.stop()
    if "Program crashed" in log:
        findings.append((args.cases, "log", "", "a worker crashed: " + log[log.index("Program crashed") - 200:][:1500]))
    return findings, statuses


def main():
    if not os.access(args.vtrim, os.X_OK):
        sys.exit(f"fuzz: no vtrim binary at {args.vtrim}; build first")
    root = tempfile.mkdtemp(prefix="vtrim-fuzz-lists-")
    failed = False
    try:
        if args.only in (None, "lists"):
            started = time.monotonic()
            seeds = seed_lists(root)
            statuses, findings = {}, []
            with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
                for status, finding in pool.map(lambda i: list_case(i, seeds, root), range(args.cases)):
                    statuses[status] = statuses.get(status, 0) + 1
                    if finding:
                        findings.append(finding)
                        print(f"fuzz: FINDING list case {finding[0]} ({finding[1]}, {finding[2]}): {finding[3]} -> {finding[4]}", flush=True)
            print(f"fuzz: lists: {args.cases} cases (seed {args.seed}) in {time.monotonic() - started:.0f} s: exit statuses "
                  f"{dict(sorted((str(k), v) for k, v in statuses.items()))}; findings {len(findings)}")
            failed |= bool(findings)
        if args.only in (None, "serve"):
            started = time.monotonic()
            findings, statuses = serve_cases(root)
            for finding in findings:
                print(f"fuzz: FINDING serve case {finding[0]} ({finding[1]}, {finding[2]}): {finding[3]}", flush=True)
            print(f"fuzz: serve: {args.cases} request bodies (seed {args.seed}) in {time.monotonic() - started:.0f} s: statuses "
                  f"{dict(sorted(statuses.items()))}; findings {len(findings)}, the server alive after every case: {not findings}")
            failed |= bool(findings)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(1 if failed else 0)


main()
