#!/usr/bin/env bash
# Generates the benchmark media (not committed) into a cache folder and prints
# the paths, one per line, on stdout. Files that already exist and are complete
# (checked with ffprobe) are reused.
#
#   big-1080p30.mp4  1920x1080 30 fps H.264 (B-frames, 2 s GOP) + AAC stereo,
#                    BENCH_SECONDS long (default 600 = 10 min; takes minutes)
#   clip-4k.mp4      3840x2160 30 fps H.264 (B-frames, 2 s GOP) + AAC stereo,
#                    BENCH_4K_SECONDS long (default 20)
#
# Environment:
#   VTRIM_BENCH_CACHE  cache folder (default $HOME/.cache/vtrim-bench)
#   BENCH_SECONDS      length of big-1080p30.mp4 in seconds (default 600)
#   BENCH_4K_SECONDS   length of clip-4k.mp4 in seconds (default 20)
#
# A cached file whose length differs from the requested one is regenerated.
set -euo pipefail

cache=${VTRIM_BENCH_CACHE:-$HOME/.cache/vtrim-bench}
big_seconds=${BENCH_SECONDS:-600}
k4_seconds=${BENCH_4K_SECONDS:-20}

for pair in "BENCH_SECONDS=$big_seconds" "BENCH_4K_SECONDS=$k4_seconds"; do
    if ! [[ ${pair#*=} =~ ^[1-9][0-9]*$ ]]; then
        echo "make-media: ${pair%%=*} must be a positive whole number of seconds, got '${pair#*=}'" >&2
        exit 2
    fi
done

mkdir -p "$cache"
partial=""
trap 'if [[ -n "$partial" ]]; then rm -f "$partial"; fi' EXIT

# is_complete FILE SECONDS WIDTH HEIGHT: a readable MP4 with an H.264 video
# stream of that size, an AAC stream, and a duration within 0.5 s of SECONDS.
is_complete() {
    local info
    [[ -s "$1" ]] || return 1
    info=$(ffprobe -v error -show_entries format=duration:stream=codec_name,width,height \
        -of default=noprint_wrappers=1 "$1" 2>/dev/null) || return 1
    grep -qx "codec_name=h264" <<< "$info" || return 1
    grep -qx "codec_name=aac" <<< "$info" || return 1
    grep -qx "width=$3" <<< "$info" || return 1
    grep -qx "height=$4" <<< "$info" || return 1
    awk -F= -v want="$2" '$1 == "duration" { d = $2 - want; ok = (d < 0 ? -d : d) <= 0.5 }
                          END { exit ok ? 0 : 1 }' <<< "$info"
}

# generate NAME SECONDS WIDTH HEIGHT CRF
generate() {
    local out="$cache/$1" seconds=$2 w=$3 h=$4 crf=$5
    if is_complete "$out" "$seconds" "$w" "$h"; then
        echo "make-media: $out is up to date" >&2
    else
        echo "make-media: generating $out (${seconds} s, ${w}x${h})..." >&2
        partial="$cache/.$1.partial.$$"
        ffmpeg -hide_banner -loglevel error -nostdin -y \
            -f lavfi -i "testsrc2=size=${w}x${h}:rate=30:duration=$seconds" \
            -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$seconds" \
            -map 0:v -map 1:a \
            -c:v libx264 -preset superfast -crf "$crf" -pix_fmt yuv420p -profile:v high \
            -bf 2 -g 60 -keyint_min 60 -sc_threshold 0 \
            -c:a aac -b:a 128k -ar 48000 -ac 2 \
            -map_metadata -1 -f mp4 "$partial"
        if ! is_complete "$partial" "$seconds" "$w" "$h"; then
            echo "make-media: generated $1 fails the completeness check" >&2
            exit 1
        fi
        mv -f "$partial" "$out"
        partial=""
    fi
    printf '%s\n' "$out"
}

generate big-1080p30.mp4 "$big_seconds" 1920 1080 23
generate clip-4k.mp4 "$k4_seconds" 3840 2160 23
