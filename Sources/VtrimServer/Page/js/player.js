import { $ } from "./dom.js";
import { attach } from "./playback.js";
import { S } from "./state.js";

// The trimmer's player, and the mini player it moves into.

// One player per kind: a video element, and an audio element for clips without pictures.
const videoPlayer = document.createElement("video");
videoPlayer.id = "player";
videoPlayer.controls = true;
videoPlayer.playsInline = true;
const audioPlayer = document.createElement("audio");
audioPlayer.id = "audio-player";
audioPlayer.controls = true;
// The one the current clip uses; assigned only here (importers see each new value).
export let player = videoPlayer;

// A clip's own player in the trimmer's slot, its media attached (once per clip).
export async function attachPlayer(clip) {
  if (S.playerClip === clip.id) return;
  S.playerClip = clip.id;
  const audioOnly = !S.current.info.video;
  player = audioOnly ? audioPlayer : videoPlayer;
  $("player-slot").textContent = "";
  $("player-slot").append(player);
  await attach(player, clip);
}

// The previous clip's media let go of: nothing plays or loads from it any more.
export function emptyPlayers() {
  for (const element of [videoPlayer, audioPlayer]) { element.pause(); element.removeAttribute("src"); delete element.dataset.clip; }
  S.playerClip = null;
}

// Mini player: the trimmer's own video element moves into a corner and keeps playing from the same time
// while the library is browsed; opening it moves it back, with the same selection.

function dock() {
  if (!S.current) return;
  S.docked = true;
  $("mini-slot").append(player);
  $("mini").hidden = false;
  location.hash = "#/library";
}

export function undock(navigate) {
  S.docked = false;
  $("mini").hidden = true;
  if (navigate && S.current) location.hash = "#/trim/" + S.current.id;
  else $("player-slot").append(player);
}

export function wireMiniPlayer() {
  $("dock-button").addEventListener("click", dock);
  $("mini-restore").addEventListener("click", () => undock(true));
  $("mini-close").addEventListener("click", () => { player.pause(); undock(false); });
}
