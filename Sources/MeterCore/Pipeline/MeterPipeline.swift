/// The one analysis pipeline: interleaved samples in, positioned meter frames out.
///
/// `analyze` feeds it decoded file blocks, `monitor`/`record` feed it captured blocks on the
/// analysis thread; both run exactly this code, so the same samples give the same frames.
/// Frame k ends at pos = k*hop; `finish()` emits a last partial hop with its true pos.
public final class MeterPipeline {
    /// What is metered, as far as the lines go: a live source's frames (a capture, or a file
    /// metered as it plays) carry the wall-clock time (`ts`, from `clock`, Unix seconds) and
    /// the recent true peak, and its start line says `live`; a file read as fast as it decodes
    /// (or stdin, however slowly it comes) does not. Said once, here.
    public enum Liveness {
        case file
        case live(clock: () -> Double)
    }

    public let settings: MeterSettings
    public let hop: Int
    public private(set) var pos = 0
    /// Input frames skipped (a stalled sink made the live source drop them).
    public private(set) var dropped = 0

    let channels: Int
    /// What the settings ask to measure, in the order frames are filled (`measurements(...)`).
    private let measurements: [any Measurement]
    /// The forms of each block the measurements read.
    let signalNeeds: SignalNeeds
    private var hopFill = 0
    /// True once the current hop holds at least one processed (not skipped) frame.
    private var hopSampled = false
    /// Where the current hop began (the previous frame's pos, or where input resumed).
    private var hopStart = 0
    /// One block's mono mix (channels of more than one).
    let mono: UnsafeMutablePointer<Float>
    /// A short run of 16-bit input converted to Float (`process(_:frames:emit:)` of a block).
    private let converted: UnsafeMutableBufferPointer<Float>
    /// One block of input split into channels (channel c at c * monoCapacity).
    let planar: UnsafeMutablePointer<Float>
    let monoCapacity = 4096
    private var frame: MeterFrame
    private let clock: (() -> Double)?
    /// True for a live source (see `Liveness`).
    public let isLive: Bool
    /// Each frame's octave bands are left to a `DeferredBands` downstream (files: it then runs
    /// on the output thread); frames carry `pendingOctaves` (the hop's mono mix) instead of
    /// `bandsDb`. FFT bands are always computed here.
    public let deferBands: Bool
    /// With several sources in one session: this one's index, carried by every line.
    public let stream: Int?

    /// - Parameters:
    ///   - valid: the settings, checked once where they were made (`ValidSettings`).
    ///   - transform: the FFT for bands (required when settings.bands > 0).
    ///   - liveness: a live source (and its clock) or a file (see `Liveness`).
    ///   - deferBands: leave the octave bands to a `DeferredBands` (see `deferBands`).
    ///   - stream: the source's index when a session meters several (see `stream`).
    public init(settings valid: ValidSettings, transform: (any PowerSpectrumTransform)? = nil,
                liveness: Liveness = .file, deferBands: Bool = false, stream: Int? = nil) {
        let settings = valid.settings
        self.settings = settings
        self.deferBands = deferBands && settings.octaves > 0
        self.stream = stream
        self.hop = settings.hop
        self.channels = settings.channels
        switch liveness {
        case .file: (clock, isLive) = (nil, false)
        case .live(let now): (clock, isLive) = (now, true)
        }
        measurements = Self.measurements(valid, transform: transform, live: isLive, deferBands: deferBands)
        signalNeeds = measurements.reduce(into: SignalNeeds()) { $0.formUnion($1.needs) }
        mono = .allocate(capacity: monoCapacity)
        converted = .allocate(capacity: 1024 * settings.channels)
        planar = .allocate(capacity: monoCapacity * settings.channels)
        frame = MeterFrame(pos: 0, rmsDb: Array(repeating: Decibels.floor, count: channels),
                           peakDb: Array(repeating: Decibels.floor, count: channels))
        frame.stream = stream
    }

    /// What `settings` ask to measure, one line each, in the order each frame is filled: the
    /// readings first, then what reads them (events, alarms, the ballistics' dBFS meter read
    /// the levels; alarms also loudness and the sound level). A waveform run's picture is
    /// measured alone.
    /// `live`: only live frames carry the recent true peak.
    static func measurements(_ valid: ValidSettings, transform: (any PowerSpectrumTransform)?, live: Bool,
                             deferBands: Bool) -> [any Measurement] {
        let s = valid.settings
        if let picture = s.waveform { return [WaveformMeasurement(picture, s)] }
        var list: [any Measurement] = [LevelMeasurement(s)]
        if s.loudness { list.append(LoudnessMeasurement(s, recentPeak: live)) }
        if let spl = s.spl { list.append(SoundLevelMeasurement(spl, s)) }
        if let events = s.events { list.append(EventMeasurement(events, s)) }
        if !s.alarms.isEmpty { list.append(AlarmMeasurement(s)) }
        if s.octaves > 0 { list.append(OctaveMeasurement(s, deferred: deferBands)) }
        if let kind = s.meter { list.append(BallisticsMeasurement(kind, s)) }
        if let layout = valid.bandLayout { list.append(SpectrumMeasurement(layout, transform, s)) }
        return list
    }

