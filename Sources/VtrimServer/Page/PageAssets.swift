/// The page `vtrim serve` serves — one app (library, trimmer, mini player), no CDN, no build step — kept
/// as real files beside this one (index.html, app.css, and the ES modules of js/, which index.html loads
/// from js/main.js: editors and `scripts/page-check.js` read them) and compiled into the binary by SwiftPM
/// (`embedInCode`), so an installed `vtrim` needs no files beside it.
enum PageAssets {
    static let html = String(decoding: PackageResources.index_html, as: UTF8.self)
    static let style = String(decoding: PackageResources.app_css, as: UTF8.self)
    /// The modules by file name ("main.js"), as `/js/<name>` serves them.
    static let modules: [String: String] = [
        "api.js": String(decoding: PackageResources.api_js, as: UTF8.self),
        "banner.js": String(decoding: PackageResources.banner_js, as: UTF8.self),
        "controls.js": String(decoding: PackageResources.controls_js, as: UTF8.self),
        "cutlist.js": String(decoding: PackageResources.cutlist_js, as: UTF8.self),
        "cuts.js": String(decoding: PackageResources.cuts_js, as: UTF8.self),
        "dom.js": String(decoding: PackageResources.dom_js, as: UTF8.self),
        "format.js": String(decoding: PackageResources.format_js, as: UTF8.self),
        "library.js": String(decoding: PackageResources.library_js, as: UTF8.self),
        "lists.js": String(decoding: PackageResources.lists_js, as: UTF8.self),
        "main.js": String(decoding: PackageResources.main_js, as: UTF8.self),
        "playback.js": String(decoding: PackageResources.playback_js, as: UTF8.self),
        "plan.js": String(decoding: PackageResources.plan_js, as: UTF8.self),
        "player.js": String(decoding: PackageResources.player_js, as: UTF8.self),
        "ranges.js": String(decoding: PackageResources.ranges_js, as: UTF8.self),
        "state.js": String(decoding: PackageResources.state_js, as: UTF8.self),
        "timeline.js": String(decoding: PackageResources.timeline_js, as: UTF8.self),
        "trimmer.js": String(decoding: PackageResources.trimmer_js, as: UTF8.self),
    ]
}
