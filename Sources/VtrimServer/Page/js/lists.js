import { api } from "./api.js";
import { $, status } from "./dom.js";
import { clipRanges, renderRanges } from "./ranges.js";
import { S } from "./state.js";

// Cut lists (CSV, LosslessCut, OTIO, EDL, chapters): read and written by the engine (/api/lists/parse and
// /render), never here; the page sends the ranges (or the selection, where there are none) and the clip's facts.

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

  $("import-input").addEventListener("change", async () => {
    const file = $("import-input").files[0];
    if (!file) return;
    const extension = file.name.split(".").pop().toLowerCase();
    const format = ["llc", "otio", "edl"].includes(extension) ? extension : $("list-format").value;
    try {
      const read = await api("/api/lists/parse", { json: { format, text: await file.text(), ...listMedia() } });
      S.ranges = S.ranges.filter((r) => r.clip !== S.current.id).concat(
        read.ranges.map((r) => ({ clip: S.current.id, start: r.start, end: r.end, label: r.label || "" })));
      S.editing = null;
      renderRanges();
    } catch (error) {
      status("Cannot import: " + error.message);
    }
    $("import-input").value = "";
  });
}
