import DiskNames
import Testing
import TimelineCore
@testable import VtrimKit

struct ThumbnailTrackTests {
    @Test(arguments: [(0.0, "00:00:00.000"), (1.2345, "00:00:01.235"), (59.9996, "00:01:00.000"), (3661.5, "01:01:01.500"),
                      (360_000.0, "100:00:00.000"), (-1.0, "00:00:00.000"), (Double.nan, "00:00:00.000")])
    func timestamps(_ seconds: Double, _ text: String) async {
        #expect(TimeFormatting.webVTT(seconds: seconds) == text)
    }

    @Test func cuesShareTheirBoundariesAndEscapeTheSheetName() async {
        let text = ThumbnailTrack.text(cues: [
            .init(startSeconds: 0, endSeconds: 1.0 / 3, x: 0, y: 0, width: 160, height: 90),
            .init(startSeconds: 1.0 / 3, endSeconds: 2.0 / 3, x: 160, y: 0, width: 160, height: 90),
        ], sheet: "a #1?.jpg")
        #expect(text == """
        WEBVTT

        1
        00:00:00.000 --> 00:00:00.333
        a%20%231%3F.jpg#xywh=0,0,160,90

        2
        00:00:00.333 --> 00:00:00.667
        a%20%231%3F.jpg#xywh=160,0,160,90

        """)
    }

    /// A sheet named with bytes that are not UTF-8 (`caf\xe9.thumbs.jpg`) is referred to by those bytes; "é" by its UTF-8.
    @Test func aSheetNameIsPercentEncodedFromItsBytes() async {
        let cue = ThumbnailTrack.Cue(startSeconds: 0, endSeconds: 1, x: 0, y: 0, width: 160, height: 90)
        let latin1 = DiskName.string(bytes: Array("caf".utf8) + [0xE9] + Array(" 1.jpg".utf8))
        #expect(ThumbnailTrack.text(cues: [cue], sheet: latin1).contains("\ncaf%E9%201.jpg#xywh="))
        #expect(ThumbnailTrack.text(cues: [cue], sheet: "café 1.jpg").contains("\ncaf%C3%A9%201.jpg#xywh="))
    }
}
