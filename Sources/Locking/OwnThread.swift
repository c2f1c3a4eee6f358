#if canImport(Glibc)
import Glibc
#endif

/// Work begun on a thread of its own while the caller goes on; `wait` takes its result. For work that blocks (network
/// fetches): Dispatch's global pool runs as many as there are cores and adds a thread only after blocked ones have
/// held it a while — measured: two tracks' fetches on it took 1.1 s instead of 0.05 s on 2 cores.
///
/// A pthread, not Foundation's `Thread`: `Thread.start` cannot say that the thread was never made (out of threads or
/// memory), and `wait` would then sleep for ever. When `pthread_create` fails, the work runs on the caller's thread,
/// there and then: the same result, later.
public final class OwnThread<Value: Sendable>: Sendable {
    private let result: LockedCondition<Value?>
    /// Whether the work had a thread of its own (false: `pthread_create` failed and it ran on the caller's).
    public let ranApart: Bool

    /// `create`: how the thread is made (`pthread_create`'s status); tests pass one that fails.
    public static func start(create: (@escaping @Sendable () -> Void) -> Int32 = DetachedThread.create,
                             _ body: @escaping @Sendable () -> Value) -> OwnThread {
        let result = LockedCondition<Value?>(nil)
        let run: @Sendable () -> Void = {
            let value = body()
            result.withLock { $0 = value }
        }
        let status = create(run)
        let work = OwnThread(ranApart: status == 0, result: result)
        if status != 0 { run() }
        return work
    }

    private init(ranApart: Bool, result: LockedCondition<Value?>) {
        self.ranApart = ranApart
        self.result = result
    }

    /// Sleeps until the work is done; its result.
    public func wait() -> Value {
        while true {
            // `wait` without a timeout returns once the value is there: the loop runs once.
            if let value = result.wait(until: { $0 != nil }, then: { value, _ in value }) { return value }
        }
    }
}

/// A thread that is never joined.
public enum DetachedThread {
    /// A detached pthread running `body`; `pthread_create`'s status (0: started).
    public static func create(_ body: @escaping @Sendable () -> Void) -> Int32 {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box)
        if status == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Body>.fromOpaque(box).release()
        }
        return status
    }

    /// Why a thread could not be made: `pthread_create`'s status in words ("Resource temporarily unavailable").
    public static func reason(_ status: Int32) -> String {
        String(cString: strerror(status))
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
