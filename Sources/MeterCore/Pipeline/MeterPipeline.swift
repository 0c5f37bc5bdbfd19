/// The one analysis pipeline: interleaved samples in, positioned meter frames out.
///
/// `analyze` feeds it decoded file blocks, `monitor`/`record` feed it captured blocks on the
/// analysis thread; both run exactly this code, so the same samples give the same frames.
/// Frame k ends at pos = k*hop; `finish()` emits a last partial hop with its true pos.
public final class MeterPipeline {
    public let settings: MeterSettings
    public let hop: Int
    /// `settings.levelOffsetDb`, taken once.
    private let levelOffsetDb: Double
    public private(set) var pos = 0
    /// Input frames skipped (a stalled sink made the live source drop them).
    public private(set) var dropped = 0

    let channels: Int
    /// The window sums of the levels: channel c's squares in series c and, with two or more
    /// channels, the product of the first two (L R, for the correlation) in series `channels`.
    let levels: RollingSums
    /// The window sums of the last frame, one per series of `levels`.
    private var windowSums: [Double]
    /// Whether anything besides the levels reads the block split into channels (`planar`):
    /// the levels of one or two channels read the interleaved frames themselves.
    private let needsPlanar: Bool
    /// Each channel's peak in the block being pushed (the levels of three or more channels).
    let blockPeaks: UnsafeMutablePointer<Float>
    private var hopFill = 0
    /// True once the current hop holds at least one processed (not skipped) frame.
    private var hopSampled = false
    var hopPeak: [Float]
    var hopClips: [Int]
    let clipAmplitude: Float
    private var events: EventDetector?
    private var alarms: AlarmDetector?
    /// Events of the end of the stream, set by `finish`.
    private var trailingEvents: [MeterEvent] = []
    /// Where the current hop began (the previous frame's pos, or where input resumed).
    private var hopStart = 0
    private var totalPeak: [Float]
    private let spectrum: SpectrumAnalyzer?
    /// With --loudness: momentary/short-term/integrated per frame, range and true peak too.
    private let loudness: LoudnessMeter?
    /// With the sound level meter: weighted levels per frame, Leq and the rest at the end.
    private let soundLevel: SoundLevelMeter?
    /// With octave bands: the filter bank over the mono mix (instead of the FFT spectrum).
    private let octaveBank: OctaveFilterBank?
    /// With a meter kind: the needle's ballistics.
    private let ballistics: MeterBallistics?
    let mono: UnsafeMutablePointer<Float>
    /// A short run of 16-bit input converted to Float (`process(_:frames:emit:)` of a block).
    private let converted: UnsafeMutableBufferPointer<Float>
    /// One block of input split into channels (channel c at c * monoCapacity).
    let planar: UnsafeMutablePointer<Float>
    let monoCapacity = 4096
    private var frame: MeterFrame
    private let clock: (() -> Double)?
    /// Each frame's band computation is left to a `DeferredBands` downstream (files: it then
    /// runs on the output thread); frames carry `pendingSpectrum` (FFT bands) or
    /// `pendingOctaves` (octave bands) instead of `bandsDb`.
    public let deferBands: Bool
    /// With several sources in one session: this one's index, carried by every line.
    public let stream: Int?
    /// With deferred octave bands: the current hop's mono mix.
    private var hopMono: [Float] = []

