import CAV
import Foundation

/// Silences in decoded audio: runs of sample positions where every channel is quieter than the threshold, lasting at
/// least the minimum — libavfilter's `silencedetect` rule (mono off). Written here rather than driven through the
/// filter because the filter hands its times out as text of 6 significant digits (`av_ts2timestr`): past 10,000 s
/// (2.8 h, a lecture) its boundaries are rounded to 0.1 s. Here they are exact to the sample, and the loudest sample
/// inside each silence is measured in the same pass.
struct SilenceDetector {
    private let noise: Float
    private let minSeconds: Double
    private(set) var found: [Detection] = []
    /// The run of silent positions now open: where it began (µs), how many positions, the loudest magnitude in it.
    private var runStartMicro: Int64?
    private var runSamples: Int64 = 0
    private var runRate = 0
    private var runPeak: Float = 0
    /// Where the last frame's samples end (µs): a silence still open at the end of the stream ends there.
    private var endMicro: Int64?
    private var magnitudes: [Float] = []

    init(_ query: ContentQuery.Silence) {
        noise = Float(pow(10, query.thresholdDB / 20))
        minSeconds = query.minSeconds
    }

    /// One decoded frame whose first sample is shown at `frameMicro` (vtrim's timeline).
    mutating func take(_ frame: Frame, frameMicro: Int64) {
        let f = frame.pointer.pointee
        let rate = Int(f.sample_rate), count = Int(f.nb_samples), channels = Int(f.ch_layout.nb_channels)
        guard rate > 0, rate <= 1_000_000, count > 0, count <= 1 << 20, (1...64).contains(channels), let data = f.extended_data else { return }
        AudioMagnitudes.loudest(data: data, format: AVSampleFormat(rawValue: f.format), samples: count, channels: channels, into: &magnitudes)
        for index in 0..<count {
            let magnitude = magnitudes[index]
            if magnitude < noise {
                if runStartMicro == nil || runRate != rate {
                    close(atMicro: frameMicro.plus(Int64(index) * 1_000_000 / Int64(rate)))
                    runStartMicro = frameMicro.plus(Int64(index) * 1_000_000 / Int64(rate))
                    runRate = rate
                }
                runSamples += 1
                runPeak = max(runPeak, magnitude)
            } else if runStartMicro != nil {
                close(atMicro: frameMicro.plus(Int64(index) * 1_000_000 / Int64(rate)))
            }
        }
        endMicro = frameMicro.plus(Int64(count) * 1_000_000 / Int64(rate))
    }

    /// The end of the stream: a silence still open lasts to the last sample.
    mutating func finish() {
        if let endMicro { close(atMicro: endMicro) }
    }

    private mutating func close(atMicro end: Int64) {
        defer {
            runStartMicro = nil
            runSamples = 0
            runPeak = 0
        }
        guard let start = runStartMicro, runRate > 0, Double(runSamples) >= minSeconds * Double(runRate), end > start else { return }
        let level = runPeak > 0 ? max(Detection.floorDB, Double(20 * log10(runPeak))) : Detection.floorDB
        found.append(Detection(kind: .silence, startMicro: start, endMicro: end, measure: (level * 10).rounded() / 10))
    }
}

/// Per sample position, the loudest channel's magnitude (0…1 of full scale), in the decoder's own layout (planar or
/// packed, integer or float): no resampler is involved.
enum AudioMagnitudes {
    static func loudest(data: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, format: AVSampleFormat, samples: Int, channels: Int,
                        into result: inout [Float]) {
        if result.count < samples { result = [Float](repeating: 0, count: samples) }
        let planar = av_sample_fmt_is_planar(format) != 0
        result.withUnsafeMutableBufferPointer { out in
            for index in 0..<samples { out[index] = 0 }
            for channel in 0..<channels {
                guard let plane = planar ? data[channel] : data[0] else { continue }
                let raw = UnsafeRawPointer(plane)
                let step = planar ? 1 : channels, first = planar ? 0 : channel
                switch format {
                case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP:
                    let values = raw.assumingMemoryBound(to: Float.self)
                    for index in 0..<samples {
                        // NaN and infinity are loud, as silencedetect's comparisons make them.
                        let value = abs(values[first + index * step])
                        let magnitude: Float = value.isFinite ? min(1, value) : 1
                        if magnitude > out[index] { out[index] = magnitude }
                    }
                case AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP:
                    let values = raw.assumingMemoryBound(to: Double.self)
                    for index in 0..<samples {
                        let value = abs(values[first + index * step])
                        let magnitude: Float = value.isFinite ? Float(min(1, value)) : 1
                        if magnitude > out[index] { out[index] = magnitude }
                    }
                case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P:
                    let values = raw.assumingMemoryBound(to: Int16.self)
                    for index in 0..<samples {
                        let value = Float(abs(Int32(values[first + index * step]))) / 32767
                        if value > out[index] { out[index] = min(1, value) }
                    }
                case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
                    let values = raw.assumingMemoryBound(to: Int32.self)
                    for index in 0..<samples {
                        let value = Float(abs(Int64(values[first + index * step]))) / 2_147_483_647
                        if value > out[index] { out[index] = min(1, value) }
                    }
                case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P:
                    let values = raw.assumingMemoryBound(to: UInt8.self)
                    for index in 0..<samples {
                        let value = Float(abs(Int(values[first + index * step]) - 128)) / 128
                        if value > out[index] { out[index] = value }
                    }
                default:
                    // A layout no decoder here gives: loud, so it is never taken for silence.
                    for index in 0..<samples { out[index] = 1 }
                }
            }
        }
    }
}
