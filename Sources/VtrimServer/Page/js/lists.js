import { api } from "./api.js";
import { $, status } from "./dom.js";
import { clipRanges, forgetSelection, renderRanges } from "./ranges.js";
import { S } from "./state.js";

// Cut lists (CSV, LosslessCut, OTIO, EDL, chapters): read and written by the engine (/api/lists/parse and
// /render), never here; the page sends the ranges (or the selection, where there are none) and the clip's facts.
// Proposals (/api/clips/{id}/proposal, `vtrim propose` in a worker) arrive the same way: as the clip's ranges,
// ordinary and editable, joined by Join as any others.

function listMedia() {
  const info = S.current.info;
  return { duration: info.duration, fps: info.video ? info.video.fps : null, name: S.current.clip.path.split("/").pop(),
           timecode: info.start_timecode || null };
}

export function wireLists() {
  $("export-button").addEventListener("click", async () => {
    const rows = clipRanges().map((r) => ({ start: r.start, end: r.end, label: r.label || null }));
    if (!rows.length && S.timeline) rows.push({ start: S.timeline.selection.start, end: S.timeline.selection.end, label: null });
    try {
      const made = await api("/api/lists/render", { json: { format: $("list-format").value, ranges: rows, ...listMedia() } });
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([made.text], { type: "text/plain" }));
      link.download = made.file_name;
      document.body.append(link);
      link.click();
      link.remove();
    } catch (error) {
      status("Cannot export: " + error.message);
    }
  });

  $("propose-button").addEventListener("click", async () => {
    const clip = S.current;
    if (!clip) return;
    const button = $("propose-button");
    button.disabled = true;
    status("Proposing ranges from " + $("propose-kinds").selectedOptions[0].textContent.toLowerCase() + "…");
    try {
      const made = await api("/api/clips/" + clip.id + "/proposal?kinds=" + encodeURIComponent($("propose-kinds").value));
      if (S.current !== clip) return;
      // Never behind the user's back: a proposal that keeps nothing changes nothing, and ranges already made are
      // replaced only when the user says so.
      if (!made.ranges.length) {
        status("The proposal keeps nothing of this clip; your ranges are unchanged. " + made.notes.join(" "));
        return;
      }
      const own = clipRanges().length;
      if (own && !window.confirm(`Replace your ${own} range${own === 1 ? "" : "s"} with the ${made.ranges.length} proposed?`)) {
        status("Proposal not applied; your ranges are unchanged.");
        return;
      }
      replaceRanges(made.ranges.map((r) => ({ start: r.start, end: r.end, label: "" })));
      const seams = made.seams;
      const notes = made.notes.length ? " " + made.notes.join(" ") : "";
      status(`Proposed ${made.ranges.length} range${made.ranges.length === 1 ? "" : "s"}` +
        (seams.count ? `: ${seams.copy_only} of ${seams.count} seams copy-only, ${seams.need_edges} need an edge encode.` : ".") + notes);
    } catch (error) {
      status("Cannot propose: " + error.message);
    } finally {
      button.disabled = false;
    }
  });

  $("import-input").addEventListener("change", async () => {
    const file = $("import-input").files[0];
    if (!file) return;
    const extension = file.name.split(".").pop().toLowerCase();
    const format = ["llc", "otio", "edl"].includes(extension) ? extension : $("list-format").value;
    try {
      const read = await api("/api/lists/parse", { json: { format, text: await file.text(), ...listMedia() } });
      replaceRanges(read.ranges.map((r) => ({ start: r.start, end: r.end, label: r.label || "" })));
    } catch (error) {
      status("Cannot import: " + error.message);
    }
    $("import-input").value = "";
  });
}

// The current clip's ranges, all replaced by `rows` ({start, end, label}).
function replaceRanges(rows) {
  S.ranges = S.ranges.filter((r) => r.clip !== S.current.id).concat(rows.map((r) => ({ clip: S.current.id, ...r })));
  S.editing = null;
  forgetSelection();
  renderRanges();
}
