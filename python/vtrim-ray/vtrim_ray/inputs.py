"""The inputs of a run: files, folders (walked, sorted) and URLs, or list files naming them one per line."""

import hashlib
import os

MEDIA_EXTENSIONS = {
    ".3gp", ".avi", ".flv", ".m2ts", ".m4v", ".mkv", ".mov", ".mp4", ".mpeg", ".mpg", ".mts", ".mxf", ".ogv", ".ts",
    ".webm", ".wmv", ".m3u8", ".mpd",
}
# vtrim's own outputs and temporaries are never inputs (as vtrim's folder walks leave them out).
OUTPUT_MARKS = (".cut.", ".thumbs.", ".vtrim-tmp-")


def is_url(text):
    return text.startswith(("http://", "https://"))


def is_media(name):
    base = os.path.basename(name)
    return os.path.splitext(base)[1].lower() in MEDIA_EXTENSIONS and not any(mark in base for mark in OUTPUT_MARKS)


def collect(sources):
    """Every input named by `sources`, each once, in order: a folder's media files sorted by path, a `.txt` or
    `.list` file's lines (blank lines and `#` comments left out), URLs and files as given."""
    found, seen = [], set()

    def add(item):
        key = item if is_url(item) else os.path.abspath(item)
        if key not in seen:
            seen.add(key)
            found.append(key)

    for source in sources:
        if is_url(source):
            add(source)
        elif os.path.isdir(source):
            names = []
            for folder, subfolders, files in os.walk(source):
                subfolders.sort()
                names.extend(os.path.join(folder, name) for name in files if is_media(name))
            for name in sorted(names):
                add(name)
        elif source.endswith((".txt", ".list")):
            with open(source, encoding="utf-8") as listing:
                for line in listing:
                    line = line.strip()
                    if line and not line.startswith("#"):
                        add(line)
        else:
            add(source)
    return found


def submission_order(items, size_of=None):
    """The order tasks are handed to Ray: local files largest first (the longest-processing-time rule: the last tasks
    to start are the shortest, so workers finish close together rather than one running a long input alone), then
    inputs whose size is unknown here (URLs, files gone), in their given order. Ties keep the given order."""
    if size_of is None:
        def size_of(item):
            if is_url(item):
                return None
            try:
                return os.path.getsize(item)
            except OSError:
                return None
    sizes = [size_of(item) for item in items]
    known = sorted((index for index, size in enumerate(sizes) if size is not None), key=lambda index: -sizes[index])
    return [items[index] for index in known] + [item for item, size in zip(items, sizes) if size is None]


def task_key(item):
    """A stable name for an input's task: its outputs' folder and its attempts' mark (`VTRIM_ATTEMPT`)."""
    return hashlib.sha1(item.encode("utf-8")).hexdigest()[:16]


def folder_name(item):
    """The input's folder under the output folder: its stem and its key (two inputs may share a stem)."""
    stem = os.path.splitext(os.path.basename(item.split("?")[0].rstrip("/")))[0] or "input"
    cleaned = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem)[:80]
    return f"{cleaned}-{task_key(item)[:8]}"
