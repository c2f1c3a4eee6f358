import { api } from "./api.js";
import { $ } from "./dom.js";
import { seconds } from "./format.js";
import { clipRanges } from "./ranges.js";
import { S } from "./state.js";
import { pushOp, viewX } from "./timeline.js";

// The true cut on the strip: what Cut will write, as the worker plans it (POST /api/plans, the dry run of the same
// body POST /api/cuts takes), drawn over the thumbnails — the clip's clean starts as keyframe ticks; the span written
// before `start` where the container shows a copy's lead-in; the frames kept past `end`; a smart cut's re-encoded
// edges, or the whole range re-encoded and why when smart falls back; the first and last frame written. Asked again
// (debounced) whenever the selection or the mode changes; Cut then runs that plan (its plan_id). Nothing here
// guesses a cut: every span is a number of the plan, placed with the strip's own time-to-x mapping.

const P = {
  clip: null, times: [], keyframes: [], loading: null,
  body: null, key: "", plan: null, error: null, timer: 0, asked: 0, snapWanted: null,
};
const debounceMs = 250;
const epsilon = 1e-6;

// The body POST /api/cuts would get for the selection now (the Cut button's), or null.
function cutBody() {
  if (!S.current || !S.timeline) return null;
  const { start, end } = S.timeline.selection;
  const mode = $("cut-mode").value;
  return mode ? { clip: S.current.id, start, end, mode } : { clip: S.current.id, start, end };
}

function keyOf(body) { return body ? JSON.stringify(body) : ""; }

// The plan shown for exactly this body, as `{plan: id}` for POST /api/cuts (a plan for other inputs is not the cut).
export function shownPlan(body) {
  return P.plan && P.key === keyOf(body) ? { plan: P.plan.plan_id } : {};
}

// Joins: the ranges on the strip planned as Join will cut them (its very body), so each range's first and last
// frame, a copy's lead-in and the re-encoded parts show before anything is written.
const J = { key: "", body: null, plan: null, error: null, timer: 0, asked: 0 };

function joinBody() {
  if (!S.current) return null;
  const ranges = clipRanges().map((r) => ({ start: r.start, end: r.end, label: r.label || null }));
  if (!ranges.length) return null;
  const mode = $("cut-mode").value;
  return mode ? { clip: S.current.id, ranges, mode } : { clip: S.current.id, ranges };
}

export function shownJoinPlan(body) {
  return J.plan && J.key === keyOf(body) ? { plan: J.plan.plan_id } : {};
}

function scheduleJoin() {
  const body = joinBody();
  const key = keyOf(body);
  if (key === J.key) return;
  J.key = key; J.body = body; J.plan = null; J.error = null;
  clearTimeout(J.timer);
  if (!body) { draw(); return; }
  J.timer = setTimeout(async () => {
    const asked = ++J.asked;
    try {
      const plan = await api("/api/plans", { json: body });
      if (asked === J.asked && key === J.key) { J.plan = plan; J.error = null; }
    } catch (error) {
      if (asked === J.asked && key === J.key) { J.plan = null; J.error = error.message; }
    }
    draw();
  }, debounceMs);
}

// A join's segment as spans of source time (as `spansOf` for one cut): lead-in, re-encoded parts, first and last frame.
function segmentSpans(plan, segment) {
  const planned = segment.planned || {}, requested = segment.requested || {};
  const from = planned.start, to = planned.end, spans = [];
  if (!isFinite(from) || !isFinite(to)) return { spans, first: null, last: null };
  const atStart = frameAt(requested.start);
  if (atStart !== null && from < atStart - epsilon) spans.push({ kind: "lead-in", from, to: requested.start });
  const smart = segment.smart;
  if (plan.mode === "exact") spans.push({ kind: "reencode whole", from, to });
  else if (plan.mode === "smart" && smart) {
    for (const edge of [smart.head, smart.tail]) if (Array.isArray(edge)) spans.push({ kind: "reencode", from: edge[0], to: edge[1] });
  }
  return { spans, first: from, last: lastBefore(to) };
}

