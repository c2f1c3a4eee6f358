"use strict";
// vtrim serve's page. The selection's rules (min/max length, the window, the clip's ends) are never
// computed here: every slider drag and scroll is sent to the server, which replays the operations through
// TimelineCore — the same code as `vtrim timeline --op …` — so the page can never disagree with it.

const $ = (id) => document.getElementById(id);
const S = {
  clips: [], probes: new Map(), current: null, timeline: null, ops: [], opsSent: "", frames: null,
  ranges: [], editing: null, previewing: false, cuts: [], docked: false, pending: null, inFlight: false, playerClip: null,
};
window.vtrim = S; // for tests and the curious

async function api(path, options = {}) {
  const init = { credentials: "same-origin", ...options };
  if (options.json !== undefined) {
    init.method = options.method || "POST";
    init.headers = { "Content-Type": "application/json" };
    init.body = JSON.stringify(options.json);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = { error: { code: "bad_json", message: text } }; }
  if (!response.ok) {
    const error = new Error((body && body.error && body.error.message) || response.statusText);
    error.body = body; error.status = response.status;
    throw error;
  }
  return body;
}

function status(text) { $("status").textContent = text || ""; }
function seconds(t) {
  if (!isFinite(t)) return "–";
  const m = Math.floor(t / 60), s = t - 60 * m;
  return (m > 0 ? m + ":" + (s < 10 ? "0" : "") : "") + s.toFixed(m > 0 ? 2 : 3);
}
// A handle's label: milliseconds, or tenths where the strip leaves little room (`short`).
function clock(t, short) {
  if (!isFinite(t)) return "–";
  const m = Math.floor(t / 60), s = t - 60 * m, digits = short ? 1 : 3;
  const text = s.toFixed(digits);
  return m + ":" + (parseFloat(text) < 10 ? "0" : "") + text;
}
function bytes(n) { return n > 1 << 20 ? (n / (1 << 20)).toFixed(1) + " MiB" : Math.round(n / 1024) + " KiB"; }

async function probe(clip) {
  if (!S.probes.has(clip.id)) S.probes.set(clip.id, api("/api/clips/" + clip.id));
  return S.probes.get(clip.id);
}

// ---------------------------------------------------------------------------------------------------
// Playback: the source when this browser can play it, else the server's preview stand-in (HEVC in
// Chromium on Linux: canPlayType says "", or the video has no picture at loadedmetadata, or an error).

async function canPlay(clip) {
  const info = await probe(clip);
  if (!info.mime) return false;
  // A source that does not start at 0 plays through the preview, whose clock is vtrim's timeline (0 = the
  // container's start): browsers count such files' time their own way (Chromium gives a file whose first
  // frame is at 10 s a 12.47 s duration where FFmpeg says 14 s).
  if (Math.abs(info.start_time || 0) > 1e-6) return false;
  return document.createElement("video").canPlayType(info.mime) !== "";
}

async function usePreview(video, clip) {
  if (video.dataset.preview === clip.id) return;
  video.dataset.preview = clip.id;
  const state = await api("/api/clips/" + clip.id + "/preview", { json: {} });
  video.src = state.url;
  video.dataset.source = "preview";
  watchPreview(clip);
}

