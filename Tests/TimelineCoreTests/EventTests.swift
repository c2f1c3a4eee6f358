import Testing
import TimelineCore

@Suite struct EventTests {
    @Test func initialSelectionIsAnnouncedOnce() async throws {
        var session = TimelineSession(geometry: try demoGeometry())
        #expect(session.announceInitialSelection() == [.changed(startSeconds: 0, endSeconds: 5)])
        #expect(session.announceInitialSelection().isEmpty)
    }

    @Test func dragEmitsDeduplicatedChangesAndOneEnd() async throws {
        var session = TimelineSession(geometry: try demoGeometry())
        _ = session.announceInitialSelection()
        session.beginInteraction()
        var events: [TimelineEvent] = []
        events += session.perform(.moveLeftHandle(toSeconds: 1))
        events += session.perform(.moveLeftHandle(toSeconds: 1))  // same place: no event
        events += session.perform(.moveLeftHandle(toSeconds: 4))  // clamped to 3
        events += session.perform(.moveLeftHandle(toSeconds: 3.5))  // clamped to 3 again: no event
        events += session.perform(.setPlayhead(seconds: 4))  // playhead: never an event
        events += session.endInteraction()
        events += session.endInteraction()  // a flick's second "end": ignored
        #expect(events == [
            .changed(startSeconds: 1, endSeconds: 5),
            .changed(startSeconds: 3, endSeconds: 5),
            .ended(startSeconds: 3, endSeconds: 5),
        ])
    }

    @Test func interactionWithoutChangeStillEndsOnce() async throws {
        var session = TimelineSession(geometry: try demoGeometry())
        session.beginInteraction()
        session.beginInteraction()
        #expect(session.perform(.scroll(toWindowStartSeconds: -1)).isEmpty == false)  // first report
        #expect(session.endInteraction() == [.ended(startSeconds: 0, endSeconds: 5)])
        #expect(session.endInteraction().isEmpty)
    }

    @Test func presetOutsideAnInteractionIsItsOwnInteraction() async throws {
        var session = TimelineSession(geometry: try demoGeometry())
        _ = session.announceInitialSelection()
        let (events, notes) = session.setSelection(startSeconds: 2, endSeconds: 3)
        #expect(notes == [.endExtendedToMinimumLength(requestedLengthSeconds: 1, minimumSeconds: 2, endSeconds: 4)])
        #expect(events == [.changed(startSeconds: 2, endSeconds: 4), .ended(startSeconds: 2, endSeconds: 4)])
        #expect(session.setSelection(startSeconds: 2, endSeconds: 4).events.isEmpty)  // nothing changed
        #expect(session.perform(.setSelection(startSeconds: 0, endSeconds: 1)) == [
            .changed(startSeconds: 0, endSeconds: 2), .ended(startSeconds: 0, endSeconds: 2),
        ])
    }

    @Test func recorderAlone() async {
        var recorder = TimelineEventRecorder()
        #expect(!recorder.isInteracting)
        #expect(recorder.endInteraction(startSeconds: 0, endSeconds: 1).isEmpty)
        recorder.beginInteraction()
        #expect(recorder.record(startSeconds: 0, endSeconds: 1) == [.changed(startSeconds: 0, endSeconds: 1)])
        #expect(recorder.record(startSeconds: 0, endSeconds: 1).isEmpty)
        #expect(recorder.record(startSeconds: 0, endSeconds: 2) == [.changed(startSeconds: 0, endSeconds: 2)])
        #expect(recorder.endInteraction(startSeconds: 0, endSeconds: 2) == [.ended(startSeconds: 0, endSeconds: 2)])
        #expect(!recorder.isInteracting)
    }
}
