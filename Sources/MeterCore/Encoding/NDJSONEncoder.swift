/// Encodes meter output as newline-delimited JSON, version 1 (README.md "NDJSON (version 1)").
///
/// Each call returns one complete line (ending in `\n`) in a reused buffer; the caller writes
/// it in one go. dB values carry 2 decimals, times 5 (ts 6), band edges 3.
public struct NDJSONEncoder {
    public static let version = 1
    var line = JSONLineBuilder()
    /// Each stream's rate (index: the stream, 0 without one), for `t`.
    private var rates = [1]
    /// Each stream's calibration (`MeterSettings.levelOffsetDb`), for `level`.
    private var offsets = [0.0]
    /// With a floor, live frames (those with `ts`) carry `level` per channel,
    /// `Decibels.level(rms_db, floor:)` of the level relative to full scale: a calibrated
    /// run's levels less its calibration, so that a bar of that height is the meter's.
    public var levelFloorDb: Double?

    public init(levelFloorDb: Double? = nil) { self.levelFloorDb = levelFloorDb }

    public mutating func start(_ info: StreamInfo) -> [UInt8] {
        let s = info.settings
        let k = info.stream ?? 0
        if rates.count <= k { rates += Array(repeating: 1, count: k + 1 - rates.count) }
        if offsets.count <= k { offsets += Array(repeating: 0, count: k + 1 - offsets.count) }
        rates[k] = s.rate
        offsets[k] = s.levelOffsetDb
        begin("start", stream: info.stream)
        line.field("version", Self.version)
        line.field("source", info.source)
        line.field("rate", s.rate)
        line.field("channels", s.channels)
        line.field("channel_names", info.channelNames)
        line.field("fps", s.fps, decimals: 3)
        line.field("hop", s.hop)
        line.field("window", s.window)
        if s.loudness { line.field("loudness", true) }
        if let target = s.targetLufs { line.field("target_lufs", target, decimals: 2) }
        if let spl = s.spl { soundLevelStart(spl) }
        if let meter = s.meter {
            line.field("meter", meter.rawValue)
            if meter == .vu { line.field("vu_ref", s.vuReference, decimals: 2) }
        }
        if let octave = info.octaveBands {
            line.field("octaves", s.octaves)
            line.key("bands_hz")
            line.byte(UInt8(ascii: "["))
            for (i, b) in octave.enumerated() {
                if i > 0 { line.byte(UInt8(ascii: ",")) }
                line.numbers([b.lower, b.mid, b.upper], decimals: 3)
            }
            line.byte(UInt8(ascii: "]"))
        } else if let bands = info.bandsHz {
            line.field("fft_size", s.fftSize)
            line.key("bands_hz")
            line.byte(UInt8(ascii: "["))
            for (i, (lo, hi)) in bands.enumerated() {
                if i > 0 { line.byte(UInt8(ascii: ",")) }
                line.numbers([lo, hi], decimals: 3)
            }
            line.byte(UInt8(ascii: "]"))
        }
        return finish()
    }

    public mutating func frame(_ f: MeterFrame) -> [UInt8] {
        begin("frame", stream: f.stream)
        line.field("t", Double(f.pos) / Double(rate(f.stream)), decimals: 5)
        line.field("pos", f.pos)
        if let ts = f.ts { line.field("ts", ts, decimals: 6) }
        line.field("rms_db", f.rmsDb, decimals: 2)
        line.field("peak_db", f.peakDb, decimals: 2)
        if let floorDb = levelFloorDb, f.ts != nil {
            let k = f.stream ?? 0, offset = k < offsets.count ? offsets[k] : 0
            line.key("level")
            line.byte(UInt8(ascii: "["))
            for (i, db) in f.rmsDb.enumerated() {
                if i > 0 { line.byte(UInt8(ascii: ",")) }
                line.number(Decibels.level(db - offset, floor: floorDb), decimals: 4)
            }
            line.byte(UInt8(ascii: "]"))
        }
        if let bands = f.bandsDb { line.field("bands_db", bands, decimals: 2) }
        if let l = f.loudness {
            line.field("lufs_m", l.momentary, decimals: 2)
            line.field("lufs_s", l.shortTerm, decimals: 2)
            line.field("lufs_i", l.integrated, decimals: 2)
            if let r = l.range { line.field("lra", r, decimals: 2) }
            if let tp = l.truePeakDb { line.field("true_peak_db", tp, decimals: 2) }
            if let tp = l.truePeakDb?.max() {
                line.field("plr_db", PeakToLoudness.ratio(peak: tp, loudness: l.integrated), decimals: 2)
            }
            if let recent = l.recentTruePeakDb {
                line.field("psr_db", PeakToLoudness.ratio(peak: recent, loudness: l.shortTerm), decimals: 2)
            }
        }
        if let m = f.meterDb { line.field("meter_db", m, decimals: 2) }
        if let c = f.correlation { line.field("correlation", c, decimals: 3) }
        if let b = f.balanceDb { line.field("balance_db", b, decimals: 2) }
        if let spl = f.spl {
            line.field("spl_db", spl.splDb, decimals: 2)
            line.field("leq_db", spl.leqDb, decimals: 2)
        }
        return finish()
    }

