import MeterCore
import MeterIO

/// `normalize`'s work on one file, on a worker thread: pass one measures it (`LoudnessPass`,
/// unless an album's measurement is given), pass two writes it with the gain beside its
/// output's name, copies its tags and gives it the name. Nothing is left under a hidden name
/// when anything fails or a signal stops it.
struct NormalizeFile: Sendable {
    let target: NormalizeTarget
    let limit: Bool
    let force: Bool
    /// The seed of this run's dither noise (each file's noise starts from it and its position).
    let seed: UInt64

    /// What one file gave.
    struct Result: Sendable, ManyFiles.HasWarnings {
        enum Kind: Sendable {
            case written(NormalizeLine)
            case measured(LoudnessPass.Figures)
            case cutShort
            case failed(PulsemeterError)
        }
        var kind: Kind
        var warnings: [String] = []
    }

    /// Pass one only (album mode: the album's gain needs every file measured first).
    func measure(_ input: FilePath, output: FilePath, cancellation: Cancellation) -> Result {
        var warnings: [String] = []
        do {
            try refuseExisting(output)
            let source = try AudioFile.open(input, cancellation: cancellation)
            guard let m = try LoudnessPass.measure(source, cancellation: cancellation, warn: { warnings.append($0) }) else {
                return Result(kind: .cutShort, warnings: warnings)
            }
            return Result(kind: .measured(m), warnings: warnings)
        } catch {
            return Result(kind: .failed(ManyFiles.failure(error, command: "normalize")), warnings: warnings)
        }
    }

    /// Both passes, or pass two with the album's figures (`album`: its loudness and largest
    /// true peak, and this file's own measurement).
    func run(_ input: FilePath, output: FilePath, position: Int, cancellation: Cancellation,
             album: (figures: LoudnessPass.Figures, own: LoudnessPass.Figures)? = nil) -> Result {
        var warnings: [String] = []
        do {
            try refuseExisting(output)
            let source = try AudioFile.open(input, cancellation: cancellation)
            let own: LoudnessPass.Figures
            if let album {
                own = album.own
            } else {
                guard let m = try LoudnessPass.measure(source, cancellation: cancellation, warn: { warnings.append($0) }) else {
                    return Result(kind: .cutShort, warnings: warnings)
                }
                own = m
            }
            let basis = album?.figures ?? own
            guard basis.integrated > IntegratedGate.absoluteGateLufs else {
                throw PulsemeterError(.notDecodable, "\(input) has no audio over the \(Int(IntegratedGate.absoluteGateLufs)) LUFS gate (silence): nothing to normalize; \(output) was not written")
            }
            let gain = NormalizationGain(integrated: basis.integrated, truePeakDb: basis.truePeakDb,
                                         target: target.target, ceiling: target.ceiling, limiter: limit)
            guard source.seek(toFrame: 0) else {
                throw PulsemeterError(.notDecodable, "cannot read \(input) a second time (it does not seek); \(output) was not written")
            }
            let written = try write(source, input: input, output: output, gain: gain, position: position, cancellation: cancellation)
            guard let written else { return Result(kind: .cutShort, warnings: warnings) }
            let line = NormalizeLine(input: input, output: output, measured: own, album: album?.figures, target: target,
                                     gain: gain, appliedDb: written.gainDb, limiterDb: written.limiterDb)
            return Result(kind: .written(line), warnings: warnings)
        } catch {
            return Result(kind: .failed(ManyFiles.failure(error, command: "normalize")), warnings: warnings)
        }
    }

    /// `--limit` on a file the gain lifts over the ceiling: limiting lowers the loudness, so the
    /// limited output is measured (`GainedCopy.loudness`) and the gain before the limiter
    /// raised until it is within 0.02 LU of the target: a secant search on gain against
    /// loudness (the first step by what it falls short), a few rounds. The limiter to write
    /// with, fresh; nil when a signal stopped it.
    private func reachTarget(_ source: any AudioFileSource, gain: NormalizationGain,
                             cancellation: Cancellation) throws -> TruePeakLimiter? {
        func limiter(_ db: Double) -> TruePeakLimiter {
            TruePeakLimiter(rate: source.rate, channels: source.channels, ceilingDb: target.ceiling,
                            gain: Float(PureMath.pow(10, db / 20)))
        }
        var db = gain.gainDb
        var previous: (db: Double, lufs: Double)?
        for _ in 0..<8 {
            guard let reached = try GainedCopy.loudness(source, limiter: limiter(db), cancellation: cancellation) else { return nil }
            let short = target.target - reached
            if abs(short) < 0.02 { break }
            var slope = 1.0
            if let p = previous, abs(reached - p.lufs) > 1e-6 { slope = (db - p.db) / (reached - p.lufs) }
            previous = (db, reached)
            db += min(6, short * min(max(slope, 1), 4))
        }
        return limiter(db)
    }

    /// An existing output without --force: refused before any work (exit 73).
    private func refuseExisting(_ output: FilePath) throws {
        if let kind = NewFile.unreplaceable(output) { throw OutputError.cannotReplace(output, kind: kind) }
        if !force && output.exists { throw OutputError.recordingExists(output) }
    }

    /// Pass two: the output written beside its name, tagged, then named. Returns the gain
    /// applied (before the limiter, if any) and the limiter's deepest reduction in dB (0
    /// without it), or nil when a signal stopped it.
    private func write(_ source: any AudioFileSource, input: FilePath, output: FilePath, gain: NormalizationGain,
                       position: Int, cancellation: Cancellation) throws -> (gainDb: Double, limiterDb: Double)? {
        let format = try RecordingFormat.normalized(path: output, rate: source.rate, channels: source.channels,
                                                    input: (source as? SoundFileReader)?.pcmFormat)
        var limiter: TruePeakLimiter?
        if gain.needsLimiter {
            guard let reaching = try reachTarget(source, gain: gain, cancellation: cancellation) else { return nil }
            limiter = reaching
            guard source.seek(toFrame: 0) else { return nil }
        }
        var quantizer = GainQuantizer(gain: limiter == nil ? gain.linear : 1, format: format.sampleFormat,
                                      noise: DitherNoise(seed: seed &+ UInt64(position) &* 0x9E37_79B9))
        let file = try format.openBeside(path: output)
        do {
            let ending = try GainedCopy.run(source, into: file.writer, quantizer: &quantizer, limiter: limiter, cancellation: cancellation)
            if let reader = source as? SoundFileReader { try InputEnding.report(reader, warn: { _ in }) }
            guard ending == .complete else {
                file.discard()
                return nil
            }
            try file.close()
            TagCopy.copy(from: input, to: file.writtenPath)
            try file.commit(replace: force)
        } catch let e as OutputError {
            file.discard()
            throw NormalizeWording.writeFailure(e, output)
        } catch {
            file.discard()
            throw error
        }
        guard let limiter else { return (gain.gainDb, 0) }
        return (Decibels.fromAmplitude(Double(limiter.gain)), Decibels.fromAmplitude(Double(limiter.deepestReduction)))
    }
}
