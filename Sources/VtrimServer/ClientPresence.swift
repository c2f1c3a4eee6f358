import Locking
import NIOCore
import Synchronization

/// Whether the HTTP client of one connection is still there. Hummingbird lets a handler run on after its client has
/// gone (it allows half-closure, so a connection whose client closed stays active), and a tile, probe or frame list
/// nobody will read only holds a worker another request waits for: `Server.engine` cancels its request when this says
/// the client left.
final class ClientPresence: Sendable {
    private let left = Atomic<Bool>(false)

    var hasLeft: Bool { left.load(ordering: .acquiring) }

    fileprivate func markLeft() { left.store(true, ordering: .releasing) }

    /// The presence of a connection that ended before its request's context was made.
    static var gone: ClientPresence {
        let presence = ClientPresence()
        presence.markLeft()
        return presence
    }

    /// Each open connection's presence, by its channel: set by the connection's `ClientPresenceHandler` before its
    /// first request is read, taken by each request's context (`ServeContext`), dropped when the connection ends.
    private static let byChannel = Locked<[ObjectIdentifier: ClientPresence]>([:])

    static func of(_ channel: any Channel) -> ClientPresence? {
        byChannel.withLock { $0[ObjectIdentifier(channel)] }
    }

    fileprivate static func register(_ presence: ClientPresence, for channel: any Channel) {
        byChannel.withLock { $0[ObjectIdentifier(channel)] = presence }
    }

    fileprivate static func forget(_ channel: any Channel) {
        _ = byChannel.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// In every connection's pipeline (after HTTP decoding): notes the client's leaving — its side closed (`inputClosed`)
/// or the connection gone — on the connection's `ClientPresence`. Passes everything on unchanged.
final class ClientPresenceHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let presence = ClientPresence()

    func handlerAdded(context: ChannelHandlerContext) {
        ClientPresence.register(presence, for: context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ClientPresence.forget(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { presence.markLeft() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        presence.markLeft()
        ClientPresence.forget(context.channel)
        context.fireChannelInactive()
    }
}
