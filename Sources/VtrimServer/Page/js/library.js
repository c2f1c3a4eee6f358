import { api, probe } from "./api.js";
import { renderBanner } from "./banner.js";
import { $, status } from "./dom.js";
import { bytes, seconds } from "./format.js";
import { attach } from "./playback.js";
import { S } from "./state.js";

// Library: a banner of recent clips (banner.js), then the clips as a feed (one full-height card each, the card in
// view playing, muted and looping) or a grid of posters. Any size of library: the server pages the list
// (GET /api/clips?offset&limit&sort&order&q, 100 at a time, fetched as the view needs them) and only the cards near
// the viewport are in the DOM. The scroll height is capped (browsers stop at about 16.7 million pixels) and mapped
// onto the rows, so every clip is reachable: past the cap a scroll position stands for a row, not for pixels.

const PAGE = 100;
const GRID_CELL = { width: 232, height: 212, margin: 4 };
const L = {
  total: 0, version: -1, probesVersion: -1, listing: "", query: "", sort: "path", order: "asc", view: "feed",
  pages: new Map(), loading: new Map(), cards: new Map(), generation: 0, walked: true,
  // Below Chromium's 16,777,216 px; tests lower it to see the mapping at 10,000 clips.
  maxScrollPixels: 8_000_000,
};
S.library = L;
const visibility = new Map();
let feedObserver = null;
let currentFeedCard = null;

function listQuery() {
  let query = `sort=${L.sort}&order=${L.order}`;
  if (L.query) query += "&q=" + encodeURIComponent(L.query);
  return query;
}

// The page holding item `index`, fetched once; every item loaded is also in S.clips (for the trimmer and tests).
function loadPage(page) {
  if (L.pages.has(page)) return Promise.resolve(L.pages.get(page));
  if (L.loading.has(page)) return L.loading.get(page);
  const generation = L.generation;
  const promise = api(`/api/clips?${listQuery()}&offset=${page * PAGE}&limit=${PAGE}`).then((answer) => {
    if (L.loading.get(page) === promise) L.loading.delete(page);
    if (generation !== L.generation) return null;
    // Pages of one listing only: an answer from a newer listing (files came or went, or, sorted by duration, new
    // probes reordered it) drops the pages held, which would otherwise skip or repeat clips at their edges.
    const listing = answer.version + ":" + (L.sort === "duration" ? answer.probes_version : "");
    if (L.pages.size && L.listing !== listing) {
      L.generation++;
      L.pages.clear(); L.loading.clear();
    }
    L.listing = listing;
    L.pages.set(page, answer.items);
    for (const item of answer.items) S.clipById.set(item.id, item);
    S.clips = [...L.pages.keys()].sort((a, b) => a - b).flatMap((p) => L.pages.get(p));
    noteListing(answer);
    return answer.items;
  }, (error) => { if (L.loading.get(page) === promise) L.loading.delete(page); throw error; });
  L.loading.set(page, promise);
  return promise;
}

function noteListing(answer) {
  const changedTotal = answer.total !== L.total;
  L.total = answer.total; L.version = answer.version; L.walked = answer.walked;
  $("library-count").textContent = `${answer.total.toLocaleString()} ${answer.total === 1 ? "clip" : "clips"}`
    + (answer.clips !== answer.total ? ` of ${answer.clips.toLocaleString()}` : "")
    + (answer.probed < answer.clips ? ` · ${answer.probed.toLocaleString()} probed` : "")
    + (answer.walked ? "" : " · reading the folders…");
  $("library-problems").textContent = answer.problems.length
    ? "Cannot read: " + answer.problems.map((p) => `${p.folder} (${p.reason})`).join(", ") : "";
  $("empty").hidden = answer.total > 0 || !answer.walked;
  if (changedTotal) layout();
}

function item(index) {
  const page = L.pages.get(Math.floor(index / PAGE));
  return page ? page[index % PAGE] : undefined;
}

export async function loadLibrary() {
  reset();
  await loadPage(0);
  layout();
  renderBanner();
  if (!L.walked) setTimeout(() => refreshListing().catch((e) => status(e.message)), 500);
}

function reset() {
  L.generation++;
  L.pages.clear(); L.loading.clear();
  L.listing = "";
  for (const card of L.cards.values()) {
    if (feedObserver) feedObserver.unobserve(card);
    card.remove();
  }
  L.cards.clear();
  visibility.clear();
  currentFeedCard = null;
}