    deinit {
        converted.deallocate()
        mono.deallocate()
        planar.deallocate()
    }

    /// The `start` line's description of this stream.
    /// `channelNames` nil (or of another count): the WAVE order for the channel count.
    public func streamInfo(source: String, channelNames: [String]? = nil) -> StreamInfo {
        var info = StreamInfo(source: source, settings: settings, live: isLive, channelNames: channelNames)
        info.stream = stream
        for m in measurements { m.describe(&info) }
        return info
    }

    /// Feeds `frames` interleaved frames; calls `emit` for every completed hop.
    public func process(_ samples: UnsafePointer<Float>, frames: Int,
                        emit: (MeterFrame) throws -> Void) rethrows {
        var done = 0
        while done < frames {
            let n = min(frames - done, hop - hopFill, monoCapacity)
            let block = signals(samples + done * channels, frames: n)
            for m in measurements { m.push(block) }
            done += n
            hopFill += n
            pos += n
            hopSampled = true
            if hopFill == hop { try emitFrame(emit) }
        }
    }

    /// Feeds `frames` interleaved frames in either form; 16-bit samples are converted a short
    /// run at a time into a buffer that stays in the cache, then fed as Floats.
    public func process(_ block: SampleBlock, frames: Int, emit: (MeterFrame) throws -> Void) rethrows {
        switch block {
        case .float(let samples): try process(samples, frames: frames, emit: emit)
        case .int16(let samples):
            let run = converted.count / channels
            var done = 0
            while done < frames {
                let n = min(frames - done, run)
                SampleConversion.floats(from: samples + done * channels, into: converted.baseAddress!, count: n * channels)
                try process(converted.baseAddress!, frames: n, emit: emit)
                done += n
            }
        }
    }

    /// Skips `frames` input frames that never arrived (counted in `dropped`); positions stay
    /// on the hop grid, hops with no samples at all are not emitted. A window reaching back
    /// over the gap covers the samples that did arrive in it.
    public func skip(frames: Int, emit: (MeterFrame) throws -> Void) rethrows {
        guard frames > 0 else { return }
        dropped += frames
        let toBoundary = hop - hopFill
        if frames >= toBoundary {
            skipMeasured(toBoundary)
            if hopSampled {
                hopFill = hop
                try emitFrame(emit)
            }
            let rest = frames - toBoundary
            skipMeasured(rest)
            hopFill = rest % hop
            hopStart = pos - hopFill
        } else {
            skipMeasured(frames)
            hopFill += frames
        }
    }

    private func skipMeasured(_ frames: Int) {
        for m in measurements { m.skip(frames) }
        pos += frames
    }

    /// Announces where the stream will end (a file's declared length), before any sample, so
    /// that the last partial hop's window is exact like every other (see `RollingSquareSum`).
    public func expectEnd(at frames: Int) {
        for m in measurements { m.expectEnd(at: frames) }
    }

    /// Emits the last partial hop, if any of it was processed; a silence still going on ends
    /// at the last sample (its `silence_end` goes with the summary, before the end line).
    public func finish(emit: (MeterFrame) throws -> Void) rethrows {
        if hopFill > 0 && hopSampled { try emitFrame(emit) }
        for m in measurements { m.finish(at: pos) }
    }

    /// Whole-stream RMS and peak per channel, so far; with bands, each band's mean power;
    /// with events, the clips and silences; with loudness, the whole stream's loudness so far.
    /// With octave bands this is the stream's end: their bank runs out what it still holds,
    /// and takes no samples after it.
    public func summary() -> StreamSummary {
        var s = StreamSummary(pos: pos, rate: settings.rate, rmsDb: [], peakDb: [], dropped: dropped)
        s.stream = stream
        for m in measurements { m.fill(&s) }
        return s
    }

    private func emitFrame(_ emit: (MeterFrame) throws -> Void) rethrows {
        frame.pos = pos
        frame.ts = clock?()
        frame.dropped = dropped
        // The events of this hop only; the measurements that make events append them.
        if !frame.events.isEmpty { frame.events.removeAll(keepingCapacity: true) }
        for m in measurements { m.fill(&frame, hopStart: hopStart) }
        hopFill = 0
        hopSampled = false
        hopStart = pos
        try emit(frame)
    }
}
