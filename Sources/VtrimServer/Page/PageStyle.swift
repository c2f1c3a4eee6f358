extension PageAssets {
    static let style = #"""
:root { --bg: #111418; --panel: #1b2027; --text: #e8ecf1; --dim: #93a0b0; --accent: #f5b400; --mask: rgba(0,0,0,.62); }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--text); font: 14px/1.4 system-ui, sans-serif; }
#bar { position: fixed; top: 0; left: 0; right: 0; height: 44px; display: flex; align-items: center; gap: 16px;
       padding: 0 16px; background: #0b0d10; z-index: 10; }
#bar a { color: var(--text); text-decoration: none; }
.brand { font-weight: 700; letter-spacing: .04em; }
.status { margin-left: auto; color: var(--dim); }
main { position: absolute; top: 44px; left: 0; right: 0; bottom: 0; }
.view { position: absolute; inset: 0; overflow: auto; }
[hidden] { display: none !important; }

/* Library: a banner, then a vertical feed of full-height pages that snap. */
#view-library { overflow: hidden; display: flex; flex-direction: column; }
.banner { position: relative; height: 160px; flex: none; background: #000; }
.banner-track { display: flex; height: 100%; overflow-x: scroll; scroll-snap-type: x mandatory; scrollbar-width: none; }
.banner-track::-webkit-scrollbar { display: none; }
.slide { flex: 0 0 100%; height: 100%; scroll-snap-align: start; position: relative; cursor: pointer; overflow: hidden; }
.slide img { width: 100%; height: 100%; object-fit: cover; opacity: .8; }
.slide .caption { position: absolute; left: 16px; bottom: 12px; font-size: 18px; font-weight: 600; text-shadow: 0 1px 3px #000; }
.banner-arrow { position: absolute; top: 50%; transform: translateY(-50%); background: rgba(0,0,0,.4); color: #fff;
                border: 0; font-size: 28px; width: 36px; height: 48px; cursor: pointer; }
.banner-arrow.left { left: 0; } .banner-arrow.right { right: 0; }
.dots { position: absolute; bottom: 8px; right: 16px; display: flex; gap: 6px; }
.dots span { width: 8px; height: 8px; border-radius: 50%; background: rgba(255,255,255,.35); }
.dots span.on { background: var(--accent); }
.feed { flex: 1; overflow-y: scroll; scroll-snap-type: y mandatory; }
.card { height: 100%; scroll-snap-align: start; display: flex; flex-direction: column; align-items: center;
        justify-content: center; gap: 10px; padding: 12px; border-bottom: 1px solid #222; }
.card video { max-width: 100%; max-height: calc(100% - 150px); background: #000; }
.card .meta { color: var(--dim); }
.card .name { font-size: 16px; font-weight: 600; }
.card .filmstrip { height: 40px; max-width: 100%; }
.card button { padding: 6px 14px; }
.badge { background: #333; color: var(--accent); border-radius: 3px; padding: 1px 6px; margin-left: 6px; font-size: 12px; }
.empty { padding: 32px; color: var(--dim); }

/* Trimmer: the player above the strip (VideoLine's control). */
#view-trim { padding: 12px 16px; }
.trim-top { display: flex; gap: 16px; align-items: flex-start; }
.player-slot { flex: 1; min-height: 200px; background: #000; display: flex; justify-content: center; }
.player-slot video { max-width: 100%; max-height: 52vh; }
.side { width: 260px; }
.side h2 { font-size: 16px; margin: 0 0 8px; word-break: break-all; }
.facts { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0; color: var(--dim); }
.facts dt { color: var(--text); }
.note { margin-top: 10px; color: var(--accent); }
.strip { position: relative; margin-top: 14px; height: 64px; user-select: none; touch-action: none; outline: none; }
.strip-scroll { position: absolute; inset: 0; overflow-x: auto; overflow-y: hidden; scrollbar-width: thin; }
.strip-content { position: relative; height: 100%; }
.strip-content .tile { position: absolute; top: 7px; display: block; }
.strip-content .cell { position: absolute; top: 7px; background: #2a3038; }
.mask { position: absolute; top: 0; bottom: 0; background: var(--mask); pointer-events: none; }
.selection-frame { position: absolute; top: 3px; bottom: 3px; border-top: 3px solid var(--accent); border-bottom: 3px solid var(--accent); pointer-events: none; }
.handle { position: absolute; top: 0; bottom: 0; width: 14px; background: var(--accent); cursor: ew-resize; border-radius: 3px; }
.handle::after { content: ""; position: absolute; left: 5px; top: 22px; width: 4px; height: 20px; border-left: 2px solid #333; border-right: 2px solid #333; }
.playhead { position: absolute; top: -4px; bottom: -4px; width: 2px; background: #fff; pointer-events: none; box-shadow: 0 0 3px #000; }
.labels { position: relative; height: 22px; margin-top: 4px; color: var(--dim); }
.labels .label { position: absolute; }
.labels .duration { left: 50%; transform: translateX(-50%); color: var(--text); }
#label-end { right: 0; }
.controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin-top: 12px; }
.controls input { width: 70px; }
.controls .keys { color: var(--dim); font-size: 12px; }
button, select, input { background: var(--panel); color: var(--text); border: 1px solid #333; border-radius: 4px; padding: 5px 10px; font: inherit; }
button.primary { background: var(--accent); color: #111; border-color: var(--accent); font-weight: 600; }
.selections, .cuts { margin-top: 12px; display: flex; flex-direction: column; gap: 6px; }
.cut { background: var(--panel); border-radius: 4px; padding: 8px 10px; }
.cut .plan { color: var(--dim); font-size: 12px; white-space: pre-wrap; }
.cut progress { width: 200px; vertical-align: middle; }
.cut a { color: var(--accent); }

/* Mini player: docked in a corner, keeps playing while the library is browsed. */
.mini { position: fixed; right: 16px; bottom: 16px; width: 300px; background: #000; border: 1px solid #333;
        border-radius: 6px; overflow: hidden; z-index: 20; box-shadow: 0 4px 20px rgba(0,0,0,.6); }
.mini[hidden] { display: none; }
.mini video { width: 100%; display: block; }
.mini-bar { display: flex; justify-content: space-between; padding: 4px; background: var(--panel); }
"""#
}
