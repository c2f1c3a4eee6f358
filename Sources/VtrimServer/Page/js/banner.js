import { api, probe } from "./api.js";
import { $ } from "./dom.js";
import { S } from "./state.js";

// The banner: recent clips, auto-advancing, wrapping endlessly both ways. A copy of the last slide sits
// before the first and a copy of the first after the last; landing on a copy jumps (instantly, to the
// same picture) to the slide it copies, so there is never a visible jump.
const banner = { count: 0, index: 1, timer: null, settle: null };

// The banner's clips: the most recent ones that have pictures (probed first; an unreadable or audio-only
// clip is left out, and nothing more is asked of it).
async function bannerClips() {
  // What the listing already knows has no picture is not asked for (an unreadable clip's probe can only fail).
  const recent = (await api("/api/clips?sort=date&order=desc&limit=18")).items.filter((clip) => !clip.unreadable && clip.has_video !== false);
  for (const clip of recent) if (!S.clipById.has(clip.id)) S.clipById.set(clip.id, clip);
  const chosen = [];
  for (let i = 0; i < recent.length && chosen.length < 6 && i < 18; i += 6) {
    const batch = recent.slice(i, i + 6);
    const infos = await Promise.all(batch.map((clip) => probe(clip).catch(() => null)));
    batch.forEach((clip, k) => { if (infos[k] && infos[k].video && chosen.length < 6) chosen.push({ clip, info: infos[k] }); });
  }
  return chosen;
}

let bannerGeneration = 0;
export async function renderBanner() {
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

// After a resize the slide in view must fill the track again (scroll positions are in pixels).
export function realignBanner() { if (banner.count) bannerJump(banner.index); }

export function wireBanner() {
  $("banner-prev").addEventListener("click", () => bannerStep(-1));
  $("banner-next").addEventListener("click", () => bannerStep(1));
}