function drawJoin(marks) {
  const line = $("join-plan-line");
  line.textContent = "";
  // Until the plan for the ranges now on the strip has come, the line names none (never an older one).
  delete line.dataset.planId; delete line.dataset.mode; delete line.dataset.ranges;
  if (!J.body) return;
  if (!J.plan) { line.textContent = J.error ? "join plan: " + J.error : ""; return; }
  const parts = [];
  for (const segment of J.plan.segments || []) {
    const { spans, first, last } = segmentSpans(J.plan, segment);
    for (const span of spans) {
      marks.append(mark("plan-span join " + span.kind, viewX(span.from), viewX(span.to) - viewX(span.from),
                        { index: segment.index, from: span.from, to: span.to }));
    }
    if (first !== null) marks.append(mark("seam-mark first", viewX(first), null, { index: segment.index, time: first }, "▸" + segment.index));
    if (last !== null) marks.append(mark("seam-mark last", viewX(last), null, { index: segment.index, time: last }, segment.index + "◂"));
    parts.push(`${segment.index}: ${seconds(first)}–${last === null ? "–" : seconds(last)}`);
  }
  const fallback = fallbackOf(J.plan);
  line.textContent = `join (${J.plan.mode}), first–last frame of each range: ` + parts.join(" · ")
    + (fallback ? ` · smart falls back to exact (${fallback.code}): ${fallback.message}` : "");
  Object.assign(line.dataset, { planId: J.plan.plan_id, mode: J.plan.mode, ranges: J.body.ranges.length });
}

// The clip's frame times and clean starts, once per clip.
function loadFrames(clip) {
  if (P.clip === clip && P.loading) return P.loading;
  P.clip = clip; P.times = []; P.keyframes = []; P.plan = null; P.key = ""; P.body = null;
  // Sound alone has no frames to ask for (the route answers 422).
  if (S.current && S.current.id === clip && !S.current.info.video) return (P.loading = Promise.resolve());
  P.loading = api(`/api/clips/${clip}/frames`).then((f) => {
    if (P.clip !== clip) return;
    P.times = f.times || []; P.keyframes = f.keyframes || [];
  }).catch(() => {});
  return P.loading;
}

// After the timeline answered: draw at the new scroll, and ask for a plan when the inputs changed.
function onTimeline() {
  if (!S.current || !S.timeline) return;
  if (P.clip !== S.current.id) loadFrames(S.current.id).then(draw);
  schedule();
  scheduleJoin();
  draw();
  setTimeout(trySnap, 0);
}

function schedule() {
  const body = cutBody();
  const key = keyOf(body);
  if (key === P.key) return;
  P.key = key; P.body = body; P.plan = null; P.error = null;
  $("plan-marks").dataset.state = "pending";
  clearTimeout(P.timer);
  P.timer = setTimeout(() => ask(body, key), debounceMs);
}

async function ask(body, key) {
  const asked = ++P.asked;
  try {
    await loadFrames(body.clip);
    const plan = await api("/api/plans", { json: body });
    if (asked !== P.asked || key !== P.key) return;
    P.plan = plan; P.error = null;
  } catch (error) {
    if (asked !== P.asked || key !== P.key) return;
    P.plan = null; P.error = error.message;
  }
  draw();
}

// The frame a player shows at t (the last one starting at or before it), and the last frame starting before t.
function frameAt(t) {
  let shown = null;
  for (const f of P.times) { if (f <= t + epsilon) shown = f; else break; }
  return shown;
}
function lastBefore(t) {
  let last = null;
  for (const f of P.times) { if (f < t - epsilon) last = f; else break; }
  return last;
}

// What the plan writes, as spans of source time: [{kind, from, to, title}] and the first and last frame.
function spansOf(plan) {
  const planned = plan.planned || {}, effective = plan.effective || {};
  const from = planned.start, to = planned.end, start = effective.start, end = effective.end;
  const spans = [];
  if (!isFinite(from) || !isFinite(to)) return { spans, first: null, last: null };
  // Frames shown before the frame at `start`: the keyframe's lead-in a copy shows where the container has no edit list.
  const atStart = frameAt(start);
  if (atStart !== null && from < atStart - epsilon) {
    spans.push({ kind: "lead-in", from, to: start, title: `lead-in: ${seconds(start - from)} before start, from the keyframe at ${seconds(from)}` });
  }
  // Whole frames past `end` the output keeps (a copy's frames that decoding needs, shown where nothing hides them).
  const last = lastBefore(to);
  if (last !== null && last >= end - epsilon) {
    spans.push({ kind: "past-end", from: end, to, title: `kept past the end: ${seconds(to - end)}, until ${seconds(to)}` });
  }
  const smart = plan.smart;
  if (plan.mode === "smart" && smart) {
    for (const [kind, span] of [["head", smart.head], ["tail", smart.tail]]) {
      if (span) spans.push({ kind: "reencode " + kind, from: span[0], to: span[1], title: `re-encoded ${kind}: ${seconds(span[0])}–${seconds(span[1])}` });
    }
    if (smart.copied) spans.push({ kind: "copied", from: smart.copied[0], to: smart.copied[1], title: `copied: ${seconds(smart.copied[0])}–${seconds(smart.copied[1])}` });
  } else if (plan.mode === "exact") {
    spans.push({ kind: "reencode whole", from, to, title: `re-encoded: ${seconds(from)}–${seconds(to)}` });
  }
  return { spans, first: from, last };
}

