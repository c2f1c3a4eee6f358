import Foundation
@testable import RemoteInput
import Testing

/// DASH manifests as FFmpeg 5.1's dash muxer writes them (SegmentTemplate with a SegmentTimeline; with a fixed
/// duration), SegmentList and SegmentBase with a `sidx`, template values and ISO durations.
@Suite struct DASHTests {
    static let timeline = #"""
    <?xml version="1.0" encoding="utf-8"?>
    <MPD xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    	xmlns="urn:mpeg:dash:schema:mpd:2011"
    	xmlns:xlink="http://www.w3.org/1999/xlink"
    	xsi:schemaLocation="urn:mpeg:DASH:schema:MPD:2011 http://standards.iso.org/ittf/PubliclyAvailableStandards/MPEG-DASH_schema_files/DASH-MPD.xsd"
    	profiles="urn:mpeg:dash:profile:isoff-live:2011"
    	type="static"
    	mediaPresentationDuration="PT1M0.0S"
    	maxSegmentDuration="PT6.0S"
    	minBufferTime="PT12.0S">
    	<ProgramInformation>
    	</ProgramInformation>
    	<ServiceDescription id="0">
    	</ServiceDescription>
    	<Period id="0" start="PT0.0S">
    		<AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true" frameRate="30/1" maxWidth="320" maxHeight="180" par="16:9" lang="und">
    			<Representation id="0" mimeType="video/mp4" codecs="avc1.64000d" bandwidth="268968" width="320" height="180" sar="1:1">
    				<SegmentTemplate timescale="15360" initialization="init-$RepresentationID$.m4s" media="chunk-$RepresentationID$-$Number%05d$.m4s" startNumber="1">
    					<SegmentTimeline>
    						<S t="0" d="92160" r="9" />
    					</SegmentTimeline>
    				</SegmentTemplate>
    			</Representation>
    		</AdaptationSet>
    		<AdaptationSet id="1" contentType="audio" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true" lang="und">
    			<Representation id="1" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="64318" audioSamplingRate="48000">
    				<AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="1" />
    				<SegmentTemplate timescale="48000" initialization="init-$RepresentationID$.m4s" media="chunk-$RepresentationID$-$Number%05d$.m4s" startNumber="1">
    					<SegmentTimeline>
    						<S t="0" d="285696" />
    						<S d="287744" r="2" />
    						<S d="288768" />
    						<S d="287744" r="2" />
    						<S d="288768" r="1" />
    						<S d="1536" />
    					</SegmentTimeline>
    				</SegmentTemplate>
    			</Representation>
    		</AdaptationSet>
    	</Period>
    </MPD>

