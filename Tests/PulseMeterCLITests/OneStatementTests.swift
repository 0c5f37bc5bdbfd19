import Foundation
import MeterCore
import MeterIO
@testable import PulseMeterCLI
import Testing

/// Each default and each range rule is stated once, in MeterCore (`MeterSettings.defaults`
/// and `allowed`, `EventSettings`, `TriggerSettings`, `Decibels`, `CalibrationMeasurement`):
/// the help text, the man page and the completions say what it says, and a value out of range
/// is refused naming the range of that one rule.
@Suite struct OneStatementTests {
    static let d = MeterSettings.defaults

    /// (command, option, its default) for every option whose default MeterCore states.
    static let defaults: [(command: String, option: String, value: Double)] = [
        ("analyze", "--fps", d.fps), ("analyze", "--window", d.windowMs), ("analyze", "--bands", Double(d.bands)),
        ("analyze", "--fft-size", Double(d.fftSize)), ("analyze", "--fmin", d.fmin), ("analyze", "--vu-ref", d.vuReference),
        ("analyze", "--silence-db", EventSettings().silenceDb), ("analyze", "--silence-min", EventSettings().silenceMinSeconds),
        ("monitor", "--floor", Decibels.defaultLevelFloor), ("waveform", "--floor", Decibels.defaultLevelFloor),
        ("record", "--hold", TriggerSettings.defaultHoldSeconds), ("record", "--pre-roll", TriggerSettings.defaultPreRollSeconds),
        ("calibrate", "--reference", CalibrationMeasurement.defaultReference),
        ("calibrate", "--duration", CalibrationMeasurement.defaultLimitSeconds),
        ("waveform", "--bars", Double(CountLimit.bars.defaultValue!)),
        ("waveform", "--bits", Double(WaveformDataWriter.Format.defaultBits)),
    ]

    /// (command line before the value, option, its limit) for every `CountLimit`.
    static let counts: [(args: [String], option: String, limit: CountLimit)] = [
        (["waveform", "x.wav"], "--bars", .bars),
        (["waveform", "x.wav", "--format", "dat"], "--pixels-per-second", .pixelsPerSecond),
        (["waveform", "x.wav", "--format", "dat"], "--samples-per-pixel", .samplesPerPixel),
        (["analyze", "x.wav", "y.wav"], "--jobs", .jobs),
        (["record", "x.wav", "--split", "60"], "--keep", .keepFiles),
        (["record", "x.m4a"], "--bitrate", .bitrateKbps),
    ]

