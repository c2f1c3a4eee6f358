"""One input's task: vtrim run on it (its outputs into the input's own folder), posters, and its manifest.

Runnable without Ray (`run_input`); under Ray the driver runs it as a remote function that Ray retries when its node
dies. A retry runs the whole input again: vtrim skips every output already in place (per clip) and removes the dead
attempt's temporaries (`VTRIM_ATTEMPT`: this task's key and this attempt's id; a pid on another host says nothing).
"""

import ctypes
import json
import os
import shutil
import signal
import subprocess
import time
import uuid

from . import inputs as inputs_module
from .jobs import stride_rows
from .manifest import clip_line, failure_line, output_line, write_lines

PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True)


def _dies_with(parent):
    """For the child before exec: vtrim is killed when the Ray worker that started it (`parent`) dies, so a worker
    killed with its node leaves no vtrim writing behind; a worker already gone by then ends the child at once."""
    def arrange():
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(137)
    return arrange


def _attempt_identity():
    """This attempt's id (16 hex digits: short enough for temporaries' names) and node: from Ray's worker id (a retry
    runs in another worker) and node id, else a fresh id."""
    try:
        import ray

        if ray.is_initialized():
            context = ray.get_runtime_context()
            return context.get_worker_id()[:16], context.get_node_id()
    except Exception:  # noqa: BLE001 — outside Ray, or an older Ray without these calls
        pass
    return uuid.uuid4().hex[:16], "local"


def _run(command, env):
    return subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          preexec_fn=_dies_with(os.getpid()), check=False)


def _json_lines(text):
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return lines


