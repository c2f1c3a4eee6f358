import { api } from "./api.js";
import { settledSelection } from "./controls.js";
import { $, status } from "./dom.js";
import { seconds } from "./format.js";
import { shownJoinPlan, shownPlan, wirePlan } from "./plan.js";
import { clipRanges, showProblem } from "./ranges.js";
import { S } from "./state.js";

// Cuts: the plan at once (as --dry-run gives it), then progress, then what `vtrim cut` reports.

// The mode the user chose, or none: the server applies the one default rule (copy for a cut, smart for a join
// where the output takes it), as `vtrim cut` does.
function chosenMode() {
  const mode = $("cut-mode").value;
  return mode ? { mode } : {};
}

function describePlan(job) {
  const p = job.planned || {};
  let text = job.segments
    ? `${job.mode}: ${job.segments.length} range(s) joined, ${seconds(p.duration)}`
    : `${job.mode}: shows ${seconds(p.start)}–${seconds(p.end)} (${seconds(p.duration)})`;
  if (job.smart && job.smart.fallback) text += `, smart falls back: ${job.smart.fallback}`;
  const notes = (job.notes || []).map((n) => "note: " + n.message);
  const warnings = (job.warnings || []).map((w) => "warning: " + w.message);
  return [text, ...warnings, ...notes].join("\n");
}

// `reveal`: a cut started here is scrolled into view when it ends; one listed on opening the clip is not.
async function followCut(box, job, reveal = true) {
  for (;;) {
    // Another clip opened: its own cuts are shown now (showCutsOf).
    if (!box.isConnected) return;
    box.textContent = "";
    const head = document.createElement("div");
    // When it was asked for (kept across restarts of the server, like the cut itself).
    const when = job.created_at ? new Date(job.created_at).toLocaleString() : "";
    head.className = "cut-head";
    head.textContent = [job.id, job.status, when, "→ " + job.output].filter(Boolean).join(" · ");
    const plan = document.createElement("div");
    plan.className = "plan";
    plan.textContent = describePlan(job);
    box.append(head, plan);
    if (box.dataset.replanned) {
      const note = document.createElement("div");
      note.className = "note replanned";
      note.textContent = "Planned again: the clip or its output name changed since the strip showed the plan; this is the plan that runs.";
      box.append(note);
    }
    box.dataset.status = job.status;
    if (job.status === "queued" || job.status === "running") {
      const bar = document.createElement("progress");
      bar.max = 1; bar.value = job.progress || 0;
      const cancel = document.createElement("button");
      cancel.className = "cancel-cut";
      cancel.textContent = "Cancel";
      cancel.addEventListener("click", async () => {
        cancel.disabled = true;
        try { await api("/api/cuts/" + job.id, { method: "DELETE", json: {} }); } catch (error) { status("Cannot cancel: " + error.message); }
      });
      box.append(bar, cancel);
      await new Promise((r) => setTimeout(r, 300));
      job = await api("/api/cuts/" + job.id);
      continue;
    }
    if (job.status === "done") {
      const a = job.actual || {};
      const result = document.createElement("div");
      result.textContent = `written: ${seconds(a.start)} to ${seconds(a.end)}, ${seconds(a.duration)} `;
      const link = document.createElement("a");
      link.href = job.url; link.textContent = "play"; link.target = "_blank";
      result.append(link);
      box.append(result);
    } else if (job.status === "cancelled") {
      const result = document.createElement("div");
      result.textContent = "cancelled: nothing written";
      box.append(result);
    } else if (job.error) {
      const result = document.createElement("div");
      result.textContent = "failed: " + job.error.message;
      box.append(result);
    }
    // The result where the user is looking, however far down the list of ranges pushed it.
    if (reveal) box.scrollIntoView({ block: "nearest" });
    return;
  }
}

function cutBox(job) {
  const box = document.createElement("div");
  box.className = job.segments ? "cut join" : "cut";
  box.dataset.clip = job.clip;
  if (job.id) box.dataset.cut = job.id;
  return box;
}

// The open clip's cuts only, newest first: the server's list (every cut made on this library, from this page or
// another, before a restart too), each followed until it ends.
export async function showCutsOf(clipId) {
  const list = $("cuts");
  list.textContent = "";
  let jobs = [];
  try { jobs = await api("/api/cuts"); } catch (error) { status("Cannot list the cuts: " + error.message); return; }
  if (!S.current || S.current.id !== clipId) return;
  for (const job of jobs.filter((j) => j.clip === clipId).reverse()) {
    if (list.querySelector(`[data-cut="${CSS.escape(job.id)}"]`)) continue;
    const box = cutBox(job);
    list.append(box);
    followCut(box, job, false);
  }
}

// Sends a cut or join body with the plan the strip shows for it (plan.js: run as it is), and follows the job in a new
// box on top of the list.
async function startCut(kind, body, shownFor) {
  const box = cutBox({ clip: body.clip, segments: kind === "join" });
  $("cuts").prepend(box);
  box.scrollIntoView({ block: "nearest" });
  try {
    const shown = shownFor(body);
    const job = await api("/api/cuts", { json: { ...body, ...shown } });
    // The server plans again when the clip or the plan's output name changed since the plan was shown: say so.
    if (shown.plan && job.plan_id !== shown.plan) box.dataset.replanned = "1";
    box.dataset.cut = job.id;
    followCut(box, job);
  } catch (error) {
    box.classList.add("failed");
    box.textContent = (kind === "join" ? "Cannot join: " : "Cannot cut: ") + error.message;
  }
}

export function wireCuts() {
  wirePlan();
  $("cut-button").addEventListener("click", async () => {
    // What the fields show, once the server has it (nothing while a typed time is not applied: controls.js).
    const selection = await settledSelection();
    if (!selection) return;
    const { start, end } = selection;
    await startCut("cut", { clip: S.current.id, start, end, ...chosenMode() }, shownPlan);
  });

  $("join-button").addEventListener("click", async () => {
    const ranges = clipRanges().map((r) => ({ start: r.start, end: r.end, label: r.label || null }));
    if (!ranges.length) { showProblem("Add a range first: choose its start and end, then Add range.", "add"); return; }
    await startCut("join", { clip: S.current.id, ranges, ...chosenMode() }, shownJoinPlan);
  });
}
