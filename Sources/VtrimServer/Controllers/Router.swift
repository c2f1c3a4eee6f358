import Hummingbird

/// The HTTP API (DESIGN.md) by resource, one controller each: the page, clips (probe, timeline, strip tiles,
/// frames, previews), media (files with Range), cuts and cut lists. Everything the engine does on a file runs in a
/// worker process (`WorkerPool`); a route validates its request beside itself and only waits for the answer.
enum APIRoutes {
    static func register(_ server: Server, on router: Router<ServeContext>) {
        PageController.register(on: router)
        ClipsController(server: server).register(on: router)
        MediaController(server: server).register(on: router)
        CutsController(server: server).register(on: router)
        ListsController(server: server).register(on: router)
    }
}
