import MeterCore
import MeterIO

/// `pulsemeter calibrate -d SOURCE [--reference 94]`: measures a sound level calibrator's
/// 1 kHz tone on a live source (A-weighted, F, steady to 0.1 dB for 3 s) and prints the
/// `--calibration` value that makes the meter read the reference level; gives up after
/// `--duration` seconds of audio (default 20), saying why.
enum CalibrateCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("-d", "--device"), OptionSpec("-r", "--rate"), OptionSpec("-c", "--channels"),
        OptionSpec("--reference"), OptionSpec("--duration"), OptionSpec("-h", "--help", value: false),
    ]

    static func run(_ a: ParsedArguments) throws -> Int32 {
        _ = try a.requirePositionals([])
        let reference = try MeterOptions.checked(a, .calibratorLevel) ?? CalibrationMeasurement.defaultReference
        let steadySeconds = CalibrationMeasurement.steadySeconds
        let device = try LiveSources.single(a)
        let given = a.string("rate") != nil && a.string("channels") != nil
        let cancellation = try Signals.stopCancellation()  // first: a stop ends the first connection's waits at once
        // One connection: the native format, then the stream.
        var devices = given ? nil : try? PulseDevices(cancellation: cancellation)
        if cancellation.isCancelled { return 0 }  // stopped before anything started
        var read = try MeterOptions.read(a, native: given ? nil : LiveCommands.nativeSpec(of: LiveSources.resolve([device], on: devices)[0]))
        read.spl = SoundLevelSettings(weighting: .a, timeWeighting: .fast)
        let settings = try MeterOptions.validated(read, a)
        let limit = try MeterOptions.durationFrames(a, rate: settings.rate)
            ?? MeterSettings.frames(seconds: CalibrationMeasurement.defaultLimitSeconds, rate: settings.rate)
        let source = SessionDescription.Source(live: LiveOptions(device: device, settings: settings, durationFrames: limit))
        let session = try MeterSession(SessionDescription(sources: [source]), cancellation: cancellation, devices: devices,
                                       continuations: Signals.continuations)
        devices = nil  // the stream holds the connection now
        let frames = Int((steadySeconds * Double(settings.rate) / Double(settings.hop)).rounded(.up))
        let sink = CalibrationSink(CalibrationMeasurement(reference: reference, frames: frames), cancellation: cancellation)
        try session.run(into: [sink])
        let seconds = ErrorWording.number(Double(limit) / Double(settings.rate))
        func db(_ v: Double) -> String { String(AnsiMeterRenderer.readout((v * 10).rounded() / 10, width: 0)) }
        switch sink.outcome ?? sink.measurement.verdict() {
        case .measured(let level, let spread, let cal):
            let value = (cal * 100).rounded() / 100
            try FileDescriptorOutput.standardOutput.write(Array("--calibration \(value)\n".utf8))
            CLI.error("the \(ErrorWording.number(reference)) dB tone read \((level * 100).rounded() / 100) dBFS(A), steady to \((spread * 100).rounded() / 100) dB over \(ErrorWording.number(steadySeconds)) s")
            return 0
        case .noSignal(let level):
            throw PulsemeterError(.notDecodable, "no calibrator tone in \(seconds) s: the level was \(db(level)) dBFS(A); put the calibrator on the microphone and switch it on")
        case .notSteady(let spread):
            throw PulsemeterError(.notDecodable, "the tone was not steady to 0.1 dB for \(ErrorWording.number(steadySeconds)) s within \(seconds) s: it varied by \(db(spread)) dB; hold the calibrator still, away from noise")
        case .notOneKilohertz(let gap):
            throw PulsemeterError(.notDecodable, "the tone is not at 1 kHz: its A-weighted level differs from its unweighted one by \(db(gap)) dB; use a 1 kHz calibrator")
        }
    }
}

/// Feeds the frames to the measurement and stops the run once it is done.
final class CalibrationSink: DiscardingSink {
    private(set) var measurement: CalibrationMeasurement
    private(set) var outcome: CalibrationMeasurement.Outcome?
    private let cancellation: Cancellation

    init(_ measurement: CalibrationMeasurement, cancellation: Cancellation) {
        self.measurement = measurement
        self.cancellation = cancellation
    }

    override func frame(_ frame: MeterFrame) throws {
        guard outcome == nil, let done = measurement.observe(frame) else { return }
        outcome = done
        cancellation.cancel()
    }
}
