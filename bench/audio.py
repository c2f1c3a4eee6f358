#!/usr/bin/env python3
"""bench/audio: cuts of sound from a 1-hour podcast-like MP3 (speech-like bursts with 30 pauses, LAME CBR 128k), vtrim
against the ffmpeg commands a user would otherwise run, alternating runs, medians. See BENCHMARKS.md.

- one 30-minute cut: `vtrim cut -o OUT.mp3` (sample-exact, the LAME tag rewritten) against `ffmpeg -ss -to -i -c copy`
  (frame-exact at best, its LAME tag rewritten to delay 0 / padding 0);
- removing the pauses: `vtrim cut --propose silence --join -o OUT.mp3` against ffmpeg's silencedetect and then one
  re-encode keeping the speech (`aselect`), the chain scripts and auto-editor run."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--vtrim", default=benchlib.RELEASE_VTRIM)
args = parser.parse_args()

work = benchlib.work_directory("vtrim-bench-audio-")
cache = os.path.expanduser("~/.cache/vtrim-bench")
os.makedirs(cache, exist_ok=True)
podcast = os.path.join(cache, "podcast-1h.mp3")
if not os.path.exists(podcast):
    # 30 parts of 118 s of "speech" (noise shaped by a 3 Hz envelope over a tone) each followed by a 2 s pause.
    speech = ("aevalsrc=(0.3*sin(2*PI*180*t)+0.2*random(0))*(0.6+0.4*sin(2*PI*3*t))"
              "*lt(mod(t\\,120)\\,118):s=44100:d=3600")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", speech, "-c:a", "libmp3lame", "-b:a", "128k",
                    podcast + ".part.mp3"], check=True)
    os.replace(podcast + ".part.mp3", podcast)
vtrim = os.path.abspath(args.vtrim)
q = benchlib.quote
out = os.path.join(work, "o")

cut_rows = [
    ("vtrim cut --start 1200 --end 3000 -o OUT.mp3", f"rm -f {q(out)}-v.mp3; {q(vtrim)} cut {q(podcast)} --start 1200 --end 3000 -o {q(out)}-v.mp3"),
    ("ffmpeg -ss 1200 -to 3000 -i IN -c copy OUT.mp3",
     f"rm -f {q(out)}-f.mp3; ffmpeg -v error -y -ss 1200 -to 3000 -i {q(podcast)} -c copy {q(out)}-f.mp3"),
]


chain_script = os.path.join(work, "chain.sh")
with open(chain_script, "w") as script:
    # The two-pass chain: silencedetect's pauses, then one re-encode keeping everything else with 0.15 s pads.
    script.write(f"""set -e
rm -f {q(out)}-fc.mp3
cuts=$(ffmpeg -hide_banner -nostats -i {q(podcast)} -af silencedetect=n=-30dB:d=0.5 -f null - 2>&1 \
| python3 -c 'import re,sys; t=sys.stdin.read(); s=[float(x) for x in re.findall(r"silence_start: ([0-9.]+)", t)]; \
e=[float(x) for x in re.findall(r"silence_end: ([0-9.]+)", t)]; print("+".join(f"between(t,{{a+0.15:.3f}},{{b-0.15:.3f}})" for a,b in zip(s,e)))')
ffmpeg -v error -y -i {q(podcast)} -af "aselect='not($cuts)',asetpts=N/SR/TB" -c:a libmp3lame -b:a 128k {q(out)}-fc.mp3
""")
podcast_m4a = os.path.join(cache, "podcast-1h.m4a")
if not os.path.exists(podcast_m4a):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", podcast, "-c:a", "aac", "-b:a", "128k", podcast_m4a + ".part.m4a"], check=True)
    os.replace(podcast_m4a + ".part.m4a", podcast_m4a)
join_rows = [
    ("vtrim cut --propose silence --join -o OUT.mp3",
     f"rm -f {q(out)}-vj.mp3; {q(vtrim)} cut {q(podcast)} --propose silence --join -o {q(out)}-vj.mp3"),
    ("ffmpeg silencedetect, then aselect + libmp3lame", f"bash {q(chain_script)}"),
    ("vtrim cut --propose silence --join -o OUT.m4a (from the M4A)",
     f"rm -f {q(out)}-vj.m4a; {q(vtrim)} cut {q(podcast_m4a)} --propose silence --join -o {q(out)}-vj.m4a"),
]

print(f"bench: sound cuts of {os.path.basename(podcast)}, {args.runs} alternating runs", file=sys.stderr, flush=True)
results = benchlib.run_alternating(cut_rows, args.runs, "cut")
print(f"\n### A 30-minute cut of a 1-hour MP3 (128k CBR), median of {args.runs} alternating runs\n")
print(benchlib.table(results, cut_rows, {"vtrim": cut_rows[0][0]}))
vt, ff = results[cut_rows[0][0]], results[cut_rows[1][0]]
print(f"\ncut: time vtrim/ffmpeg {vt[0] / ff[0]:.2f} (target ≤ 1.5)")
results = benchlib.run_alternating(join_rows, args.runs, "join")
print(f"\n### 30 pauses removed from the same MP3, median of {args.runs} alternating runs\n")
print(benchlib.table(results, join_rows, {"vtrim": join_rows[0][0]}))
vt, ff = results[join_rows[0][0]], results[join_rows[1][0]]
print(f"\njoin: speed-up ffmpeg/vtrim {ff[0] / vt[0]:.2f} (target ≥ 20)")
