/// The page `vtrim serve` serves — one app (library, trimmer, mini player), no CDN, no build step — kept
/// as real files beside this one (index.html, app.js, app.css: editors and `node --check` read them) and
/// compiled into the binary by SwiftPM (`embedInCode`), so an installed `vtrim` needs no files beside it.
enum PageAssets {
    static let html = String(decoding: PackageResources.index_html, as: UTF8.self)
    static let script = String(decoding: PackageResources.app_js, as: UTF8.self)
    static let style = String(decoding: PackageResources.app_css, as: UTF8.self)
}