// Geometry: rows of `columns` cards, `rowHeight` pixels each; the spacer's height is capped.
function geometry() {
  const feed = $("feed");
  const viewHeight = Math.max(1, feed.clientHeight);
  const columns = L.view === "grid" ? Math.max(1, Math.floor(feed.clientWidth / GRID_CELL.width)) : 1;
  // Grid cells share the whole width (no empty strip on the right, no narrow card alone on a phone).
  const cellWidth = Math.max(GRID_CELL.width, Math.floor(feed.clientWidth / columns));
  const rowHeight = L.view === "grid" ? GRID_CELL.height : viewHeight;
  const rows = Math.ceil(L.total / columns);
  const realHeight = rows * rowHeight;
  const shownHeight = Math.min(realHeight, L.maxScrollPixels);
  // Past the cap a scroll position maps linearly onto the real offsets, end to end.
  const scale = realHeight > shownHeight && shownHeight > viewHeight ? (realHeight - viewHeight) / (shownHeight - viewHeight) : 1;
  return { viewHeight, columns, cellWidth, rowHeight, rows, realHeight, shownHeight, scale };
}

let layoutQueued = false;
function layout() {
  if (layoutQueued) return;
  layoutQueued = true;
  requestAnimationFrame(() => { layoutQueued = false; renderWindow(); });
}

