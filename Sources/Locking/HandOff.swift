#if canImport(Glibc)
import Glibc
#endif

/// Values that are not Sendable, handed whole from the thread that made them to one other thread: put in under a
/// pthread mutex, each taken out once under it, by the first `takeAll` whose test its Sendable key passes. The thread
/// that puts a value gives it up (`sending`: the compiler checks it keeps no reference), and the one that takes it owns
/// it alone, so no value is ever reached from two threads. (The scene pass's kept pictures, taken by a smart head's
/// thread.)
///
/// Unchecked Sendable: `entries` is read and written only with `mutex` held, and each value in it is reachable from
/// nowhere else (it came in by `sending` and leaves by `sending`).
public final class HandOff<Key: Sendable, Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var entries: [(key: Key, value: Value)] = []

    public init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func put(_ value: sending Value, key: Key) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        entries.append((key, value))
    }

    /// Every value whose key passes `test`, taken out in the order they were put (`test` runs with the lock held).
    public func takeAll(where test: (Key) -> Bool) -> sending [Value] {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var taken: [Value] = [], kept: [(key: Key, value: Value)] = []
        for entry in entries {
            if test(entry.key) { taken.append(entry.value) } else { kept.append(entry) }
        }
        entries = kept
        // Out of `entries`, reachable from nowhere else: the caller's alone.
        nonisolated(unsafe) let values = taken
        return values
    }
}
