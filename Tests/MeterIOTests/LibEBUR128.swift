import CEBUR128
@testable import MeterCore

/// libebur128, the reference the tests check pulsemeter's loudness against: one state with
/// every channel (`ebur128_init`, roles by `ebur128_set_channel` from `LoudnessChannel`), fed
/// interleaved Float frames (`ebur128_add_frames_float`). Its integrated loudness
/// (`ebur128_loudness_global`), momentary and short-term (`ebur128_loudness_momentary`,
/// `_shortterm`) and true peak (`ebur128_true_peak`) are the references; its loudness range
/// (`ebur128_loudness_range`) follows the 2011 rule (one short-term value a second), which
/// the tests use only to show the difference.
final class LibEBUR128 {
    let channels: Int
    private var state: UnsafeMutablePointer<ebur128_state>?

    /// Every mode the tests ask for: I, S (hence M), LRA and true peak.
    init(rate: Int, channels: Int) {
        self.channels = channels
        let modes = EBUR128_MODE_I.rawValue | EBUR128_MODE_S.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue
        state = ebur128_init(UInt32(channels), UInt(rate), Int32(modes))
        precondition(state != nil, "libebur128 refused \(rate) Hz, \(channels) channels")
        for (c, role) in LoudnessChannel.roles(channels: channels).enumerated() {
            let code: channel = switch role {
            case .left: EBUR128_LEFT
            case .right: EBUR128_RIGHT
            case .center, .other: EBUR128_CENTER
            case .lfe: EBUR128_UNUSED
            case .leftSurround: EBUR128_LEFT_SURROUND
            case .rightSurround: EBUR128_RIGHT_SURROUND
            }
            _ = ebur128_set_channel(state, UInt32(c), Int32(code.rawValue))
        }
    }

    deinit { ebur128_destroy(&state) }

    func add(_ samples: UnsafePointer<Float>, frames: Int) {
        _ = ebur128_add_frames_float(state, samples, frames)
    }

    func add(_ samples: [Float]) {
        samples.withUnsafeBufferPointer { add($0.baseAddress!, frames: samples.count / channels) }
    }

    /// The integrated loudness of several streams' blocks together
    /// (`ebur128_loudness_global_multiple`: an album), LUFS.
    static func integrated(of streams: [LibEBUR128]) -> Double {
        var states = streams.map(\.state)
        return states.withUnsafeMutableBufferPointer { buf in
            floored { ebur128_loudness_global_multiple(buf.baseAddress, buf.count, &$0) }
        }
    }

    /// LUFS, -160 when everything is gated away.
    var integrated: Double { Self.floored { ebur128_loudness_global(state, &$0) } }
    var momentary: Double { Self.floored { ebur128_loudness_momentary(state, &$0) } }
    var shortTerm: Double { Self.floored { ebur128_loudness_shortterm(state, &$0) } }
    /// LU, by the 2011 rule.
    var range2011: Double {
        var out = 0.0
        guard ebur128_loudness_range(state, &out) == EBUR128_SUCCESS.rawValue, out.isFinite else { return 0 }
        return max(0, out)
    }
    /// dBTP per channel.
    var truePeakDb: [Double] {
        (0..<channels).map { c in
            var out = 0.0
            guard ebur128_true_peak(state, UInt32(c), &out) == EBUR128_SUCCESS.rawValue else { return Decibels.floor }
            return Decibels.fromAmplitude(out)
        }
    }

    private static func floored(_ get: (inout Double) -> Int32) -> Double {
        var out = 0.0
        guard get(&out) == EBUR128_SUCCESS.rawValue, out.isFinite else { return Decibels.floor }
        return max(Decibels.floor, out)
    }
}
