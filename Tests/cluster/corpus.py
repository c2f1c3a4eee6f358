"""A generated corpus with known shots: each input 4 to 5 s of 320×180 at 30 fps, two to four shots of distinct
test pictures (cuts on frame starts, off the 1.6 s keyframe grid at scale 1, so smart cuts re-encode edges), a tone.
Used by test_ray_corpus.py and bench/corpus.py; made with ffmpeg's lavfi sources."""

import os
import subprocess

PICTURES = ["testsrc2", "smptebars", "rgbtestsrc", "testsrc", "mandelbrot", "yuvtestsrc", "pal100bars", "smptehdbars"]
FPS = 30


def shots_of(index):
    """Shot lengths in frames of input `index` (deterministic; 4 to 5.03 s in all)."""
    patterns = [(43, 59, 31), (50, 70), (37, 41, 52), (61, 47, 29), (55, 65), (34, 48, 44, 25)]
    return list(patterns[index % len(patterns)])


# What a phone records (bench/corpus.py --footage phone): a keyframe every second, no B-frames, sensor grain that
# changes every frame — which is what makes a re-encode of every frame cost what it costs on real footage.
FOOTAGE = {"patterns": {"gop": 48, "grain": 0, "bframes": None},
           "phone": {"gop": 30, "grain": 10, "bframes": 0}}


def make(folder, count=24, size="320x180", scale=1, footage="patterns"):
    """Writes `count` inputs into `folder` (once: existing ones are kept); returns [(path, [shot frame counts])].
    `scale` lengthens every shot that many times (bench/corpus.py: 16–20 s inputs at 1280x720); `footage` is a
    FOOTAGE preset."""
    style = FOOTAGE[footage]
    os.makedirs(folder, exist_ok=True)
    made = []
    for index in range(count):
        shots = [frames * scale for frames in shots_of(index)]
        path = os.path.join(folder, f"clip{index:02d}.mp4")
        if not os.path.isfile(path):
            args = ["ffmpeg", "-v", "error", "-y"]
            for number, frames in enumerate(shots):
                picture = PICTURES[(index + number * 3) % len(PICTURES)]
                source = f"{picture}=s={size}:r={FPS}" if picture != "mandelbrot" else f"mandelbrot=s={size}:r={FPS}"
                grain = f",noise=alls={style['grain']}:allf=t" if style["grain"] else ""
                args += ["-f", "lavfi", "-i", f"{source}{grain},trim=end_frame={frames},setpts=PTS-STARTPTS"]
            total = sum(shots) / FPS
            args += ["-f", "lavfi", "-i", f"sine=frequency={300 + 40 * index}:sample_rate=48000:duration={total}"]
            chain = "".join(f"[{n}:v]" for n in range(len(shots))) + f"concat=n={len(shots)}:v=1:a=0,format=yuv420p[v]"
            temporary = path + ".part.mp4"
            gop = str(style["gop"])
            bframes = ["-bf", str(style["bframes"])] if style["bframes"] is not None else []
            args += ["-filter_complex", chain, "-map", "[v]", "-map", f"{len(shots)}:a", "-c:v", "libx264", "-preset", "veryfast", *bframes,
                     "-g", gop, "-keyint_min", gop, "-sc_threshold", "0", "-c:a", "aac", "-b:a", "64k", temporary]
            subprocess.run(args, check=True)
            os.replace(temporary, path)
        made.append((path, shots))
    return made
