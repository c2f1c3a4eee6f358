import { api, probe } from "./api.js";
import { clearTyped, setCutControls } from "./controls.js";
import { showCutsOf } from "./cuts.js";
import { $, status } from "./dom.js";
import { bytes, seconds } from "./format.js";
import { attachPlayer, emptyPlayers, player, undock } from "./player.js";
import { forgetSelection, renderRanges } from "./ranges.js";
import { S } from "./state.js";
import { clearStrip, drawPlayhead, refreshTimeline } from "./timeline.js";

// Trimmer: a clip opened (its facts, player and ranges, then its first timeline: timeline.js), and the
// playhead, which follows playback and loops inside the selection.

// Everything the previous clip left: the strip, labels, facts, notes, the top bar's message, the player (out of its
// slot too: a clip that cannot be read has none), its cuts, a selection being shaped.
function resetTrimmer() {
  status("");
  S.current = null; S.ops = []; S.frames = null; S.timeline = null;
  clearStrip();
  for (const id of ["label-start", "label-duration", "label-end", "trim-facts"]) $(id).textContent = "";
  for (const id of ["start-time", "end-time", "min-duration", "max-duration"]) $(id).value = "";
  clearTyped();
  $("preview-note").hidden = true;
  $("trim-error").hidden = true;
  $("strip").hidden = false;
  $("playhead").hidden = true;
  emptyPlayers();
  $("player-slot").textContent = "";
  $("cuts").textContent = "";
  forgetSelection();
  setCutControls(false);
}

export async function openTrimmer(clip) {
  if (S.docked) undock(false);
  const same = S.current && S.current.id === clip.id;
  $("trim-title").textContent = clip.path;
  if (!same) {
    resetTrimmer();
    S.ranges = S.ranges.filter((r) => r.clip === clip.id);
    S.editing = null;
    renderRanges();
    let info;
    try {
      // Known unreadable from the listing (the background probe's code): no request that can only fail.
      if (clip.unreadable) throw new Error(`the engine refused it (${clip.unreadable})`);
      info = await probe(clip);
    } catch (error) {
      if (location.hash !== "#/trim/" + clip.id) return;
      $("trim-error").textContent = "This clip cannot be read: " + error.message;
      $("trim-error").hidden = false;
      $("strip").hidden = true;
      return;
    }
    if (location.hash !== "#/trim/" + clip.id) return;
    const v = info.video || { display_width: 16, display_height: 9 };
    const aspect = v.display_width / Math.max(1, v.display_height);
    const thumbHeight = 50;
    const fps = info.video && info.video.fps > 0 ? info.video.fps : 100;
    S.current = { id: clip.id, clip, info, thumbHeight, thumbWidth: Math.max(20, Math.min(120, Math.round(thumbHeight * aspect))), max: null, min: null,
                  frameSeconds: Math.round(1e6 / fps) / 1e6 };
    $("min-duration").placeholder = "1 frame";
    facts(info);
    showCutsOf(clip.id);
    await attachPlayer(clip);
    if (info.video) api(`/api/clips/${clip.id}/frames`).then((f) => { if (S.current && S.current.id === clip.id) S.frames = f.times; }).catch(() => {});
    renderRanges();
  } else if (player.parentElement !== $("player-slot")) {
    $("player-slot").append(player);
  }
  if (S.current) refreshTimeline();
}

function facts(info) {
  const dl = $("trim-facts");
  dl.textContent = "";
  const add = (k, v) => { const dt = document.createElement("dt"); dt.textContent = k; const dd = document.createElement("dd"); dd.textContent = v; dl.append(dt, dd); };
  add("duration", seconds(info.duration));
  add("size", bytes(info.size));
  if (info.video) {
    const v = info.video;
    add("video", `${v.codec} ${v.width}×${v.height}, ${v.fps ? v.fps.toFixed(2) : "?"} fps`);
    add("shown", `${v.display_width}×${v.display_height}` + (v.rotation ? `, ${v.rotation}°` : "") + (v.mirrored ? ", mirrored" : ""));
  }
  if (info.audio && info.audio.length) add("audio", info.audio.map((a) => a.codec).join(", "));
}

// Every animation frame while the page is open.
export function tick() {
  const tl = S.timeline;
  if (tl && !player.paused && S.current && S.playerClip === S.current.id && !S.previewing) {
    const { start, end } = tl.selection;
    // Loop inside the selection (half-open, like a cut).
    if (player.currentTime >= end || player.currentTime < start - 0.25) player.currentTime = start;
  }
  if (!$("view-trim").hidden) drawPlayhead();
  requestAnimationFrame(tick);
}
