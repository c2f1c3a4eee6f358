#!/usr/bin/env python3
"""Adds vtrim's own sections to a man page generate-manual made (printed to stdout): each page's real EXIT
STATUS in place of the generic one, EXAMPLES, TIME SYNTAX where the command takes times, SEE ALSO, and on
vtrim.1 JSON OUTPUT. Fails (exit 1, naming the page) on a page not shaped as generate-manual writes them, or
one this script has no table for (a new subcommand needs its entry in PAGES).
Usage: man-sections.py PAGE.1"""
import os
import sys

COMMANDS = ["cut", "probe", "propose", "serve", "thumbs", "timeline"]  # the user-facing subcommands
# A page's SEE ALSO unless its entry says otherwise (its own name is left out; sorted, as mdoc(7) asks).
SEE_ALSO = ["ffmpeg", "ffprobe", "vtrim"] + [f"vtrim.{command}" for command in COMMANDS]

# The time forms every time-taking command accepts (TimelineCore's parser); {where} says which flags take them.
# A page's "time" is a dict filling this in, or (vtrim.1) its whole text.
TIME_SYNTAX = r"""{where}
.Ql 12.5
(seconds),
.Ql 1:05.250
(m:ss.fff),
.Ql 1:02:03.5
(h:mm:ss.f),
.Ql end
or
.Ql end-5
(5 s before the end of {clip};
.Ql end-1:30
works too; a leading minus cannot be used, the argument parser would read it as a flag).
{durations}
Times are seconds on the file's presentation timeline: 0 is the container's start time, as for
.Ql ffmpeg -ss .
{extra}The full rules are in
.Xr vtrim 1 .
"""

# probe, thumbs, cut and timeline share the batch exit status; each page words it for its own command.
BATCH_EXIT = [
    ("0", "{ok}"),
    ("1", "at least one input failed (the others were still processed): {failed}; with --strict, also any "
          "warning"),
    ("64", "usage error, found before any work: bad flags or flag values, {usage}"),
    ("130, 143", "interrupted by SIGINT or SIGTERM: {interrupted}"),
]

# vtrim.1 has the full rules and the JSON keys of every command.
VTRIM_TIME_SYNTAX = """Times are seconds
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
"""
JSON_OUTPUT = """With
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
duration, start_time, start_timecode, size, format, bit_rate, video {codec, profile, width, height, sar, display_width,
display_height, rotation, mirrored, display_matrix, fps, has_b_frames}, audio [{codec, sample_rate,
channels, duration}]
.It thumbs
output, width, height, mode, cells [{index, time, pts, x, y, width, height}]
.It cut
output, mode, requested {start, end}, effective {start, end}, planned {start, end, duration, keyframe,
pre_roll}, actual {start, end, duration, audio_start, audio_end}, streams, metadata_kept, smart {head, copied, tail,
sample_entry, fallback}, notes [{code, message}]
.It timeline
min_count, margin, time_spacing, seconds_per_point, thumbnail_count, content_width, cells [{index, time,
sample_time, x, width}], selection {start, end, duration, window_start, labels}
.El
"""

