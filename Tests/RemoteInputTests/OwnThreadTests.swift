import Glibc
import Locking
import Testing

/// `OwnThread`: work on a thread of its own, and on the caller's when no thread can be made (a `Foundation.Thread`
/// that never started left `wait` asleep for ever).
struct OwnThreadTests {
    @Test func workRunsApartAndWaitTakesItsResult() async {
        let caller = pthread_self()
        let works = (0..<8).map { index in OwnThread.start { (index * index, pthread_equal(pthread_self(), caller) != 0) } }
        for (index, work) in works.enumerated() {
            let (value, onCaller) = work.wait()
            #expect(value == index * index)
            #expect(!onCaller)
            #expect(work.ranApart)
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: [EAGAIN, ENOMEM, EPERM])
    func aThreadThatCannotBeMadeRunsTheWorkOnTheCaller(_ failure: Int32) async {
        let caller = pthread_self()
        let work = OwnThread.start(create: { _ in failure }) { pthread_equal(pthread_self(), caller) != 0 }
        #expect(!work.ranApart)
        #expect(work.wait())
    }

    /// The reason a thread could not be made, in words.
    @Test func aFailedStatusReadsAsItsReason() {
        #expect(DetachedThread.reason(EAGAIN) == "Resource temporarily unavailable")
    }
}
