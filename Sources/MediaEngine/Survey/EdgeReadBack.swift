import CAV

/// A smart cut's edges must decode as the copied frames around them do. The trial encoder encodes one black
/// frame, FFmpeg's decoder reads it back, and what it reports — bit depth and chroma (the pixel format), range,
/// primaries, transfer, matrix, HDR10's mastering display and light levels — is compared with what the same
/// decoder reports of the source's keyframe: the bitstreams are compared, not the container's tags (which the
/// output keeps for every frame). A decoder does not catch a mismatch (an edge of another transfer or depth
/// decodes without an error), so it is checked here, before anything is written; what differs becomes the
/// fallback's reason. What the source's bitstream leaves unstated, the edge may state (from the container's tags).
enum EdgeReadBack {
    static func mismatch(encoder: Encoder, source: Decoded) -> SmartFallback? {
        do {
            guard let edge = try readBack(encoder).decoded else { return .parameterMismatch(field: "picture", source: "a frame", edge: "none") }
            return compare(edge, source: source)
        } catch {
            return .encoderRefused(encoder: encoder.name, detail: (error as? AVFailure)?.text ?? "\(error)")
        }
    }

    /// What the decoder reports of the source's picture at `keyframe` (nil when it cannot be read there).
    static func sourcePicture(_ input: InputFile, streamIndex: Int, keyframe: VideoPacket) -> Decoded? {
        sourceKeyframe(input, streamIndex: streamIndex, keyframe: keyframe)?.decoded
    }

    /// The source's keyframe sample at `keyframe` and what the decoder reports of its picture (nil when it cannot be
    /// read there).
    static func sourceKeyframe(_ input: InputFile, streamIndex: Int, keyframe: VideoPacket) -> (sample: [UInt8], decoded: Decoded?)? {
        guard let stream = input.stream(streamIndex),
              let pending = try? input.position(at: keyframe, streamIndex: streamIndex), let first = pending.last else { return nil }
        let sample = first.bytes
        guard let decoder = try? Decoder(stream: stream, threads: 1), let frame = try? Frame(), let reader = try? Packet() else {
            return (sample, nil)
        }
        var decoded: Decoded?
        let take: (Frame) -> Void = { frame in if decoded == nil { decoded = Decoded(frame) } }
        try? decoder.decode(first, into: frame, take)
        var read = 0
        while decoded == nil, read < 64, (try? input.read(into: reader)) == .packet {
            guard reader.streamIndex == streamIndex else { continue }
            read += 1
            try? decoder.decode(reader, into: frame, take)
        }
        if decoded == nil { try? decoder.decode(nil, into: frame, take) }
        return (sample, decoded)
    }

    /// What the decoder reports of the edge's frame.
    struct Decoded: Equatable {
        var format: AVPixelFormat
        var range: AVColorRange
        var primaries: AVColorPrimaries
        var transfer: AVColorTransferCharacteristic
        var matrix: AVColorSpace
        var masteringDisplay: Bool
        var lightLevel: Bool
        /// Their values as HDR encoders take them (`HDRMetadata`), where the frame carries them.
        var masteringValues: String?
        var lightValues: String?
        /// The mastering display as SVT-AV1 takes it (derived from the same values: not compared).
        var svtMastering: String?

        init(format: AVPixelFormat, range: AVColorRange, primaries: AVColorPrimaries, transfer: AVColorTransferCharacteristic,
             matrix: AVColorSpace, masteringDisplay: Bool = false, lightLevel: Bool = false) {
            (self.format, self.range, self.primaries, self.transfer, self.matrix) = (format, range, primaries, transfer, matrix)
            (self.masteringDisplay, self.lightLevel) = (masteringDisplay, lightLevel)
        }

        static func == (a: Decoded, b: Decoded) -> Bool {
            a.format == b.format && a.range == b.range && a.primaries == b.primaries && a.transfer == b.transfer
                && a.matrix == b.matrix && a.masteringDisplay == b.masteringDisplay && a.lightLevel == b.lightLevel
                && a.masteringValues == b.masteringValues && a.lightValues == b.lightValues
        }