PAGES = {
    "vtrim.1": dict(
        exit=[
            ("0", "every input succeeded"),
            ("1", "at least one input failed (the others were still processed); with --strict a warning fails "
                  "its input"),
            ("64", "usage error: bad flags or flag values, a malformed cut list (checked before any work)"),
            ("130, 143", "interrupted by SIGINT or SIGTERM (no partial output is left; the summary is printed)"),
        ],
        time=VTRIM_TIME_SYNTAX,
        json=JSON_OUTPUT,
        examples=[
            ("What a file is:", "vtrim probe --json clip.mp4"),
            ("A filmstrip of 8 frames, 120 pixels high:",
             "vtrim thumbs clip.mp4 --count 8 --height 120 -o clip.thumbs.png"),
            ("Seconds 12.5 to 20 by stream copy (an edit list makes players start on the frame at 12.5 s):",
             "vtrim cut clip.mp4 --start 12.5 --end 20 -o part.mp4"),
            ("The same, frame-exact with only the edges re-encoded; first print the plan:",
             "vtrim cut --dry-run clip.mp4 --start 12.5 --end 20 --mode smart -o part.mp4"),
            ("Drop the first 10 s of every clip in a folder tree, two at a time:",
             "vtrim cut -r ~/Videos --start 10 --end end --output-dir trimmed -j 2"),
            ("One output per row of a cut list (start,end,label):",
             "vtrim cut talk.mp4 --list cuts.csv --output-dir parts"),
            ("The numbers of a trimming control 375 points wide with 30x50 thumbnails, after a drag:",
             "vtrim timeline --duration 61.23 --strip-width 375 --thumb-size 30x50 --op drag-right:300"),
            ("A local web page over a folder of clips:", "vtrim serve ~/Videos"),
        ],
        see_also=SEE_ALSO + ["vtrim.help"],
    ),
    "vtrim.cut.1": dict(
        batch=dict(
            ok="every input was cut, read back and reported (with --dry-run: planned)",
            failed="a file that cannot be read or cut, a range outside the file or outside "
                   "--min-duration/--max-duration, an output that exists, a written file that does not "
                   "read back",
            usage="a malformed cut list (--list: the line is named), a folder given without -r",
            interrupted="temporary files are removed, nothing partial is left, inputs not started are "
                        "reported as skipped",
        ),
        time=dict(
            where="--start and --end, and the start and end of each --list row (an empty end is the end of "
                  "the file), take",
            durations="--length, --min-duration and --max-duration take lengths: seconds, m:ss(.fff) or "
                      "h:mm:ss(.fff).",
            extra="A cut [start, end) starts with the frame a player shows at start and keeps the frames that "
                  "begin before end.\n",
        ),
        examples=[
            ("Seconds 12.5 to 20 by stream copy (in MP4/MOV an edit list makes players start on the frame at "
             "12.5 s):", "vtrim cut clip.mp4 --start 12.5 --end 20 -o part.mp4"),
            ("Print the plan of a frame-exact cut that re-encodes only the edges, writing nothing:",
             "vtrim cut --dry-run clip.mp4 --start 1:02.5 --length 30 --mode smart -o part.mp4"),
            ("Everything but the first and last 5 s, re-encoded at a higher quality:",
             "vtrim cut clip.mp4 --start 5 --end end-5 --mode exact --crf 18 -o part.mp4"),
            ("Drop the first 10 s of every clip in a folder tree, two at a time, resumable:",
             "vtrim cut -r ~/Videos --start 10 --output-dir trimmed --skip-existing -j 2"),
            ("One output per row of a cut list (start,end,label, as LosslessCut exports), reported as JSON "
             "Lines:", "vtrim cut talk.mp4 --list cuts.csv --output-dir parts --json"),
        ],
    ),
    "vtrim.thumbs.1": dict(
        batch=dict(
            ok="every input's sheet was written (with --dry-run: planned)",
            failed="a file that cannot be read, a file without video, no sample that decodes, a sheet too "
                   "large, an output that exists",
            usage="an output extension other than .png, .jpg, .jpeg or .webp, a folder given without -r",
            interrupted="temporary files are removed, nothing partial is left, inputs not started are "
                        "reported as skipped",
        ),
        time=dict(
            where="--start and --end take",
            durations="--every, --window-max and --window-min take lengths: seconds, m:ss(.fff) or "
                      "h:mm:ss(.fff).",
            extra="Each cell shows the frame a player shows at its time (--mode accurate).\n",
        ),
        examples=[
            ("A filmstrip of 8 frames, 120 pixels high:",
             "vtrim thumbs clip.mp4 --count 8 --height 120 -o clip.thumbs.png"),
            ("A contact sheet of 12 frames from the first minute to 10 s before the end, with times and a "
             "header:", "vtrim thumbs clip.mp4 --start 1:00 --end end-10 --count 12 --columns 4 --timestamps "
                        "--header -o clip.sheet.jpg"),
            ("A storyboard for a web player: a frame every 2 s and a WebVTT thumbnails track beside it:",
             "vtrim thumbs clip.mp4 --every 2 --height 90 --columns 20 --vtt -o clip.storyboard.jpg"),
            ("The strip of a trimming control 375 points wide with 30x50 thumbnails, at 2 pixels per point:",
             "vtrim thumbs clip.mp4 --strip-width 375 --thumb-size 30x50 --scale 2 -o clip.strip.png"),
            ("A filmstrip of every clip in a folder tree, resumable:",
             "vtrim thumbs -r ~/Videos --output-dir strips --skip-existing -j 2"),
        ],
    ),
    "vtrim.probe.1": dict(
        batch=dict(
            ok="every input was probed",
            failed="a missing, empty, unreadable or damaged file, or one that is not media",
            usage="a folder given without -r",
            interrupted="inputs not started are reported as skipped",
        ),
        examples=[
            ("What a file is:", "vtrim probe clip.mp4"),
            ("The same as one JSON object:", "vtrim probe --json clip.mp4"),
            ("Every clip in a folder tree, as JSON Lines:", "vtrim probe -r --json ~/Videos"),
            ("Only the MOV files of a folder; exit 1 if any of them has a warning (truncated, suspect "
             "duration):", "vtrim probe -r --include '*.mov' --strict ~/Videos"),
        ],
    ),
    "vtrim.propose.1": dict(
        batch=dict(
            ok="every input was analysed (and its list written, unless --dry-run)",
            failed="a file that cannot be read, no audio for --silence (no_audio), no video for --black or --scenes, "
                   "a list that exists or its format cannot hold",
            usage="nothing to find (none of --silence, --black, --scenes), a value out of range, a folder given without -r",
            interrupted="temporary files are removed, inputs not started are reported as skipped",
        ),
        examples=[
            ("The silences of a talk and the ranges to keep, seams on keyframes:", "vtrim propose talk.mp4 --silence"),
            ("Silences under -35 dBFS, written as a LosslessCut CSV of what to remove:",
             "vtrim propose talk.mp4 --silence=-35 --ranges remove -o talk.remove.csv"),
            ("Black lead-ins and scene cuts of every clip in a folder tree, as JSON:",
             "vtrim propose -r ~/Videos --black --scenes --json"),
            ("Propose and join in one run:", "vtrim cut talk.mp4 --propose silence --join -o talk.cut.mp4"),
        ],
    ),
    "vtrim.timeline.1": dict(
        batch=dict(
            ok="every input (or --duration) gave a timeline",
            failed="a file whose duration cannot be read, a strip that holds fewer than 3 thumbnails, "
                   "limits the model refuses",
            usage="neither or both of --duration and input files, a malformed --op, a folder given without -r",
            interrupted="inputs not started are reported as skipped",
        ),
        time=dict(
            where="--start and --end (the preset selection) take",
            clip="the clip",
            durations="--duration, --window-max and --window-min take lengths: seconds, m:ss(.fff) or "
                      "h:mm:ss(.fff). The values of --op are plain numbers: seconds (T) or points (X).",
        ),
        examples=[
            ("The numbers of VideoLine's demo: a 61.23 s clip in a control 375 points wide with 30x50 "
             "thumbnails:", "vtrim timeline --duration 61.23 --strip-width 375 --thumb-size 30x50"),
            ("A clip's own duration and a preset selection:",
             "vtrim timeline clip.mp4 --strip-width 375 --thumb-size 30x50 --start 0:10 --end 0:14"),
            ("Replay a drag of the right handle and a scroll, as JSON:",
             "vtrim timeline --duration 61.23 --strip-width 375 --thumb-size 30x50 --op drag-right:300 "
             "--op scroll:20 --json"),
            ("A selection between 1 and 10 s long, preset to the last 8 s:",
             "vtrim timeline --duration 1:01.23 --strip-width 375 --thumb-size 30x50 --window-min 1 "
             "--window-max 10 --start end-8 --end end"),
        ],
    ),
    "vtrim.serve.1": dict(
        exit=[
            ("1", "the server could not start (the port is in use, the address cannot be bound)"),
            ("64", "usage error: bad flags or flag values"),
            ("130, 143", "stopped by SIGINT or SIGTERM (after a graceful shutdown: cuts in progress cancelled, "
                         "nothing partial left)"),
        ],
        examples=[
            ("A page over a folder of clips on 127.0.0.1 and a free port; open the address it prints:",
             "vtrim serve ~/Videos"),
            ("A fixed port, the address as JSON, the cuts in a folder of their own:",
             "vtrim serve ~/Videos --json --port 8080 --output-dir ~/Videos/cuts"),
            ("Two clips rather than a folder, one engine process for cuts:",
             "vtrim serve clip.mp4 talk.mp4 --cut-workers 1"),
            ("Reachable from other machines (every request still needs the token):",
             "vtrim serve ~/Videos --host 0.0.0.0 --port 8080"),
        ],
    ),
    # `vtrim help NAME` prints help whatever NAME is (an unknown one gets vtrim's own): no batch semantics.
    "vtrim.help.1": dict(
        exit=[
            ("0", "the help was printed (for an unknown subcommand, vtrim's own)"),
            ("64", "usage error: an unknown option"),
        ],
        examples=[("The help of cut, as vtrim cut --help prints it:", "vtrim help cut")],
        see_also=["vtrim"] + [f"vtrim.{command}" for command in COMMANDS],
    ),
}


