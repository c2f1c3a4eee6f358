import { api, probe } from "./api.js";
import { $ } from "./dom.js";
import { S } from "./state.js";

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
  let state = await api("/api/clips/" + clip.id + "/preview", { json: {} });
  watchPreview(clip);
  // The source is set once the preview's file exists: a GET before it waits, and answers 503 after 10 s.
  while (state.status === "running" && !state.has_bytes) {
    await new Promise((r) => setTimeout(r, 250));
    if (video.dataset.preview !== clip.id) return;
    state = await api("/api/clips/" + clip.id + "/preview");
  }
  if (video.dataset.preview !== clip.id || state.status === "failed") return;
  video.src = state.url;
  video.dataset.source = "preview";
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

export async function attach(video, clip) {
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