function renderWindow() {
  const feed = $("feed");
  feed.classList.toggle("grid", L.view === "grid");
  const g = geometry();
  $("feed-space").style.height = g.shownHeight + "px";
  // Snapping to cards works only where cards sit at their true offsets.
  feed.classList.toggle("scaled", g.scale !== 1);
  // The real offset the scroll position stands for (never past the last row's end).
  const offset = Math.min(feed.scrollTop * g.scale, Math.max(0, g.realHeight - g.viewHeight));
  const overscan = 2;
  const firstRow = Math.max(0, Math.floor(offset / g.rowHeight) - overscan);
  const lastRow = Math.min(g.rows - 1, Math.floor((offset + g.viewHeight) / g.rowHeight) + overscan);
  const wanted = new Set();
  const pages = new Set();
  // A card below the spacer's end would lengthen the scroll (past the cap, cards sit near the scroll position).
  const lastShownRow = g.scale === 1 ? lastRow
    : Math.min(lastRow, firstRow + Math.floor((g.shownHeight - feed.scrollTop + (offset - firstRow * g.rowHeight)) / g.rowHeight) - 1);
  for (let row = firstRow; row <= lastShownRow; row++) {
    for (let column = 0; column < g.columns; column++) {
      const index = row * g.columns + column;
      if (index >= L.total) break;
      wanted.add(index);
      // A page held but shorter than the total says: the listing changed; the next check reloads it.
      if (!item(index) && !L.pages.has(Math.floor(index / PAGE))) pages.add(Math.floor(index / PAGE));
    }
  }
  for (const page of pages) loadPage(page).then(layout, (e) => status(e.message));
  for (const [index, card] of L.cards) {
    if (!wanted.has(index) || card.dataset.clip !== (item(index) || {}).id) {
      if (feedObserver) feedObserver.unobserve(card);
      visibility.delete(card);
      card.remove();
      L.cards.delete(index);
    }
  }
  // At most six new cards a frame: a long jump lays out over a few frames, never in one long task.
  let made = 0;
  for (const index of [...wanted].sort((a, b) => a - b)) {
    const clip = item(index);
    if (!clip || L.cards.has(index)) continue;
    if (made++ >= 6) { layout(); break; }
    const card = makeCard(clip, index);
    L.cards.set(index, card);
    feed.append(card);
    feedObserver.observe(card);
  }
  // The scroll position once the new cards are in the page (the snap, in the feed, may have moved it); read once, not
  // once a card: a read after a card's writes lays the page out again (a long task over a grid's forty cards).
  const scrollTop = feed.scrollTop;
  for (const [index, card] of L.cards) {
    const row = Math.floor(index / g.columns), column = index % g.columns;
    // The card's place on screen, from its real offset and the scroll's real offset.
    const top = scrollTop + (row * g.rowHeight - offset);
    // Offsets, not transforms: scroll snapping reads the layout box.
    card.style.top = top + "px";
    if (L.view === "grid") {
      card.style.left = column * g.cellWidth + "px";
      card.style.width = g.cellWidth - 2 * GRID_CELL.margin + "px";
    }
    card.style.height = (L.view === "grid" ? GRID_CELL.height - 2 * GRID_CELL.margin : g.rowHeight) + "px";
  }
  // Cards in index order in the DOM (tests and keyboard order read it).
  const ordered = [...L.cards.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
  if (ordered.some((card, i) => feed.children[i + 1] !== card)) for (const card of ordered) feed.append(card);
}

function makeCard(clip, index) {
  const card = document.createElement("article");
  card.className = "card";
  card.dataset.clip = clip.id;
  card.dataset.index = String(index);
  const name = document.createElement("div");
  name.className = "name"; name.textContent = clip.path; name.title = clip.path;
  const meta = document.createElement("div");
  meta.className = "meta"; meta.textContent = facts(clip);
  const trim = document.createElement("button");
  trim.textContent = "Trim"; trim.className = "primary";
  trim.addEventListener("click", () => { location.hash = "#/trim/" + clip.id; });
  const cuts = document.createElement("div");
  cuts.className = "card-cuts";
  for (const cut of clip.cuts || []) {
    const link = document.createElement("a");
    link.href = cut.url; link.target = "_blank"; link.textContent = cut.name;
    link.dataset.cut = cut.id;
    cuts.append(link);
  }
  if (cuts.children.length) cuts.prepend(document.createTextNode("Cuts: "));
  if (L.view === "grid") {
    // A poster: the engine's first filmstrip cell, made lazily by a worker and cached on disk.
    const poster = document.createElement("img");
    poster.className = "poster"; poster.alt = ""; poster.loading = "lazy";
    poster.addEventListener("error", () => { poster.hidden = true; });
    setPoster(poster, clip);
    card.append(poster, name, meta, trim);
  } else {
    const video = document.createElement("video");
    video.muted = true; video.loop = true; video.playsInline = true; video.preload = "none";
    const strip = document.createElement("img");
    strip.className = "filmstrip"; strip.alt = "";
    card.append(video, name, meta, strip, trim, cuts);
  }
  if (clip.unreadable) markUnreadable(card, clip.unreadable);
  else if (!clip.probed) badge(card, "probing");
  if (clip.has_video === false) badge(card, "audio only");
  if (clip.folder_problem) badge(card, "folder unreadable");
  return card;
}

// A grid card's picture: the first cell of a strip of 200-point cells over the clip (the strip needs room for three);
// for sound alone, the whole strip, which the engine draws as the waveform; none for a file it cannot read. Set again
// when a probe tells what the clip holds.
function setPoster(poster, clip) {
  const kind = clip.unreadable ? "none" : clip.has_video === false ? "waveform" : "picture";
  if (poster.dataset.kind === kind) return;
  poster.dataset.kind = kind;
  poster.hidden = kind === "none";
  if (kind === "none") { poster.removeAttribute("src"); return; }
  const span = clip.duration ? `&max=${clip.duration}&min=${Math.min(1, clip.duration)}` : "";
  poster.src = kind === "waveform"
    ? `/api/clips/${clip.id}/filmstrip.png?strip_width=600&thumb_width=200&thumb_height=112${span}&first=0&count=3`
    // The first frame that is not dull (a clip fading in from black gets its first real picture): cell 0 is at the
    // start, a keyframe, so accurate sampling costs what fast did.
    : `/api/clips/${clip.id}/filmstrip.png?strip_width=600&thumb_width=200&thumb_height=112&skip_dull=1${span}&first=0&count=1`;
}

function facts(clip) {
  const parts = [];
  if (typeof clip.duration === "number") parts.push(seconds(clip.duration));
  parts.push(bytes(clip.size));
  if (clip.codec) parts.push(clip.codec + (clip.display_width ? ` ${clip.display_width}×${clip.display_height}` : ""));
  return parts.join(" · ");
}

function markUnreadable(card, why) {
  card.querySelector(".meta").textContent = "cannot be read: " + why;
  for (const element of card.querySelectorAll("video, .filmstrip, .poster")) element.hidden = true;
  // Nothing to trim in a file the engine cannot read.
  card.querySelector("button").hidden = true;
  badge(card, "unreadable");
}

// One fill per card, shared by every caller: the card in view plays only once its source is attached.
const fills = new WeakMap();
function fillCard(card) {
  if (!fills.has(card)) fills.set(card, fillCardOnce(card));
  return fills.get(card);
}

async function fillCardOnce(card) {
  const clip = S.clipById.get(card.dataset.clip);
  if (!clip || L.view === "grid" || clip.unreadable) return;
  card.dataset.filled = "1";
  try {
    const info = await probe(clip);
    const v = info.video;
    const shown = [seconds(info.duration), bytes(clip.size)];
    if (v) shown.push(v.codec + " " + v.display_width + "×" + v.display_height + (v.rotation ? " ↻" + v.rotation + "°" : "") + (v.mirrored ? " mirrored" : ""));
    else if (info.audio && info.audio.length) shown.push(info.audio.map((a) => a.codec).join(", "));
    card.querySelector(".meta").textContent = shown.join(" · ");
    for (const b of card.querySelectorAll(".badge")) if (b.textContent === "probing") b.remove();
    if (!v) badge(card, "audio only");
    // An audio-only clip's strip is its waveform, drawn by the engine in the same cells.
    const width = 480, thumbWidth = 48, thumbHeight = 27;
    const query = `strip_width=${width}&thumb_width=${thumbWidth}&thumb_height=${thumbHeight}&max=${info.duration}&min=${Math.min(2, info.duration)}`;
    card.querySelector(".filmstrip").src = `/api/clips/${clip.id}/filmstrip.png?${query}&first=0&count=10`;
    await attach(card.querySelector("video"), clip);
  } catch (error) {
    for (const b of card.querySelectorAll(".badge")) if (b.textContent === "probing") b.remove();
    markUnreadable(card, error.message);
  }
}

function badge(card, text) {
  const name = card.querySelector(".name");
  if ([...name.querySelectorAll(".badge")].some((b) => b.textContent === text)) return;
  const element = document.createElement("span");
  element.className = "badge"; element.textContent = text;
  name.append(element);
}

export function onCardVisibility(entries) {
  for (const entry of entries) visibility.set(entry.target, entry.intersectionRatio);
  let best = null, ratio = 0.6;
  for (const [card, r] of visibility) if (r >= ratio && card.isConnected) { best = card; ratio = r; }
  for (const card of $("feed").querySelectorAll(".card")) {
    const video = card.querySelector("video");
    if (video && card !== best && !video.paused) video.pause();
  }
  currentFeedCard = best;
  // The card in view is filled (probe, strip, its video attached) and plays once the feed rests on it: cards flown
  // past while scrolling start no media (attaching one is a long task of its own).
  clearTimeout(settling);
  if (!best || !best.querySelector("video")) return;
  settling = setTimeout(() => {
    if (best !== currentFeedCard || !best.isConnected || $("view-library").hidden) return;
    fillCard(best).then(() => { if (best === currentFeedCard) best.querySelector("video").play().catch(() => {}); });
  }, SETTLE_MS);
}
const SETTLE_MS = 150;
let settling = null;

export function pauseFeed() { for (const video of $("feed").querySelectorAll("video")) video.pause(); }

// Search, sort and the view: the list is asked for again from its first page.
export function wireLibrary() {
  const feed = $("feed");
  feedObserver = new IntersectionObserver(onCardVisibility, { root: feed, threshold: [0, 0.25, 0.5, 0.6, 0.75, 1] });
  feed.addEventListener("scroll", layout, { passive: true });
  let typing = null;
  $("library-search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => { L.query = $("library-search").value.trim(); restart(); }, 200);
  });
  $("library-sort").addEventListener("change", () => {
    [L.sort, L.order] = $("library-sort").value.split(":");
    restart();
  });
  $("library-view").addEventListener("change", () => { L.view = $("library-view").value; restart(); });
  new ResizeObserver(layout).observe(feed);
}

