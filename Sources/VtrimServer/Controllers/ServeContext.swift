import Hummingbird

/// A request's context: Hummingbird's own, and whether its client is still there (`ClientPresence`), so engine work
/// for a client that left is cancelled.
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let client: ClientPresence?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        client = ClientPresence.of(source.channel) ?? (source.channel.isActive ? nil : ClientPresence.gone)
    }
}
