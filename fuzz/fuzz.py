#!/usr/bin/env python3
"""Mutation fuzzing of vtrim's probe, thumbs, cut and timeline over damaged copies of real media.

Each case takes a seed file (the fixtures, and ../shared/media when present), damages it one way —
bit flips, zeroed byte runs, truncation, a corrupted MP4 box size, two swapped chunks, an extreme value
in an MP4 timing box, or a structured mutation: one numeric field a reader trusts set to 0, 1, 1000 or
the largest signed or unsigned value of its width (MP4/MOV: movie, media and track headers, the edit
list, the sample tables, video and audio sample entries, pasp, avcC, hvcC; Matroska/WebM: pixel and
display sizes, TimecodeScale, DefaultDuration, the enclosing sizes rewritten), a far-off pixel
aspect ratio in pasp (inserted when missing), or one MPEG-TS field set in place, the packets as they
were (188-byte packets, or 192 with a 4-byte prefix as in M2TS/AVCHD): in one PES header its PTS or
DTS (0, 1, 1000, 2^32, 2^33-1), PES_packet_length, header length or PTS_DTS_flags (01, forbidden), or
every PTS and DTS of a stream shifted across the 33-bit wrap; in one packet its adaptation field
length, random access or discontinuity indicator, continuity counter or PCR; in the PAT and PMT (every
copy, the CRC_32 computed again unless left broken on purpose) section and info lengths, PIDs and
stream types — and runs one vtrim command on it under a timeout. A case passes when vtrim ends with
a documented exit status (0, or 1 with a one-line `vtrim: error:` message per failed input) within
the timeout; a signal (crash), a hang or any other status fails it. Failing inputs are kept in
fuzz/findings/ with the command, so each can become a regression test.

    fuzz/fuzz.py --cases 200 --seed 1            # the bounded set CI runs (a few minutes)
    fuzz/fuzz.py --cases 20000 --seed 7 --jobs 2 # a long campaign
    fuzz/fuzz.py --structured-only --cases 150   # only the structured mutations, on MP4/MOV/MKV/WebM/TS seeds
    fuzz/fuzz.py --sweep fixtures/hevc.mp4       # every (field, value) pair through 7 commands, a table per field
    fuzz/fuzz.py --sweep fixtures/h264-aac.ts --sweep-values 2  # MPEG-TS fields, two values each (PES picked with --seed)
"""
import argparse
import collections
import concurrent.futures
import functools
import hashlib
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--cases", type=int, default=200)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--jobs", type=int, default=2)
parser.add_argument("--timeout", type=float, default=30.0, help="seconds per run before it counts as a hang")
parser.add_argument("--exact-every", type=int, default=40, help="one exact cut every N cases")
parser.add_argument("--smart-every", type=int, default=40, help="one smart cut every N cases (halfway between exact ones)")
parser.add_argument("--vtrim", default=os.environ.get("VTRIM_BIN", os.path.join(ROOT, ".build", "release", "vtrim")))
parser.add_argument("--shared-media", default=os.path.join(os.path.dirname(ROOT), "shared", "media"))
parser.add_argument("--max-seed-bytes", type=int, default=4 << 20, help="skip seed files larger than this")
parser.add_argument("--findings", default=os.path.join(HERE, "findings"))
parser.add_argument("--structured-only", action="store_true",
                    help="only the structured mutations (MP4/MOV fields, pasp aspect pairs, Matroska elements, MPEG-TS fields), "
                         "on MP4/MOV/MKV/WebM/TS/M2TS seeds")
parser.add_argument("--sweep", nargs="+", metavar="FILE",
                    help="instead of random cases: every (field, value) pair of these seed files through probe, VideoLine and grid "
                         "thumbs, copy, exact and smart cuts and timeline, then a table of crashes and hangs per field")
parser.add_argument("--sweep-values", type=int, default=0, help="sweep: at most this many values per field, sampled with --seed (0: all)")
parser.add_argument("--max-rss-mb", type=int, default=4096, help="a run whose resident memory passes this is killed (a finding)")
args = parser.parse_args()

STRUCTURED_SEEDS = (".mp4", ".mov", ".mkv", ".webm", ".ts", ".m2ts", ".mts")


def seed_files(extensions=None):
    """The seed files: fixtures and shared media under --max-seed-bytes; only those ending in extensions when given."""
    files = []
    for name in sorted(os.listdir(os.path.join(ROOT, "fixtures"))):
        path = os.path.join(ROOT, "fixtures", name)
        if os.path.isfile(path) and os.path.getsize(path) > 0 and not name.endswith((".sh", ".md")) and name != "not-video.mp4":
            files.append(path)
    if os.path.isdir(args.shared_media):
        for folder, _, names in sorted(os.walk(args.shared_media)):
            for name in sorted(names):
                path = os.path.join(folder, name)
                if name.endswith((".tsv", ".md")) or os.path.getsize(path) > args.max_seed_bytes:
                    continue
                files.append(path)
    return [f for f in files if extensions is None or f.lower().endswith(extensions)]


# ---------------------------------------------------------------- mutations

def bit_flips(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 64)):
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    return bytes(data)


def zero_run(data, rng):
    data = bytearray(data)
    length = rng.randint(1, min(len(data), 4096))
    start = rng.randrange(len(data) - length + 1)
    data[start:start + length] = bytes(length)
    return bytes(data)


def truncate(data, rng):
    return data[:rng.randrange(1, len(data))]


def mp4_boxes(data):
    """(offset, size, type) of every box, walking into containers."""
    boxes = []
    containers = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"udta", b"dinf", b"mvex", b"moof", b"traf"}

    def walk(start, end):
        i = start
        while i + 8 <= end:
            size, kind = struct.unpack(">I4s", data[i:i + 8])
            header = 8
            if size == 1 and i + 16 <= end:
                size = struct.unpack(">Q", data[i + 8:i + 16])[0]
                header = 16
            if size < header or i + size > end:
                break
            boxes.append((i, size, kind))
            if kind in containers:
                walk(i + header, i + size)
            i += size
    walk(0, len(data))
    return boxes


def box_size(data, rng):
    boxes = [b for b in mp4_boxes(data) if b[1] < 1 << 32]
    if not boxes:
        return bit_flips(data, rng)
    offset, size, _ = rng.choice(boxes)
    new = rng.choice([0, 1, 7, size - 1, size + 1, size * 2, 0xFFFFFFFF, rng.randrange(1 << 32)])
    return data[:offset] + struct.pack(">I", new & 0xFFFFFFFF) + data[offset + 4:]


