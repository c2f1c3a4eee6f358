#!/usr/bin/env python3
"""Makes a library of COUNT clips for `vtrim serve`'s library tests and benchmark: hard links to four small
fixtures (H.264, HEVC, VP9 and sound only) in nested folders of 100 (`a07/b3/clip-000731.mp4`), so 100,000 clips
cost four files' bytes. Prints the folder. Usage: scripts/make-test-library.py COUNT FOLDER"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ["h264-aac-nob.mp4", "hevc.mp4", "vp9-opus.webm", "audio-only.m4a"]


def make(count, folder):
    os.makedirs(folder, exist_ok=True)
    for index in range(count):
        source = SOURCES[index % len(SOURCES)]
        extension = os.path.splitext(source)[1]
        below = os.path.join(folder, f"a{index // 1000:03d}", f"b{(index // 100) % 10}")
        os.makedirs(below, exist_ok=True)
        path = os.path.join(below, f"clip-{index:06d}{extension}")
        if not os.path.exists(path):
            os.link(os.path.join(ROOT, "fixtures", source), path)
    return folder


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(make(int(sys.argv[1]), sys.argv[2]))
