/// The page `vtrim serve` serves: one app (library, trimmer, mini player), no CDN, no build step; compiled
/// into the binary so an installed `vtrim` needs no files beside it.
enum PageAssets {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vtrim</title>
<link rel="stylesheet" href="/app.css">
</head>
<body>
<header id="bar">
  <a href="#/library" id="nav-library" class="brand">vtrim</a>
  <nav><a href="#/library" id="nav-clips">Clips</a></nav>
  <span id="status" class="status" aria-live="polite"></span>
</header>

<main>
  <section id="view-library" class="view">
    <div id="banner" class="banner" aria-roledescription="carousel">
      <div id="banner-track" class="banner-track"></div>
      <button id="banner-prev" class="banner-arrow left" aria-label="previous">‹</button>
      <button id="banner-next" class="banner-arrow right" aria-label="next">›</button>
      <div id="banner-dots" class="dots"></div>
    </div>
    <div id="feed" class="feed"></div>
    <p id="empty" class="empty" hidden>No media files in the served folders.</p>
  </section>

  <section id="view-trim" class="view" hidden>
    <div class="trim-top">
      <div id="player-slot" class="player-slot"></div>
      <aside class="side">
        <h2 id="trim-title"></h2>
        <dl id="trim-facts" class="facts"></dl>
        <div id="preview-note" class="note" hidden></div>
      </aside>
    </div>
    <div id="strip" class="strip" tabindex="0" aria-label="timeline">
      <div id="strip-scroll" class="strip-scroll"><div id="strip-content" class="strip-content"></div></div>
      <div id="mask-left" class="mask"></div>
      <div id="mask-right" class="mask"></div>
      <div id="selection-frame" class="selection-frame"></div>
      <div id="handle-left" class="handle left" role="slider" aria-label="start"></div>
      <div id="handle-right" class="handle right" role="slider" aria-label="end"></div>
      <div id="playhead" class="playhead"></div>
    </div>
    <div class="labels">
      <span id="label-start" class="label"></span>
      <span id="label-duration" class="label duration"></span>
      <span id="label-end" class="label"></span>
    </div>
    <div class="controls">
      <label>min <input id="min-duration" type="number" min="0" step="0.1" placeholder="2"></label>
      <label>max <input id="max-duration" type="number" min="0" step="0.1" placeholder="clip"></label>
      <select id="cut-mode" aria-label="mode">
        <option value="copy">copy</option>
        <option value="smart">smart</option>
        <option value="exact">exact</option>
      </select>
      <button id="cut-button" class="primary">Cut</button>
      <button id="add-button">Add to list</button>
      <button id="export-button">Export list</button>
      <button id="dock-button">Mini player</button>
      <span class="keys">space play · I/O in/out · ←/→ frame · J/L −/+1 s · K pause</span>
    </div>
    <div id="selections" class="selections"></div>
    <div id="cuts" class="cuts"></div>
  </section>
</main>

<div id="mini" class="mini" hidden>
  <div id="mini-slot" class="mini-slot"></div>
  <div class="mini-bar">
    <button id="mini-restore">Open trimmer</button>
    <button id="mini-close" aria-label="close">×</button>
  </div>
</div>

<script src="/app.js"></script>
</body>
</html>
"""#
}
