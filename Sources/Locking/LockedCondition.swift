#if canImport(Glibc)
import Glibc
#endif

/// State threads share and wait on: `Locked`'s pthread mutex with a condition variable beside it, so a thread can
/// sleep until another changes the state (a worker slot until a request is queued, an edge until its turn). What
/// `NSCondition` plus `var`s did, with the state only reachable with the mutex held.
///
/// Unchecked Sendable: `value` is read and written only with `mutex` held (inside `withLock` and `wait`); the values
/// it holds are Sendable themselves.
public final class LockedCondition<Value: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        // Timed waits measure the monotonic clock, so a change of the wall clock neither shortens nor stretches them.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held, then wakes every waiter to look at the state again (never call into the same
    /// value inside it: the mutex is not recursive).
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try body(&value)
    }

    /// Sleeps until `ready` holds for the state — or, with `timeoutSeconds`, until that long has passed — then runs
    /// `body` with the lock held and whether `ready` held. The state is checked first, so a change made before the
    /// call is not missed.
    public func wait<Result>(until ready: (Value) -> Bool, timeoutSeconds: Double? = nil,
                             then body: (inout Value, _ ready: Bool) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        let deadline = timeoutSeconds.map(Self.deadline)
        while !ready(value) {
            if let deadline {
                var until = deadline
                if pthread_cond_timedwait(condition, mutex, &until) == ETIMEDOUT { break }
            } else {
                pthread_cond_wait(condition, mutex)
            }
        }
        return body(&value, ready(value))
    }

    /// `seconds` from now on the monotonic clock (a negative, infinite or NaN wait is no wait).
    private static func deadline(_ seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let wait = seconds.isFinite ? min(max(0, seconds), 86_400) : 0
        let whole = Int(wait), nanoseconds = Int((wait - Double(whole)) * 1e9)
        var sum = timespec(tv_sec: now.tv_sec + whole, tv_nsec: now.tv_nsec + nanoseconds)
        if sum.tv_nsec >= 1_000_000_000 {
            sum.tv_sec += 1
            sum.tv_nsec -= 1_000_000_000
        }
        return sum
    }
}