function restart() {
  const feed = $("feed");
  reset();
  feed.scrollTop = 0;
  loadPage(0).then(layout, (e) => status(e.message));
}

// Files that appear or vanish in the served folders show up: the server watches the folders; the page asks for
// the listing's version every few seconds and, when it moved, drops the pages it holds.
async function refreshListing() {
  const answer = await api(`/api/clips?${listQuery()}&limit=1`);
  if (answer.version === L.version && answer.total === L.total && !(L.sort === "duration" && answer.probes_version !== L.probesVersion)) {
    noteListing(answer);
    if (answer.probes_version !== L.probesVersion) await refreshProbed(answer.probes_version);
    return;
  }
  L.probesVersion = answer.probes_version;
  L.generation++;
  L.pages.clear(); L.loading.clear();
  noteListing(answer);
  await loadPage(0);
  layout();
  renderBanner();
}

// New probes (durations, codecs, unreadable files): the pages held are asked for again and the cards in view
// updated in place (a feed card that has probed its clip itself keeps what it shows).
async function refreshProbed(probesVersion) {
  L.probesVersion = probesVersion;
  const generation = L.generation;
  for (const page of [...L.pages.keys()]) {
    const answer = await api(`/api/clips?${listQuery()}&offset=${page * PAGE}&limit=${PAGE}`);
    if (generation !== L.generation || answer.version !== L.version) return;
    L.pages.set(page, answer.items);
    for (const item of answer.items) S.clipById.set(item.id, item);
  }
  for (const [index, card] of L.cards) {
    const clip = item(index);
    if (!clip || clip.id !== card.dataset.clip || card.dataset.filled) continue;
    card.querySelector(".meta").textContent = facts(clip);
    if (clip.probed) for (const b of card.querySelectorAll(".badge")) if (b.textContent === "probing") b.remove();
    if (clip.has_video === false) badge(card, "audio only");
    if (clip.unreadable) markUnreadable(card, clip.unreadable);
    const poster = card.querySelector(".poster");
    if (poster) setPoster(poster, clip);
  }
}

export function watchFolders() {
  setInterval(() => {
    if ($("view-library").hidden || document.hidden) return;
    refreshListing().catch((error) => status(error.message));
  }, 2000);
}