// Why smart falls back, in the plan's own words (its smart_fallback warning), or null.
function fallbackOf(plan) {
  if (!plan.smart || !plan.smart.fallback) return null;
  const notice = [...(plan.warnings || []), ...(plan.notes || [])].find((n) => n.code === "smart_fallback");
  return { code: plan.smart.fallback, message: notice ? notice.message : plan.smart.fallback };
}

function mark(className, x, width, data, text) {
  const box = document.createElement("div");
  if (text) {
    const label = document.createElement("span");
    label.className = "text";
    label.textContent = text;
    box.append(label);
  }
  box.className = className;
  box.style.left = x + "px";
  if (width !== null) box.style.width = Math.max(1, width) + "px";
  for (const [k, v] of Object.entries(data)) box.dataset[k] = String(v);
  return box;
}

function draw() {
  const marks = $("plan-marks"), line = $("plan-line");
  marks.textContent = "";
  if (!S.timeline || !S.current || P.clip !== S.current.id) { line.textContent = ""; return; }
  for (const k of P.keyframes) marks.append(mark("kf-tick", viewX(k), null, { time: k }));
  drawJoin(marks);
  const plan = P.plan;
  if (!plan) {
    line.textContent = P.error ? "plan: " + P.error : "";
    marks.dataset.state = P.error ? "error" : "pending";
    return;
  }
  const { spans, first, last } = spansOf(plan);
  for (const span of spans) {
    const box = mark("plan-span " + span.kind, viewX(span.from), viewX(span.to) - viewX(span.from), { from: span.from, to: span.to });
    box.title = span.title;
    marks.append(box);
  }
  if (first !== null) marks.append(mark("frame-mark first", viewX(first), null, { time: first }, "first " + seconds(first)));
  if (last !== null) marks.append(mark("frame-mark last", viewX(last), null, { time: last }, "last " + seconds(last)));
  const fallback = fallbackOf(plan);
  const parts = [`${plan.mode}: writes ${seconds(first)}–${seconds(plan.planned.end)}`,
                 `first frame ${seconds(first)}`, last !== null ? `last frame ${seconds(last)}` : "last frame –"];
  for (const span of spans) if (span.kind !== "copied") parts.push(span.title);
  line.textContent = parts.join(" · ");
  const reason = document.createElement("span");
  reason.id = "plan-fallback";
  reason.className = "plan-fallback";
  if (fallback) {
    reason.textContent = ` · smart falls back to exact (${fallback.code}): ${fallback.message}`;
    reason.dataset.code = fallback.code;
  }
  line.append(reason);
  Object.assign(marks.dataset, { state: "ready", planId: plan.plan_id, mode: plan.mode, asked: P.body.mode || "",
                                 start: P.body.start, end: P.body.end, first, last: last === null ? "" : last });
}

// Snapping: a released handle moves onto the nearest keyframe tick (as a typed time does: an operation TimelineCore
// clamps), once the drag's last operation has been answered.
function opsText() { return S.ops.map((op) => op[0] + ":" + op[1]).join(","); }

function trySnap() {
  const side = P.snapWanted;
  if (!side || !$("snap-keyframes").checked || !S.timeline || S.inFlight || S.pending || S.opsSent !== opsText()) return;
  P.snapWanted = null;
  const { start, end } = S.timeline.selection;
  const candidates = P.keyframes.filter((k) => (side === "left" ? k < end - epsilon : k > start + epsilon));
  if (!candidates.length) return;
  const t = side === "left" ? start : end;
  const nearest = candidates.reduce((a, b) => (Math.abs(b - t) < Math.abs(a - t) ? b : a));
  if (Math.abs(nearest - t) > epsilon) pushOp(side === "left" ? "move-left" : "move-right", nearest);
}

export function wirePlan() {
  $("strip").addEventListener("timeline", onTimeline);
  $("cut-mode").addEventListener("change", () => { schedule(); scheduleJoin(); draw(); });
  $("strip").addEventListener("ranges", () => { scheduleJoin(); draw(); });
  for (const [id, side] of [["handle-left", "left"], ["handle-right", "right"]]) {
    $(id).addEventListener("pointerup", () => {
      if (!$("snap-keyframes").checked) return;
      P.snapWanted = side;
      trySnap();
    });
  }
  $("snap-keyframes").addEventListener("change", () => { P.snapWanted = null; });
}
