import { api } from "./api.js";
import { setCutControls } from "./controls.js";
import { $, status } from "./dom.js";
import { clock, seconds } from "./format.js";
import { player } from "./player.js";
import { drawBands, renderRanges } from "./ranges.js";
import { S } from "./state.js";

// The strip as TimelineCore lays it out: every drag, scroll and typed time is an operation sent to the server,
// which replays the list (as `vtrim timeline --op …` does) and answers the cells, the handles and the window;
// this draws that answer, never its own idea of the selection.

function timelineQuery() {
  const t = S.current;
  const width = Math.max(200, Math.floor($("strip").clientWidth));
  let q = `strip_width=${width}&thumb_width=${t.thumbWidth}&thumb_height=${t.thumbHeight}`;
  // Unless set: the window is the whole clip, and the shortest selection one frame.
  const max = t.max !== null ? t.max : t.info.duration;
  const min = t.min !== null ? t.min : Math.min(t.frameSeconds, max);
  q += `&max=${max}&min=${min}`;
  return q;
}

function opsText() { return S.ops.map((op) => op[0] + ":" + op[1]).join(","); }

// Operations are absolute (a handle's edge at x, the window at t), so a run of the same kind keeps only
// its last: the list stays short however long a drag is, and replays to the same state.
export function pushOp(kind, value) {
  const last = S.ops[S.ops.length - 1];
  if (last && last[0] === kind) last[1] = value; else S.ops.push([kind, value]);
  refreshTimeline();
}

export function refreshTimeline() {
  if (S.inFlight) { S.pending = true; return; }
  S.inFlight = true;
  const clip = S.current;
  const ops = opsText(), query = timelineQuery();
  api(`/api/clips/${clip.id}/timeline?${query}&ops=${encodeURIComponent(ops)}`).then((timeline) => {
    if (S.current !== clip) return;
    S.timeline = timeline;
    S.opsSent = ops;
    S.querySent = query;
    setCutControls(true);
    renderTimeline();
  }).catch((error) => status("timeline: " + error.message)).finally(() => {
    S.inFlight = false;
    if (S.pending) { S.pending = false; refreshTimeline(); }
  });
}

// The previous clip's strip, gone before the next one's answer comes.
export function clearStrip() {
  const content = $("strip-content");
  content.textContent = ""; content.dataset.key = "";
  if (tileObserver) tileObserver.disconnect();
}

export function viewX(t) {
  const tl = S.timeline;
  return tl.margin + tl.window_width * ((t - tl.selection.window_start) / tl.max_duration);
}

function renderTimeline() {
  const tl = S.timeline;
  const content = $("strip-content"), scroll = $("strip-scroll");
  const key = `${S.current.id}|${timelineQuery()}`;
  if (content.dataset.key !== key) {
    content.dataset.key = key;
    content.textContent = "";
    content.style.width = (tl.content_width + 2 * tl.margin) + "px";
    for (const cell of tl.cells) {
      const box = document.createElement("div");
      box.className = "cell";
      box.style.left = (tl.margin + cell.x) + "px";
      box.style.width = cell.width + "px";
      box.style.height = S.current.thumbHeight + "px";
      content.append(box);
    }
    observeTiles(tl);
  }
  const offset = tl.selection.content_offset + tl.margin;
  if (Math.abs(scroll.scrollLeft - offset) > 0.5) { S.ignoreScroll = true; scroll.scrollLeft = offset; }
  const left = tl.selection.left_handle_x, right = tl.selection.right_handle_max_x;
  const width = $("strip").clientWidth, handle = 14;
  $("handle-left").style.left = left + "px";
  $("handle-right").style.left = (right - handle) + "px";
  $("mask-left").style.left = "0px"; $("mask-left").style.width = Math.max(0, left) + "px";
  $("mask-right").style.left = right + "px"; $("mask-right").style.width = Math.max(0, width - right) + "px";
  $("selection-frame").style.left = left + "px"; $("selection-frame").style.width = Math.max(0, right - left) + "px";
  placeLabels(tl.selection, left, right, width);
  for (const [id, value] of [["start-time", tl.selection.start], ["end-time", tl.selection.end]]) {
    if (document.activeElement !== $(id)) $(id).value = value.toFixed(3);
  }
  const strip = $("strip");
  strip.dataset.start = tl.selection.start; strip.dataset.end = tl.selection.end; strip.dataset.windowStart = tl.selection.window_start;
  // The range being edited follows the handles (as TimelineCore clamped them).
  if (S.editing && S.opsSent === opsText() && (S.editing.start !== tl.selection.start || S.editing.end !== tl.selection.end)) {
    S.editing.start = tl.selection.start; S.editing.end = tl.selection.end;
    S.ranges.sort((a, b) => a.start - b.start);
    renderRanges();
  } else {
    drawBands();
  }
  drawPlayhead();
  // For what draws over the strip from the selection (plan.js: the true cut): the strip has been laid out anew.
  strip.dispatchEvent(new Event("timeline"));
}

