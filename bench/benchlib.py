"""Shared helpers for the bench scripts: run commands alternately, measure wall time and peak RSS,
print a Markdown table of medians with ratios. Peak RSS comes from GNU time (-f %M), which reports
the largest process of a command's tree (a shell loop's biggest ffmpeg)."""
import atexit
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def work_directory(prefix):
    """A scratch folder for a bench run's outputs (hundreds of MB at 1080p), removed when the script exits,
    also after a failed command (SystemExit); a killed run leaves it in the temporary folder."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def measure(command, env=None):
    """Runs `command` (a shell string) once; returns (wall seconds, peak RSS in MiB)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        start = time.perf_counter()
        result = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, "bash", "-c", command],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        wall = time.perf_counter() - start
        if result.returncode != 0:
            sys.stderr.write(f"bench: command failed ({result.returncode}): {command}\n{result.stderr.decode()[-2000:]}\n")
            raise SystemExit(1)
        rss_kib = int(report.read().strip().splitlines()[-1])
    return wall, rss_kib / 1024


def run_alternating(rows, runs, label=""):
    """rows: list of (name, command). Runs every command once per round, `runs` rounds; before each
    (untimed) `sync` flushes the previous command's writes so they do not slow the next one down.
    Returns {name: (median wall, median peak RSS, all walls)}."""
    samples = {name: [] for name, _ in rows}
    for round_index in range(runs):
        for name, command in rows:
            subprocess.run(["sync"], check=False)
            wall, rss = measure(command)
            samples[name].append((wall, rss))
            print(f"  {label} round {round_index + 1}/{runs}: {name}: {wall:.2f} s, {rss:.0f} MiB", file=sys.stderr, flush=True)
    return {name: (statistics.median(w for w, _ in values), statistics.median(r for _, r in values), [w for w, _ in values])
            for name, values in samples.items()}


def table(results, rows, baselines):
    """Markdown table; `baselines` maps a column title to the row name the ratio is taken against
    (ratio = peer time / baseline time: above 1 means the baseline is faster)."""
    titles = list(baselines)
    lines = ["| command | median wall (s) | peak RSS (MiB) | " + " | ".join(f"÷ {t}" for t in titles) + " |",
             "|---|---:|---:|" + "---:|" * len(titles)]
    for name, _ in rows:
        wall, rss, _ = results[name]
        ratios = [f"{wall / results[b][0]:.2f}" for b in baselines.values()]
        lines.append(f"| {name} | {wall:.2f} | {rss:.0f} | " + " | ".join(ratios) + " |")
    return "\n".join(lines)


def probe_duration(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path],
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip())


def quote(path):
    return shlex.quote(path)


HERE = os.path.dirname(os.path.abspath(__file__))
# The release build every bench script times unless --vtrim names another.
RELEASE_VTRIM = os.path.join(HERE, "..", ".build", "release", "vtrim")


def generated(script):
    """Runs a bench/make-*.sh generator (it caches what it makes) and returns what it printed, split."""
    return subprocess.run([os.path.join(HERE, script)], capture_output=True, text=True, check=True).stdout.split()


def smart_budget_rows(vtrim, path, out, ext, start, end, preset):
    """A smart cut's budget comparison, planned first (`--dry-run --json`): rows for the copy, the smart cut, and its
    head and tail each cut exactly alone (the budget: copy + the longer edge), and the exact cut's row. Exits when the
    plan falls back. Returns (plan, rows, exact rows)."""
    q = quote
    s, e = f"{start:.3f}", f"{end:.3f}"
    plan = json.loads(subprocess.run([vtrim, "cut", path, "--start", s, "--end", e, "--mode", "smart", "--preset", preset,
                                      "--dry-run", "--json", "-o", f"{out}-plan.{ext}"], capture_output=True, text=True, check=True).stdout)
    if plan["mode"] != "smart":
        sys.exit(f"bench: the smart cut of {path} into {ext} falls back: {plan['warnings']}")
    head, tail = plan["smart"]["head"], plan["smart"]["tail"]
    cut = f"{q(vtrim)} cut {q(path)}"
    rows = [
        ("vtrim cut (copy)", f"rm -f {q(out)}-c.{ext}; {cut} --start {s} --end {e} -o {q(out)}-c.{ext}"),
        ("vtrim cut --mode smart", f"rm -f {q(out)}-s.{ext}; {cut} --start {s} --end {e} --mode smart --preset {preset} -o {q(out)}-s.{ext}"),
        (f"head alone: exact {head[0]:.3f}–{head[1]:.3f}",
         f"rm -f {q(out)}-h.{ext}; {cut} --start {head[0]:.6f} --end {head[1]:.6f} --mode exact --crf 16 --preset {preset} -o {q(out)}-h.{ext}"),
        (f"tail alone: exact {tail[0]:.3f}–{tail[1]:.3f}",
         f"rm -f {q(out)}-t.{ext}; {cut} --start {tail[0]:.6f} --end {tail[1]:.6f} --mode exact --crf 16 --preset {preset} -o {q(out)}-t.{ext}"),
    ]
    exact = [("vtrim cut --mode exact", f"rm -f {q(out)}-e.{ext}; {cut} --start {s} --end {e} --mode exact --preset {preset} -o {q(out)}-e.{ext}")]
    return plan, rows, exact


def budget_line(label, results, rows, exact):
    """smart ÷ (copy + longer edge) and exact ÷ smart, with their targets."""
    copy_s, smart_s, head_s, tail_s = (results[name][0] for name, _ in rows)
    budget = copy_s + max(head_s, tail_s)
    return (f"{label}smart {smart_s:.2f} s; copy + longer edge {budget:.2f} s; smart/budget {smart_s / budget:.2f} (target ≤ 1.10);"
            f" exact/smart {results[exact[0][0]][0] / smart_s:.1f}× (target ≥ 10)")