    """#

    @Test func segmentTimelineManifest() throws {
        let mpd = try MPDParser.parse(Data(Self.timeline.utf8))
        #expect(!mpd.isDynamic && mpd.durationSeconds == 60 && mpd.periods.count == 1)
        let sets = mpd.periods[0].adaptationSets
        #expect(sets.map(DASHStream.kind) == ["video", "audio"])
        let video = sets[0].representations[0]
        #expect(video.id == "0" && video.width == 320 && video.height == 180 && video.bandwidth == 268_968)
        #expect(video.addressing.timeline == [MPD.TimelineEntry(start: 0, duration: 92_160, repeats: 9)])
        let url = try #require(RemoteURL("http://h/dash/manifest.mpd"))
        let listed = try DASHSegments.template(video.addressing.over(sets[0].addressing), representation: video, durationSeconds: 60, manifest: url)
        #expect(listed.playlist.segments.count == 10 && listed.playlist.segmentStartsSeconds[5] == 30)
        #expect(listed.segmentReferences.first == "chunk-0-00001.m4s" && listed.segmentReferences.last == "chunk-0-00010.m4s")
        #expect(listed.initReference == "init-0.m4s")
        let audio = sets[1].representations[0]
        let sound = try DASHSegments.template(audio.addressing, representation: audio, durationSeconds: 60, manifest: url)
        #expect(sound.playlist.segments.count == 11)
        #expect(abs(sound.playlist.durationSeconds - 60) < 1e-9)
    }

    @Test func fixedDurationTemplateCoversThePeriod() throws {
        var addressing = MPD.Addressing()
        addressing.isTemplate = true
        addressing.media = "seg-$Number$-$Bandwidth$.m4s"
        addressing.timescale = 1000
        addressing.duration = 4000
        addressing.startNumber = 7
        let representation = MPD.Representation(id: "v", bandwidth: 500, width: 1, height: 1, codecs: nil, mimeType: nil, baseURL: nil, addressing: addressing)
        let url = try #require(RemoteURL("http://h/m.mpd"))
        let listed = try DASHSegments.template(addressing, representation: representation, durationSeconds: 10, manifest: url)
        #expect(listed.segmentReferences == ["seg-7-500.m4s", "seg-8-500.m4s", "seg-9-500.m4s"])
        #expect(listed.playlist.segments.map(\.durationSeconds) == [4, 4, 2])
        #expect(!listed.hasInit)
    }

    @Test(arguments: [("PT1M0.0S", 60.0), ("PT0.5S", 0.5), ("P1DT2H", 93_600.0), ("PT1H2M3.25S", 3723.25), ("PT10S", 10.0)])
    func isoDurations(text: String, seconds: Double) {
        #expect(MPDParser.seconds(isoDuration: text) == seconds)
    }

    @Test func badDurationsAndTemplates() {
        for bad in ["", "1M", "PT", "PTxS", "PT1X", "P1H", "PT1e400S"] { #expect(MPDParser.seconds(isoDuration: bad) == nil || bad == "PT", "\(bad)") }
        let values = TemplateValues(representation: "a", number: 42, time: 9_000, bandwidth: 1)
        #expect(values.fill("$RepresentationID$/$Number%05d$-$Time$$$.m4s") == "a/00042-9000$.m4s")
        #expect(values.fill("$Number%099d$|$Unknown$|$open") == "42|$Unknown$|$open")
    }

    @Test func segmentListAndByteRanges() throws {
        let text = #"""
        <MPD type="static" mediaPresentationDuration="PT12S"><Period><AdaptationSet mimeType="video/mp4">
        <Representation id="1" bandwidth="1000" width="64" height="36"><BaseURL>media.mp4</BaseURL>
        <SegmentList timescale="1000" duration="6000"><Initialization range="0-811"/>
        <SegmentURL mediaRange="812-1811"/><SegmentURL mediaRange="1812-3811"/></SegmentList>
        </Representation></AdaptationSet></Period></MPD>
        """#
        let mpd = try MPDParser.parse(Data(text.utf8))
        let representation = mpd.periods[0].adaptationSets[0].representations[0]
        #expect(representation.baseURL == "media.mp4")
        let url = try #require(RemoteURL("http://h/m.mpd"))
        let listed = try DASHSegments.list(representation.addressing, manifest: url)
        #expect(listed.playlist.segments.map(\.byteRange) == [ByteRange(offset: 812, length: 1000), ByteRange(offset: 1812, length: 2000)])
        #expect(listed.playlist.initSections == [.init(uri: "", byteRange: ByteRange(offset: 0, length: 812))])
        #expect(listed.segmentReferences == [nil, nil] && listed.hasInit)
    }

    @Test func segmentIndexBox() {
        // sidx v0: reference_ID 1, timescale 1000, earliest 0, first_offset 0, two references.
        var box: [UInt8] = [0, 0, 0, 52] + Array("sidx".utf8) + [0, 0, 0, 0] + [0, 0, 0, 1] + [0, 0, 0x03, 0xE8] + [0, 0, 0, 0] + [0, 0, 0, 0]
        box += [0, 0, 0, 2]
        box += [0, 0, 0x03, 0xE8] + [0, 0, 0x17, 0x70] + [0x90, 0, 0, 0]
        box += [0, 0, 0x07, 0xD0] + [0, 0, 0x0B, 0xB8] + [0x90, 0, 0, 0]
        let index = SegmentIndex.parse(box, at: 900)
        #expect(index?.timescale == 1000)
        #expect(index?.references == [.init(range: ByteRange(offset: 952, length: 1000), duration: 6000),
                                      .init(range: ByteRange(offset: 1952, length: 2000), duration: 3000)])
        var hierarchical = box
        hierarchical[32] |= 0x80
        #expect(SegmentIndex.parse(hierarchical, at: 0) == nil)
        #expect(SegmentIndex.parse(Array(box.prefix(30)), at: 0) == nil && SegmentIndex.parse([], at: 0) == nil)
    }

    @Test func refusedManifests() {
        for text in ["<MPD/>", "not xml", "<MPD><Period><AdaptationSet><Representation id=\"1\"><SegmentTemplate timescale=\"0\"/></Representation></AdaptationSet></Period></MPD>",
                     "<MPD><Period><AdaptationSet><SegmentTemplate><SegmentTimeline><S d=\"5\" r=\"-1\"/></SegmentTimeline></SegmentTemplate></AdaptationSet></Period></MPD>"] {
            #expect(throws: MPDParser.Failure.self) { try MPDParser.parse(Data(text.utf8)) }
        }
    }
}
