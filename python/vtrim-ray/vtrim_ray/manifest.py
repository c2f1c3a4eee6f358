"""Manifest lines (JSON Lines): one per clip or output, one per failed input; written atomically and merged."""

import json
import os


def _relative(path, root):
    return os.path.relpath(path, root) if path else None


def _video_codec(report):
    for stream in report.get("streams") or []:
        if stream.get("kind") == "video":
            return stream.get("codec")
    return None


def clip_line(source, report, poster, root, codec=None):
    """A clip's line from vtrim's report of it, or of its skip (an earlier attempt wrote it: its range and frames from
    the skip's report, `codec` probed; its mode is not known then)."""
    output = report["output"]
    effective = report.get("effective") or {}
    actual = report.get("actual") or {}
    segment = report.get("segment") or {}
    return {
        "clip": _relative(output, root),
        "source": source,
        "index": segment.get("index", 1),
        "start": effective.get("start"),
        "end": effective.get("end"),
        "frames": actual.get("frames"),
        "scene_score": segment.get("scene_score"),
        "mode": report.get("mode"),
        "codec": _video_codec(report) or codec,
        "size": os.path.getsize(output) if os.path.isfile(output) else None,
        "poster": _relative(poster, root),
        "resumed": bool(report.get("skipped")),
        "warnings": [warning.get("code") for warning in report.get("warnings") or [] if isinstance(warning, dict)],
    }


def output_line(source, report, root):
    """A thumbnail sheet's or storyboard's line."""
    output = report.get("output")
    return {
        "output": _relative(output, root),
        "source": source,
        "size": os.path.getsize(output) if output and os.path.isfile(output) else None,
        "resumed": bool(report.get("skipped")),
        "warnings": [warning.get("code") for warning in report.get("warnings") or [] if isinstance(warning, dict)],
    }


def failure_line(source, report, status, stderr):
    """A failed input: vtrim's error code and message, or its exit status and last line of stderr."""
    error = (report or {}).get("error") or {}
    last = [line for line in (stderr or "").splitlines() if line.strip()]
    return {
        "source": source,
        "error": {
            "code": error.get("code") or f"exit_{status}",
            "message": error.get("message") or (last[-1] if last else f"vtrim exited with status {status}"),
        },
        "exit_status": status,
    }


def write_lines(path, lines, tag):
    """Writes `lines` to `path` whole or not at all (a temporary beside it, renamed)."""
    temporary = f"{path}.{tag}.part"
    with open(temporary, "w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, sort_keys=True) + "\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)


def merge(paths, target, tag="merged"):
    """One manifest of many, in the order of `paths` (missing ones left out); returns its lines."""
    lines = []
    for path in paths:
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as manifest:
                lines.extend(json.loads(line) for line in manifest if line.strip())
    write_lines(target, lines, tag)
    return lines