// The start, duration and end labels: milliseconds (tenths where the selection is narrow), the start at the
// left handle, the end at the right one, the duration between; a label that would overlap one already
// placed moves to the next row, so no two ever cover each other.
function placeLabels(selection, left, right, width) {
  const short = right - left < 160;
  const texts = [["label-start", clock(selection.start, short)], ["label-end", clock(selection.end, short)],
                 ["label-duration", seconds(selection.end - selection.start)]];
  const rows = [];
  for (const [id, text] of texts) { $(id).textContent = text; $(id).style.right = "auto"; }
  const rowHeight = Math.ceil(Math.max(...texts.map(([id]) => $(id).getBoundingClientRect().height))) + 2;
  for (const [id] of texts) {
    const label = $(id);
    const w = label.getBoundingClientRect().width;
    // A narrow selection: the start's label ends at the left handle and the end's begins at the right one.
    let x = id === "label-start" ? (short ? left - w : left) : id === "label-end" ? (short ? right : right - w) : (left + right - w) / 2;
    x = Math.max(0, Math.min(width - w, x));
    let row = 0;
    while ((rows[row] || []).some(([a, b]) => x < b + 6 && a < x + w + 6)) row++;
    (rows[row] = rows[row] || []).push([x, x + w]);
    label.style.left = x + "px";
    label.style.top = row * rowHeight + "px";
  }
  $("labels").style.height = rows.length * rowHeight + 4 + "px";
}

// Tiles of 10 cells, loaded as they scroll into view.
let tileObserver = null;
function observeTiles(tl) {
  if (tileObserver) tileObserver.disconnect();
  tileObserver = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const image = entry.target;
      // Keyframes first (quick), then each cell's own frame.
      if (!image.src) {
        image.src = image.dataset.src + "&mode=fast";
        const exact = new Image();
        exact.onload = () => { image.src = exact.src; image.dataset.exact = "1"; };
        exact.src = image.dataset.src;
      }
      tileObserver.unobserve(image);
    }
  }, { root: $("strip-scroll"), rootMargin: "0px 50%" });
  const per = 10, query = timelineQuery();
  for (let first = 0; first < tl.cells.length; first += per) {
    const cells = tl.cells.slice(first, first + per);
    const image = document.createElement("img");
    image.className = "tile";
    image.alt = "";
    image.style.left = (tl.margin + cells[0].x) + "px";
    image.style.width = cells.reduce((w, c) => w + c.width, 0) + "px";
    image.style.height = S.current.thumbHeight + "px";
    image.dataset.first = String(first);
    image.dataset.src = `/api/clips/${S.current.id}/filmstrip.png?${query}&first=${first}&count=${cells.length}`;
    image.addEventListener("load", () => { image.dataset.loaded = "1"; });
    $("strip-content").append(image);
    tileObserver.observe(image);
  }
}

export function drawPlayhead() {
  const tl = S.timeline;
  if (!tl) return;
  const t = player.currentTime;
  const x = viewX(t);
  const head = $("playhead");
  head.style.left = (x - 1) + "px";
  head.hidden = x < 0 || x > $("strip").clientWidth;
  head.dataset.time = String(t);
}
