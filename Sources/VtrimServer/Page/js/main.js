// vtrim serve's page. The selection's rules (min/max length, the window, the clip's ends) are never
// computed here: every slider drag and scroll is sent to the server, which replays the operations through
// TimelineCore — the same code as `vtrim timeline --op …` — so the page can never disagree with it.
// The entry (index.html loads it; it imports the rest): the playhead loop, then each module's listeners,
// then the view the address names.
import { api } from "./api.js";
import { realignBanner, wireBanner } from "./banner.js";
import { wireControls } from "./controls.js";
import { showLibraryCuts } from "./cutlist.js";
import { wireCuts } from "./cuts.js";
import { $, status } from "./dom.js";
import { loadLibrary, onCardVisibility, pauseFeed, watchFolders, wireLibrary } from "./library.js";
import { wireLists } from "./lists.js";
import { player, wireMiniPlayer } from "./player.js";
import { wireRanges } from "./ranges.js";
import { S } from "./state.js";
import { refreshTimeline } from "./timeline.js";
import { openTrimmer, tick } from "./trimmer.js";

// Views: one app, no reloads (#/library, #/trim/<id>, #/cuts).

function showView(name) {
  for (const view of ["library", "trim", "cuts"]) $("view-" + view).hidden = view !== name;
}

async function route() {
  const match = location.hash.match(/^#\/trim\/([0-9a-f]{16})$/);
  if (location.hash === "#/cuts") {
    showView("cuts");
    pauseFeed();
    if (!S.docked && !player.paused) player.pause();
    await showLibraryCuts();
  } else if (match) {
    showView("trim");
    pauseFeed();
    // A clip the list has not loaded (an address opened directly): its probe names it.
    let clip = S.clipById.get(match[1]);
    if (!clip) {
      const info = await api("/api/clips/" + match[1]).catch(() => null);
      if (!info) { status("no such clip"); return; }
      clip = { id: info.id, path: info.name, name: info.name.split("/").pop(), size: info.size, cuts: [] };
      S.clipById.set(clip.id, clip);
    }
    await openTrimmer(clip);
  } else {
    showView("library");
    if (!S.docked && !player.paused) player.pause();
    if (!S.library.loaded) { S.library.loaded = true; await loadLibrary(); }
    else onCardVisibility([]);
  }
}

requestAnimationFrame(tick);
wireControls();
wireCuts();
wireRanges();
wireLists();
wireMiniPlayer();
watchFolders();
wireBanner();
wireLibrary();
window.addEventListener("hashchange", () => route().catch((e) => status(e.message)));
window.addEventListener("resize", () => { if (S.current && !$("view-trim").hidden) refreshTimeline(); realignBanner(); });
if (!location.hash) history.replaceState(null, "", "#/library");
route().catch((e) => status(e.message));