    @Test func aCountOutsideItsLimitIsRefusedNamingTheRangeTheManPageStates() throws {
        #expect(Set(Self.counts.map(\.limit)) == Set(CountLimit.allCases), "every limit is checked here")
        let man = try InstallTests.text("docs/pulsemeter.1").replacingOccurrences(of: "\\-", with: "-")
        let items = man.components(separatedBy: "\n.TP\n")
        for (args, option, limit) in Self.counts {
            let range = "\(limit.range.lowerBound) to \(limit.range.upperBound)"
            for bad in [limit.range.lowerBound - 1, limit.range.upperBound + 1] {
                #expect(throws: PulsemeterError.self, "\(option) \(bad)") { try CLI.check(args + [option, String(bad)]) }
                do { try CLI.check(args + [option, String(bad)]) } catch let e as PulsemeterError {
                    #expect(e.kind == .usage && e.message.contains("use " + range), "\(e.message)")
                }
            }
            #expect(throws: Never.self, "\(option) \(limit.range.upperBound)") {
                try CLI.check(args + [option, String(limit.range.upperBound)])
            }
            let item = items.first { $0.split(separator: "\n").first?.contains(option) == true }
            #expect(item?.contains(range) == true, "docs/pulsemeter.1 gives \(option) the range \(range)")
        }
    }

    @Test func theHelpTextShowsTheDefaultsOfTheOneTable() throws {
        for (command, option, value) in Self.defaults {
            let help = try #require(Help.command[command])
            let line = try #require(help.split(separator: "\n").first { row in
                let t = row.trimmingCharacters(in: .whitespaces)
                return t.hasPrefix(option + " ") || t.contains(", " + option + " ")
            }, "\(command) --help has no \(option)")
            #expect(line.hasSuffix("[\(ErrorWording.number(value))]"), "\(command) --help: \(line)")
        }
        // The ranges the help states are the rules' too.
        let analyze = try #require(Help.command["analyze"])
        guard case .powerOfTwo(let lo, let hi) = Self.d.allowed(.fftSize) else { Issue.record("fft-size"); return }
        #expect(analyze.contains("a power of two \(lo)..\(hi)"))
        #expect(analyze.contains("capture channels, 1..\(MeterSettings.maxChannels)"))
    }

    @Test func theManPageStatesTheDefaultsOfTheOneTable() throws {
        let source = try InstallTests.text("docs/pulsemeter.1")
        // Each .TP item: its tag line and text, roff minus signs as "-".
        let items = source.replacingOccurrences(of: "\\-", with: "-").components(separatedBy: "\n.TP\n")
        for (command, option, value) in Self.defaults {
            let tagged = items.filter { item in item.split(separator: "\n").first.map { $0.contains(option + " ") || $0.hasSuffix(option) } == true }
            let stated = "Default \(ErrorWording.number(value))"
            #expect(tagged.contains { item in [".", " ", ","].contains { end in item.contains(stated + end) } },
                    "docs/pulsemeter.1 does not give \(option) (\(command)) the default \(ErrorWording.number(value))")
        }
    }

    @Test func theCompletionsOfferOnlyWhatTheRulesAllow() throws {
        for (option, setting) in [("--fft-size", SettingError.Setting.fftSize), ("--rate", .rate), ("--channels", .channels)] {
            let offered = try InstallTests.bashCompletions(["pulsemeter", "analyze", option, ""])
            #expect(!offered.isEmpty, "nothing offered for \(option)")
            for word in offered {
                let v = try #require(Double(word), "\(option) offers \(word)")
                #expect(throws: Never.self, "\(option) offers \(word), which the rule refuses") { try Self.d.check(setting, v) }
            }
        }
        #expect(try InstallTests.bashCompletions(["pulsemeter", "analyze", "--fft-size", ""]).contains(String(Self.d.fftSize)))
        #expect(try InstallTests.bashCompletions(["pulsemeter", "analyze", "--channels", ""]).contains(String(Self.d.channels)))
    }

    /// (command line, setting) for a value outside each rule the command line reads outside
    /// `MeterSettings`' own fields, or among the --events thresholds.
    static let outside: [(args: [String], setting: SettingError.Setting)] = [
        (["analyze", "x.wav", "--events", "--silence-db", "1"], .silenceDb),
        (["analyze", "x.wav", "--events", "--silence-min", "86401"], .silenceMin),
        (["analyze", "x.wav", "--events", "--clip-db", "-101"], .clipDb),
        (["analyze", "x.wav", "--duration", "0"], .duration),
        (["record", "x.wav", "--split", "1000001"], .split),
        (["record", "x.wav", "--trigger", "-161"], .triggerLevel),
        (["record", "x.wav", "--trigger", "-40", "--hold", "3601"], .hold),
        (["record", "x.wav", "--trigger", "-40", "--pre-roll", "61"], .preRoll),
    ]

    @Test func aRangeErrorNamesTheRangeOfTheOneRule() throws {
        for (args, setting) in Self.outside {
            do {
                try CLI.check(args)
                Issue.record("\(args) was taken")
            } catch let e as PulsemeterError {
                let raw = args.last!
                let v = Double(raw)!
                let expected = ErrorWording.setting(SettingError(setting, value: v, allowed: Self.d.allowed(setting)), raw: raw)
                #expect(e == expected, "\(args)")
                switch Self.d.allowed(setting) {
                case .range(let lo, let hi):
                    #expect(e.message.contains(ErrorWording.number(lo)) && e.message.contains(ErrorWording.number(hi)), "\(e.message)")
                case .positiveUpTo(let hi):
                    #expect(e.message.contains(ErrorWording.number(hi)), "\(e.message)")
                default: Issue.record("\(setting): \(Self.d.allowed(setting))")
                }
            }
        }
    }

    @Test func theFloorAndTheCalibratorLevelAreCheckedByTheirRules() throws {
        for (command, option, setting, bad) in [("waveform", "--floor", SettingError.Setting.levelFloor, "0"),
                                                ("calibrate", "--reference", .calibratorLevel, "171")] {
            let a = try ParsedArguments(command: command, arguments: [option, bad], specs: try #require(CLI.specs(for: command)))
            #expect(throws: ErrorWording.setting(SettingError(setting, value: Double(bad)!, allowed: Self.d.allowed(setting)), raw: bad)) {
                _ = try MeterOptions.checked(a, setting)
            }
        }
    }

    @Test func durationsBecomeFramesOneWay() {
        #expect(MeterSettings.frames(seconds: 1.5, rate: 48000) == 72000)
        #expect(MeterSettings.frames(seconds: 1e-9, rate: 48000) == 1, "a positive duration is at least a frame")
        #expect(MeterSettings.frames(seconds: 0, rate: 48000) == 0)
        #expect(MeterSettings.frames(seconds: 0.5, rate: 3) == 2, "rounded to the nearest (1.5 up)")
    }
}