    /// An `event` line (`--events`); `ts` is the emitting frame's, when live; `stream` the
    /// frame's or summary's.
    public mutating func event(_ e: MeterEvent, ts: Double?, stream: Int? = nil) -> [UInt8] {
        begin("event", stream: stream)
        line.field("event", e.name)
        line.field("pos", e.pos)
        line.field("t", Double(e.pos) / Double(rate(stream)), decimals: 5)
        if let ts { line.field("ts", ts, decimals: 6) }
        switch e.kind {
        case .silenceStart: break
        case .silenceEnd(let seconds): line.field("duration", seconds, decimals: 5)
        case .clip(let channel, let samples):
            line.field("channel", channel)
            line.field("samples", samples)
        case .sourceLost(let reason): line.field("reason", reason)
        case .alarm(let a):
            line.field("name", a.name)
            line.field("metric", a.metric.rawValue)
            if let c = a.channel { line.field("channel", c) }
            line.field("level", a.level, decimals: a.metric == .correlation ? 3 : 2)
            line.field("held_seconds", a.heldSeconds, decimals: 5)
        }
        return finish()
    }

    /// A `file` line: a split or voice-activated recording opened or closed a file.
    public mutating func file(_ e: RecordingFileEvent) -> [UInt8] {
        begin("file", stream: e.stream)
        line.field("event", e.kind.rawValue)
        line.field("file", e.file)
        line.field("pos", e.pos)
        line.field("frames", e.frames)
        return finish()
    }

    public mutating func gap(_ g: StreamGap) -> [UInt8] {
        begin("gap", stream: g.stream)
        line.field("pos", g.pos)
        line.field("start_ts", g.startTs, decimals: 6)
        line.field("end_ts", g.endTs, decimals: 6)
        line.field("seconds", g.seconds, decimals: 3)
        line.field("reason", g.reason.rawValue)
        return finish()
    }

    /// A `device` line: what the source meters from `pos` on (`streams`: an application's
    /// playback streams metered, with `waiting` while there are none).
    public mutating func device(_ d: DeviceChange) -> [UInt8] {
        begin("device", stream: d.stream)
        line.field("source", d.source)
        line.field("pos", d.pos)
        line.field("ts", d.ts, decimals: 6)
        if let n = d.streams {
            line.field("streams", n)
            line.field("waiting", d.waiting)
        }
        return finish()
    }

    public mutating func end(_ s: StreamSummary) -> [UInt8] {
        begin("end", stream: s.stream)
        line.field("pos", s.pos)
        line.field("duration", s.duration, decimals: 5)
        line.field("rms_db", s.rmsDb, decimals: 2)
        line.field("peak_db", s.peakDb, decimals: 2)
        line.field("dropped", s.dropped)
        if let bands = s.bandsDb { line.field("bands_db", bands, decimals: 2) }
        if let complete = s.complete { line.field("complete", complete) }
        if let l = s.loudness {
            line.field("lufs_i", l.integrated, decimals: 2)
            line.field("lra", l.range, decimals: 2)
            line.field("max_lufs_m", l.maxMomentary, decimals: 2)
            line.field("max_lufs_s", l.maxShortTerm, decimals: 2)
            line.field("true_peak_db", l.truePeakDb, decimals: 2)
            if let t = l.target, let g = l.gainDb {
                line.field("target_lufs", t, decimals: 2)
                line.field("gain_db", g, decimals: 2)
            }
            line.field("plr_db", l.plrDb, decimals: 2)
            line.field("headroom_db", l.headroomDb, decimals: 2)
            if let v = l.verdict { verdict(v) }
        }
        if let spl = s.spl { soundLevelEnd(spl) }
        if let r = s.recordedFrames { line.field("recorded_frames", r) }
        if let file = s.file { line.field("file", file) }
        if let clipped = s.clippedSamples { line.field("clipped_samples", clipped) }
        if let silence = s.silenceSeconds { line.field("silence_seconds", silence, decimals: 5) }
        if let hooks = s.hooks {
            line.field("hooks_run", hooks.run)
            line.field("hooks_dropped", hooks.dropped)
            line.field("hooks_killed", hooks.killed)
        }
        if let dropped = s.mqttDropped { line.field("mqtt_dropped", dropped) }
        return finish()
    }