async function watchPreview(clip) {
  for (;;) {
    const state = await api("/api/clips/" + clip.id + "/preview");
    if (S.current && S.current.id === clip.id) {
      const note = $("preview-note");
      note.hidden = false;
      note.textContent = state.status === "done" ? "Playing a preview (this browser cannot play the source); cuts use the source."
        : state.status === "failed" ? "No preview: " + state.error
        : "Making a preview this browser can play… " + Math.round(100 * (state.progress || 0)) + " %";
    }
    if (state.status !== "running") return state;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function attach(video, clip) {
  video.dataset.clip = clip.id;
  delete video.dataset.preview;
  // Sound only: the source as it is (a preview is made of pictures).
  if (!(await probe(clip)).video) {
    video.src = "/media/" + clip.id;
    video.dataset.source = "source";
    return;
  }
  if (await canPlay(clip)) {
    video.src = "/media/" + clip.id;
    video.dataset.source = "source";
    const fallback = () => { if (video.dataset.clip === clip.id && video.dataset.source === "source") usePreview(video, clip); };
    video.addEventListener("loadedmetadata", () => { if (video.videoWidth === 0) fallback(); }, { once: true });
    video.addEventListener("error", fallback, { once: true });
  } else {
    await usePreview(video, clip);
  }
}

// ---------------------------------------------------------------------------------------------------
// Library: a banner of recent clips, then one full-height card per clip; the card in view plays, muted
// and looping; scrolled away it pauses — driven by this page's IntersectionObserver, not `autoplay`.

const visibility = new Map();
let feedObserver = null;

async function loadLibrary() {
  S.clips = await api("/api/clips");
  $("empty").hidden = S.clips.length > 0;
  renderBanner();
  renderFeed();
}

function renderFeed() {
  const feed = $("feed");
  feed.textContent = "";
  if (feedObserver) feedObserver.disconnect();
  feedObserver = new IntersectionObserver(onCardVisibility, { root: feed, threshold: [0, 0.25, 0.5, 0.6, 0.75, 1] });
  const nearby = new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.isIntersecting) { fillCard(entry.target); nearby.unobserve(entry.target); }
  }, { root: feed, rootMargin: "100% 0px" });
  for (const clip of S.clips) {
    const card = document.createElement("article");
    card.className = "card";
    card.dataset.clip = clip.id;
    const video = document.createElement("video");
    video.muted = true; video.loop = true; video.playsInline = true; video.preload = "none";
    const name = document.createElement("div");
    name.className = "name"; name.textContent = clip.path;
    name.title = clip.path;
    const meta = document.createElement("div");
    meta.className = "meta"; meta.textContent = bytes(clip.size);
    const strip = document.createElement("img");
    strip.className = "filmstrip"; strip.alt = "";
    const trim = document.createElement("button");
    trim.textContent = "Trim"; trim.className = "primary";
    trim.addEventListener("click", () => { location.hash = "#/trim/" + clip.id; });
    // The cuts made from this clip (files beside it), listed under it rather than as clips of their own.
    const cuts = document.createElement("div");
    cuts.className = "card-cuts";
    for (const cut of clip.cuts || []) {
      const link = document.createElement("a");
      link.href = cut.url; link.target = "_blank"; link.textContent = cut.name;
      link.dataset.cut = cut.id;
      cuts.append(link);
    }
    if (cuts.children.length) cuts.prepend(document.createTextNode("Cuts: "));
    card.append(video, name, meta, strip, trim, cuts);
    feed.append(card);
    feedObserver.observe(card);
    nearby.observe(card);
  }
}

// One fill per card, shared by every caller: the card in view plays only once its source is attached
// (a second caller used to get a promise that resolved before the first fill had set the source).
const fills = new WeakMap();
function fillCard(card) {
  if (!fills.has(card)) fills.set(card, fillCardOnce(card));
  return fills.get(card);
}

async function fillCardOnce(card) {
  const clip = S.clips.find((c) => c.id === card.dataset.clip);
  if (!clip) return;
  card.dataset.filled = "1";
  try {
    const info = await probe(clip);
    const v = info.video;
    const facts = [seconds(info.duration) + " s", bytes(clip.size)];
    if (v) facts.push(v.codec + " " + v.display_width + "×" + v.display_height + (v.rotation ? " ↻" + v.rotation + "°" : "") + (v.mirrored ? " mirrored" : ""));
    else if (info.audio && info.audio.length) facts.push(info.audio.map((a) => a.codec).join(", "));
    card.querySelector(".meta").textContent = facts.join(" · ");
    if (!v) badge(card, "audio only");
    // An audio-only clip's strip is its waveform, drawn by the engine in the same cells.
    const width = 480, thumbWidth = 48, thumbHeight = 27;
    const query = `strip_width=${width}&thumb_width=${thumbWidth}&thumb_height=${thumbHeight}&max=${info.duration}&min=${Math.min(2, info.duration)}`;
    card.querySelector(".filmstrip").src = `/api/clips/${clip.id}/filmstrip.png?${query}&first=0&count=10`;
    await attach(card.querySelector("video"), clip);
  } catch (error) {
    card.querySelector(".meta").textContent = "cannot be read: " + error.message;
    card.querySelector(".filmstrip").hidden = true;
    card.querySelector("video").hidden = true;
    card.querySelector("button").disabled = true;
    badge(card, "unreadable");
  }
}

function badge(card, text) {
  const name = card.querySelector(".name");
  if ([...name.querySelectorAll(".badge")].some((b) => b.textContent === text)) return;
  const element = document.createElement("span");
  element.className = "badge"; element.textContent = text;
  name.append(element);
}