    /// - Parameters:
    ///   - valid: the settings, checked once where they were made (`ValidSettings`).
    ///   - transform: the FFT for bands (required when settings.bands > 0).
    ///   - clock: Unix time for `ts` on live frames; nil for files.
    ///   - deferBands: leave the band levels to a `DeferredBands` (see `deferBands`).
    ///   - stream: the source's index when a session meters several (see `stream`).
    public init(settings valid: ValidSettings, transform: (any PowerSpectrumTransform)? = nil,
                clock: (() -> Double)? = nil, deferBands: Bool = false, stream: Int? = nil) {
        let settings = valid.settings
        self.settings = settings
        self.deferBands = deferBands && (settings.bands > 0 || settings.octaves > 0)
        self.stream = stream
        self.hop = settings.hop
        levelOffsetDb = settings.levelOffsetDb
        self.channels = settings.channels
        self.clock = clock
        let series = settings.channels >= 2 ? settings.channels + 1 : 1
        levels = RollingSums(series: series, window: settings.window, hop: settings.hop)
        windowSums = Array(repeating: 0, count: series)
        blockPeaks = .allocate(capacity: settings.channels)
        hopPeak = Array(repeating: 0, count: channels)
        hopClips = Array(repeating: 0, count: channels)
        clipAmplitude = settings.events?.clipAmplitude ?? EventSettings.railAmplitude
        events = settings.events.map {
            EventDetector(settings: $0, rate: settings.rate, channels: settings.channels, window: settings.window)
        }
        alarms = settings.alarms.isEmpty
            ? nil : AlarmDetector(specs: settings.alarms, rate: settings.rate, channels: settings.channels)
        totalPeak = Array(repeating: 0, count: channels)
        if let layout = valid.bandLayout {
            guard let transform, transform.size == settings.fftSize else {
                preconditionFailure("bands need a transform of size fftSize")
            }
            spectrum = SpectrumAnalyzer(layout: layout, transform: transform,
                                        micCalibration: settings.spl?.micCalibration, offsetDb: settings.levelOffsetDb)
        } else {
            spectrum = nil
        }
        loudness = settings.loudness
            ? LoudnessMeter(rate: settings.rate, channels: settings.channels, hop: settings.hop,
                            recentPeak: clock != nil, framePeaks: settings.framePeaks,
                            dualMono: settings.dualMono) : nil
        soundLevel = settings.spl.map { SoundLevelMeter(settings: $0, rate: settings.rate, channels: settings.channels) }
        octaveBank = settings.octaves > 0
            ? OctaveFilterBank(fraction: settings.octaves, rate: settings.rate,
                               timeWeighting: settings.spl?.timeWeighting ?? .fast, micCalibration: settings.spl?.micCalibration,
                               offsetDb: settings.levelOffsetDb)
            : nil
        ballistics = settings.meter.map {
            MeterBallistics(kind: $0, rate: settings.rate, channels: settings.channels, vuReference: settings.vuReference)
        }
        needsPlanar = settings.channels > 2 || settings.bands > 0 || settings.octaves > 0 || settings.loudness
            || settings.spl != nil || settings.meter != nil
        mono = .allocate(capacity: monoCapacity)
        converted = .allocate(capacity: 1024 * settings.channels)
        planar = .allocate(capacity: monoCapacity * settings.channels)
        frame = MeterFrame(pos: 0, rmsDb: Array(repeating: Decibels.floor, count: channels),
                           peakDb: Array(repeating: Decibels.floor, count: channels),
                           bandsDb: settings.bands > 0 ? Array(repeating: Decibels.floor, count: settings.bands)
                               : octaveBank.map { Array(repeating: Decibels.floor, count: $0.layout.count) })
        frame.stream = stream
    }

    deinit {
        blockPeaks.deallocate()
        converted.deallocate()
        mono.deallocate()
        planar.deallocate()
    }

    /// The `start` line's description of this stream.
    /// `channelNames` nil (or of another count): the WAVE order for the channel count.
    public func streamInfo(source: String, live: Bool = false, channelNames: [String]? = nil) -> StreamInfo {
        var info = StreamInfo(source: source, settings: settings, bandsHz: spectrum?.layout.edgesHz, live: live,
                              channelNames: channelNames)
        info.stream = stream
        if let octaveBank {
            info.octaveBands = octaveBank.layout.bands
            info.bandsHz = octaveBank.layout.bands.map { ($0.lower, $0.upper) }
        }
        return info
    }

    /// Feeds `frames` interleaved frames; calls `emit` for every completed hop.
    public func process(_ samples: UnsafePointer<Float>, frames: Int,
                        emit: (MeterFrame) throws -> Void) rethrows {
        var done = 0
        while done < frames {
            let n = min(frames - done, hop - hopFill, monoCapacity)
            let block = samples + done * channels
            let channelData = needsPlanar ? deinterleave(block, frames: n) : block
            pushLevels(block, planar: channelData, frames: n)
            if spectrum != nil || octaveBank != nil {
                let m = monoMix(channelData, frames: n)
                spectrum?.push(m, count: n)
                if deferBands && octaveBank != nil {
                    hopMono.append(contentsOf: UnsafeBufferPointer(start: m, count: n))
                } else {
                    octaveBank?.push(m, count: n)
                }
            }
            loudness?.push(channelData, channelStride: channels == 1 ? 0 : monoCapacity, count: n)
            soundLevel?.push(channelData, channelStride: channels == 1 ? 0 : monoCapacity, count: n)
            ballistics?.push(channelData, channelStride: channels == 1 ? 0 : monoCapacity, count: n)
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
            levels.skip(toBoundary)
            pos += toBoundary
            if hopSampled {
                hopFill = hop
                try emitFrame(emit)
            }
            let rest = frames - toBoundary
            levels.skip(rest)
            pos += rest
            hopFill = rest % hop
            hopStart = pos - hopFill
        } else {
            levels.skip(frames)
            pos += frames
            hopFill += frames
        }
    }

    /// Announces where the stream will end (a file's declared length), before any sample, so
    /// that the last partial hop's window is exact like every other (see `RollingSquareSum`).
    public func expectEnd(at frames: Int) {
        levels.expectRead(at: frames)
        loudness?.expectRead(at: frames)
    }