    /// `"verdict":{"pass":..,"rules":[{"rule":..,"value":..,"min":..,"max":..,"pass":..},..]}`.
    private mutating func verdict(_ v: Verdict) {
        line.key("verdict")
        line.byte(UInt8(ascii: "{"))
        line.field("pass", v.pass)
        line.key("rules")
        line.byte(UInt8(ascii: "["))
        for (i, r) in v.rules.enumerated() {
            if i > 0 { line.byte(UInt8(ascii: ",")) }
            line.byte(UInt8(ascii: "{"))
            line.field("rule", r.kind.rawValue)
            line.field("value", r.value, decimals: 2)
            if let min = r.min { line.field("min", min, decimals: 2) }
            line.field("max", r.max, decimals: 2)
            line.field("pass", r.pass)
            line.byte(UInt8(ascii: "}"))
        }
        line.byte(UInt8(ascii: "]"))
        line.byte(UInt8(ascii: "}"))
    }

    /// The sound level meter's settings on the start line: weightings, calibration, unit.
    private mutating func soundLevelStart(_ spl: SoundLevelSettings) {
        line.field("spl", true)
        line.field("weighting", spl.weighting.rawValue)
        line.field("time_weighting", spl.timeWeighting.rawValue)
        if let cal = spl.calibrationDb { line.field("calibration", cal, decimals: 2) }
        // What every level of the run is shifted by (the calibration less a microphone file's
        // sensitivity): levels minus it are dBFS.
        if spl.offsetDb != 0 { line.field("level_offset_db", spl.offsetDb, decimals: 2) }
        line.field("spl_unit", spl.unit)
    }

    /// The end line's sound levels; `ln_db` holds one {"L10","L50","L90"} object per channel.
    private mutating func soundLevelEnd(_ spl: SoundLevelSummary) {
        line.field("leq_db", spl.leqDb, decimals: 2)
        line.field("lmax_db", spl.lmaxDb, decimals: 2)
        line.field("lmin_db", spl.lminDb, decimals: 2)
        line.field("lpeak_db", spl.lpeakDb, decimals: 2)
        line.field("sel_db", spl.selDb, decimals: 2)
        line.key("ln_db")
        line.byte(UInt8(ascii: "["))
        for (i, p) in spl.ln.enumerated() {
            if i > 0 { line.byte(UInt8(ascii: ",")) }
            line.byte(UInt8(ascii: "{"))
            line.field("L10", p.l10, decimals: 2)
            line.field("L50", p.l50, decimals: 2)
            line.field("L90", p.l90, decimals: 2)
            line.byte(UInt8(ascii: "}"))
        }
        line.byte(UInt8(ascii: "]"))
    }

    /// Opens a line: its type, then with several sources the stream it belongs to.
    mutating func begin(_ type: StaticString, stream: Int?) {
        line.reset()
        line.byte(UInt8(ascii: "{"))
        line.key("type")
        line.byte(UInt8(ascii: "\""))
        line.raw(type)
        line.byte(UInt8(ascii: "\""))
        if let stream { line.field("stream", stream) }
    }

    private func rate(_ stream: Int?) -> Int {
        let k = stream ?? 0
        return k < rates.count ? rates[k] : 1
    }

    mutating func finish() -> [UInt8] {
        line.raw("}\n")
        return line.bytes
    }
}