def tags(rows):
    return ".Bl -tag -width Ds\n" + "".join(f".It {key}\n{value}\n" for key, value in rows) + ".El\n"


def section(title, body):
    return f'.Sh "{title}"\n{body}'


def replace_once(text, old, new, what):
    if text.count(old) != 1:
        sys.exit(f"man-sections: {page}: expected exactly one {what}, found {text.count(old)}")
    return text.replace(old, new)


page = sys.argv[1]
name = os.path.basename(page)
if name not in PAGES:
    sys.exit(f"man-sections: {page}: no entry for it in PAGES (a new subcommand needs its sections)")
spec = PAGES[name]
command = name[len("vtrim."):-len(".1")]  # "cut"; "" for vtrim.1
text = open(page, encoding="utf-8").read()

# NAME, as whatis/lexgrog read it: the page's own name (vtrim.cut, not "vtrim cut"), an unquoted description.
# Every bare .Nm after it repeats that name, so SYNOPSIS names the command as typed ("vtrim cut") itself.
if command:
    generated = f'.Nm "vtrim {command}"\n'
    text = replace_once(text, f".Sh NAME\n{generated}", f".Sh NAME\n.Nm vtrim.{command}\n", "NAME .Nm line")
    text = replace_once(text, ".Sh SYNOPSIS\n.Nm\n", f".Sh SYNOPSIS\n{generated}", "SYNOPSIS .Nm line")
