import { $ } from "./dom.js";
import { player } from "./player.js";
import { overlapProblem, showProblem, watchSelection } from "./ranges.js";
import { S } from "./state.js";
import { pushOp, refreshTimeline } from "./timeline.js";

// The trimmer's controls: off until a clip's first timeline has come; the handles, the strip's scroll, the
// typed times and limits, and the keys, each an operation for TimelineCore or a move of the player.

export function setCutControls(enabled) {
  for (const id of ["cut-button", "add-button", "join-button", "preview-join-button", "export-button", "import-input", "dock-button",
                    "start-time", "end-time", "min-duration", "max-duration"]) $(id).disabled = !enabled;
}

function dragHandle(handle, kind) {
  let grab = 0;
  handle.addEventListener("pointerdown", (event) => {
    if (!S.timeline) return;
    handle.setPointerCapture(event.pointerId);
    const rect = $("strip").getBoundingClientRect();
    const edge = kind === "drag-left" ? S.timeline.selection.left_handle_x : S.timeline.selection.right_handle_max_x;
    grab = event.clientX - rect.left - edge;
    event.preventDefault();
  });
  handle.addEventListener("pointermove", (event) => {
    if (!handle.hasPointerCapture(event.pointerId)) return;
    const rect = $("strip").getBoundingClientRect();
    const x = event.clientX - rect.left - grab;
    clearTyped();
    watchSelection();
    pushOp(kind, Math.round(x * 1000) / 1000);
  });
  const end = (event) => { if (handle.hasPointerCapture(event.pointerId)) handle.releasePointerCapture(event.pointerId); };
  handle.addEventListener("pointerup", end);
  handle.addEventListener("pointercancel", end);
}

function frameStep(direction) {
  if (!S.frames || !S.frames.length) return;
  const t = player.currentTime;
  let shown = 0;
  for (let i = 0; i < S.frames.length; i++) if (S.frames[i] <= t + 1e-4) shown = i;
  const next = Math.max(0, Math.min(S.frames.length - 1, shown + direction));
  player.pause();
  player.currentTime = S.frames[next] + 1e-4;
}

export function wireControls() {
  dragHandle($("handle-left"), "drag-left");
  dragHandle($("handle-right"), "drag-right");

  $("strip-scroll").addEventListener("scroll", () => {
    if (S.ignoreScroll) { S.ignoreScroll = false; return; }
    if (!S.timeline) return;
    pushOp("scroll-content", Math.round(($("strip-scroll").scrollLeft - S.timeline.margin) * 1000) / 1000);
  });

  for (const [id, key] of [["min-duration", "min"], ["max-duration", "max"]]) {
    $(id).addEventListener("change", () => {
      const value = parseFloat($(id).value);
      S.current[key] = isFinite(value) && value > 0 ? value : null;
      refreshTimeline();
    });
  }

  for (const id of ["start-time", "end-time"]) $(id).addEventListener("change", () => typed(id));

  document.addEventListener("keydown", (event) => {
    if ($("view-trim").hidden || !S.timeline || event.target.closest("input, select")) return;
    switch (event.key) {
      case " ": event.preventDefault(); player.paused ? player.play().catch(() => {}) : player.pause(); break;
      case "i": case "I": clearTyped(); watchSelection(); pushOp("move-left", player.currentTime); break;
      case "o": case "O": clearTyped(); watchSelection(); pushOp("move-right", player.currentTime); break;
      case "ArrowLeft": event.preventDefault(); frameStep(-1); break;
      case "ArrowRight": event.preventDefault(); frameStep(1); break;
      case "j": case "J": player.currentTime = Math.max(0, player.currentTime - 1); break;
      case "l": case "L": player.currentTime = Math.min(player.duration || 1e9, player.currentTime + 1); break;
      case "k": case "K": player.pause(); break;
    }
  });
}

// Typed start and end times are kept as typed. A pair that keeps the rules (start before end, inside the clip,
// the min and max lengths) puts both handles exactly there, in an order TimelineCore never has to clamp; one
// that breaks them moves nothing, stays in its field (data-typed) and says next to the fields what to change.
// With no range being edited the fields shape the selection only (a new range: Add adds it); with one, that
// range, unless it would overlap another.
const fieldIds = ["start-time", "end-time"];
const rounded = (t) => Math.round(t * 1e6) / 1e6;

