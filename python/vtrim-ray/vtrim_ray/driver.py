"""The driver: one Ray task per input, bounded retries for tasks whose node died, progress, the merged manifest."""

import dataclasses
import os
import sys
import time

from . import inputs as inputs_module
from .manifest import merge
from .task import run_input


def run(sources, job, output_dir, address=None, max_retries=3, progress=None, ray_module=None):
    """Runs `job` over the inputs `sources` names, into `output_dir`; returns the summary (tasks, outputs written and
    resumed, failures, attempts, seconds) after writing `output_dir/manifest.jsonl`.

    address: the Ray cluster to join (None: the one `ray.init` finds or starts). max_retries: how often Ray runs again
    a task whose worker or node died (a vtrim failure is no such death: it is recorded, not retried). progress: called
    with (inputs done, inputs, outputs so far) as tasks end; by default a line on stderr.
    """
    problem = job.problem()
    if problem:
        raise ValueError(problem)
    # Workers on other hosts run elsewhere than here: paths they are given are absolute.
    job = dataclasses.replace(job, vtrim=os.path.abspath(job.vtrim) if os.sep in job.vtrim else job.vtrim,
                              cut_list=os.path.abspath(job.cut_list) if job.cut_list else None)
    items = inputs_module.collect(sources)
    os.makedirs(output_dir, exist_ok=True)
    if ray_module is None:
        import ray as ray_module
    ray = ray_module
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False)
    if progress is None:
        def progress(done, total, outputs):
            sys.stderr.write(f"\rvtrim-ray: {done}/{total} inputs, {outputs} outputs")
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    remote = ray.remote(run_input).options(num_cpus=job.cpus, max_retries=max_retries, retry_exceptions=False)
    started = time.monotonic()
    pending = {remote.remote(item, job, os.path.abspath(output_dir)): item for item in inputs_module.submission_order(items)}
    summaries, outputs = {}, 0
    while pending:
        # Blocks until a task ends (no polling: the driver shares the host's cores with the tasks), then takes every
        # other one already ended in the same pass, so a wake costs two reads of the pending set, not one per task.
        waiting = list(pending)
        first, rest = ray.wait(waiting, num_returns=1)
        more, _ = ray.wait(rest, num_returns=len(rest), timeout=0) if rest else ([], [])
        ready = first + more
        for reference in ready:
            item = pending.pop(reference)
            try:
                summary = ray.get(reference)
            except Exception as error:  # noqa: BLE001 — out of retries, or the task raised: the input is recorded as failed
                folder = os.path.join(os.path.abspath(output_dir), inputs_module.folder_name(item))
                attempts = os.path.join(folder, ".attempts")
                summary = {"input": item, "failed": True, "error": f"{type(error).__name__}: {error}", "outputs": 0,
                           "written": 0, "skipped": 0, "folder": folder,
                           "attempts": len(os.listdir(attempts)) if os.path.isdir(attempts) else 1}
            summaries[item] = summary
            outputs += summary.get("outputs", 0)
            progress(len(summaries), len(items), outputs)
    seconds = time.monotonic() - started
    ordered = [summaries[item] for item in items]
    lines = merge([os.path.join(summary["folder"], "manifest.jsonl") for summary in ordered],
                  os.path.join(output_dir, "manifest.jsonl"))
    for summary in ordered:
        if summary.get("error") and not any(line.get("source") == summary["input"] for line in lines):
            lines.append({"source": summary["input"], "error": {"code": "task_failed", "message": summary["error"]}})
    if any(summary.get("error") for summary in ordered):
        from .manifest import write_lines
        write_lines(os.path.join(output_dir, "manifest.jsonl"), lines, "merged")
    return {
        "inputs": len(items),
        "outputs": sum(summary.get("outputs", 0) for summary in ordered),
        "written": sum(summary.get("written", 0) for summary in ordered),
        "resumed": sum(summary.get("skipped", 0) for summary in ordered),
        "failed": [summary["input"] for summary in ordered if summary.get("failed")],
        "attempts": sum(summary.get("attempts", 1) for summary in ordered),
        "seconds": round(seconds, 3),
        "manifest": os.path.join(output_dir, "manifest.jsonl"),
    }
