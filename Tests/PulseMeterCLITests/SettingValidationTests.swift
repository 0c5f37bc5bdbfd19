import Foundation
import MeterCore
import MeterIO
@testable import PulseMeterCLI
import Testing

/// Each meter option is validated in one place, `ValidSettings`: the command line
/// refuses exactly the values the core refuses (it used to keep its own ranges, and they
/// disagreed on --fps), and words the core's typed error itself.
@Suite struct SettingValidationTests {
    static let probes: [(option: String, values: [String])] = [
        ("--rate", ["0", "1", "768000", "768001"]),
        ("--channels", ["0", "1", "32", "33"]),
        ("--fps", ["0", "0.009", "0.01", "48000", "48000.5", "nan", "inf"]),
        ("--window", ["0", "-1", "0.001", "60000", "60000.1"]),
        ("--bands", ["-1", "0", "1024", "1025"]),
        ("--fft-size", ["32", "64", "1000", "65536", "131072"]),
        ("--calibration", ["-1", "0", "94", "250", "250.5", "nan"]),
        ("--octaves", ["0", "1", "2", "3", "4", "-1"]),
        ("--vu-ref", ["-60.5", "-60", "-18", "0", "0.5"]),
    ]

    static func settings(_ option: String, _ value: Double) -> MeterSettings {
        var s = MeterSettings()
        switch option {
        case "--rate": s.rate = Int(value)
        case "--channels": s.channels = Int(value)
        case "--fps": s.fps = value
        case "--window": s.windowMs = value
        case "--bands": s.bands = Int(value)
        case "--calibration": s.spl = SoundLevelSettings(calibrationDb: value)
        case "--octaves": s.octaves = Int(value)
        case "--vu-ref":
            s.meter = .vu
            s.vuReference = value
        default: s.fftSize = Int(value)
        }
        return s
    }

    @Test func theCommandLineRefusesExactlyWhatTheCoreRefuses() throws {
        for (option, values) in Self.probes {
            for text in values {
                let coreError: SettingError?
                do {
                    _ = try ValidSettings(Self.settings(option, Double(text)!))
                    coreError = nil
                } catch {
                    coreError = error
                }
                do {
                    try CLI.check(["analyze", "x.wav", option, text])
                    #expect(coreError == nil, "\(option) \(text): the core refuses it, the command line took it")
                } catch let e as PulsemeterError {
                    let core = try #require(coreError, "\(option) \(text): the command line refused it, the core takes it: \(e.message)")
                    #expect(e.kind == .usage)
                    // (--rate 1 makes the default --fps 30 the value refused: worded as the rate
                    // being too low for that default.)
                    let same = ErrorWording.option(core.setting) == option
                    let expected = same ? ErrorWording.setting(core, raw: text)
                        : core.setting == .fps ? ErrorWording.rateTooLow(for: core, rate: Int(text)!, typed: true, fminTyped: false)
                        : ErrorWording.setting(core, isDefault: true)
                    #expect(e == expected, "\(option) \(text)")
                    if same { #expect(e.message.hasPrefix("\(option) \(text) is not allowed: ")) }
                }
            }
        }
    }

    @Test func errorWordingNamesTheOptions() {
        // The typed errors carry no option; only ErrorWording names them.
        let e = SettingError(.fftSize, value: 1000, allowed: .powerOfTwo(64, 65536))
        #expect(ErrorWording.setting(e).message == "--fft-size 1000 is not allowed: --fft-size must be a power of two from 64 to 65536")
        let lost = PulseError.sourceLost(source: "pipesrc", server: "the PulseAudio server", reason: "Connection terminated")
        #expect(ErrorWording.pulse(lost).message.hasSuffix("use --reconnect to wait for it instead"))
        #expect(ErrorWording.pulse(lost).exitCode == 74)
        #expect(ErrorWording.pulse(.noSuchDevice(.playback, name: "x", server: "s")).message
                == "no PulseAudio sink named x on s; run pulsemeter devices --sinks to list them")
        #expect(ErrorWording.pulse(.cannotConnect(server: "s", reason: "r")).exitCode == 69)
    }
}
