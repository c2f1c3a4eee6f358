import { api } from "./api.js";
import { $, status } from "./dom.js";
import { seconds } from "./format.js";

// The library's cuts (#/cuts): every cut a server over this library made, newest first, kept across restarts — its
// clip (opens the trimmer), when it was asked for, its output and how it ended. Read again each second while one is
// queued or running and the view is open.

let shown = 0;

const baseName = (path) => (path || "").split("/").pop();

function outcome(job) {
  const line = document.createElement("div");
  line.className = "plan";
  if (job.status === "done") {
    const a = job.actual || {};
    line.textContent = `${job.mode || "cut"}: ${seconds(a.start)} to ${seconds(a.end)}, ${seconds(a.duration)} `;
    const play = document.createElement("a");
    play.href = job.url; play.textContent = "play"; play.target = "_blank";
    line.append(play);
  } else if (job.status === "queued" || job.status === "running") {
    line.textContent = `${job.status}: ${Math.round((job.progress || 0) * 100)} %`;
  } else if (job.status === "cancelled") {
    line.textContent = "cancelled: nothing written";
  } else {
    line.textContent = "failed: " + ((job.error && job.error.message) || "no report");
  }
  return line;
}

function row(job) {
  const item = document.createElement("li");
  item.className = "cut";
  item.dataset.cut = job.id;
  item.dataset.status = job.status;
  const head = document.createElement("div");
  head.className = "cut-head";
  const when = job.created_at ? new Date(job.created_at).toLocaleString() : "";
  const clip = document.createElement("a");
  clip.className = "cut-clip";
  clip.href = "#/trim/" + job.clip;
  clip.textContent = baseName(job.path) || job.clip;
  head.append([job.id, job.status, when].filter(Boolean).join(" · ") + " · ", clip, " → " + job.output);
  item.append(head, outcome(job));
  return item;
}

export async function showLibraryCuts() {
  const mine = ++shown;
  for (;;) {
    let jobs;
    try { jobs = await api("/api/cuts"); } catch (error) { status("Cannot list the cuts: " + error.message); return; }
    // Left for another view, or a newer call follows the list now.
    if (mine !== shown || $("view-cuts").hidden) return;
    $("library-cuts").replaceChildren(...jobs.slice().reverse().map(row));
    $("cuts-empty").hidden = jobs.length > 0;
    if (!jobs.some((job) => job.status === "queued" || job.status === "running")) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
