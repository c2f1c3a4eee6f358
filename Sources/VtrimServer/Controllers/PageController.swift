import Hummingbird

/// The page: its HTML, style sheet and script modules, compiled into the binary (`PageAssets`).
enum PageController {
    static func register(on router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in asset(PageAssets.html, type: "text/html; charset=utf-8") }
        router.get("/app.css") { _, _ in asset(PageAssets.style, type: "text/css; charset=utf-8") }
        router.get("/js/:name") { _, context in
            guard let script = PageAssets.modules[try context.parameters.require("name")] else { return API.notFound("no such script") }
            return asset(script, type: "text/javascript; charset=utf-8")
        }
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache",
                                        .contentSecurityPolicy: "default-src 'self'; img-src 'self' blob:; media-src 'self' blob:"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
