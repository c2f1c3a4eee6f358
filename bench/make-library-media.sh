#!/usr/bin/env bash
# Generates (once) the media-library benchmark folder: 19 films of 30–120 s at 1080p30 (H.264, every third
# HEVC; GOPs of 1, 2, 5 and 10 s in turn) and one 30 s 4K HDR10 (HEVC 10-bit, PQ) — about 21 minutes of video.
# BENCH_LIBRARY_SCALE=N makes each film N times as long (a bigger library, by hand). Cached in
# $VTRIM_BENCH_CACHE/library[-xN] (default ~/.cache/vtrim-bench); prints the folder.
set -euo pipefail
scale=${BENCH_LIBRARY_SCALE:-1}
suffix=""
[ "$scale" = 1 ] || suffix="-x$scale"
cache=${VTRIM_BENCH_CACHE:-$HOME/.cache/vtrim-bench}/library$suffix
mkdir -p "$cache"
seconds=(30 45 60 90 120 40 50 70 100 35 55 65 80 110 30 45 60 75 95)
gops=(1 2 5 10)
for i in $(seq 0 18); do
  name=$(printf "film%02d.mp4" "$i")
  [ -s "$cache/$name" ] && continue
  length=$(( ${seconds[$i]} * scale ))
  gop=$(( ${gops[$((i % 4))]} * 30 ))
  if [ $((i % 3)) -eq 2 ]; then
    codec=(-c:v libx265 -preset ultrafast -crf 26 -x265-params "log-level=error:keyint=$gop:min-keyint=$gop:scenecut=0" -tag:v hvc1)
  else
    codec=(-c:v libx264 -preset superfast -crf 24 -g "$gop" -keyint_min "$gop" -sc_threshold 0)
  fi
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30" \
    -f lavfi -i "sine=frequency=$((220 + i * 11)):sample_rate=48000" -t "$length" "${codec[@]}" -pix_fmt yuv420p \
    -c:a aac -b:a 96k -shortest "$cache/.$name.tmp.mp4"
  mv "$cache/.$name.tmp.mp4" "$cache/$name"
done
if [ ! -s "$cache/film19-hdr.mp4" ]; then
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=3840x2160:rate=30" -t $(( 30 * scale )) \
    -vf "format=yuv420p10le" -c:v libx265 -preset ultrafast -crf 28 \
    -x265-params "log-level=error:keyint=60:min-keyint=60:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,50):max-cll=1000,400" \
    -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -tag:v hvc1 "$cache/.film19-hdr.tmp.mp4"
  mv "$cache/.film19-hdr.tmp.mp4" "$cache/film19-hdr.mp4"
fi
echo "$cache"