def _remove_other_attempts(folder, key, attempt):
    """What an earlier attempt of this task left half-written: vtrim's temporaries (files and folders) marked with
    another attempt of this task (vtrim removes each as it reaches its output again; this sweeps the rest), and this
    package's own `.part` files of other attempts. Returns how many."""
    mark = f".vtrim-tmp-@{key}@"
    removed = 0
    for root, folders, names in os.walk(folder):
        for name in folders + names:
            at = name.find(mark)
            stale = at >= 0 and not name[at + len(mark):].startswith(f"{attempt}+")
            stale = stale or (name.endswith(".part") and not name.endswith(f".{attempt}.part"))
            if not stale:
                continue
            path = os.path.join(root, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
                folders.remove(name)
            else:
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    continue
            removed += 1
    return removed


def _binary_identity(vtrim):
    """The vtrim build an attempt runs: its resolved path, size and modification time (a stat, not a process)."""
    path = vtrim if os.sep in vtrim else (shutil.which(vtrim) or vtrim)
    try:
        info = os.stat(path)
    except OSError:
        return None
    return f"{os.path.realpath(path)}:{info.st_size}:{info.st_mtime_ns}"


def _earlier_builds(attempts_folder, build):
    """Whether an earlier attempt of this input ran another vtrim build than `build` (a node with another install)."""
    for name in os.listdir(attempts_folder):
        try:
            with open(os.path.join(attempts_folder, name), encoding="utf-8") as marker:
                earlier = json.load(marker).get("vtrim")
        except (OSError, ValueError, AttributeError):
            continue
        if earlier != build:
            return True
    return False


def _clear_outputs(folder):
    """Removes what earlier attempts wrote into the input's own folder, the attempt marks aside."""
    for name in os.listdir(folder):
        if name == ".attempts":
            continue
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass


def run_input(item, job, output_dir):
    """Runs `job` on `item` into `output_dir/<its folder>`; returns its summary (and writes its manifest). A vtrim
    failure is recorded in the manifest with its error code, never raised: the run goes on."""
    key = inputs_module.task_key(item)
    folder = os.path.join(output_dir, inputs_module.folder_name(item))
    os.makedirs(os.path.join(folder, ".attempts"), exist_ok=True)
    attempt, node = _attempt_identity()
    # A retry resumes the clips an earlier attempt wrote only when the same vtrim build wrote them: another build could
    # propose other ranges, so a clip of the same index could hold another shot. Then the input is cut afresh.
    build = _binary_identity(job.vtrim)
    rewritten = _earlier_builds(os.path.join(folder, ".attempts"), build)
    if rewritten:
        _clear_outputs(folder)
    with open(os.path.join(folder, ".attempts", attempt), "w", encoding="utf-8") as marker:
        json.dump({"node": node, "pid": os.getpid(), "started": time.time(), "vtrim": build}, marker)
    swept = _remove_other_attempts(folder, key, attempt)
    # A manifest of an earlier run or attempt is replaced by this one's: one that ends before writing it leaves none,
    # so the driver records the input as failed rather than merge stale lines.
    try:
        os.unlink(os.path.join(folder, "manifest.jsonl"))
    except FileNotFoundError:
        pass
    env = dict(os.environ, VTRIM_ATTEMPT=f"{key}:{attempt}", VTRIM_CORES=str(job.cpus))
    started = time.monotonic()
    lines, failed = [], False

    strides_list = None
    if job.kind == "split" and job.stride_seconds is not None:
        probe = _run([job.vtrim, "probe", item, "--json", "--quiet"], env)
        reports = _json_lines(probe.stdout)
        duration = reports[0].get("duration") if reports else None
        if probe.returncode != 0 or not isinstance(duration, (int, float)):
            lines.append(failure_line(item, reports[0] if reports else None, probe.returncode, probe.stderr))
            failed = True
        else:
            strides_list = os.path.join(folder, "strides.csv")
            text = "".join(f"{start:.6f},{end:.6f},\n" for start, end in stride_rows(duration, job.stride_seconds))
            temporary = strides_list + f".{attempt}.part"
            with open(temporary, "w", encoding="utf-8") as listing:
                listing.write(text)
            os.replace(temporary, strides_list)

    written = skipped = 0
    if not failed:
        result = _run(job.main_command(item, folder, strides_list), env)
        reports = _json_lines(result.stdout)
        outputs = []
        for report in reports:
            if "error" in report:
                lines.append(failure_line(item, report, result.returncode, result.stderr))
                failed = True
                continue
            if report.get("skipped") and not report.get("output"):
                continue
            outputs.append(report)
            skipped += 1 if report.get("skipped") else 0
            written += 0 if report.get("skipped") else 1
        if result.returncode not in (0, 1) or (result.returncode == 1 and not failed):
            lines.append(failure_line(item, None, result.returncode, result.stderr))
            failed = True
        posters = {}
        clips = [report["output"] for report in outputs if job.writes_clips() and os.path.isfile(report["output"])]
        if job.posters and clips:
            poster_run = _run(job.poster_command(clips, os.path.join(folder, "posters")), env)
            for report in _json_lines(poster_run.stdout):
                if report.get("output") and report.get("path"):
                    posters[report["path"]] = report["output"]
        # A clip an earlier attempt wrote is reported as skipped, with its range and frames: its codec is read here.
        codecs = {}
        resumed = [report["output"] for report in outputs if report.get("skipped") and os.path.isfile(report["output"])]
        if job.writes_clips() and resumed:
            for probe in _json_lines(_run([job.vtrim, "probe", *resumed, "--json", "--quiet", "-j", "1"], env).stdout):
                codecs[probe.get("path")] = (probe.get("video") or {}).get("codec")
        for report in outputs:
            if job.writes_clips():
                lines.append(clip_line(item, report, posters.get(report["output"]), output_dir, codecs.get(report["output"])))
            else:
                lines.append(output_line(item, report, output_dir))
    write_lines(os.path.join(folder, "manifest.jsonl"), lines, attempt)
    attempts = len(os.listdir(os.path.join(folder, ".attempts")))
    return {"input": item, "folder": folder, "outputs": written + skipped, "written": written, "skipped": skipped,
            "failed": failed, "attempt": attempt, "node": node, "attempts": attempts, "swept": swept, "rewritten": rewritten,
            "seconds": round(time.monotonic() - started, 3)}