        init(_ frame: Frame) {
            let shown = frame.pointer.pointee
            format = AVPixelFormat(rawValue: shown.format)
            range = shown.color_range
            primaries = shown.color_primaries
            transfer = shown.color_trc
            matrix = shown.colorspace
            let mastering = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA)
            let light = av_frame_get_side_data(frame.pointer, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL)
            masteringDisplay = mastering != nil
            lightLevel = light != nil
            if let data = mastering?.pointee, let bytes = data.data, data.size >= MemoryLayout<AVMasteringDisplayMetadata>.size {
                let values = UnsafeRawPointer(bytes).loadUnaligned(as: AVMasteringDisplayMetadata.self)
                masteringValues = HDRMetadata.masteringDisplay(values)
                svtMastering = HDRMetadata.svtMasteringDisplay(values)
            }
            if let data = light?.pointee, let bytes = data.data, data.size >= MemoryLayout<AVContentLightMetadata>.size {
                lightValues = HDRMetadata.lightLevel(UnsafeRawPointer(bytes).loadUnaligned(as: AVContentLightMetadata.self))
            }
        }
    }

    /// The trial encoder's one (black) frame as its first packet holds it, and as the decoder reads it back.
    static func readBack(_ encoder: Encoder) throws -> (decoded: Decoded?, firstPacket: [UInt8]?) {
        let context = encoder.codecContext
        // The source's size, from its header: no trial picture larger than vtrim decodes (the planner refuses it).
        guard Int(context.pointee.width) * Int(context.pointee.height) <= Limits.maximumPixels else {
            throw AVFailure(code: CAV_AVERROR_INVALIDDATA, operation: "trial picture size")
        }
        let frame = try Frame()
        frame.pointer.pointee.width = context.pointee.width
        frame.pointer.pointee.height = context.pointee.height
        frame.pointer.pointee.format = context.pointee.pix_fmt.rawValue
        frame.pointer.pointee.color_range = context.pointee.color_range
        frame.pointer.pointee.pts = 0
        var status = av_frame_get_buffer(frame.pointer, 0)
        if status < 0 { throw AVFailure(code: status, operation: "av_frame_get_buffer") }
        status = cav_frame_fill_black(frame.pointer)
        if status < 0 { throw AVFailure(code: status, operation: "av_image_fill_black") }
        try encoder.send(frame)
        try encoder.send(nil)
        guard let parameters = avcodec_parameters_alloc() else { throw AVFailure(code: CAV_AVERROR_ENOMEM, operation: "avcodec_parameters_alloc") }
        var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
        defer { avcodec_parameters_free(&owned) }
        status = avcodec_parameters_from_context(parameters, context)
        if status < 0 { throw AVFailure(code: status, operation: "avcodec_parameters_from_context") }
        let decoder = try Decoder(parameters: parameters, timeBase: context.pointee.time_base, threads: 1)
        let packet = try Packet(), picture = try Frame()
        var decoded: Decoded?
        var firstPacket: [UInt8]?
        func take(_ frame: Frame) { if decoded == nil { decoded = Decoded(frame) } }
        while try encoder.receive(into: packet) {
            if firstPacket == nil { firstPacket = packet.bytes }
            try decoder.decode(packet, into: picture, take)
        }
        try decoder.decode(nil, into: picture, take)
        return (decoded, firstPacket)
    }

    /// The first property the edge does not share with the source's picture (left unstated by the source: anything).
    static func compare(_ edge: Decoded, source: Decoded) -> SmartFallback? {
        func name(_ text: UnsafePointer<CChar>?) -> String { FFmpegText.string(text) ?? "unstated" }
        if edge.format != source.format {
            return .parameterMismatch(field: "pixel format", source: name(av_get_pix_fmt_name(source.format)), edge: name(av_get_pix_fmt_name(edge.format)))
        }
        // Limited range is what an unstated range means.
        func limited(_ range: AVColorRange) -> AVColorRange { range == AVCOL_RANGE_UNSPECIFIED ? AVCOL_RANGE_MPEG : range }
        if limited(edge.range) != limited(source.range) {
            return .parameterMismatch(field: "range", source: name(av_color_range_name(limited(source.range))), edge: name(av_color_range_name(limited(edge.range))))
        }
        if source.primaries != AVCOL_PRI_UNSPECIFIED, edge.primaries != source.primaries {
            return .parameterMismatch(field: "primaries", source: name(av_color_primaries_name(source.primaries)),
                                      edge: name(av_color_primaries_name(edge.primaries)))
        }
        if source.transfer != AVCOL_TRC_UNSPECIFIED, edge.transfer != source.transfer {
            return .parameterMismatch(field: "transfer", source: name(av_color_transfer_name(source.transfer)),
                                      edge: name(av_color_transfer_name(edge.transfer)))
        }
        if source.matrix != AVCOL_SPC_UNSPECIFIED, edge.matrix != source.matrix {
            return .parameterMismatch(field: "matrix", source: name(av_color_space_name(source.matrix)), edge: name(av_color_space_name(edge.matrix)))
        }
        if source.masteringDisplay, !edge.masteringDisplay {
            return .parameterMismatch(field: "mastering display metadata (SEI)", source: "present", edge: "absent")
        }
        if source.lightLevel, !edge.lightLevel {
            return .parameterMismatch(field: "content light level (SEI)", source: "present", edge: "absent")
        }
        if let values = source.masteringValues, let made = edge.masteringValues, values != made {
            return .parameterMismatch(field: "mastering display metadata", source: values, edge: made)
        }
        if let values = source.lightValues, let made = edge.lightValues, values != made {
            return .parameterMismatch(field: "content light level", source: values, edge: made)
        }
        return nil
    }
}
