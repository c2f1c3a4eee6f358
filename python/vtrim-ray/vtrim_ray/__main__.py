"""`vtrim-ray JOB INPUT... --output-dir D [-- VTRIM ARGUMENTS]`: the corpus job on a Ray cluster (`--address`), or a
local one."""

import argparse
import json
import sys

from .driver import run
from .jobs import Job


def main(argv=None):
    parser = argparse.ArgumentParser(prog="vtrim-ray", description=__doc__)
    parser.add_argument("job", choices=["split", "thumbs", "storyboard", "cut"])
    parser.add_argument("inputs", nargs="+", help="files, folders, URLs, or .txt/.list files naming them one per line")
    parser.add_argument("--output-dir", required=True)
    parser.add_argument("--address", help="the Ray cluster's address (default: the one ray.init finds, else a local one)")
    parser.add_argument("--stride", type=float, help="split: fixed strides of this many seconds instead of scenes")
    parser.add_argument("--list", dest="cut_list", help="split: one cut list for every input instead of scenes")
    parser.add_argument("--scenes-threshold", type=float, help="split: vtrim's scene threshold (scenes=T)")
    parser.add_argument("--min-scene", type=float, help="split: shortest scene in seconds")
    parser.add_argument("--mode", default="smart", help="split: vtrim's cut mode (default smart)")
    parser.add_argument("--no-posters", action="store_true", help="split, cut: no poster thumbnail per clip")
    parser.add_argument("--storyboard", default="jellyfin", help="storyboard: jellyfin, bif, hls or dash")
    parser.add_argument("--cpus", type=int, default=1, help="CPUs each task asks of Ray, and vtrim's threads (default 1)")
    parser.add_argument("--max-retries", type=int, default=3, help="runs again of a task whose node died (default 3)")
    parser.add_argument("--vtrim", default="vtrim", help="the vtrim binary (default: vtrim on PATH)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    argv = list(sys.argv[1:] if argv is None else argv)
    # What follows `--` goes to vtrim as it is (cut: the ranges and options; thumbs: its options).
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    arguments = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    job = Job(kind=arguments.job, stride_seconds=arguments.stride, cut_list=arguments.cut_list,
              scenes_threshold=arguments.scenes_threshold, min_scene_seconds=arguments.min_scene, mode=arguments.mode,
              posters=not arguments.no_posters, storyboard=arguments.storyboard, extra=tuple(extra), cpus=arguments.cpus,
              vtrim=arguments.vtrim)
    problem = job.problem()
    if problem:
        parser.error(problem)
    summary = run(arguments.inputs, job, arguments.output_dir, address=arguments.address, max_retries=arguments.max_retries)
    if arguments.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(f"vtrim-ray: {summary['inputs']} inputs, {summary['outputs']} outputs ({summary['written']} written, "
              f"{summary['resumed']} already there), {len(summary['failed'])} failed, {summary['attempts']} attempts, "
              f"{summary['seconds']} s; manifest {summary['manifest']}")
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