lines = text.split("\n")
description = lines.index(".Sh NAME") + 2 if ".Sh NAME" in lines else 0
if not (description and lines[description].startswith('.Nd "') and lines[description].endswith('"')):
    sys.exit(f"man-sections: {page}: expected NAME with .Nm and a quoted .Nd")
lines[description] = ".Nd " + lines[description][5:-1]
text = "\n".join(lines)
# A blank line in a command's discussion text is a paragraph break; mdoc wants it spelled .Pp.
text = text.replace("\n\n", "\n.Pp\n")

# generate-manual's SEE ALSO (vtrim.1 only) lists the hidden _worker page and nothing beyond vtrim: ours
# replaces it.
if '.Sh "SEE ALSO"\n' in text:
    start = text.index('.Sh "SEE ALSO"\n')
    end = text.find(".Sh AUTHORS\n", start)
    if end < 0:
        sys.exit(f"man-sections: {page}: expected AUTHORS after generate-manual's SEE ALSO")
    text = text[:start] + text[end:]

# In mdoc(7)'s order: our own topics after DESCRIPTION, then EXIT STATUS, EXAMPLES, SEE ALSO (AUTHORS follows).
sections = ""
time = spec.get("time")
if isinstance(time, dict):
    time = TIME_SYNTAX.format(**{"clip": "the file", "extra": "", **time})
if time:
    sections += section("TIME SYNTAX", time)
if "json" in spec:
    sections += section("JSON OUTPUT", spec["json"])
exit_status = spec.get("exit") or [(code, meaning.format(**spec["batch"])) for code, meaning in BATCH_EXIT]
sections += section("EXIT STATUS", tags(exit_status))
if "examples" in spec:
    examples = [f"{caption}\n.Dl {example}\n" for caption, example in spec["examples"]]
    sections += section("EXAMPLES", ".Pp\n".join(examples))
see_also = sorted(other for other in spec.get("see_also", SEE_ALSO) if other != name[:-2])
sections += section("SEE ALSO", " ,\n".join(f".Xr {other} 1" for other in see_also) + "\n")
text = replace_once(text, '.Sh "EXIT STATUS"\n.Ex -std\n', sections, "generic EXIT STATUS section")
print(text, end="")
