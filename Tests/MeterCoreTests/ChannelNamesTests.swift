import MeterCore
import Testing

@Suite("channel names and their short labels")
struct ChannelNamesTests {
    @Test("5.1 as PulseAudio's null sink orders it, and as WAVE does: L R C LFE Ls Rs by position, not by index")
    func fivePointOne() {
        let pulse = ["front-left", "front-right", "rear-left", "rear-right", "front-center", "lfe"]
        #expect(ChannelNames.labels(pulse) == ["L", "R", "Ls", "Rs", "C", "LFE"])
        #expect(ChannelNames.labels(ChannelNames.waveDefault(channels: 6)) == ["L", "R", "C", "LFE", "Ls", "Rs"])
        let side = ["front-left", "front-right", "front-center", "lfe", "side-left", "side-right"]
        #expect(ChannelNames.labels(side) == ["L", "R", "C", "LFE", "Ls", "Rs"])
    }

    @Test("7.1 has side and rear pairs: the sides are Ls/Rs, the rears Lb/Rb, no label twice")
    func sevenPointOne() {
        let names = ["front-left", "front-right", "front-center", "lfe", "rear-left", "rear-right", "side-left", "side-right"]
        let labels = ChannelNames.labels(names)
        #expect(labels == ["L", "R", "C", "LFE", "Lb", "Rb", "Ls", "Rs"])
        #expect(Set(labels).count == labels.count)
    }

    @Test("auxiliary channels (a pro-audio device) read A0, A1, ... up to A31; mono M")
    func auxAndMono() {
        let aux = (0..<32).map { "aux\($0)" }
        #expect(ChannelNames.labels(aux) == (0..<32).map { "A\($0)" })
        #expect(ChannelNames.labels(["mono"]) == ["M"])
        #expect(ChannelNames.labels(["top-front-left", "top-front-right", "front-left-of-center", "rear-center"])
                == ["Tfl", "Tfr", "Lc", "Cs"])
    }

    @Test("an unknown position, or one that repeats, reads as the channel's number")
    func fallbacks() {
        #expect(ChannelNames.labels(["front-left", "invalid", "front-left"]) == ["L", "2", "3"])
    }

    @Test("the WAVE order follows the loudness roles for 1 to 6 channels; other counts are auxiliary")
    func waveDefaults() {
        #expect(ChannelNames.waveDefault(channels: 1) == ["mono"])
        #expect(ChannelNames.labels(ChannelNames.waveDefault(channels: 2)) == ["L", "R"])
        #expect(ChannelNames.labels(ChannelNames.waveDefault(channels: 3)) == ["L", "R", "C"])
        #expect(ChannelNames.labels(ChannelNames.waveDefault(channels: 4)) == ["L", "R", "Ls", "Rs"])
        #expect(ChannelNames.labels(ChannelNames.waveDefault(channels: 5)) == ["L", "R", "C", "Ls", "Rs"])
        #expect(ChannelNames.waveDefault(channels: 8) == (0..<8).map { "aux\($0)" })
    }

    @Test("the start line carries channel_names; names not one per channel fall back to the WAVE order")
    func startLine() throws {
        let settings = MeterSettings(rate: 48000, channels: 3)
        var enc = NDJSONEncoder()
        let line = String(decoding: enc.start(StreamInfo(source: "x", settings: settings,
                                                         channelNames: ["aux0", "aux1", "aux2"])), as: UTF8.self)
        #expect(line.contains(#""channel_names":["aux0","aux1","aux2"]"#), "\(line)")
        let fallback = StreamInfo(source: "x", settings: settings, channelNames: ["mono"])
        #expect(fallback.channelNames == ["front-left", "front-right", "front-center"])
    }
}
