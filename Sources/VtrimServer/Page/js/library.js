import { api, probe } from "./api.js";
import { renderBanner } from "./banner.js";
import { $, status } from "./dom.js";
import { bytes, seconds } from "./format.js";
import { attach } from "./playback.js";
import { S } from "./state.js";

// Library: a banner of recent clips (banner.js), then one full-height card per clip; the card in view
// plays, muted and looping; scrolled away it pauses — driven by this page's IntersectionObserver, not `autoplay`.

const visibility = new Map();
let feedObserver = null;

export async function loadLibrary() {
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

export function onCardVisibility(entries) {
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

export function pauseFeed() { for (const video of $("feed").querySelectorAll("video")) video.pause(); }

// Files that appear or vanish in the served folders show up: the list is walked anew every few seconds.
export function watchFolders() {
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
}
