#!/usr/bin/env python3
"""Adds vtrim's own sections to a man page generate-manual made (printed to stdout): its real EXIT STATUS
in place of the generic one, and on vtrim.1 the TIME SYNTAX, JSON OUTPUT and EXAMPLES sections.
Usage: man-sections.py PAGE.1"""
import os
import sys

page = sys.argv[1]
name = os.path.basename(page)
text = open(page, encoding="utf-8").read()


def tags(rows):
    return ".Bl -tag -width Ds\n" + "".join(f".It {key}\n{value}\n" for key, value in rows) + ".El\n"


if name == "vtrim.serve.1":
    exit_status = tags([
        ("130, 143", "stopped by SIGINT or SIGTERM (after a graceful shutdown: cuts in progress cancelled, nothing partial left)"),
        ("1", "the server could not start (the port is in use, the address cannot be bound)"),
        ("64", "usage error: bad flags or flag values"),
    ])
else:
    exit_status = tags([
        ("0", "every input succeeded"),
        ("1", "at least one input failed (the others were still processed); with --strict a warning fails its input"),
        ("64", "usage error: bad flags or flag values, a malformed cut list (checked before any work)"),
        ("130, 143", "interrupted by SIGINT or SIGTERM (no partial output is left; the summary is printed)"),
    ])
old = '.Sh "EXIT STATUS"\n.Ex -std\n'
if old not in text:
    sys.exit(f"man-sections: {page} has no generic EXIT STATUS section to replace")
sections = '.Sh "EXIT STATUS"\n' + exit_status

if name == "vtrim.1":
    sections += """.Sh "TIME SYNTAX"
Times are seconds
.Pq Ql 12.5 ,
.Ql m:ss(.fff) ,
.Ql h:mm:ss(.fff) ,
.Ql end
or
.Ql end-5
(5 s before the end of the file). Every time, on the command line and in JSON, is in seconds on the
file's presentation timeline: 0 is the container's start time, as for
.Ql ffmpeg -ss .
The frame at t is the frame a player shows at t: the last frame whose presentation time is at or before t.
A cut [start, end) starts with the frame at start and keeps the frames that begin before end.
.Sh "JSON OUTPUT"
With
.Fl -json
every command prints one JSON object per input on stdout (JSON Lines, in input order, snake_case keys).
Every object has
.Ql path
and
.Ql warnings
(a list of {code, message}); a failed input's object has
.Ql error
{code, message, operation}; a skipped one
.Ql skipped
and
.Ql reason ;
a dry run
.Ql dry_run
and
.Ql planned .
.Bl -tag -width Ds
.It probe
duration, start_time, size, format, bit_rate, video {codec, profile, width, height, sar, display_width,
display_height, rotation, mirrored, display_matrix, fps, has_b_frames}, audio [{codec, sample_rate,
channels, duration}]
.It thumbs
output, width, height, mode, cells [{index, time, pts, x, y, width, height}]
.It cut
output, mode, requested {start, end}, effective {start, end}, planned {start, end, duration, keyframe,
pre_roll}, actual {start, end, duration, audio_start, audio_end}, streams, smart {head, copied, tail,
sample_entry, fallback}, notes [{code, message}]
.It timeline
min_count, margin, time_spacing, seconds_per_point, thumbnail_count, content_width, cells [{index, time,
sample_time, x, width}], selection {start, end, duration, window_start, labels}
.El
.Sh EXAMPLES
What a file is:
.Dl vtrim probe --json clip.mp4
A filmstrip of 8 frames, 120 pixels high:
.Dl vtrim thumbs clip.mp4 --count 8 --height 120 -o clip.thumbs.png
Seconds 12.5 to 20 by stream copy (an edit list makes players start on the frame at 12.5 s):
.Dl vtrim cut clip.mp4 --start 12.5 --end 20 -o part.mp4
The same, frame-exact with only the edges re-encoded; first print the plan:
.Dl vtrim cut --dry-run clip.mp4 --start 12.5 --end 20 --mode smart -o part.mp4
Drop the first 10 s of every clip in a folder tree, two at a time:
.Dl vtrim cut -r ~/Videos --start 10 --end end --output-dir trimmed -j 2
One output per row of a cut list (start,end,label):
.Dl vtrim cut talk.mp4 --list cuts.csv --output-dir parts
The numbers of a trimming control 375 points wide with 30x50 thumbnails, after a drag:
.Dl vtrim timeline --duration 61.23 --strip-width 375 --thumb-size 30x50 --op drag-right:300
A local web page over a folder of clips:
.Dl vtrim serve ~/Videos
"""

text = text.replace(old, sections)
# NAME, as whatis/lexgrog read it: the page's own name (vtrim.cut, not "vtrim cut"), an unquoted description.
lines = text.split("\n")
start = lines.index(".Sh NAME")
for index in range(start + 1, min(start + 4, len(lines))):
    if lines[index].startswith('.Nm "') and name != "vtrim.1":
        lines[index] = ".Nm " + name[:-2]
    elif lines[index].startswith('.Nd "') and lines[index].endswith('"'):
        lines[index] = ".Nd " + lines[index][5:-1]
print("\n".join(lines), end="")
