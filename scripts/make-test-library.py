#!/usr/bin/env python3
"""Makes a library of COUNT clips for `vtrim serve`'s library tests and benchmark: hard links to four small
fixtures (H.264, HEVC, VP9 and sound only) in nested folders of 100 (`a07/b3/clip-000731.mp4`), so 100,000 clips
cost four files' bytes. Prints the folder. Usage: scripts/make-test-library.py COUNT FOLDER"""
import errno
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ["h264-aac-nob.mp4", "hevc.mp4", "vp9-opus.webm", "audio-only.m4a"]


def make(count, folder):
    os.makedirs(folder, exist_ok=True)
    # The links point at copies in the library's own hidden folder (the walk skips hidden names): a file takes at
    # most 65,000 links on ext4, so every library links to its own copies, and a new copy is made when one is full.
    originals = os.path.join(folder, ".sources")
    os.makedirs(originals, exist_ok=True)
    copies = {}

    def fresh_copy(source):
        number = copies.get(source, (None, -1))[1] + 1
        copy = os.path.join(originals, f"{number}-{source}")
        if not os.path.exists(copy):
            shutil.copy(os.path.join(ROOT, "fixtures", source), copy)
        copies[source] = (copy, number)

    for index in range(count):
        source = SOURCES[index % len(SOURCES)]
        if source not in copies:
            fresh_copy(source)
        extension = os.path.splitext(source)[1]
        below = os.path.join(folder, f"a{index // 1000:03d}", f"b{(index // 100) % 10}")
        os.makedirs(below, exist_ok=True)
        path = os.path.join(below, f"clip-{index:06d}{extension}")
        while not os.path.exists(path):
            try:
                os.link(copies[source][0], path)
            except OSError as error:
                if error.errno != errno.EMLINK:
                    raise
                fresh_copy(source)
    return folder


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(make(int(sys.argv[1]), sys.argv[2]))