def swap_chunks(data, rng):
    if len(data) < 64:
        return bit_flips(data, rng)
    length = rng.randint(16, max(16, min(len(data) // 4, 65536)))
    a = rng.randrange(0, len(data) - length)
    b = rng.randrange(0, len(data) - length)
    first, second = sorted((a, b))
    if second < first + length:
        return zero_run(data, rng)
    return data[:first] + data[second:second + length] + data[first + length:second] + data[first:first + length] + data[second + length:]


def extreme_times(data, rng):
    """An extreme value (0, 1, 2^31-1, 2^31, 2^32-1, 2^63-1, -2^63) written over a field of an MP4 timing
    box (time scales, durations, edit list times, sample deltas, composition offsets, fragment decode
    times): timestamp arithmetic on values from the file must never trap."""
    timing = {b"mvhd", b"mdhd", b"tkhd", b"elst", b"stts", b"ctts", b"tfdt", b"mehd", b"trun", b"sidx"}
    boxes = [b for b in mp4_boxes(data) if b[2] in timing and b[1] >= 16]
    if not boxes:
        return truncate(data, rng)
    offset, size, _ = rng.choice(boxes)
    width = rng.choice([4, 8])
    field = offset + 8 + 4 * rng.randrange(max(1, (size - 8 - width) // 4 + 1))
    if field + width > offset + size:
        field = offset + size - width
    values4 = [0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]
    values8 = [0, 1, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF]
    value = rng.choice(values4 if width == 4 else values8)
    return data[:field] + value.to_bytes(width, "big") + data[field + width:]


# ---------------------------------------------------------------- structured mutations: MP4/MOV

Box = collections.namedtuple("Box", "kind start header end parents")
Field = collections.namedtuple("Field", "name offset width frac")
Target = collections.namedtuple("Target", "name values apply")

MP4_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"udta", b"dinf", b"mvex"}
VISUAL_ENTRIES = {b"avc1", b"avc2", b"avc3", b"avc4", b"hvc1", b"hev1", b"dvh1", b"dvhe", b"dva1", b"dvav", b"mp4v", b"vp08",
                  b"vp09", b"av01", b"vvc1", b"vvi1", b"s263", b"h263", b"jpeg", b"mjpa", b"mjpb", b"apcn", b"apch", b"apcs",
                  b"apco", b"ap4h"}
AUDIO_ENTRIES = {b"mp4a", b"Opus", b"fLaC", b"alac", b"ac-3", b"ec-3", b"samr", b"sawb", b"lpcm", b"sowt", b"twos", b"ipcm",
                 b"fpcm", b".mp3", b"ulaw", b"alaw", b"in24", b"in32", b"fl32", b"fl64"}
PASP_PAIRS = [(1, 1000), (1000, 1), (65535, 1), (2147483647, 3)]


class Damaged(bytes):
    """Mutated bytes with a note of what a structured mutation changed (field and value)."""
    note = ""


def damaged(data, note):
    out = Damaged(data)
    out.note = note
    return out


def printable(kind):
    return "".join(chr(c) if 32 < c < 127 else "?" for c in kind)


def track_of(box):
    """The start of the trak box holding box, or None."""
    return next((p.start for p in box.parents if p.kind == b"trak"), None)


def mp4_tree(data):
    """Every box as Box(kind, start, header, end, parents), and the handler type of each track (by trak start),
    walking into MP4_CONTAINERS, into each stsd's entries (after its 8 bytes of full box header and entry
    count) and into the child boxes of video and audio sample entries (after their fields)."""
    boxes, handlers = [], {}

    def walk(start, end, parents):
        i = start
        while i + 8 <= end:
            size, kind = struct.unpack(">I4s", data[i:i + 8])
            header = 8
            if size == 1 and i + 16 <= end:
                size, header = struct.unpack(">Q", data[i + 8:i + 16])[0], 16
            elif size == 0 and not parents:
                size = end - i
            if size < header or i + size > end:
                break
            box = Box(kind, i, header, i + size, parents)
            boxes.append(box)
            inner = parents + (box,)
            if kind in MP4_CONTAINERS:
                walk(i + header, i + size, inner)
            elif kind == b"stsd":
                walk(i + header + 8, i + size, inner)
            elif kind == b"hdlr" and parents and parents[-1].kind == b"mdia" and i + header + 12 <= i + size:
                handlers[track_of(box)] = data[i + header + 8:i + header + 12]
            elif sample_entry_class(box, handlers):
                walk(i + header + sample_entry_length(data, box, handlers), i + size, inner)
            i += size
    walk(0, len(data), ())
    return boxes, handlers


def sample_entry_class(box, handlers):
    """'visual' or 'audio' for a sample entry (by its track's handler, vide or soun, else by its type), else None."""
    if not box.parents or box.parents[-1].kind != b"stsd":
        return None
    handler = handlers.get(track_of(box))
    if handler == b"vide" or (handler is None and box.kind in VISUAL_ENTRIES):
        return "visual"
    if handler == b"soun" or (handler is None and box.kind in AUDIO_ENTRIES):
        return "audio"
    return None


def sample_entry_length(data, box, handlers):
    """Bytes of fields between a sample entry's header and its child boxes: 78 for video; 28 for audio
    (version 0; QuickTime's versions 1 and 2 add 16 and 36)."""
    if sample_entry_class(box, handlers) == "visual":
        return 78
    start = box.start + box.header + 8
    version = struct.unpack(">H", data[start:start + 2])[0] if start + 2 <= box.end else 0
    return {1: 44, 2: 64}.get(version, 28)


def track_names(boxes, handlers):
    """A name per track (by trak start): its handler type, numbered from the second track of a type (vide#2)."""
    names, seen = {}, {}
    for box in boxes:
        if box.kind == b"trak":
            handler = printable(handlers.get(box.start, b"????"))
            seen[handler] = seen.get(handler, 0) + 1
            names[box.start] = handler if seen[handler] == 1 else f"{handler}#{seen[handler]}"
    return names


def box_fields(data, box, handlers):
    """The fields of one box a reader trusts, as (label, offset, width in bytes, fraction bits of a fixed-point value)."""
    p = box.start + box.header
    if p + 4 > box.end:
        return []
    kind, version = box.kind, data[p]
    if kind in (b"mvhd", b"mdhd"):
        if version == 1:
            return [("timescale", p + 20, 4, 0), ("duration", p + 24, 8, 0)]
        return [("timescale", p + 12, 4, 0), ("duration", p + 16, 4, 0)]
    if kind == b"tkhd":
        matrix = p + (52 if version == 1 else 40)
        return [(f"matrix[{i}]", matrix + 4 * i, 4, 30 if i % 3 == 2 else 16) for i in range(9)] + \
            [("width", matrix + 36, 4, 16), ("height", matrix + 40, 4, 16)]
    if kind == b"elst":
        wide = 8 if version == 1 else 4
        return [("entry_count", p + 4, 4, 0), ("segment_duration", p + 8, wide, 0), ("media_time", p + 8 + wide, wide, 0),
                ("media_rate", p + 8 + 2 * wide, 4, 16)]
    if kind in (b"stts", b"ctts"):
        return [("entry_count", p + 4, 4, 0), ("sample_count", p + 8, 4, 0),
                ("sample_delta" if kind == b"stts" else "sample_offset", p + 12, 4, 0)]
    if kind == b"stsz":
        return [("sample_size", p + 4, 4, 0), ("sample_count", p + 8, 4, 0), ("entry_size", p + 12, 4, 0)]
    if kind == b"stsc":
        return [("entry_count", p + 4, 4, 0), ("first_chunk", p + 8, 4, 0), ("samples_per_chunk", p + 12, 4, 0),
                ("sample_description_index", p + 16, 4, 0)]
    if kind in (b"stco", b"co64"):
        return [("entry_count", p + 4, 4, 0), ("chunk_offset", p + 8, 8 if kind == b"co64" else 4, 0)]
    if kind == b"stss":
        return [("entry_count", p + 4, 4, 0), ("sample_number", p + 8, 4, 0)]
    if kind == b"pasp":
        return [("hSpacing", p, 4, 0), ("vSpacing", p + 4, 4, 0)]
    if kind == b"avcC":
        return [("lengthSizeMinusOne", p + 4, 1, 0), ("numOfSequenceParameterSets", p + 5, 1, 0), ("sps_length", p + 6, 2, 0)]
    if kind == b"hvcC":
        return [("lengthSizeMinusOne", p + 21, 1, 0), ("numOfArrays", p + 22, 1, 0), ("nal_length", p + 26, 2, 0)]
    entry = sample_entry_class(box, handlers)
    if entry == "visual":
        return [("width", p + 24, 2, 0), ("height", p + 26, 2, 0)]
    if entry == "audio":
        return [("channelcount", p + 16, 2, 0), ("samplesize", p + 18, 2, 0), ("samplerate", p + 24, 4, 16)]
    return []


def box_name(box, names):
    """track/[sample entry.]box, e.g. vide/mdhd, vide/avc1.pasp, soun/mp4a; movie-level boxes bare (mvhd)."""
    track = names.get(track_of(box))
    entry = "".join(printable(p.kind) + "." for p in box.parents if p.parents and p.parents[-1].kind == b"stsd")
    return (f"{track}/" if track else "") + entry + printable(box.kind)


def mp4_fields(data):
    """Every field of box_fields in the file, located exactly: Field(name, offset, width in bytes, fraction bits)."""
    boxes, handlers = mp4_tree(data)
    names = track_names(boxes, handlers)
    return [Field(box_name(box, names) + "." + label, offset, width, frac)
            for box in boxes for label, offset, width, frac in box_fields(data, box, handlers) if offset + width <= box.end]


def field_values(width, frac):
    """(label, value) pairs for a field width bytes wide: 0, 1, 1000 (when it fits), the largest signed and
    unsigned values; for a fixed-point field also 1.0 and 1000.0 in its units (when they fit signed)."""
    bits = 8 * width
    values = [(str(v), v) for v in (0, 1, 1000, (1 << bits - 1) - 1, (1 << bits) - 1) if v < 1 << bits]
    return values + [(f"{v << frac} ({v}.0)", v << frac) for v in (1, 1000) if frac and v << frac < 1 << bits - 1]


def write_field(data, field, value):
    return data[:field.offset] + value.to_bytes(field.width, "big") + data[field.offset + field.width:]


def mp4_insert(data, boxes, enclosing, position, blob):
    """data with blob inserted at position inside the boxes enclosing (outermost first), whose sizes grow by its
    length (a size 0, to the end of the file, is kept); chunk offsets (stco, co64) at or past position move with
    the media, as when the moov box comes before the mdat."""
    data, grown = bytearray(data), len(blob)
    for box in boxes:
        if box.kind in (b"stco", b"co64"):
            width, p = (8 if box.kind == b"co64" else 4), box.start + box.header
            count = struct.unpack(">I", data[p + 4:p + 8])[0] if p + 8 <= box.end else 0
            for at in range(p + 8, min(box.end, p + 8 + count * width) - width + 1, width):
                offset = int.from_bytes(data[at:at + width], "big")
                if offset >= position:
                    data[at:at + width] = ((offset + grown) % (1 << 8 * width)).to_bytes(width, "big")
    for box in enclosing:
        if box.header == 16:
            struct.pack_into(">Q", data, box.start + 8, box.end - box.start + grown)
        elif struct.unpack(">I", data[box.start:box.start + 4])[0] != 0:
            struct.pack_into(">I", data, box.start, (box.end - box.start + grown) & 0xFFFFFFFF)
    return bytes(data[:position]) + blob + bytes(data[position:])


def visual_entries(data):
    """(name, sample entry box, pasp box or None) for each video sample entry, with the file's boxes."""
    boxes, handlers = mp4_tree(data)
    names = track_names(boxes, handlers)
    entries = []
    for box in boxes:
        if sample_entry_class(box, handlers) == "visual":
            pasp = next((b for b in boxes if b.kind == b"pasp" and b.parents and b.parents[-1].start == box.start and b.end - b.start >= 16), None)
            entries.append((box_name(box, names), box, pasp))
    return entries, boxes


def mp4_pasp(data, index, pair):
    """data with the pasp box of the index-th video sample entry set to pair (hSpacing, vSpacing); without one, a
    pasp box is appended to the entry's child boxes (before a QuickTime zero terminator), growing the entry and
    every parent (see mp4_insert)."""
    entries, boxes = visual_entries(data)
    _, entry, pasp = entries[index]
    blob = struct.pack(">II", *pair)
    if pasp:
        at = pasp.start + pasp.header
        return data[:at] + blob + data[at + 8:]
    children = [b.end for b in boxes if b.parents and b.parents[-1].start == entry.start]
    position = max(children) if children else min(entry.end, entry.start + entry.header + 78)
    return mp4_insert(data, boxes, entry.parents + (entry,), position, struct.pack(">I4s", 16, b"pasp") + blob)


def mp4_targets(data, pairs=True):
    """Sweep targets of an MP4/MOV: each field of mp4_fields with its values; for a video sample entry without
    pasp, its pasp fields after a 1:1 pasp is inserted; with pairs, each entry's far-off aspect pairs."""
    targets = [Target(f.name, field_values(f.width, f.frac), functools.partial(write_field, data, f)) for f in mp4_fields(data)]
    entries, _ = visual_entries(data)
    for index, (name, _, pasp) in enumerate(entries):
        if pasp is None:
            base = mp4_pasp(data, index, (1, 1))
            targets += [Target(f.name + " (inserted)", field_values(f.width, f.frac), functools.partial(write_field, base, f))
                        for f in mp4_fields(base) if f.name.startswith(name + ".pasp.")]
        if pairs:
            targets.append(Target(name + ".pasp aspect" + ("" if pasp else " (inserted)"), [(f"{h}:{v}", (h, v)) for h, v in PASP_PAIRS],
                                  functools.partial(mp4_pasp, data, index)))
    return targets


def mp4_field(data, rng):
    """One field an MP4/MOV reader trusts (see box_fields) set to 0, 1, 1000, or the largest signed or
    unsigned value of its width (a pasp inserted first when the video sample entry has none)."""
    targets = mp4_targets(data, pairs=False)
    if not targets:
        return damaged(bit_flips(data, rng), "no MP4 fields: bit flips")
    target = rng.choice(targets)
    label, value = rng.choice(target.values)
    return damaged(target.apply(value), f"{target.name} = {label}")


def pasp_aspect(data, rng):
    """A far-off pixel aspect ratio (1:1000, 1000:1, 65535:1, 2147483647:3) in the pasp box of a video sample
    entry, inserted when the entry has none."""
    entries, _ = visual_entries(data)
    if not entries:
        return damaged(bit_flips(data, rng), "no video sample entry: bit flips")
    index = rng.randrange(len(entries))
    pair = rng.choice(PASP_PAIRS)
    return damaged(mp4_pasp(data, index, pair), f"{entries[index][0]}.pasp = {pair[0]}:{pair[1]}"
                   + ("" if entries[index][2] else " (inserted)"))


# ---------------------------------------------------------------- structured mutations: Matroska/WebM

Element = collections.namedtuple("Element", "id start size_at size_len size end parents")  # size None: unknown

EBML_MASTERS = {0x18538067: "Segment", 0x1549A966: "Info", 0x1654AE6B: "Tracks", 0xAE: "TrackEntry", 0xE0: "Video"}
EBML_UINTS = {0xB0: ("Video", "PixelWidth"), 0xBA: ("Video", "PixelHeight"), 0x54B0: ("Video", "DisplayWidth"),
              0x54BA: ("Video", "DisplayHeight"), 0x2AD7B1: ("Info", "TimecodeScale"), 0x23E383: ("TrackEntry", "DefaultDuration")}
EBML_VALUES = [0, 1, 1000, (1 << 31) - 1, (1 << 32) - 1, (1 << 63) - 1, (1 << 64) - 1]
TRACK_TYPES = {1: "video", 2: "audio", 17: "subtitle"}


def ebml_vint(data, i, marker=False):
    """(value, length) of the EBML variable-length integer at i (the marker bit kept with marker, as IDs are
    written), or None when there is none."""
    if i >= len(data) or data[i] == 0:
        return None
    length = 9 - data[i].bit_length()
    if i + length > len(data):
        return None
    value = int.from_bytes(data[i:i + length], "big")
    return (value if marker else value & (1 << 7 * length) - 1), length


def ebml_size(value, length=None):
    """value as an EBML size field, length bytes long or as short as possible (all ones is reserved for unknown)."""
    length = length or next(n for n in range(1, 9) if value < (1 << 7 * n) - 1)
    return ((1 << 7 * length) | value).to_bytes(length, "big")


def ebml_elements(data):
    """The elements of the EBML header and Segment levels as Element(id, start, size_at, size_len, size, end,
    parents), walking into EBML_MASTERS; a master of unknown size runs to its parent's end, and a walk stops at
    another element of unknown size (a live Cluster), which cannot be skipped."""
    elements = []

    def walk(start, end, parents):
        i = start
        while i < end:
            ident, size = ebml_vint(data, i, marker=True), None
            if ident and ident[1] <= 4:
                size = ebml_vint(data, i + ident[1])
            if size is None:
                break
            value, length = size
            master, unknown = ident[0] in EBML_MASTERS, value == (1 << 7 * length) - 1
            body = i + ident[1] + length
            stop = end if unknown else body + value
            if (unknown or stop > end) and not master:
                break
            element = Element(ident[0], i, i + ident[1], length, None if unknown else value, min(stop, end), parents)
            elements.append(element)
            if master:
                walk(body, element.end, parents + (element,))
            i = element.end
    walk(0, len(data), ())
    return elements


def ebml_uint(data, element):
    body = element.size_at + element.size_len
    return int.from_bytes(data[body:element.end], "big")


def ebml_set(data, parent, child, ident, value, width=None):
    """data with the unsigned integer element ident of parent set to value, in the fewest bytes (or width),
    replacing child or appended to parent; the size of parent and of every element around it is rewritten
    (an unknown size is kept; a size field too short for its new value is made longer)."""
    payload = value.to_bytes(width or max(1, (value.bit_length() + 7) // 8), "big")
    element = ident.to_bytes((ident.bit_length() + 7) // 8, "big") + ebml_size(len(payload)) + payload
    start, end = (child.start, child.end) if child else (parent.end, parent.end)
    out = data[:start] + element + data[end:]
    grown = len(element) - (end - start)
    for outer in reversed(child.parents if child else parent.parents + (parent,)):
        if outer.size is None:
            continue
        length = max(outer.size_len, len(ebml_size(outer.size + grown)))
        out = out[:outer.size_at] + ebml_size(outer.size + grown, length) + out[outer.size_at + outer.size_len:]
        grown += length - outer.size_len
    return out


def ebml_targets(data, width=None):
    """Sweep targets of a Matroska/WebM file: each element of EBML_UINTS in each Info, TrackEntry and Video
    (inserted when absent), with EBML_VALUES; names carry the track type (video/Video.PixelWidth)."""
    elements = ebml_elements(data)
    children = collections.defaultdict(list)
    for element in elements:
        if element.parents:
            children[element.parents[-1].start].append(element)
    tracks, seen = {}, {}
    for element in elements:
        if element.id == 0xAE:
            kind = next((TRACK_TYPES.get(ebml_uint(data, c), "track") for c in children[element.start] if c.id == 0x83), "track")
            seen[kind] = seen.get(kind, 0) + 1
            tracks[element.start] = kind if seen[kind] == 1 else f"{kind}#{seen[kind]}"
    targets = []
    for parent in elements:
        master = EBML_MASTERS.get(parent.id)
        track = next((tracks[p.start] for p in parent.parents + (parent,) if p.start in tracks), None)
        for ident, (owner, name) in EBML_UINTS.items():
            if owner != master:
                continue
            child = next((c for c in children[parent.start] if c.id == ident), None)
            targets.append(Target((f"{track}/" if track else "") + f"{owner}.{name}" + ("" if child else " (inserted)"),
                                  [(str(v), v) for v in EBML_VALUES], functools.partial(ebml_set, data, parent, child, ident, width=width)))
    return targets


def ebml_field(data, rng):
    """One Matroska/WebM element of EBML_UINTS (pixel and display sizes, TimecodeScale, DefaultDuration) set to
    0, 1, 1000 or the largest signed or unsigned 32- or 64-bit value, in the fewest bytes or in 8; absent, it is
    inserted; the enclosing elements' sizes follow (Cues and SeekHead positions after it shift)."""
    width = rng.choice([None, 8])
    targets = ebml_targets(data, width)
    if not targets:
        return damaged(bit_flips(data, rng), "no Matroska elements: bit flips")
    target = rng.choice(targets)
    label, value = rng.choice(target.values)
    return damaged(target.apply(value), f"{target.name} = {label}" + (" (8 bytes)" if width else ""))


# ---------------------------------------------------------------- structured mutations: MPEG-TS

TS_SEEDS = (".ts", ".m2ts", ".mts")
# start: the sync byte; af: adaptation_field_length (None without an adaptation field); flags: the adaptation field's flags
# byte (None when it has none); payload: where the payload starts (None without one)
TsPacket = collections.namedtuple("TsPacket", "index start pid pusi af flags payload")
# at: the PES start code; flags: PTS_DTS_flags (None without the optional header); pts, dts: their offsets (None when absent)
Pes = collections.namedtuple("Pes", "packet at flags pts dts")
Section = collections.namedtuple("Section", "packet start end")  # start: table_id; end: after the CRC_32
PsiTable = collections.namedtuple("PsiTable", "name pid kind sections")  # kind: 0 (PAT) or 2 (PMT); sections: every copy
TsStream = collections.namedtuple("TsStream", "name pid stream_type table entry")  # entry: its index in the PMT's loop
TsScan = collections.namedtuple("TsScan", "packets tables streams pes pcr")  # pes: per PID; pcr: packets carrying a PCR

TS_VIDEO_TYPES = {0x01, 0x02, 0x10, 0x1B, 0x20, 0x24, 0x33, 0x42, 0xD1, 0xEA}
TS_AUDIO_TYPES = {0x03, 0x04, 0x0F, 0x11, 0x1C, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x8A, 0xA1, 0xA2}
TS_STREAM_TYPES = [0x00, 0x1B, 0x24, 0x06, 0xFF]
TS_TIMES = [(str(v), v) for v in (0, 1, 1000)] + [("2^32", 1 << 32), ("2^33-1", (1 << 33) - 1)]
TS_SHIFTS = [("2^33-450000 (-5 s, across the wrap)", (1 << 33) - 90000 * 5), ("2^32", 1 << 32)]
PES_NO_HEADER = {0xBC, 0xBE, 0xBF, 0xF0, 0xF1, 0xF2, 0xF8, 0xFF}  # stream_ids whose PES has no optional header


@functools.lru_cache(maxsize=1)
def crc32_mpeg_table():
    table = []
    for byte in range(256):
        crc = byte << 24
        for _ in range(8):
            crc = (crc << 1 ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
        table.append(crc)
    return table


def crc32_mpeg(chunk):
    """CRC-32/MPEG-2 of chunk (polynomial 0x04C11DB7, initial value all ones, not reflected, no final xor): 0 over a
    PSI section with its CRC_32."""
    table, crc = crc32_mpeg_table(), 0xFFFFFFFF
    for byte in chunk:
        crc = (crc << 8 & 0xFFFFFFFF) ^ table[crc >> 24 ^ byte]
    return crc


def ts_layout(data):
    """(offset of the first sync byte, packet size) of an MPEG-TS: 188-byte packets, or 192 with a 4-byte prefix (M2TS,
    AVCHD .mts), found by a sync byte (0x47) at the start of each of the first 16 packets; None when neither fits."""
    for size in (188, 192):
        for first in range(size):
            count = min(16, (len(data) - first) // size)
            if count >= 2 and all(data[first + k * size] == 0x47 for k in range(count)):
                return first, size
    return None


def ts_packets(data):
    """Every packet of an MPEG-TS (resynchronising on a lost sync byte), as TsPacket."""
    layout = ts_layout(data)
    if layout is None:
        return []
    packets, (i, size) = [], layout
    while i + 188 <= len(data):
        if data[i] != 0x47:
            i += 1
            continue
        pid, control = (data[i + 1] & 0x1F) << 8 | data[i + 2], data[i + 3] >> 4 & 3
        af = flags = payload = None
        p = i + 4
        if control & 2:
            af = data[p]
            flags = data[p + 1] if af and p + 1 < i + 188 else None
            p += 1 + af
        if control & 1 and p < i + 188:
            payload = p
        packets.append(TsPacket(len(packets), i, pid, bool(data[i + 1] & 0x40), af, flags, payload))
        i += size
    return packets


def ts_section(data, packet, table_id):
    """The section of table_id starting in packet (after its pointer_field), whole in the packet, or None."""
    if not packet.pusi or packet.payload is None:
        return None
    start = packet.payload + 1 + data[packet.payload]
    if start + 12 > packet.start + 188 or data[start] != table_id:
        return None
    end = start + 3 + ((data[start + 1] & 0x0F) << 8 | data[start + 2])
    return Section(packet, start, end) if start + 12 <= end <= packet.start + 188 else None


def psi_fields(data, section, kind):
    """The fields of a PAT (kind 0) or PMT (kind 2) section as {key: (offset, width in bytes, bit mask)}; keys:
    section_length, program_map_PID (of the first program), PCR_PID, program_info_length, and (entry, stream_type),
    (entry, elementary_PID), (entry, ES_info_length) for each entry of the PMT's loop."""
    s, end = section.start, section.end - 4
    fields = {"section_length": (s + 1, 2, 0x0FFF)}
    if kind == 0:
        programs = [e for e in range(s + 8, end - 3, 4) if data[e] << 8 | data[e + 1]]
        if programs:
            fields["program_map_PID"] = (programs[0] + 2, 2, 0x1FFF)
        return fields
    fields.update(PCR_PID=(s + 8, 2, 0x1FFF), program_info_length=(s + 10, 2, 0x0FFF))
    e, entry = s + 12 + ((data[s + 10] & 0x0F) << 8 | data[s + 11]), 0
    while e + 5 <= end:
        fields.update({(entry, "stream_type"): (e, 1, 0xFF), (entry, "elementary_PID"): (e + 1, 2, 0x1FFF),
                       (entry, "ES_info_length"): (e + 3, 2, 0x0FFF)})
        e, entry = e + 5 + ((data[e + 3] & 0x0F) << 8 | data[e + 4]), entry + 1
    return fields


def get_bits(data, offset, width, mask):
    """The value in the bits of mask of the width-byte big-endian word at offset of data."""
    return (int.from_bytes(data[offset:offset + width], "big") & mask) >> (mask & -mask).bit_length() - 1


def set_bits(data, offset, width, mask, value):
    """Writes value into the bits of mask of the width-byte big-endian word at offset of data (a bytearray), keeping the others."""
    shift = (mask & -mask).bit_length() - 1
    word = int.from_bytes(data[offset:offset + width], "big") & ~mask | value << shift & mask
    data[offset:offset + width] = word.to_bytes(width, "big")


def ts_time(data, at):
    """The 33-bit value of the PES PTS or DTS at at."""
    b = data[at:at + 5]
    return (b[0] >> 1 & 7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1


def set_ts_time(data, at, value):
    """Writes value (mod 2^33) as the PES PTS or DTS at at, keeping its 4-bit prefix, with the three marker bits set."""
    value %= 1 << 33
    data[at:at + 5] = bytes([data[at] & 0xF0 | value >> 29 & 0x0E | 1, value >> 22 & 0xFF, value >> 14 & 0xFE | 1,
                             value >> 7 & 0xFF, value << 1 & 0xFE | 1])


def set_pcr(data, packet, base=None, extension=None):
    """Writes the PCR of packet (its 33-bit base and 9-bit extension; None keeps one), the 6 reserved bits set."""
    at = packet.start + 6
    old = int.from_bytes(data[at:at + 6], "big")
    base = (old >> 15 if base is None else base) % (1 << 33)
    extension = old & 0x1FF if extension is None else extension
    data[at:at + 6] = (base << 15 | 0x7E << 9 | extension).to_bytes(6, "big")


def ts_scan(data):
    """An MPEG-TS as TsScan: its packets; the PAT and the PMTs of its programs (by the PAT), every copy of each that
    fits in its packet; the elementary streams of the first copy of each PMT, named by type (video, audio, data,
    numbered from the second of a type: audio#2); the PES headers starting in each stream's packets; the packets
    carrying a PCR on each PMT's PCR_PID. None when data is no MPEG-TS or has no PAT."""
    packets = ts_packets(data)
    pats = [s for s in (ts_section(data, p, 0) for p in packets if p.pid == 0) if s]
    if not pats:
        return None
    tables = [PsiTable("PAT", 0, 0, pats)]
    pmt_pids = [data[e + 2] << 8 & 0x1F00 | data[e + 3] for e in range(pats[0].start + 8, pats[0].end - 7, 4) if data[e] << 8 | data[e + 1]]
    for number, pid in enumerate(dict.fromkeys(pmt_pids), 1):
        sections = [s for s in (ts_section(data, p, 2) for p in packets if p.pid == pid) if s]
        if sections:
            tables.append(PsiTable("PMT" if number == 1 else f"PMT#{number}", pid, 2, sections))
    streams, seen, pcr_pids = [], {}, set()
    for table in tables[1:]:
        fields = psi_fields(data, table.sections[0], 2)
        pcr_pids.add(int.from_bytes(data[fields["PCR_PID"][0]:fields["PCR_PID"][0] + 2], "big") & 0x1FFF)
        entry = 0
        while (entry, "stream_type") in fields:
            stream_type = data[fields[entry, "stream_type"][0]]
            at = fields[entry, "elementary_PID"][0]
            kind = "video" if stream_type in TS_VIDEO_TYPES else "audio" if stream_type in TS_AUDIO_TYPES else "data"
            seen[kind] = seen.get(kind, 0) + 1
            streams.append(TsStream(kind if seen[kind] == 1 else f"{kind}#{seen[kind]}", (data[at] & 0x1F) << 8 | data[at + 1],
                                    stream_type, table, entry))
            entry += 1
    pes = collections.defaultdict(list)
    stream_pids = {s.pid for s in streams}
    for packet in packets:
        at = packet.payload
        if packet.pid in stream_pids and packet.pusi and at is not None and at + 9 <= packet.start + 188 and data[at:at + 3] == b"\0\0\1":
            if data[at + 3] in PES_NO_HEADER or data[at + 6] & 0xC0 != 0x80:
                pes[packet.pid].append(Pes(packet, at, None, None, None))
                continue
            flags, end = data[at + 7] >> 6, packet.start + 188
            pts = at + 9 if flags & 2 and at + 14 <= end else None
            dts = at + 14 if flags == 3 and at + 19 <= end else None
            pes[packet.pid].append(Pes(packet, at, flags, pts, dts))
    pcr = [p for p in packets if p.pid in pcr_pids and p.flags is not None and p.flags & 0x10 and p.af >= 7]
    return TsScan(packets, tables, streams, pes, pcr)


def ts_psi_set(data, table, key, first_copy, value):
    """data with the field key (see psi_fields) of every copy of table (or of its first copy only) set to value, a
    (number, CRC fixed) pair: the CRC_32 is computed again when fixed, except after a section_length change (the
    section's end moved)."""
    number, fix = value
    out = bytearray(data)
    for section in table.sections[:1] if first_copy else table.sections:
        fields = psi_fields(out, section, table.kind)
        if key not in fields:
            continue
        set_bits(out, *fields[key], number)
        if fix and key != "section_length":
            out[section.end - 4:section.end] = crc32_mpeg(out[section.start:section.end - 4]).to_bytes(4, "big")
    return bytes(out)


def ts_write(data, edit, value):
    """data with edit(a bytearray copy of it, value) applied."""
    out = bytearray(data)
    edit(out, value)
    return bytes(out)


def ts_bits(out, value):
    """value: (offset, width, mask, number) for set_bits."""
    set_bits(out, *value)


def ts_time_edit(out, value):
    """value: (offset of a PES PTS or DTS, its new value)."""
    set_ts_time(out, *value)


def ts_pcr_edit(out, value):
    """value: (packet, PCR base or None, PCR extension or None)."""
    set_pcr(out, *value)


def ts_shift(scan, pids, pcr, out, offset):
    """Adds offset (mod 2^33) to every PES PTS and DTS of the streams of pids and, with pcr, to every PCR base."""
    for pid in pids:
        for pes in scan.pes.get(pid, []):
            for at in (pes.pts, pes.dts):
                if at:
                    set_ts_time(out, at, ts_time(out, at) + offset)
    for packet in scan.pcr if pcr else []:
        set_pcr(out, packet, base=(int.from_bytes(out[packet.start + 6:packet.start + 12], "big") >> 15) + offset)


def ts_cc(scan, out, value):
    """value: (packet, shift, onward): adds shift (mod 16) to the continuity_counter of packet, and with onward to that
    of every later packet of its PID."""
    packet, shift, onward = value
    for other in scan.packets[packet.index:] if onward else [packet]:
        if other.pid == packet.pid:
            out[other.start + 3] = out[other.start + 3] & 0xF0 | (out[other.start + 3] + shift) & 0x0F


def ts_targets(data, rng, first_copy=False):
    """Sweep targets of an MPEG-TS (see ts_scan). In the PAT and each PMT (every copy, or with first_copy the first
    only; the CRC_32 fixed, and for the last value also left as it was, now wrong): section_length (0, 1021), program_map_PID,
    PCR_PID, program_info_length (0, 0xFFF) and each stream's stream_type (TS_STREAM_TYPES), elementary_PID (another
    stream's, the PMT's, 0x1FFF) and ES_info_length (0, 0xFFF). Per stream, in one PES header picked with rng: PTS and
    DTS (TS_TIMES), PES_packet_length (0, 1, 0xFFFF), PES_header_data_length (0, 255), PTS_DTS_flags (01, forbidden; 00
    on a PES with a PTS; 10 on one with a DTS); every PTS and DTS of the stream shifted by TS_SHIFTS (also of all
    streams with every PCR: a whole file across the wrap); in one packet picked with rng: adaptation_field_length (0,
    183, 184), random_access_indicator and discontinuity_indicator set (on one clear) or cleared (on one set), the
    continuity_counter shifted (+1, +15 and +8 from there on); in one PCR, its base (0, 2^33-1) and extension (0,
    511). Values a field already holds are left out; labels end in the packet number (@57, counted from 0)."""
    scan = ts_scan(data)
    if scan is None:
        return []
    targets, suffix = [], " (first copy)" if first_copy else ""
    names = {s.pid: s.name for s in scan.streams}

    def pid_label(pid):
        return f"0x{pid:04X}" + (f" ({names[pid]})" if pid in names else "")

    def psi(table, key, name, numbers):
        field = psi_fields(data, table.sections[0], table.kind).get(key)
        values = [(label, (number, True)) for label, number in numbers if not field or get_bits(data, *field) != number]
        if values and key != "section_length":
            values.append((values[-1][0] + " (CRC broken)", (values[-1][1][0], False)))
        if values:
            targets.append(Target(f"{table.name}.{name}{suffix}", values, functools.partial(ts_psi_set, data, table, key, first_copy)))

    for table in scan.tables:
        psi(table, "section_length", "section_length", [("0", 0), ("1021", 1021)])
        if table.kind == 0:
            if "program_map_PID" in psi_fields(data, table.sections[0], 0):
                psi(table, "program_map_PID", "program_map_PID", [(pid_label(p), p) for p in list(names)[:1] + [0x1FFF]])
            continue
        own = [s for s in scan.streams if s.table is table]
        offset = psi_fields(data, table.sections[0], 2)["PCR_PID"][0]
        pcr_pid = int.from_bytes(data[offset:offset + 2], "big") & 0x1FFF
        psi(table, "program_info_length", "program_info_length", [("0", 0), ("0xFFF", 0xFFF)])
        psi(table, "PCR_PID", "PCR_PID", [(pid_label(s.pid), s.pid) for s in own if s.pid != pcr_pid][:1] + [("0x1FFF", 0x1FFF)])
        for stream in own:
            psi(table, (stream.entry, "stream_type"), f"{stream.name}.stream_type", [(f"0x{t:02X}", t) for t in TS_STREAM_TYPES])
            pids = [(pid_label(s.pid), s.pid) for s in scan.streams if s.pid != stream.pid][:1] \
                + [(f"0x{table.pid:04X} (PMT)", table.pid), ("0x1FFF", 0x1FFF)]
            psi(table, (stream.entry, "elementary_PID"), f"{stream.name}.elementary_PID", pids)
            psi(table, (stream.entry, "ES_info_length"), f"{stream.name}.ES_info_length", [("0", 0), ("0xFFF", 0xFFF)])

    def target(name, edit, values):
        values = [(label, v) for label, v in values if edit is not ts_bits or get_bits(data, *v[:3]) != v[3]]
        if values:
            targets.append(Target(name, values, functools.partial(ts_write, data, edit)))

    def pick(items):
        return rng.choice(items) if items else None

    for stream in scan.streams:
        name, pes = stream.name, scan.pes.get(stream.pid, [])
        for field in ("pts", "dts"):
            one = pick([p for p in pes if getattr(p, field)])
            if one:
                target(f"{name}/PES.{field.upper()}", ts_time_edit,
                       [(f"{label} @{one.packet.index}", (getattr(one, field), v)) for label, v in TS_TIMES])
        if any(p.pts for p in pes):
            target(f"{name}/PES.PTS+DTS every (shift)", functools.partial(ts_shift, scan, [stream.pid], False), TS_SHIFTS)
        one = pick(pes)
        if one:
            target(f"{name}/PES.PES_packet_length", ts_bits, [(f"{v} @{one.packet.index}", (one.at + 4, 2, 0xFFFF, v)) for v in (0, 1, 0xFFFF)])
        one = pick([p for p in pes if p.flags is not None])
        if one:
            target(f"{name}/PES.PES_header_data_length", ts_bits, [(f"{v} @{one.packet.index}", (one.at + 8, 1, 0xFF, v)) for v in (0, 255)])
            flags = [(f"01 (forbidden) @{one.packet.index}", (one.at + 7, 1, 0xC0, 1))]
            flags += [(f"00 (none) @{p.packet.index}", (p.at + 7, 1, 0xC0, 0)) for p in [pick([p for p in pes if p.pts])] if p]
            flags += [(f"10 (PTS only, DTS left) @{p.packet.index}", (p.at + 7, 1, 0xC0, 2)) for p in [pick([p for p in pes if p.dts])] if p]
            target(f"{name}/PES.PTS_DTS_flags", ts_bits, flags)
        packets = [p for p in scan.packets if p.pid == stream.pid]
        one = pick([p for p in packets if p.af is not None and p.payload is not None]) or pick([p for p in packets if p.af is not None])
        if one:
            target(f"{name}/AF.adaptation_field_length", ts_bits, [(f"{v} @{one.index}", (one.start + 4, 1, 0xFF, v)) for v in (0, 183, 184)])
        for bit, field in ((0x40, "random_access_indicator"), (0x80, "discontinuity_indicator")):
            clear = [p for p in packets if p.flags is not None and not p.flags & bit]
            values = [(f"set @{p.index}", (p.start + 5, 1, bit, 1)) for p in [pick([p for p in clear if p.pusi]) or pick(clear)] if p]
            values += [(f"clear @{p.index}", (p.start + 5, 1, bit, 0))
                       for p in [pick([p for p in packets if p.flags is not None and p.flags & bit])] if p]
            target(f"{name}/AF.{field}", ts_bits, values)
        one = pick([p for p in packets if p.payload is not None])
        if one:
            target(f"{name}/TS.continuity_counter", functools.partial(ts_cc, scan),
                   [(f"+1 @{one.index}", (one, 1, False)), (f"+15 (a repeat) @{one.index}", (one, 15, False)),
                    (f"+8 from @{one.index} on", (one, 8, True))])
    one = pick(scan.pcr)
    if one:
        name = names.get(one.pid, f"0x{one.pid:04X}")
        target(f"{name}/AF.PCR_base", ts_pcr_edit, [(f"0 @{one.index}", (one, 0, None)), (f"2^33-1 @{one.index}", (one, (1 << 33) - 1, None))])
        target(f"{name}/AF.PCR_extension", ts_pcr_edit, [(f"0 @{one.index}", (one, None, 0)), (f"511 @{one.index}", (one, None, 511))])
    if scan.streams:
        target("all/PES.PTS+DTS+PCR every (shift)", functools.partial(ts_shift, scan, list(names), True), TS_SHIFTS)
    return targets


def ts_field(data, rng):
    """One field an MPEG-TS reader trusts (see ts_targets) set to an extreme value in place, the packets as they were:
    PES PTS and DTS to 0, 1, 1000, 2^32 or 2^33-1 in one PES (or every one of a stream shifted across the 33-bit wrap);
    PES_packet_length, PES_header_data_length, PTS_DTS_flags; adaptation field length, random access and discontinuity
    indicators, continuity counter, PCR; in the PAT and PMT (every copy, or a quarter of the time the first only, with
    the CRC_32 fixed unless broken on purpose) section and info lengths, PIDs and stream types."""
    targets = ts_targets(data, rng, first_copy=rng.random() < 0.25)
    if not targets:
        return damaged(bit_flips(data, rng), "no MPEG-TS fields: bit flips")
    target = rng.choice(targets)
    label, value = rng.choice(target.values)
    return damaged(target.apply(value), f"{target.name} = {label}")


MUTATIONS = [("bitflip", bit_flips), ("zeros", zero_run), ("truncate", truncate), ("boxsize", box_size), ("swap", swap_chunks),
             ("times", extreme_times), ("mp4field", mp4_field), ("pasp", pasp_aspect), ("ebml", ebml_field), ("tsfield", ts_field)]
# The seeds a structured mutation takes (by extension); the others take any seed.
STRUCTURED = {"mp4field": (".mp4", ".mov"), "pasp": (".mp4", ".mov"), "ebml": (".mkv", ".webm"), "tsfield": TS_SEEDS}


# ---------------------------------------------------------------- commands

def cut_extension(path):
    """Cuts are written to the containers vtrim reads back exactly; others go to Matroska (as by default)."""
    ext = os.path.splitext(path)[1] or ".mp4"
    if ext.lower() not in (".mp4", ".mov", ".m4v", ".3gp", ".3g2", ".mkv", ".webm", ".ts", ".m2ts", ".mts", ".avi"):
        ext = ".mkv"
    return ext


def videoline_thumbs(path, out, fast=False):
    """thumbs in the VideoLine layout (cells of the thumbnail size, one every timeSpacing seconds)."""
    return ["thumbs", path, "--strip-width", "375", "--thumb-size", "40x60"] + (["--mode", "fast"] if fast else []) + ["-o", out + "-strip.png"]


def timeline(rng, path):
    """timeline over the probed duration, now and then as JSON, with a preset selection or replayed drags."""
    extra = rng.choice([[], ["--json"], ["--start", "1", "--end", "end-1"], ["--op", "drag-left:100", "--op", "move-right:3", "--op", "scroll:1"]])
    return ["timeline", path, "--strip-width", "375", "--thumb-size", "40x60"] + extra


def commands(rng, index, path, out):
    """One command per case, rotating through probe, thumbs (grid and VideoLine layouts, both modes each),
    timeline or propose, and cuts (copy; now and then exact and smart)."""
    kind = index % 8
    if args.exact_every and index % args.exact_every == args.exact_every - 1:
        return ["cut", path, "--start", "0.3", "--end", "1.2", "--mode", "exact", "--preset", "ultrafast", "-o", out + ".mp4"]
    if args.smart_every and index % args.smart_every == args.smart_every // 2 - 1:
        return ["cut", path, "--start", "0.5", "--end", "3.5", "--mode", "smart", "--preset", "ultrafast", "-o", out + ".mp4"]
    if kind == 0:
        return ["probe", "--json", path]
    if kind in (1, 2):
        return ["thumbs", path, "--count", str(rng.randint(1, 6)), "--height", "48"] + (["--mode", "fast"] if kind == 2 else []) \
            + ["-o", out + ".png"]
    if kind in (3, 4):
        return videoline_thumbs(path, out, fast=kind == 4)
    if kind == 5:
        command = timeline(rng, path)
        # Every other timeline case proposes instead (the generator's draws stay as they were, so other cases do too).
        if index % 16 == 13:
            return ["propose", path, "--silence", "--black", "--scenes", "--json", "-o", out + ".csv"]
        return command
    start = rng.choice(["0", "0.4", "1", "end-1"])
    return ["cut", path, "--start", start, "--end", rng.choice(["end", "2", "9"]), "-o", out + cut_extension(path)]


def sweep_commands(path, out):
    """The commands each (field, value) pair of a sweep goes through."""
    return [["probe", "--json", path],
            videoline_thumbs(path, out),
            ["thumbs", path, "--count", "4", "--height", "48", "-o", out + "-grid.png"],
            ["cut", path, "--start", "0.4", "--end", "end", "-o", out + "-copy" + cut_extension(path)],
            ["cut", path, "--start", "0.3", "--end", "1.2", "--mode", "exact", "--preset", "ultrafast", "-o", out + "-exact.mp4"],
            ["cut", path, "--start", "0.5", "--end", "3.5", "--mode", "smart", "--preset", "ultrafast", "-o", out + "-smart.mp4"],
            ["timeline", path, "--strip-width", "375", "--thumb-size", "40x60"]]


def command_label(command):
    """probe, thumbs, thumbs-strip/fast, cut/exact, timeline…: the command, its layout and mode."""
    label = command[0] + ("-strip" if "--strip-width" in command and command[0] == "thumbs" else "")
    return label + ("/" + command[command.index("--mode") + 1] if "--mode" in command else "")


# ---------------------------------------------------------------- running vtrim

def binary_stamp():
    """(mtime, size) of the vtrim binary; None while it is missing (being rebuilt by another build)."""
    try:
        stat = os.stat(args.vtrim)
        return stat.st_mtime_ns, stat.st_size
    except OSError:
        return None


def wait_for_binary(limit=900):
    """Waits until the vtrim binary exists and has not changed for 5 s (another build may be relinking it)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        stamp = binary_stamp()
        if stamp and os.access(args.vtrim, os.X_OK) and time.time() - stamp[0] / 1e9 > 5:
            return True
        time.sleep(1)
    return False


def resident_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as handle:
            return next(int(line.split()[1]) // 1024 for line in handle if line.startswith("VmRSS:"))
    except (OSError, StopIteration, ValueError):
        return 0


def run_once(command):
    """Runs vtrim once under the timeout and the memory limit: (exit status, or None when killed by us; stderr;
    problem found while it ran, or None)."""
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", ""))
    env.setdefault("SWIFT_BACKTRACE", "enable=yes,interactive=no,color=no")
    started = time.monotonic()
    process = subprocess.Popen([args.vtrim] + command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    while True:
        try:
            _, stderr = process.communicate(timeout=0.2)
            return process.returncode, stderr.decode(errors="replace"), None
        except subprocess.TimeoutExpired:
            if resident_mb(process.pid) > args.max_rss_mb:
                problem = f"memory: over {args.max_rss_mb} MB resident"
            elif time.monotonic() - started > args.timeout:
                problem = f"hang: no result in {args.timeout:.0f} s"
            else:
                continue
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = process.communicate()
        return None, stderr.decode(errors="replace"), problem


def judge(status, stderr, work):
    """What is wrong with a finished run, or None: a signal, an undocumented status, exit 1 without an error
    line, a stderr line not in vtrim's words, temporary files left."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if status < 0:
        return f"killed by signal {-status}"
    if status not in (0, 1):
        return f"exit status {status}"
    if status == 1 and not any(line.startswith("vtrim: error: ") for line in lines):
        return "exit 1 without an error line"
    if any(not line.startswith("vtrim: ") for line in lines):
        return "stderr line not in vtrim's words: " + next(line for line in lines if not line.startswith("vtrim: "))
    leftovers = [n for n in os.listdir(work) if "vtrim-tmp" in n]
    return f"temporary files left: {leftovers}" if leftovers else None


def run_vtrim(command, work):
    """(exit status or None, stderr, problem or None, seconds) of one vtrim run; repeated when the binary was
    missing or changed under a failing run (rebuilt by another build meanwhile)."""
    status, stderr, problem, started = None, "", "could not run the vtrim binary", time.monotonic()
    for _ in range(4):
        wait_for_binary()
        before, started = binary_stamp(), time.monotonic()
        try:
            status, stderr, problem = run_once(command)
        except OSError:  # missing, or still being written
            time.sleep(2)
            continue
        problem = problem or judge(status, stderr, work)
        if problem is None or binary_stamp() == before:
            return status, stderr, problem, time.monotonic() - started
        print(f"fuzz: the vtrim binary changed during a failing run; running it again: vtrim {' '.join(command)}", flush=True)
    return status, stderr, problem, time.monotonic() - started


def binary_built():
    stamp = binary_stamp()
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp[0] / 1e9)) if stamp else "missing"


def keep_finding(data, ext, path, command, problem, stderr, about):
    """Keeps a failing input in the findings folder with a note (about: seed and mutation; the command, run
    on the kept copy; the problem; stderr's head and tail); returns the kept path."""
    os.makedirs(args.findings, exist_ok=True)
    kept = os.path.join(args.findings, f"{hashlib.sha1(data).hexdigest()[:12]}-{command_label(command).replace('/', '-')}{ext}")
    shutil.copyfile(path, kept)
    if len(stderr) > 12000:
        stderr = stderr[:8000] + "\n[…]\n" + stderr[-4000:]
    with open(kept + ".txt", "w") as handle:
        handle.write(f"{about}command: vtrim {' '.join(kept if part == path else part for part in command)}\n"
                     f"problem: {problem}\nbinary: {args.vtrim} (built {binary_built()})\nstderr:\n{stderr}")
    return kept


# ---------------------------------------------------------------- random cases

def mutations():
    return [m for m in MUTATIONS if m[0] in STRUCTURED] if args.structured_only else MUTATIONS


def run_case(index, seeds, root):
    work = os.path.join(root, f"c{index}")
    os.makedirs(work, exist_ok=True)
    rng = random.Random(f"{args.seed}-{index}")
    name, mutate = rng.choice(mutations())
    seed = rng.choice([s for s in seeds if s.lower().endswith(STRUCTURED.get(name, ""))] or seeds)
    with open(seed, "rb") as handle:
        data = handle.read()
    damaged = mutate(data, rng)
    ext = os.path.splitext(seed)[1] or ".bin"
    path = os.path.join(work, f"case{index}{ext}")
    with open(path, "wb") as handle:
        handle.write(damaged)
    out = os.path.join(work, f"out{index}")
    command = commands(rng, index, path, out)
    status, stderr, problem, elapsed = run_vtrim(command, work)
    finding = None
    if problem:
        note = getattr(damaged, "note", "")
        kept = keep_finding(damaged, ext, path, command, problem, stderr,
                            f"seed: {seed}\nmutation: {name}\n" + (f"field: {note}\n" if note else ""))
        finding = (index, seed, name + (f" {note}" if note else ""), command[0], problem, kept)
    shutil.rmtree(work, ignore_errors=True)
    return index, command_label(command), name, elapsed, status, finding


def cases_main():
    seeds = seed_files(STRUCTURED_SEEDS if args.structured_only else None)
    work = tempfile.mkdtemp(prefix="vtrim-fuzz-")
    started, built = time.monotonic(), binary_stamp()
    findings, counts, statuses, kinds = [], {}, {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for index, kind, mutation, elapsed, status, finding in pool.map(lambda i: run_case(i, seeds, work), range(args.cases)):
            counts[kind] = counts.get(kind, 0) + 1
            kinds[mutation] = kinds.get(mutation, 0) + 1
            statuses[status] = statuses.get(status, 0) + 1
            if finding:
                findings.append(finding)
                print(f"fuzz: FINDING case {index}: {finding[3]} on {os.path.basename(finding[1])} ({finding[2]}): {finding[4]} -> {finding[5]}", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    total = time.monotonic() - started
    crashes = sum(1 for f in findings if "signal" in f[4])
    hangs = sum(1 for f in findings if f[4].startswith("hang"))
    print(f"fuzz: {args.cases} cases from {len(seeds)} seed files (seed {args.seed}) in {total:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print("fuzz: mutations " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"fuzz: exit statuses {dict(sorted((str(k), v) for k, v in statuses.items()))}; "
          f"findings {len(findings)} (crashes {crashes}, hangs {hangs}, other {len(findings) - crashes - hangs})")
    if binary_stamp() != built:
        print("fuzz: note: the vtrim binary was rebuilt during the run")
    sys.exit(1 if findings else 0)


# ---------------------------------------------------------------- sweep

def structured_targets(data, seed):
    """The sweep targets of a seed: Matroska/WebM elements for an EBML file, MPEG-TS fields for a transport stream (the
    PES and packets picked with --seed and the file name), MP4/MOV fields otherwise."""
    if data[:4] == b"\x1a\x45\xdf\xa3":
        return ebml_targets(data)
    if ts_layout(data):
        return ts_targets(data, random.Random(f"{args.seed}-{os.path.basename(seed)}"))
    return mp4_targets(data)


def sweep_pairs(files):
    """(seed, target, value label, value) for every (field, value) pair of the seed files; with --sweep-values,
    that many values per field, sampled with --seed."""
    pairs = []
    for seed in files:
        with open(seed, "rb") as handle:
            data = handle.read()
        for target in structured_targets(data, seed):
            values = target.values
            if args.sweep_values and len(values) > args.sweep_values:
                chosen = set(random.Random(f"{args.seed}-{os.path.basename(seed)}-{target.name}").sample(range(len(values)), args.sweep_values))
                values = [v for i, v in enumerate(values) if i in chosen]
            pairs += [(seed, target, label, value) for label, value in values]
    return pairs


def run_pair(index, pair, root):
    """Runs one (field, value) pair of a sweep through sweep_commands: (pair, [(command label, problem, kept)])."""
    seed, target, label, value = pair
    work = os.path.join(root, f"p{index}")
    os.makedirs(work, exist_ok=True)
    damaged = target.apply(value)
    ext = os.path.splitext(seed)[1] or ".bin"
    path = os.path.join(work, f"pair{index}{ext}")
    with open(path, "wb") as handle:
        handle.write(damaged)
    results = []
    for command in sweep_commands(path, os.path.join(work, "out")):
        _, stderr, problem, _ = run_vtrim(command, work)
        kept = None
        if problem:
            kept = keep_finding(damaged, ext, path, command, problem, stderr, f"seed: {seed}\nmutation: sweep\nfield: {target.name} = {label}\n")
            print(f"fuzz: FINDING {os.path.basename(seed)} {target.name} = {label}: {command_label(command)}: {problem} -> {kept}", flush=True)
        results.append((command_label(command), problem, kept))
    shutil.rmtree(work, ignore_errors=True)
    return pair, results


def problem_kind(problem):
    return "crash" if "signal" in problem else "hang" if problem.startswith("hang") else "memory" if problem.startswith("memory") else "other"


def print_sweep_table(rows):
    """The summary: per field, runs and crashes, hangs, memory and other findings, and what failed."""
    width = max([len("field")] + [len(name) for name in rows])
    print(f"{'field':<{width}}  runs  crash  hang  memory  other  failing (value: command)")
    for name, row in rows.items():
        failing = ", ".join(sorted(row["failing"]))
        print(f"{name:<{width}}  {row['runs']:>4}  {row['crash']:>5}  {row['hang']:>4}  {row['memory']:>6}  {row['other']:>5}  "
              + (failing[:200] + ("…" if len(failing) > 200 else "")))


def sweep_main():
    pairs = sweep_pairs(args.sweep)
    commands_per_pair = len(sweep_commands("x", "x"))
    print(f"fuzz: sweep of {len(pairs)} (field, value) pairs from {len(args.sweep)} files, {len(pairs) * commands_per_pair} runs; "
          f"vtrim built {binary_built()}", flush=True)
    work = tempfile.mkdtemp(prefix="vtrim-sweep-")
    started, built = time.monotonic(), binary_stamp()
    rows = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for done, (pair, results) in enumerate(pool.map(lambda item: run_pair(item[0], item[1], work), enumerate(pairs)), 1):
            seed, target, label, _ = pair
            row = rows.setdefault(target.name, {"runs": 0, "crash": 0, "hang": 0, "memory": 0, "other": 0, "failing": set()})
            for command, problem, _ in results:
                row["runs"] += 1
                if problem:
                    row[problem_kind(problem)] += 1
                    row["failing"].add(f"{label}: {command} ({problem_kind(problem)}, {os.path.basename(seed)})")
            if done % 50 == 0:
                print(f"fuzz: sweep {done}/{len(pairs)} pairs, {time.monotonic() - started:.0f} s", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    print_sweep_table(rows)
    totals = {kind: sum(row[kind] for row in rows.values()) for kind in ("runs", "crash", "hang", "memory", "other")}
    print(f"fuzz: sweep of {len(pairs)} pairs ({totals['runs']} runs) in {time.monotonic() - started:.0f} s: crashes {totals['crash']}, "
          f"hangs {totals['hang']}, memory {totals['memory']}, other {totals['other']}")
    if binary_stamp() != built:
        print("fuzz: note: the vtrim binary was rebuilt during the sweep")
    sys.exit(1 if totals["crash"] + totals["hang"] + totals["memory"] + totals["other"] else 0)


def main():
    if not wait_for_binary(limit=60):
        sys.exit(f"fuzz: no vtrim binary at {args.vtrim}; build first (swift build) or pass --vtrim")
    sweep_main() if args.sweep else cases_main()


main()
