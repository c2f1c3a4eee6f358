#if canImport(Glibc)
import Glibc
#endif

/// State that threads share, behind a pthread mutex. Swift's `Mutex` would say the same, but on Linux it is built
/// on futexes ThreadSanitizer cannot see, so every use of it reads there as a race; a pthread mutex ThreadSanitizer
/// intercepts, so `scripts/thread-sanitizer` checks what the compiler cannot.
///
/// Unchecked Sendable: `value` is read and written only inside `withLock`, with `mutex` held; the values it holds
/// are Sendable themselves.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held (never call `withLock` of the same value inside it: the mutex is not recursive).
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