function onCardVisibility(entries) {
  for (const entry of entries) visibility.set(entry.target, entry.intersectionRatio);
  let best = null, ratio = 0.6;
  for (const [card, r] of visibility) if (r >= ratio) { best = card; ratio = r; }
  for (const card of $("feed").children) {
    const video = card.querySelector("video");
    if (card === best && !$("view-library").hidden) {
      fillCard(card).then(() => { if (card === currentFeedCard) video.play().catch(() => {}); });
    } else if (!video.paused) {
      video.pause();
    }
  }
  currentFeedCard = best;
}
let currentFeedCard = null;

function pauseFeed() { for (const video of $("feed").querySelectorAll("video")) video.pause(); }

// The banner: recent clips, auto-advancing, wrapping endlessly both ways. A copy of the last slide sits
// before the first and a copy of the first after the last; landing on a copy jumps (instantly, to the
// same picture) to the slide it copies, so there is never a visible jump.
const banner = { count: 0, index: 1, timer: null, settle: null };

// The banner's clips: the most recent ones that have pictures (probed first; an unreadable or audio-only
// clip is left out, and nothing more is asked of it).
async function bannerClips() {
  const recent = [...S.clips].sort((a, b) => b.modified - a.modified);
  const chosen = [];
  for (let i = 0; i < recent.length && chosen.length < 6 && i < 18; i += 6) {
    const batch = recent.slice(i, i + 6);
    const infos = await Promise.all(batch.map((clip) => probe(clip).catch(() => null)));
    batch.forEach((clip, k) => { if (infos[k] && infos[k].video && chosen.length < 6) chosen.push({ clip, info: infos[k] }); });
  }
  return chosen;
}

let bannerGeneration = 0;
async function renderBanner() {
  const generation = ++bannerGeneration;
  const chosen = await bannerClips();
  if (generation !== bannerGeneration) return;
  const track = $("banner-track"), dots = $("banner-dots");
  track.textContent = ""; dots.textContent = "";
  const recent = chosen.map((c) => c.clip);
  const infos = new Map(chosen.map((c) => [c.clip.id, c.info]));
  banner.count = recent.length;
  $("banner").hidden = recent.length === 0;
  if (recent.length === 0) return;
  const slide = (clip, copy) => {
    const element = document.createElement("div");
    element.className = "slide" + (copy ? " copy" : "");
    element.dataset.clip = clip.id;
    const image = document.createElement("img");
    image.alt = "";
    const info = infos.get(clip.id);
    const query = `strip_width=640&thumb_width=160&thumb_height=90&max=${info.duration}&min=${Math.min(2, info.duration)}`;
    image.src = `/api/clips/${clip.id}/filmstrip.png?${query}&first=0&count=4`;
    const caption = document.createElement("div");
    caption.className = "caption"; caption.textContent = clip.path;
    element.append(image, caption);
    element.addEventListener("click", () => { location.hash = "#/trim/" + clip.id; });
    return element;
  };
  track.append(slide(recent[recent.length - 1], true));
  recent.forEach((clip) => track.append(slide(clip, false)));
  track.append(slide(recent[0], true));
  recent.forEach(() => dots.append(document.createElement("span")));
  requestAnimationFrame(() => bannerJump(1));
  track.onscroll = () => { clearTimeout(banner.settle); banner.settle = setTimeout(bannerSettled, 120); };
  restartBannerTimer();
}

function bannerJump(index) {
  const track = $("banner-track");
  track.style.scrollSnapType = "none";
  track.scrollTo({ left: index * track.clientWidth, behavior: "instant" });
  track.style.scrollSnapType = "";
  banner.index = index;
  markBanner();
}

function bannerSettled() {
  const track = $("banner-track");
  const index = Math.round(track.scrollLeft / Math.max(1, track.clientWidth));
  if (index <= 0) bannerJump(banner.count);
  else if (index >= banner.count + 1) bannerJump(1);
  else { banner.index = index; markBanner(); }
}

function markBanner() {
  const real = banner.index - 1;
  $("banner").dataset.current = String(real);
  [...$("banner-dots").children].forEach((dot, i) => dot.classList.toggle("on", i === real));
}

function bannerStep(delta) {
  if (banner.count === 0) return;
  const track = $("banner-track");
  track.scrollTo({ left: (banner.index + delta) * track.clientWidth, behavior: "smooth" });
  restartBannerTimer();
}

