#!/usr/bin/env python3
"""bench/serve: `vtrim serve` on the cached 10-minute 1080p file and on a folder of 200 clips.

- time to the first visible filmstrip tile of the 10-minute clip, cold (fresh server, empty cache): the
  requests the page makes (clip list, probe, timeline, the first tile of keyframes), then the same tile with
  every cell's own frame;
- the library's first screen over 200 clips in headless Chromium: from navigation until the first card's
  filmstrip is drawn and its video plays;
- the server's RSS while all 200 clips are probed and tiled (flat is the target);
- a 60 s copy cut through the API against `vtrim cut` on the command line;
- a mixed load for --load-seconds (default 60): 8 clients asking for filmstrip tiles, probes and the clip
  list, 1 MiB Range reads of the 10-minute clip, and two smart cuts after another: p95 latency per kind
  (target < 200 ms for the list and the Range reads) and RSS growth: the peak of the last 10 s over the peak of the 10 s after warm-up (target ≤ 1.25×),
  the server's own and with its workers.
Medians over --runs runs. See BENCHMARKS.md."""
import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--vtrim", default=os.path.join(ROOT, ".build", "release", "vtrim"))
parser.add_argument("--load-seconds", type=float, default=60)
parser.add_argument("--load-only", action="store_true", help="run only the mixed load")
parser.add_argument("--library", type=int, metavar="N", help="run only the library mode over N clips (hard links, scripts/make-test-library.py)")
args = parser.parse_args()

media = subprocess.run([os.path.join(HERE, "make-media.sh")], capture_output=True, text=True, check=True).stdout.split()
big = next(p for p in media if "1080p" in p)
cache = os.path.dirname(big)


def rss_of(pid):
    with open(f"/proc/{pid}/status") as status:
        line = next(l for l in status if l.startswith("VmRSS"))
    return int(line.split()[1]) / 1024


