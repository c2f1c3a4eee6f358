import Hummingbird

/// The page: its HTML, style sheet and script modules, compiled into the binary (`PageAssets`).
enum PageController {
    static func register(on router: Router<ServeContext>) {
        router.get("/") { _, _ in asset(PageAssets.html, type: "text/html; charset=utf-8") }
        router.get("/app.css") { _, _ in asset(PageAssets.style, type: "text/css; charset=utf-8") }
        // The tab's icon, named by index.html (without it the browser asks for /favicon.ico and logs a 404).
        router.get("/favicon.svg") { _, _ in asset(icon, type: "image/svg+xml") }
        router.get("/js/:name") { _, context in
            guard let script = PageAssets.modules[try context.parameters.require("name")] else { return API.notFound("no such script") }
            return asset(script, type: "text/javascript; charset=utf-8")
        }
    }

    /// A frame of film in the page's accent colour.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="1" y="3" width="14" height="10" rx="2" fill="#f5b400"/>\
        <path d="M4 3v10M12 3v10" stroke="#111418" stroke-width="1.5"/></svg>
        """

    static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache",
                                        .contentSecurityPolicy: "default-src 'self'; img-src 'self' blob:; media-src 'self' blob:"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
