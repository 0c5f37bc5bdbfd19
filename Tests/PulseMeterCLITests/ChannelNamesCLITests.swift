import Foundation
import Testing
import TestSupport

/// Files' channel names: the container's own map as libsndfile reads it (a WAVE_FORMAT_EXTENSIBLE
/// channel mask written by ffmpeg), else the WAVE order for the count.
@Suite struct ChannelNamesCLITests {
    /// ffmpeg's channel abbreviations (`ffmpeg -layouts`) as PulseAudio spells the positions.
    static let pulseName = ["FL": "front-left", "FR": "front-right", "FC": "front-center", "LFE": "lfe",
                            "BL": "rear-left", "BR": "rear-right", "SL": "side-left", "SR": "side-right"]

    /// The channels of an ffmpeg layout, from `ffmpeg -layouts` ("5.1(side)  FL+FR+FC+LFE+SL+SR").
    static func layout(_ name: String) throws -> [String] {
        let ffmpeg = try #require(Tool.which("ffmpeg"), "ffmpeg is not installed (scripts/setup installs it)")
        let out = try Tool.exec(ffmpeg, ["-hide_banner", "-layouts"]).out
        let row = try #require(out.split(separator: "\n").first { $0.split(separator: " ").first.map(String.init) == name })
        return try row.split(separator: " ").last!.split(separator: "+").map { try #require(pulseName[String($0)]) }
    }

    static func startLine(_ args: [String]) throws -> [String: Any] {
        let r = try Tool.run(["analyze"] + args + ["-f", "ndjson"])
        #expect(r.status == 0, "analyze \(args): \(r.err)")
        return try #require(try Tool.ndjson(r).first)
    }

    @Test("a file's channel mask names its channels; 5.1 with side or back surrounds, and 7.1",
          arguments: ["5.1(side)", "5.1", "7.1"])
    func channelMask(layout: String) throws {
        let dir = try TempDir()
        let expected = try Self.layout(layout)
        let file = dir.path("surround.wav")
        try FFmpegInputTests.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=0.2", "-af",
                                     "pan=\(layout)|" + (0..<expected.count).map { "c\($0)=c0" }.joined(separator: "|"), file])
        let start = try Self.startLine([file])
        #expect(start["channel_names"] as? [String] == expected, "\(start)")
    }

    @Test("no map stated (a channel mask of 0, a plain stereo header): the WAVE order for the count")
    func waveOrder() throws {
        let dir = try TempDir()
        let six = try TestAudio.make(rate: 48000, channels: 6, seconds: 0.1, encoding: .s16).write(to: dir, name: "six")
        #expect(try Self.startLine([six])["channel_names"] as? [String]
                == ["front-left", "front-right", "front-center", "lfe", "rear-left", "rear-right"])
        let two = try TestAudio.make(rate: 48000, channels: 2, seconds: 0.1, encoding: .s16).write(to: dir, name: "two")
        #expect(try Self.startLine([two])["channel_names"] as? [String] == ["front-left", "front-right"])
    }
}
