@testable import MeterCore
import Testing
import TestSupport

/// ReplayGain 2.0 and RFC 7845 values as the specifications write them, and gates merged into
/// an album's.
@Suite struct ReplayGainTests {
    @Test func gainsAndPeaksAsText() {
        // RG 2.0: -18 LUFS - I, "%.2f dB"; peaks "%.6f" (printf's rounding, no "-0.00").
        #expect(ReplayGain.gainText(ReplayGain.gainDb(integrated: -11.48)) == "-6.52 dB")
        #expect(ReplayGain.gainText(ReplayGain.gainDb(integrated: -21.14159)) == "3.14 dB")
        #expect(ReplayGain.gainText(-0.001) == "0.00 dB")
        #expect(ReplayGain.gainText(-12.345678) == "-12.35 dB")
        #expect(ReplayGain.peakText(0.9885534) == "0.988553")
        #expect(ReplayGain.peakText(1.0000004) == "1.000000")
        #expect(ReplayGain.peakText(0.0000004) == "0.000000")
        #expect(ReplayGain.ratio(db: -6.0205999) > 0.4999999 && ReplayGain.ratio(db: -6.0205999) < 0.5000001)
        #expect(ReplayGain.ratio(db: Decibels.floor) == 0)
    }

    @Test func opusGainsAreQ78OfMinus23() {
        // RFC 7845 5.2.1: round(256 * (-23 - I)), within Int16.
        #expect(ReplayGain.q78(integrated: -21.08) == -492)    // -491.52
        #expect(ReplayGain.q78(integrated: -23) == 0)
        #expect(ReplayGain.q78(integrated: -30.5) == 1920)
        #expect(ReplayGain.q78(integrated: -160) == 32767)     // silence: clamped
        #expect(ReplayGain.q78(integrated: 120) == -32768)
        let t = ReplayGain.tags(track: .init(integrated: -21.08, peak: 0.5), album: .init(integrated: -20, peak: 0.9), opus: true)
        #expect(t.map(\.key) == ["R128_TRACK_GAIN", "R128_ALBUM_GAIN"])
        #expect(t.map(\.value) == ["-492", "-768"])
    }

    @Test func tagsOfATrackAndAnAlbum() {
        let track = ReplayGain.Figures(integrated: -11.48, peak: 0.988553)
        #expect(ReplayGain.tags(track: track, album: nil, opus: false).map { "\($0.key)=\($0.value)" }
                == ["REPLAYGAIN_TRACK_GAIN=-6.52 dB", "REPLAYGAIN_TRACK_PEAK=0.988553"])
        let both = ReplayGain.tags(track: track, album: .init(integrated: -14, peak: 1.02), opus: false)
        #expect(both.map(\.key) == ReplayGain.keys(album: true, opus: false))
        #expect(both.suffix(2).map(\.value) == ["-4.00 dB", "1.020000"])
    }

    /// Merged gates are the gate of all the blocks together: the same as one gate fed every
    /// block (the same blocks in the same bins; the energies summed in another order).
    @Test func mergedGatesAreOneGateOfAllBlocks() {
        var rng = SeededRNG(seed: 7)
        let energies = (0..<3000).map { i -> Double in
            // Three "tracks": loud, quiet, and one mostly under the relative gate.
            let base = i < 1000 ? -14.0 : i < 2000 ? -24.0 : -40.0
            return LoudnessMeter.energy(lufs: base + 3 * rng.signed())
        }
        var all = IntegratedGate()
        for e in energies { all.add(energy: e) }
        var album = IntegratedGate()
        for part in [energies[0..<1000], energies[1000..<2000], energies[2000...]] {
            var g = IntegratedGate()
            for e in part { g.add(energy: e) }
            album.merge(g)
        }
        #expect(album.blocks == all.blocks)
        #expect(abs(album.integratedLufs - all.integratedLufs) < 1e-9)
        // The quiet third is gated away by the loud ones together, though alone it counts.
        var quiet = IntegratedGate()
        for e in energies[2000...] { quiet.add(energy: e) }
        #expect(abs(quiet.integratedLufs - -40) < 1)
        #expect(album.integratedLufs > -21 && album.integratedLufs < -15)
    }
}
