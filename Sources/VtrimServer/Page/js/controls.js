import { $ } from "./dom.js";
import { player } from "./player.js";
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

  // Typed start and end times: the same operations as the I and O keys, so TimelineCore clamps them.
  for (const [id, kind] of [["start-time", "move-left"], ["end-time", "move-right"]]) {
    $(id).addEventListener("change", () => {
      const value = parseFloat($(id).value);
      if (S.timeline && isFinite(value)) pushOp(kind, Math.round(value * 1e6) / 1e6);
    });
  }

  document.addEventListener("keydown", (event) => {
    if ($("view-trim").hidden || !S.timeline || event.target.closest("input, select")) return;
    switch (event.key) {
      case " ": event.preventDefault(); player.paused ? player.play().catch(() => {}) : player.pause(); break;
      case "i": case "I": pushOp("move-left", player.currentTime); break;
      case "o": case "O": pushOp("move-right", player.currentTime); break;
      case "ArrowLeft": event.preventDefault(); frameStep(-1); break;
      case "ArrowRight": event.preventDefault(); frameStep(1); break;
      case "j": case "J": player.currentTime = Math.max(0, player.currentTime - 1); break;
      case "l": case "L": player.currentTime = Math.min(player.duration || 1e9, player.currentTime + 1); break;
      case "k": case "K": player.pause(); break;
    }
  });
}
