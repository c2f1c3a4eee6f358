import { clearTyped, selectExactly, settledSelection } from "./controls.js";
import { $ } from "./dom.js";
import { seconds } from "./format.js";
import { player } from "./player.js";
import { S } from "./state.js";
import { refreshTimeline, viewX } from "./timeline.js";

// Ranges: kept parts of the clip, joined into one file by the engine (POST /api/cuts with `ranges`).
// Add the selection (never one that overlaps: the reason shows next to the start and end fields), select one to
// edit it with the handles or the fields, delete one. Joining them is cuts.js's; lists of them, lists.js's.

export function clipRanges() { return S.ranges.filter((r) => S.current && r.clip === S.current.id); }

// As RangeOrder on the server: times to the microsecond that touch are touching, and touching is allowed.
const slack = 1e-6;
// Times as the fields take them (seconds); a bound the user must reach, rounded the way that reaches it.
const fixed = (t) => t.toFixed(3);
const upTo = (t) => (Math.ceil(t * 1000 - 1e-3) / 1000).toFixed(3);
const downTo = (t) => (Math.floor(t * 1000 + 1e-3) / 1000).toFixed(3);

// Why start–end cannot be a range of this clip beside the others (the one being edited aside): which range it
// overlaps and what to change; null when it fits (touching is fitting).
export function overlapProblem(start, end) {
  const ranges = clipRanges();
  const index = ranges.findIndex((r) => r !== S.editing && start < r.end - slack && r.start < end - slack);
  if (index < 0) return null;
  const r = ranges[index];
  const fixes = [];
  if (r.end < end - slack) fixes.push(`make the start ${upTo(r.end)} or later`);
  if (r.start > start + slack) fixes.push(`make the end ${downTo(r.start)} or earlier`);
  const what = S.editing ? `range ${ranges.indexOf(S.editing) + 1} would be ${fixed(start)}–${fixed(end)}, which` : `${fixed(start)}–${fixed(end)}`;
  return `${what} overlaps range ${index + 1} (${fixed(r.start)}–${fixed(r.end)}): ` +
    (fixes.length ? fixes.join(", or ") : `choose times outside ${fixed(r.start)}–${fixed(r.end)}`) + ".";
}

// The reason next to the start and end fields (#range-problem), never only in the top bar; `kind` says whose
// it is: "fields" (typed times not applied), "selection" (the selection overlaps a range), "add" (Add refused).
export function showProblem(text, kind) {
  const box = $("range-problem");
  box.textContent = text || "";
  box.dataset.kind = text ? kind : "";
  box.hidden = !text;
}

// Once the user shapes a new selection (typed times, handles, keys), the reason it could not be added is shown
// as it changes, and goes when it goes.
let watching = false;
export function watchSelection() { watching = true; }
// Ranges replaced wholesale (a proposal, an imported list) or another clip opened: the selection is no candidate
// range any more, so nothing is said about it until the user shapes it again.
export function forgetSelection() {
  watching = false;
  if ($("range-problem").dataset.kind === "selection") showProblem("");
}

function checkSelection() {
  const box = $("range-problem");
  // A typed time not applied stays in its field whatever the server's answer shows (controls.js).
  for (const id of ["start-time", "end-time"]) {
    const typed = $(id).dataset.typed;
    if (typed !== undefined && $(id).value !== typed) $(id).value = typed;
  }
  // A typed pair applied is shown exactly, or the reason it is not.
  const ops = S.ops.map((op) => op[0] + ":" + op[1]).join(",");
  if (S.typedPair && S.timeline && S.opsSent === ops) {
    const [start, end] = S.typedPair, shown = S.timeline.selection;
    S.typedPair = null;
    if (Math.abs(shown.start - start) > slack || Math.abs(shown.end - end) > slack) {
      showProblem(`The strip cannot show ${fixed(start)}–${fixed(end)} exactly (it shows ${fixed(shown.start)}–${fixed(shown.end)}): ` +
        "check min and max.", "selection");
      return;
    }
  }
  if (!S.timeline || box.dataset.kind === "fields" || (box.dataset.kind === "add" && !watching)) return;
  const { start, end } = S.timeline.selection;
  const own = S.editing && S.editing.start === start && S.editing.end === end;
  const problem = watching || own ? overlapProblem(start, end) : null;
  if (problem) showProblem(problem, "selection");
  else if (box.dataset.kind) showProblem("");
}

// Adds the selection once the strip shows what was typed: nothing while the fields hold times not applied, a
// range already made, or one that overlaps (the reason stays next to the fields); a range kept as it is.
async function addSelection() {
  const selection = await settledSelection();
  if (!selection) return;
  const { start, end } = selection;
  const ranges = clipRanges();
  if (S.editing) {
    showProblem(`Range ${ranges.indexOf(S.editing) + 1} is being edited (the fields and handles move it): press Done, then choose the new range.`, "add");
    return;
  }
  const same = ranges.findIndex((r) => Math.abs(r.start - start) <= slack && Math.abs(r.end - end) <= slack);
  if (same >= 0) { showProblem(`${fixed(start)}–${fixed(end)} is range ${same + 1} already: type or drag the next range's times first.`, "add"); return; }
  const problem = overlapProblem(start, end);
  if (problem) { showProblem(problem, "add"); watching = true; return; }
  S.ranges.push({ clip: S.current.id, start, end, label: "" });
  S.ranges.sort((a, b) => a.start - b.start);
  watching = false;
  showProblem("");
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
    times.textContent = `${seconds(r.start)} – ${seconds(r.end)} (${seconds(r.end - r.start)})`;
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
  // The join's plan on the strip follows the ranges (plan.js).
  $("strip").dispatchEvent(new Event("ranges"));
}

// Editing a range puts the handles (exactly) and the fields on it; from then on they move it.
function editRange(range) {
  S.editing = range;
  watching = false;
  clearTyped();
  showProblem("");
  if (range && S.timeline) {
    selectExactly(range.start, range.end);
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
  checkSelection();
}

export function wireRanges() {
  $("add-button").addEventListener("click", () => { addSelection().finally(() => { S.addsAnswered += 1; }); });

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