class Server:
    def __init__(self, folder):
        self.cache = benchlib.work_directory("vtrim-bench-cache-")
        # The state database beside the cache, never the home of whoever runs the bench.
        self.state = benchlib.work_directory("vtrim-bench-state-")
        env = dict(os.environ, XDG_CACHE_HOME=self.cache, XDG_STATE_HOME=self.state)
        self.process = subprocess.Popen([args.vtrim, "serve", folder, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=env)
        info = json.loads(self.process.stdout.readline())
        self.port, self.token, self.url = info["port"], info["token"], info["url"]

    def get(self, path, method="GET", body=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        headers = {"Host": f"127.0.0.1:{self.port}", "Authorization": f"Bearer {self.token}"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        if response.status >= 300:
            raise SystemExit(f"bench: {path} -> {response.status} {data[:300]!r}")
        return data

    def json(self, path, **kw):
        return json.loads(self.get(path, **kw))

    def rss_mib(self):
        return rss_of(self.process.pid)

    def workers_rss_mib(self):
        """The server's and its worker processes' RSS together."""
        total = self.rss_mib()
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
                if parent == self.process.pid:
                    total += rss_of(int(name))
            except (OSError, StopIteration):
                continue
        return total

    def stop(self):
        self.process.terminate()
        self.process.wait(30)
        shutil.rmtree(self.cache, ignore_errors=True)


def folder_with(path, name):
    """A folder holding `path` (a hard link where possible: the server serves only files inside its folder)."""
    folder = os.path.join(cache, "serve-" + name)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, os.path.basename(path))
    if not os.path.exists(target):
        try:
            os.link(path, target)
        except OSError:
            shutil.copy(path, target)
    return folder


def first_tile(folder):
    """The page's requests up to its first visible tile (keyframes), then the accurate tile; seconds."""
    server = Server(folder)
    try:
        started = time.perf_counter()
        clip = server.json("/api/clips")["items"][0]["id"]
        info = server.json(f"/api/clips/{clip}")
        video = info["video"]
        thumb = round(50 * video["display_width"] / video["display_height"])
        query = f"strip_width=1168&thumb_width={thumb}&thumb_height=50&max={info['duration']}&min=2"
        server.json(f"/api/clips/{clip}/timeline?{query}")
        server.get(f"/api/clips/{clip}/filmstrip.png?{query}&first=0&count=10&mode=fast")
        fast = time.perf_counter() - started
        server.get(f"/api/clips/{clip}/filmstrip.png?{query}&first=0&count=10")
        accurate = time.perf_counter() - started
        # The same strip with VideoLine's own window (5 s): cells 0.5 s apart, the first tile within one GOP.
        near = f"strip_width=1168&thumb_width={thumb}&thumb_height=50&max=5&min=2"
        mark = time.perf_counter()
        server.get(f"/api/clips/{clip}/filmstrip.png?{near}&first=0&count=10")
        dense = time.perf_counter() - mark
        return fast, accurate, dense
    finally:
        server.stop()


def library_folder():
    folder = os.path.join(cache, "serve-200")
    os.makedirs(folder, exist_ok=True)
    source = os.path.join(ROOT, "fixtures", "h264-aac.mp4")
    for index in range(200):
        target = os.path.join(folder, f"clip-{index:03d}.mp4")
        if not os.path.exists(target):
            shutil.copy(source, target)
    return folder


def first_screen(folder):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/lib/chromium/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--mute-audio"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    server = Server(folder)
    try:
        driver.get(f"http://127.0.0.1:{server.port}/favicon.ico")  # the origin, for the cookie below
        driver.add_cookie({"name": f"vtrim_token_{server.port}", "value": server.token, "path": "/"})
        started = time.perf_counter()
        driver.get(f"http://127.0.0.1:{server.port}/#/library")
        deadline = time.time() + 60
        while time.time() < deadline:
            ready = driver.execute_script("""
                const card = document.querySelector('#feed .card');
                if (!card) return false;
                const strip = card.querySelector('.filmstrip'), video = card.querySelector('video');
                return strip.complete && strip.naturalWidth > 0 && !video.paused && video.currentTime > 0;""")
            if ready:
                break
            time.sleep(0.01)
        elapsed = time.perf_counter() - started
        cards = driver.execute_script("return document.querySelectorAll('#feed .card').length")
        return elapsed, cards, server
    finally:
        driver.quit()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def mixed_load(folder, seconds):
    """8 clients for `seconds`: 3 asking for tiles, 2 for probes and the clip list, 1 for 1 MiB Range reads,
    2 for smart cuts of 10 s, one after another. Returns latencies per kind, failures and RSS figures."""
    import threading
    server = Server(folder)
    latencies, failures = {}, []
    lock = threading.Lock()
    started = time.time()
    stop = started + seconds
    clips = server.json("/api/clips?limit=500")["items"]
    big_clip = next(c for c in clips if c["name"] == os.path.basename(big))
    size = big_clip["size"]
    infos = {c["id"]: server.json(f"/api/clips/{c['id']}") for c in clips}

    def timed(kind, path, method="GET", body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
        sent = {"Host": f"127.0.0.1:{server.port}", "Authorization": f"Bearer {server.token}", **(headers or {})}
        if body is not None:
            sent["Content-Type"] = "application/json"
        mark = time.perf_counter()
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - mark
        connection.close()
        with lock:
            latencies.setdefault(kind, []).append(elapsed)
            if response.status >= 300 and response.status != 206:
                failures.append((kind, response.status, data[:200]))
        return data

    def tiles(seed):
        number = 0
        while time.time() < stop:
            clip = clips[(seed + number) % len(clips)]
            width = 40 + (seed * 13 + number) % 40
            duration = infos[clip["id"]]["duration"]
            # The whole clip in the window (the minimum follows the maximum down for short clips), the
            # strip's first ten cells: 40 widths a clip, so fresh tiles at first and cached ones later.
            timed("tile", f"/api/clips/{clip['id']}/filmstrip.png?strip_width=1168&thumb_width={width}&thumb_height=50"
                          f"&max={duration}&first=0&count=10")
            number += 1

    def probes():
        while time.time() < stop:
            timed("list", "/api/clips")
            for clip in clips:
                timed("probe", f"/api/clips/{clip['id']}")

    def ranges():
        offset = 0
        while time.time() < stop:
            start = offset % max(1, size - (1 << 20))
            timed("range 1 MiB", f"/media/{big_clip['id']}", headers={"Range": f"bytes={start}-{start + (1 << 20) - 1}"})
            offset += 7_919_113

    def cuts(seed):
        number = 0
        while time.time() < stop:
            start = 30 + 47 * (seed * 5 + number) % 500
            job = json.loads(timed("cut POST", "/api/cuts", method="POST",
                                   body=json.dumps({"clip": big_clip["id"], "start": start, "end": start + 10, "mode": "smart"})))
            while job.get("status") in ("queued", "running"):
                time.sleep(0.05)
                job = json.loads(timed("cut status", f"/api/cuts/{job['id']}"))
            if job.get("status") != "done":
                with lock:
                    failures.append(("cut", job.get("status"), job.get("error")))
            elif os.path.exists(job["output"]):
                os.unlink(job["output"])
            number += 1

    rss = {}

    def sampler():
        # Workers' RSS rises and falls with what each is doing (a smart cut's encoders, a 4K tile), so the
        # highest sample of the 10 s after warm-up is compared with the highest of the last 10 s: a leak
        # lifts the second, a cut running at one moment and not the other does not.
        samples = []
        while time.time() < stop:
            time.sleep(0.5)
            samples.append((time.time() - started, server.rss_mib(), server.workers_rss_mib()))
        warm = [s for s in samples if 10 <= s[0] < 20] or samples[:1]
        end = [s for s in samples if s[0] >= seconds - 10] or samples[-1:]
        rss["warm"] = (max(s[1] for s in warm), max(s[2] for s in warm))
        rss["end"] = (max(s[1] for s in end), max(s[2] for s in end))

    threads = [threading.Thread(target=tiles, args=(n,)) for n in range(3)] + [threading.Thread(target=probes) for _ in range(2)] \
        + [threading.Thread(target=ranges)] + [threading.Thread(target=cuts, args=(n,)) for n in range(2)] + [threading.Thread(target=sampler)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    alive = server.process.poll() is None
    server.stop()
    return latencies, failures, rss, alive


def print_load(latencies, failures, rss, alive, seconds):
    print(f"\n### vtrim serve under a mixed load, {seconds:.0f} s, 8 clients\n")
    print("| requests | count | median | p95 | target |\n|---|---:|---:|---:|---|")
    for kind in ("list", "range 1 MiB", "probe", "tile", "cut POST", "cut status"):
        values = latencies.get(kind, [])
        target = "< 200 ms" if kind in ("list", "range 1 MiB") else ""
        print(f"| {kind} | {len(values)} | {statistics.median(values) * 1000:.0f} ms | {percentile(values, 0.95) * 1000:.0f} ms | {target} |"
              if values else f"| {kind} | 0 | | | {target} |")
    (server_warm, all_warm), (server_end, all_end) = rss["warm"], rss["end"]
    print(f"| peak RSS 10–20 s → last 10 s, server | {server_warm:.0f} → {server_end:.0f} MiB | {server_end / server_warm:.2f}× | | ≤ 1.25× |")
    print(f"| peak RSS 10–20 s → last 10 s, server + workers | {all_warm:.0f} → {all_end:.0f} MiB | {all_end / all_warm:.2f}× | | ≤ 1.25× |")
    print(f"\nfailed requests: {len(failures)}{' ' + repr(failures[:3]) if failures else ''}; server alive: {alive}")


def load_folder():
    """The 10-minute clip and the HEVC, rotated and VFR fixtures."""
    folder = folder_with(big, "load")
    for name in ("hevc.mp4", "rot90.mp4", "vfr.mp4"):
        target = os.path.join(folder, name)
        if not os.path.exists(target):
            shutil.copy(os.path.join(ROOT, "fixtures", name), target)
    return folder


def library_mode(count, seconds):
    """The list over a library of `count` clips: the first walk, 8 clients paging, sorting and searching for `seconds`
    while the background probes run, the server's RSS, how soon a file added or removed shows, the state database's
    size and what the server wrote meanwhile, and a restart from the database (every probe kept)."""
    import random
    import threading
    folder = os.path.join(cache, f"serve-library-{count}", "clips")
    subprocess.run([os.path.join(ROOT, "scripts", "make-test-library.py"), str(count), folder], check=True, capture_output=True)
    server = Server(folder)
    mark = time.perf_counter()
    while not server.json("/api/clips?limit=1")["walked"]:
        time.sleep(0.01)
    walked = time.perf_counter() - mark
    latencies, lock = {}, threading.Lock()
    stop = time.time() + seconds

    def timed(kind, path):
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        connection.request("GET", path, headers={"Host": f"127.0.0.1:{server.port}", "Authorization": f"Bearer {server.token}"})
        began = time.perf_counter()
        response = connection.getresponse()
        data = response.read()
        elapsed = time.perf_counter() - began
        connection.close()
        if response.status != 200:
            raise SystemExit(f"bench: {path} -> {response.status} {data[:200]!r}")
        with lock:
            latencies.setdefault(kind, []).append(elapsed)
        return json.loads(data)

    def client(seed):
        generator = random.Random(seed)
        while time.time() < stop:
            sort = generator.choice(["path", "name", "date", "size", "duration"])
            order = generator.choice(["asc", "desc"])
            page = timed("first page", f"/api/clips?sort={sort}&order={order}&limit=100")
            for _ in range(3):
                if not page["next"]:
                    break
                page = timed("next page (cursor)", f"/api/clips?sort={sort}&order={order}&limit=100&after={page['next']}")
            timed("jump (offset)", f"/api/clips?offset={generator.randrange(count)}&limit=100")
            timed("search", f"/api/clips?q=clip-{generator.randrange(count // 10):05d}&limit=100")

    def written_bytes():
        with open(f"/proc/{server.process.pid}/io") as io:
            return next(int(line.split()[1]) for line in io if line.startswith("write_bytes"))

    load_began, written_before = time.perf_counter(), written_bytes()
    rss = []
    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    writes = []
    while any(thread.is_alive() for thread in threads):
        rss.append(server.rss_mib())
        writes.append((time.perf_counter(), written_bytes()))
        time.sleep(0.5)
    probed = server.json("/api/clips?limit=1")["probed"]
    # The first 10 s hold the first save of every listed file; the rate after it is the probes' own.
    writes = writes or [(time.perf_counter(), written_bytes())]
    settled = next(((t, w) for t, w in writes if t - load_began >= 10), None) or writes[0]
    write_rate = (writes[-1][1] - settled[1]) / max(1e-3, writes[-1][0] - settled[0])
    first_save_mib = (settled[1] - written_before) / 2**20
    # A file added, then removed: how soon the list shows it.
    added = os.path.join(folder, "a000", "b0", "zz-bench-new.mp4")
    shutil.copy(os.path.join(ROOT, "fixtures", "h264-aac-nob.mp4"), added)
    mark = time.perf_counter()
    while server.json("/api/clips?q=zz-bench-new")["total"] != 1:
        time.sleep(0.02)
    appeared = time.perf_counter() - mark
    os.unlink(added)
    mark = time.perf_counter()
    while server.json("/api/clips?q=zz-bench-new")["total"] != 0:
        time.sleep(0.02)
    vanished = time.perf_counter() - mark
    change_ms = cpu_per_change(server, folder)
    cache_folder, state_folder = server.cache, server.state
    probed_at_stop = server.json("/api/clips?limit=1")["probed"]
    server.process.terminate()
    server.process.wait(30)
    database = os.path.join(state_folder, "vtrim", "vtrim.sqlite3")
    database_mib = sum(os.path.getsize(database + suffix) for suffix in ("", "-wal") if os.path.exists(database + suffix)) / 2**20
    # A restart over the same state: the database answers before the walk, with every probe kept.
    env = dict(os.environ, XDG_CACHE_HOME=cache_folder, XDG_STATE_HOME=state_folder)
    mark = time.perf_counter()
    process = subprocess.Popen([args.vtrim, "serve", folder, "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    info = json.loads(process.stdout.readline())
    connection = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=60)
    connection.request("GET", "/api/clips?limit=100", headers={"Host": f"127.0.0.1:{info['port']}", "Authorization": f"Bearer {info['token']}"})
    first = json.loads(connection.getresponse().read())
    restarted = time.perf_counter() - mark
    process.terminate()
    process.wait(30)
    shutil.rmtree(cache_folder, ignore_errors=True)
    shutil.rmtree(state_folder, ignore_errors=True)

    def p95(values):
        return sorted(values)[max(0, int(len(values) * 0.95) - 1)] * 1000

    print(f"\n### vtrim serve, a library of {count:,} clips\n")
    print("| measure | result | target |\n|---|---:|---|")
    print(f"| first walk (fresh cache, no index), server start to the full list | {walked:.2f} s | off the event loop |")
    print(f"| restart from the state database: process start to the first page ({first['total']:,} clips, {first['probed']:,} probed of the {probed_at_stop:,} at the stop) | {restarted:.2f} s | ≤ 1.5 s, every probe kept |")
    print(f"| the state database (vtrim.sqlite3 + its WAL) at the stop; the server's writes in the load's first 10 s (the first save of every file) and after, while probing | {database_mib:.1f} MiB; {first_save_mib:.1f} MiB, then {write_rate / 1024:.0f} KiB/s | |")
    for kind, values in sorted(latencies.items()):
        print(f"| GET /api/clips {kind}: p50 / p95 over {len(values)} requests, 8 clients | {statistics.median(values) * 1000:.1f} / {p95(values):.1f} ms | p95 ≤ 50 ms |")
    print(f"| server RSS during the load (start / peak), background probes running ({probed:,} probed by the end) | {rss[0]:.0f} / {max(rss):.0f} MiB | ≤ 300 MiB |")
    print(f"| a file added / removed: listed / gone after | {appeared:.2f} / {vanished:.2f} s | ≤ 5 s |")
    print(f"| the server's CPU per file added or removed (5 of each, beyond its CPU over 10 quiet seconds before) | {change_ms:.0f} ms | |")


def cpu_per_change(server, folder, pairs=5):
    """Server CPU (user + system, beyond its rate over 10 quiet seconds: the background probes' summaries) per file
    added or removed, each waited for in the listing."""
    tick = os.sysconf("SC_CLK_TCK")

    def cpu():
        with open(f"/proc/{server.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    mark, used = time.perf_counter(), cpu()
    time.sleep(10)
    idle = (cpu() - used) / (time.perf_counter() - mark)
    total = server.json("/api/clips?limit=1")["total"]
    mark, used = time.perf_counter(), cpu()
    names = [os.path.join(folder, "a000", "b0", f"zz-bench-change-{i}.mp4") for i in range(pairs)]
    for index, name in enumerate(names):
        shutil.copy(os.path.join(ROOT, "fixtures", "h264-aac-nob.mp4"), name)
        while server.json("/api/clips?limit=1")["total"] != total + index + 1:
            time.sleep(0.02)
    for index, name in enumerate(names):
        os.unlink(name)
        while server.json("/api/clips?limit=1")["total"] != total + pairs - index - 1:
            time.sleep(0.02)
    return (cpu() - used - idle * (time.perf_counter() - mark)) / (2 * pairs) * 1000


def main():
    if args.library:
        library_mode(args.library, args.load_seconds)
        return
    if args.load_only:
        print_load(*mixed_load(load_folder(), args.load_seconds), args.load_seconds)
        return
    print(f"bench: first tile of {os.path.basename(big)}, {args.runs} cold runs", file=sys.stderr, flush=True)
    one = folder_with(big, "one")
    tiles = [first_tile(one) for _ in range(args.runs)]
    fast = statistics.median(t[0] for t in tiles)
    accurate = statistics.median(t[1] for t in tiles)
    dense = statistics.median(t[2] for t in tiles)

    print("bench: library first screen over 200 clips", file=sys.stderr, flush=True)
    many = library_folder()
    screens = []
    rss = []
    for run in range(args.runs):
        elapsed, cards, server = first_screen(many)
        screens.append(elapsed)
        if run == 0:
            # RSS while every clip is probed and tiled, through the API.
            clips = server.json("/api/clips?limit=500")["items"]
            rss.append((0, server.rss_mib()))
            for index, clip in enumerate(clips, start=1):
                info = server.json(f"/api/clips/{clip['id']}")
                server.get(f"/api/clips/{clip['id']}/filmstrip.png?strip_width=480&thumb_width=48&thumb_height=27&max={info['duration']}&min=2&first=0&count=10")
                if index in (20, 50, 100, 200):
                    rss.append((index, server.rss_mib()))
        server.stop()

    print("bench: a 60 s copy cut through the API and on the command line", file=sys.stderr, flush=True)
    server = Server(one)
    clip = server.json("/api/clips")["items"][0]["id"]
    duration = server.json(f"/api/clips/{clip}")["duration"]
    start, end = duration / 2 - 29, duration / 2 + 31
    api_times, cli_times = [], []
    out = benchlib.work_directory("vtrim-bench-serve-cut-")
    for run in range(args.runs):
        mark = time.perf_counter()
        job = server.json("/api/cuts", method="POST", body=json.dumps({"clip": clip, "start": start, "end": end, "mode": "copy"}))
        while job["status"] in ("queued", "running"):
            time.sleep(0.01)
            job = server.json(f"/api/cuts/{job['id']}")
        api_times.append(time.perf_counter() - mark)
        os.unlink(job["output"])
        target = os.path.join(out, f"cli-{run}.mp4")
        mark = time.perf_counter()
        subprocess.run([args.vtrim, "cut", os.path.join(one, os.path.basename(big)), "--start", f"{start:.3f}", "--end", f"{end:.3f}",
                        "-o", target], check=True, capture_output=True)
        cli_times.append(time.perf_counter() - mark)
        os.unlink(target)
    server.stop()

    print(f"\n### vtrim serve, median of {args.runs} runs\n")
    print("| measure | result | target |\n|---|---:|---|")
    print(f"| first visible tile, 10-min 1080p clip (list, probe, timeline, 10 keyframe cells), cold | {fast:.2f} s | < 0.5 s |")
    print(f"| the same tile with every cell's own frame (cells 54 s apart) | {accurate:.2f} s | |")
    print(f"| a tile at VideoLine's 5 s window (cells 0.5 s apart), accurate | {dense:.2f} s | |")
    print(f"| library first screen over 200 clips (first card's filmstrip drawn, its video playing) | {statistics.median(screens):.2f} s | < 1 s |")
    print(f"| server RSS while probing and tiling 200 clips (after 0/20/50/100/200) | {' / '.join(f'{m:.0f}' for _, m in rss)} MiB | flat |")
    api, cli = statistics.median(api_times), statistics.median(cli_times)
    print(f"| 60 s copy cut: POST /api/cuts until done ÷ `vtrim cut` | {api:.2f} s ÷ {cli:.2f} s = {api / cli:.2f} | |")

    print(f"bench: mixed load for {args.load_seconds:.0f} s", file=sys.stderr, flush=True)
    print_load(*mixed_load(load_folder(), args.load_seconds), args.load_seconds)


main()
