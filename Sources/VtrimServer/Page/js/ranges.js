import { $, status } from "./dom.js";
import { seconds } from "./format.js";
import { player } from "./player.js";
import { S } from "./state.js";
import { refreshTimeline, viewX } from "./timeline.js";

// Ranges: kept parts of the clip, joined into one file by the engine (POST /api/cuts with `ranges`).
// Add the selection, select one to edit it with the handles (TimelineCore clamps them as ever), delete one.
// Joining them is cuts.js's; lists of them, lists.js's.

export function clipRanges() { return S.ranges.filter((r) => S.current && r.clip === S.current.id); }

function addRange(start, end) {
  const ranges = clipRanges();
  if (ranges.some((r) => r.start === start && r.end === end)) return;
  const overlapping = ranges.find((r) => start < r.end && r.start < end);
  if (overlapping) { status(`${seconds(start)}–${seconds(end)} overlaps the range ${seconds(overlapping.start)}–${seconds(overlapping.end)}`); return; }
  S.ranges.push({ clip: S.current.id, start, end, label: "" });
  S.ranges.sort((a, b) => a.start - b.start);
  renderRanges();
}

export function renderRanges() {
  const list = $("ranges");
  list.textContent = "";
  const ranges = clipRanges();
  ranges.forEach((r, index) => {
    const row = document.createElement("div");
    row.className = "range" + (S.editing === r ? " editing" : "");
    const before = ranges[index - 1];
    if (before && r.start < before.end) row.classList.add("overlaps");
    const number = document.createElement("span");
    number.textContent = String(index + 1);
    const times = document.createElement("span");
    times.className = "times";
    times.textContent = `${seconds(r.start)} – ${seconds(r.end)} (${seconds(r.end - r.start)} s)`;
    const label = document.createElement("input");
    label.className = "range-label"; label.placeholder = "label"; label.value = r.label;
    label.addEventListener("change", () => { r.label = label.value; });
    const editButton = document.createElement("button");
    editButton.className = "edit-range";
    editButton.textContent = S.editing === r ? "Done" : "Edit";
    editButton.addEventListener("click", () => editRange(S.editing === r ? null : r));
    const remove = document.createElement("button");
    remove.className = "delete-range";
    remove.textContent = "Delete";
    remove.addEventListener("click", () => {
      if (S.editing === r) S.editing = null;
      S.ranges = S.ranges.filter((other) => other !== r);
      renderRanges();
    });
    row.append(number, times, label, editButton, remove);
    list.append(row);
  });
  drawBands();
}

// Editing a range puts the handles on it; from then on the handles move it.
function editRange(range) {
  S.editing = range;
  if (range && S.timeline) {
    const moveEndFirst = range.start >= S.timeline.selection.end;
    const ops = [["move-left", range.start], ["move-right", range.end]];
    for (const [kind, value] of moveEndFirst ? ops.reverse() : ops) S.ops.push([kind, Math.round(value * 1e6) / 1e6]);
    refreshTimeline();
  }
  renderRanges();
}

export function drawBands() {
  const bands = $("range-bands");
  bands.textContent = "";
  if (!S.timeline) return;
  for (const r of clipRanges()) {
    const band = document.createElement("div");
    band.className = "band" + (S.editing === r ? " editing" : "");
    const left = viewX(r.start), right = viewX(r.end);
    band.style.left = left + "px";
    band.style.width = Math.max(1, right - left) + "px";
    bands.append(band);
  }
}

export function wireRanges() {
  $("add-button").addEventListener("click", () => {
    if (S.timeline) addRange(S.timeline.selection.start, S.timeline.selection.end);
  });

  // Plays the ranges one after another, skipping what the join leaves out.
  $("preview-join-button").addEventListener("click", () => {
    const ranges = clipRanges();
    if (!ranges.length) return;
    S.previewing = true;
    player.currentTime = ranges[0].start;
    const follow = () => {
      if (!S.previewing || player.paused) { S.previewing = false; return; }
      const t = player.currentTime;
      const next = ranges.find((r) => t < r.end - 0.01);
      if (!next) { player.pause(); S.previewing = false; return; }
      if (t < next.start - 0.01) player.currentTime = next.start;
      requestAnimationFrame(follow);
    };
    player.play().then(() => requestAnimationFrame(follow)).catch(() => { S.previewing = false; });
  });
}