    /// Emits the last partial hop, if any of it was processed; a silence still going on ends
    /// at the last sample (its `silence_end` goes with the summary, before the end line).
    public func finish(emit: (MeterFrame) throws -> Void) rethrows {
        if hopFill > 0 && hopSampled { try emitFrame(emit) }
        trailingEvents.removeAll()
        events?.finish(at: pos, into: &trailingEvents)
    }

    /// Whole-stream RMS and peak per channel, so far; with bands, each band's mean power;
    /// with events, the clips and silences; with loudness, the whole stream's loudness so far.
    /// With octave bands this is the stream's end: their bank runs out what it still holds,
    /// and takes no samples after it.
    public func summary() -> StreamSummary {
        var s = StreamSummary(
            pos: pos, rate: settings.rate,
            rmsDb: (0..<channels).map { c in
                let n = levels.received
                return calibrated(n > 0 ? Decibels.fromPower(levels.total(c) / Double(n)) : Decibels.floor)
            },
            peakDb: totalPeak.map { calibrated(Decibels.fromAmplitude(Double($0))) },
            dropped: dropped,
            clippedSamples: events?.clippedTotal,
            events: trailingEvents)
        s.stream = stream
        s.silenceSeconds = events?.silenceSeconds
        s.silences = events?.silenceCount
        // Deferred bands: the `DeferredBands` that computed them adds their mean.
        if let spectrum, !deferBands { s.bandsDb = spectrum.meanBandsDb }
        s.loudness = loudness?.summary(target: settings.targetLufs, rules: settings.delivery)
        s.spl = soundLevel?.summary(rate: settings.rate)
        if let octaveBank, !deferBands {
            octaveBank.finish()
            s.bandsDb = octaveBank.meanLevels()
        }
        return s
    }

    /// A dBFS level in the unit every level is reported in: shifted by the calibration
    /// (`MeterSettings.levelOffsetDb`; clipping is counted on the samples, in dBFS).
    private func calibrated(_ dbfs: Double) -> Double {
        Decibels.calibrated(dbfs, offset: levelOffsetDb)
    }

    private func emitFrame(_ emit: (MeterFrame) throws -> Void) rethrows {
        frame.pos = pos
        frame.ts = clock?()
        frame.dropped = dropped
        let n = levels.windowCount
        levels.windowSums(into: &windowSums)
        for c in 0..<channels {
            frame.rmsDb[c] = calibrated(n > 0 ? Decibels.fromPower(windowSums[c] / Double(n)) : Decibels.floor)
            frame.peakDb[c] = calibrated(Decibels.fromAmplitude(Double(hopPeak[c])))
            totalPeak[c] = max(totalPeak[c], hopPeak[c])
            hopPeak[c] = 0
            frame.clipSamples[c] = hopClips[c]
            hopClips[c] = 0
        }
        if channels >= 2 {
            // Over the window: sum L R / sqrt(sum L^2 sum R^2); 0 when either side is silent.
            let ll = windowSums[0], rr = windowSums[1], lr = windowSums[channels]
            frame.correlation = ll > 0 && rr > 0 ? max(-1, min(1, lr / (ll * rr).squareRoot())) : 0
            frame.balanceDb = frame.rmsDb[1] - frame.rmsDb[0]
        }
        if let loudness {
            // The same fields live and from files: the range so far (`lra`), and for the
            // screens the true peak so far and whether the range has settled.
            var reading = loudness.reading()
            reading.range = loudness.range()
            reading.truePeakDb = loudness.truePeakDb
            reading.recentTruePeakDb = loudness.recentTruePeakDb
            reading.frameTruePeakDb = loudness.takeFrameTruePeakDb()
            reading.rangeSettled = loudness.rangeSettled
            frame.loudness = reading
        }
        if let soundLevel { frame.spl = soundLevel.reading() }
        if events != nil || alarms != nil {
            var list = frame.events
            frame.events = []
            list.removeAll(keepingCapacity: true)
            events?.observe(frame, hopStart: hopStart, into: &list)
            alarms?.observe(frame, into: &list)  // after every reading it may compare
            frame.events = list
        }
        if let octaveBank {
            if deferBands {
                frame.pendingOctaves = hopMono
                hopMono.removeAll(keepingCapacity: true)
            } else {
                octaveBank.levels(into: &frame.bandsDb!)
            }
        }
        if let ballistics {
            var readings = frame.meterDb ?? Array(repeating: Decibels.floor, count: channels)
            ballistics.readings(rmsDb: frame.rmsDb, into: &readings)
            frame.meterDb = readings
        }
        if let spectrum {
            if deferBands {
                frame.pendingSpectrum = Array(unsafeUninitializedCapacity: spectrum.fftSize) { buf, n in
                    spectrum.windowedHistory(into: buf.baseAddress!)
                    n = spectrum.fftSize
                }
            } else {
                spectrum.bandLevels(into: &frame.bandsDb!)
            }
        }
        hopFill = 0
        hopSampled = false
        hopStart = pos
        try emit(frame)
    }
}