function restartBannerTimer() {
  clearInterval(banner.timer);
  banner.timer = setInterval(() => { if (!$("view-library").hidden && !document.hidden) bannerStep(1); }, 4000);
}

// ---------------------------------------------------------------------------------------------------
// Trimmer: the player above the strip laid out by TimelineCore, two handles, the mask, labels, a playhead
// that follows playback and loops inside the selection.

// One player per kind: a video element, and an audio element for clips without pictures.
const videoPlayer = document.createElement("video");
videoPlayer.id = "player";
videoPlayer.controls = true;
videoPlayer.playsInline = true;
const audioPlayer = document.createElement("audio");
audioPlayer.id = "audio-player";
audioPlayer.controls = true;
let player = videoPlayer;

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
function pushOp(kind, value) {
  const last = S.ops[S.ops.length - 1];
  if (last && last[0] === kind) last[1] = value; else S.ops.push([kind, value]);
  refreshTimeline();
}

function refreshTimeline() {
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

// Everything the previous clip left: the strip, labels, facts, notes, the top bar's message, the player.
function resetTrimmer() {
  status("");
  S.current = null; S.ops = []; S.frames = null; S.timeline = null;
  const content = $("strip-content");
  content.textContent = ""; content.dataset.key = "";
  if (tileObserver) tileObserver.disconnect();
  for (const id of ["label-start", "label-duration", "label-end", "trim-facts"]) $(id).textContent = "";
  for (const id of ["start-time", "end-time", "min-duration", "max-duration"]) $(id).value = "";
  $("preview-note").hidden = true;
  $("trim-error").hidden = true;
  $("strip").hidden = false;
  $("playhead").hidden = true;
  for (const element of [videoPlayer, audioPlayer]) { element.pause(); element.removeAttribute("src"); delete element.dataset.clip; }
  S.playerClip = null;
  setCutControls(false);
}

function setCutControls(enabled) {
  for (const id of ["cut-button", "add-button", "join-button", "preview-join-button", "export-button", "import-input", "dock-button",
                    "start-time", "end-time", "min-duration", "max-duration"]) $(id).disabled = !enabled;
}

async function openTrimmer(clip) {
  if (S.docked) undock(false);
  const same = S.current && S.current.id === clip.id;
  $("trim-title").textContent = clip.path;
  if (!same) {
    resetTrimmer();
    S.ranges = S.ranges.filter((r) => r.clip === clip.id);
    S.editing = null;
    renderRanges();
    let info;
    try {
      info = await probe(clip);
    } catch (error) {
      if (location.hash !== "#/trim/" + clip.id) return;
      $("trim-error").textContent = "This clip cannot be read: " + error.message;
      $("trim-error").hidden = false;
      $("strip").hidden = true;
      return;
    }
    if (location.hash !== "#/trim/" + clip.id) return;
    const v = info.video || { display_width: 16, display_height: 9 };
    const aspect = v.display_width / Math.max(1, v.display_height);
    const thumbHeight = 50;
    const fps = info.video && info.video.fps > 0 ? info.video.fps : 100;
    S.current = { id: clip.id, clip, info, thumbHeight, thumbWidth: Math.max(20, Math.min(120, Math.round(thumbHeight * aspect))), max: null, min: null,
                  frameSeconds: Math.round(1e6 / fps) / 1e6 };
    $("min-duration").placeholder = "1 frame";
    facts(info);
    await attachPlayer(clip);
    api(`/api/clips/${clip.id}/frames`).then((f) => { if (S.current && S.current.id === clip.id) S.frames = f.times; }).catch(() => {});
    renderRanges();
  } else if (player.parentElement !== $("player-slot")) {
    $("player-slot").append(player);
  }
  if (S.current) refreshTimeline();
}

async function attachPlayer(clip) {
  if (S.playerClip === clip.id) return;
  S.playerClip = clip.id;
  const audioOnly = !S.current.info.video;
  player = audioOnly ? audioPlayer : videoPlayer;
  $("player-slot").textContent = "";
  $("player-slot").append(player);
  await attach(player, clip);
}

function facts(info) {
  const dl = $("trim-facts");
  dl.textContent = "";
  const add = (k, v) => { const dt = document.createElement("dt"); dt.textContent = k; const dd = document.createElement("dd"); dd.textContent = v; dl.append(dt, dd); };
  add("duration", seconds(info.duration) + " s");
  add("size", bytes(info.size));
  if (info.video) {
    const v = info.video;
    add("video", `${v.codec} ${v.width}×${v.height}, ${v.fps ? v.fps.toFixed(2) : "?"} fps`);
    add("shown", `${v.display_width}×${v.display_height}` + (v.rotation ? `, ${v.rotation}°` : "") + (v.mirrored ? ", mirrored" : ""));
  }
  if (info.audio && info.audio.length) add("audio", info.audio.map((a) => a.codec).join(", "));
}

function viewX(t) {
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
}

// The start, duration and end labels: milliseconds (tenths where the selection is narrow), the start at the
// left handle, the end at the right one, the duration between; a label that would overlap one already
// placed moves to the next row, so no two ever cover each other.
function placeLabels(selection, left, right, width) {
  const short = right - left < 160;
  const texts = [["label-start", clock(selection.start, short)], ["label-end", clock(selection.end, short)],
                 ["label-duration", seconds(selection.end - selection.start) + " s"]];
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

function drawPlayhead() {
  const tl = S.timeline;
  if (!tl) return;
  const t = player.currentTime;
  const x = viewX(t);
  const head = $("playhead");
  head.style.left = (x - 1) + "px";
  head.hidden = x < 0 || x > $("strip").clientWidth;
  head.dataset.time = String(t);
}

function tick() {
  const tl = S.timeline;
  if (tl && !player.paused && S.current && S.playerClip === S.current.id && !S.previewing) {
    const { start, end } = tl.selection;
    // Loop inside the selection (half-open, like a cut).
    if (player.currentTime >= end || player.currentTime < start - 0.25) player.currentTime = start;
  }
  if (!$("view-trim").hidden) drawPlayhead();
  requestAnimationFrame(tick);
}
requestAnimationFrame(tick);

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

function frameStep(direction) {
  if (!S.frames || !S.frames.length) return;
  const t = player.currentTime;
  let shown = 0;
  for (let i = 0; i < S.frames.length; i++) if (S.frames[i] <= t + 1e-4) shown = i;
  const next = Math.max(0, Math.min(S.frames.length - 1, shown + direction));
  player.pause();
  player.currentTime = S.frames[next] + 1e-4;
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

// ---------------------------------------------------------------------------------------------------
// Cuts: the plan at once (as --dry-run gives it), then progress, then what `vtrim cut` reports.

// The mode the user chose, or none: the server applies the one default rule (copy for a cut, smart for a join
// where the output takes it), as `vtrim cut` does.
function chosenMode() {
  const mode = $("cut-mode").value;
  return mode ? { mode } : {};
}

$("cut-button").addEventListener("click", async () => {
  if (!S.timeline) return;
  const { start, end } = S.timeline.selection;
  const box = document.createElement("div");
  box.className = "cut";
  $("cuts").prepend(box);
  try {
    const job = await api("/api/cuts", { json: { clip: S.current.id, start, end, ...chosenMode() } });
    box.dataset.cut = job.id;
    S.cuts.push(job);
    followCut(box, job);
  } catch (error) {
    box.classList.add("failed");
    box.textContent = "Cannot cut: " + error.message;
  }
});

function describePlan(job) {
  const p = job.planned || {};
  let text = job.segments
    ? `${job.mode}: ${job.segments.length} range(s) joined, ${seconds(p.duration)} s`
    : `${job.mode}: shows ${seconds(p.start)}–${seconds(p.end)} (${seconds(p.duration)} s)`;
  if (job.smart && job.smart.fallback) text += `, smart falls back: ${job.smart.fallback}`;
  const notes = (job.notes || []).map((n) => "note: " + n.message);
  const warnings = (job.warnings || []).map((w) => "warning: " + w.message);
  return [text, ...warnings, ...notes].join("\n");
}

async function followCut(box, job) {
  for (;;) {
    box.textContent = "";
    const head = document.createElement("div");
    head.innerHTML = "";
    head.textContent = `${job.id} · ${job.status} · → ${job.output}`;
    const plan = document.createElement("div");
    plan.className = "plan";
    plan.textContent = describePlan(job);
    box.append(head, plan);
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
      result.textContent = `written: ${seconds(a.start)} to ${seconds(a.end)}, ${seconds(a.duration)} s `;
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
    return;
  }
}

// ---------------------------------------------------------------------------------------------------
// Ranges: kept parts of the clip, joined into one file by the engine (POST /api/cuts with `ranges`).
// Add the selection, select one to edit it with the handles (TimelineCore clamps them as ever), delete one.
// Lists are read and written by the engine (/api/lists/parse and /render), never here.

function clipRanges() { return S.ranges.filter((r) => S.current && r.clip === S.current.id); }

function addRange(start, end) {
  const ranges = clipRanges();
  if (ranges.some((r) => r.start === start && r.end === end)) return;
  const overlapping = ranges.find((r) => start < r.end && r.start < end);
  if (overlapping) { status(`${seconds(start)}–${seconds(end)} overlaps the range ${seconds(overlapping.start)}–${seconds(overlapping.end)}`); return; }
  S.ranges.push({ clip: S.current.id, start, end, label: "" });
  S.ranges.sort((a, b) => a.start - b.start);
  renderRanges();
}

function renderRanges() {
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

function drawBands() {
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

$("add-button").addEventListener("click", () => {
  if (S.timeline) addRange(S.timeline.selection.start, S.timeline.selection.end);
});

$("join-button").addEventListener("click", async () => {
  const ranges = clipRanges().map((r) => ({ start: r.start, end: r.end, label: r.label || null }));
  if (!ranges.length) { status("add a range first"); return; }
  const box = document.createElement("div");
  box.className = "cut join";
  $("cuts").prepend(box);
  try {
    const job = await api("/api/cuts", { json: { clip: S.current.id, ranges, ...chosenMode() } });
    box.dataset.cut = job.id;
    S.cuts.push(job);
    followCut(box, job);
  } catch (error) {
    box.classList.add("failed");
    box.textContent = "Cannot join: " + error.message;
  }
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

function listMedia() {
  const info = S.current.info;
  return { duration: info.duration, fps: info.video ? info.video.fps : null, name: S.current.clip.path.split("/").pop(),
           timecode: info.start_timecode || null };
}

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

// ---------------------------------------------------------------------------------------------------
// Mini player: the trimmer's own video element moves into a corner and keeps playing from the same time
// while the library is browsed; opening it moves it back, with the same selection.

function dock() {
  if (!S.current) return;
  S.docked = true;
  $("mini-slot").append(player);
  $("mini").hidden = false;
  location.hash = "#/library";
}

function undock(navigate) {
  S.docked = false;
  $("mini").hidden = true;
  if (navigate && S.current) location.hash = "#/trim/" + S.current.id;
  else $("player-slot").append(player);
}

$("dock-button").addEventListener("click", dock);
$("mini-restore").addEventListener("click", () => undock(true));
$("mini-close").addEventListener("click", () => { player.pause(); undock(false); });

// ---------------------------------------------------------------------------------------------------
// Views: one app, no reloads (#/library, #/trim/<id>).

async function route() {
  const match = location.hash.match(/^#\/trim\/([0-9a-f]{16})$/);
  if (match) {
    $("view-library").hidden = true;
    $("view-trim").hidden = false;
    pauseFeed();
    if (!S.clips.length) S.clips = await api("/api/clips");
    const clip = S.clips.find((c) => c.id === match[1]);
    if (!clip) { status("no such clip"); return; }
    await openTrimmer(clip);
  } else {
    $("view-trim").hidden = true;
    $("view-library").hidden = false;
    if (!S.docked && !player.paused) player.pause();
    if (!$("feed").children.length) await loadLibrary();
    else onCardVisibility([]);
  }
}

// Files that appear or vanish in the served folders show up: the list is walked anew every few seconds.
setInterval(async () => {
  if ($("view-library").hidden || document.hidden) return;
  try {
    const clips = await api("/api/clips");
    const ids = (list) => list.map((c) => c.id + ":" + (c.cuts || []).map((cut) => cut.id).join("+")).join(",");
    if (ids(clips) !== ids(S.clips)) {
      S.clips = clips;
      $("empty").hidden = clips.length > 0;
      renderBanner();
      renderFeed();
    }
  } catch (error) { status(error.message); }
}, 5000);

$("banner-prev").addEventListener("click", () => bannerStep(-1));
$("banner-next").addEventListener("click", () => bannerStep(1));
window.addEventListener("hashchange", () => route().catch((e) => status(e.message)));
window.addEventListener("resize", () => { if (S.current && !$("view-trim").hidden) refreshTimeline(); if (banner.count) bannerJump(banner.index); });
if (!location.hash) history.replaceState(null, "", "#/library");
route().catch((e) => status(e.message));
