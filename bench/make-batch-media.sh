#!/usr/bin/env bash
# Generates (once) the batch benchmark folder: 60 short H.264+AAC clips of mixed sizes and lengths,
# every fourth one rotated like a phone-portrait video. Cached in $VTRIM_BENCH_CACHE/batch
# (default ~/.cache/vtrim-bench/batch); prints the folder.
set -euo pipefail
cache=${VTRIM_BENCH_CACHE:-$HOME/.cache/vtrim-bench}/batch
mkdir -p "$cache"
sizes=(640x360 1280x720 1920x1080)
seconds=(12 8 5)
for i in $(seq 0 59); do
  kind=$((i % 3))
  name=$(printf "clip%02d.mp4" "$i")
  [ -s "$cache/$name" ] && continue
  tmp="$cache/.$name.tmp.mp4"
  rotate=()
  if [ $((i % 4)) -eq 0 ]; then rotate=(-metadata:s:v:0 rotate=270); fi
  ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "testsrc2=size=${sizes[$kind]}:rate=30" -f lavfi -i "sine=frequency=$((300 + i * 7)):sample_rate=48000" \
    -t "${seconds[$kind]}" -c:v libx264 -preset veryfast -crf 26 -g 60 -keyint_min 60 -sc_threshold 0 -pix_fmt yuv420p \
    -c:a aac -b:a 64k -shortest "$tmp"
  if [ ${#rotate[@]} -gt 0 ]; then
    ffmpeg -hide_banner -loglevel error -y -i "$tmp" -c copy "${rotate[@]}" "$cache/$name"
    rm -f "$tmp"
  else
    mv "$tmp" "$cache/$name"
  fi
done
echo "$cache"