// A field's time: what it shows (typed, or the server's answer to the millisecond); where that is the selection's
// own time rounded, the selection's exact time (an end shown as 14.014 for a clip of 14.0136 s is its end).
function fieldTime(id, changed) {
  const field = $(id);
  const shown = field.value.trim() === "" ? NaN : rounded(parseFloat(field.value));
  if (id === changed || field.dataset.typed !== undefined) return shown;
  const selected = id === "start-time" ? S.timeline.selection.start : S.timeline.selection.end;
  return Math.abs(shown - selected) < 5e-4 ? selected : shown;
}

function typedProblem(start, end, changed) {
  const tl = S.timeline, duration = S.current.info.duration, t = (x) => x.toFixed(3);
  if (!tl.adjustable) return "This clip is too short to choose a part of it.";
  for (const [value, name] of [[start, "start"], [end, "end"]]) {
    if (!isFinite(value)) return `Type the ${name} in seconds, 0 to ${t(duration)}.`;
    if (value < 0 || value > duration) return `The ${name} ${t(value)} is outside the clip: make it 0 to ${t(duration)}.`;
  }
  if (end <= start) {
    return changed === "end-time"
      ? `The end ${t(end)} is not after the start ${t(start)}: type a start before ${t(end)}, or a later end.`
      : `The start ${t(start)} is not before the end ${t(end)}: type an end after ${t(start)}, or an earlier start.`;
  }
  const length = end - start;
  if (length < tl.min_duration - 1e-9) return `${t(start)}–${t(end)} is shorter than the min (${tl.min_duration.toFixed(3)} s): move the start or the end, or lower min.`;
  if (length > tl.max_duration + 1e-9) return `${t(start)}–${t(end)} is longer than the max (${tl.max_duration.toFixed(3)} s): move the start or the end, or raise max.`;
  return null;
}

function typed(changed) {
  const field = $(changed);
  field.dataset.typed = field.value;
  if (!S.timeline || !S.current) return;
  const start = fieldTime("start-time", changed), end = fieldTime("end-time", changed);
  const problem = typedProblem(start, end, changed) || (S.editing ? overlapProblem(start, end) : null);
  if (problem) { showProblem(problem, "fields"); return; }
  clearTyped();
  watchSelection();
  selectExactly(start, end);
  S.typedPair = [start, end];
  // The player shows a typed start (an end typed alone leaves it where it is: playback loops inside the selection).
  if (changed === "start-time") player.currentTime = start;
  refreshTimeline();
}

// The operations that put the handles exactly on start–end (a pair that keeps the rules) whatever the selection
// was, so TimelineCore never has to clamp a move against the other handle: the window (when a max makes it
// narrower than the clip) to one that holds start–end, the end out of the way, the start, then the end.
export function selectExactly(start, end) {
  const tl = S.timeline, shownFrom = tl.selection.window_start, span = tl.max_duration;
  if (start < shownFrom || end > shownFrom + span) S.ops.push(["scroll", Math.min(start, Math.max(0, Math.ceil((end - span) * 1e6 + 1) / 1e6))]);
  for (const [kind, value] of [["move-right", S.current.info.duration], ["move-left", rounded(start)], ["move-right", rounded(end)]]) {
    const last = S.ops[S.ops.length - 1];
    if (last && last[0] === kind) last[1] = value; else S.ops.push([kind, value]);
  }
}

// Typed times not applied are dropped (and their reason with them) when the handles, the keys or another clip
// take over.
export function clearTyped() {
  S.typedPair = null;
  for (const id of fieldIds) delete $(id).dataset.typed;
  if ($("range-problem").dataset.kind === "fields") showProblem("");
}

// The selection once the server has answered every operation sent, or null (the reason next to the fields) while
// a field holds a time that is not applied: what Add and Cut take is what the fields show.
export async function settledSelection() {
  while (S.inFlight || S.pending) await new Promise((resolve) => setTimeout(resolve, 30));
  if (!S.timeline) return null;
  if (fieldIds.some((id) => $(id).dataset.typed !== undefined)) {
    if (!$("range-problem").textContent) showProblem("The typed times are not applied yet: press Enter in the field.", "fields");
    return null;
  }
  return S.timeline.selection;
}
