/// The run as CSV (`-f csv`, `CSVWriter`): one header row, then a row per period and day line
/// (`periods`: with `--interval` or `--lden`) or else a row per frame. A column per field and
/// channel (`leq_db_front-left`: the field, `_`, the start line's channel name), times in RFC
/// 3339, numbers as the NDJSON lines write them; a field a row does not have is empty. Band
/// levels and events stay NDJSON's. The header follows the first stream's start.
public final class CSVSink: FrameSink {
    private let output: any ByteOutput
    private let periods: Bool
    private let zone: any UTCOffsets
    private let csv = CSVWriter()
    private var columns: Columns?
    private var rows: [UInt8] = []
    private let gathering: Bool
    private let ldenColumns: Bool
    /// Each stream's rate, for `t`.
    private var rates: [Int: Int] = [:]

    /// What the header promised: the channel names and the optional groups.
    private struct Columns {
        var names: [String]
        var stream: Bool, live: Bool, spl: Bool, loudness: Bool, stereo: Bool, lden: Bool
    }

    /// `zone`: the offsets live frames' times are written in. `gathering`: rows are written
    /// together at `flush` and the end (a file's analysis), else each at once.
    public init(output: any ByteOutput, periods: Bool, lden: Bool = false, zone: any UTCOffsets, gathering: Bool = false) {
        self.output = output
        self.periods = periods
        self.zone = zone
        self.gathering = gathering
        ldenColumns = lden
    }

    public func start(_ info: StreamInfo) throws {
        let s = info.settings
        rates[info.stream ?? 0] = s.rate
        guard columns == nil else { return }
        let c = Columns(names: info.channelNames, stream: info.stream != nil, live: info.live, spl: s.spl != nil,
                        loudness: s.loudness, stereo: s.channels >= 2, lden: ldenColumns)
        columns = c
        try write(csv.row(periods ? periodHeader(c) : frameHeader(c)))
    }

    private func perChannel(_ fields: [String], _ c: Columns) -> [String] {
        fields.flatMap { f in c.names.map { f + "_" + $0 } }
    }

    private func frameHeader(_ c: Columns) -> [String] {
        var h = (c.stream ? ["stream"] : []) + ["t", "pos"] + (c.live ? ["time"] : [])
        h += perChannel(["rms_db", "peak_db"], c)
        if c.spl { h += perChannel(["spl_db", "leq_db"], c) }
        if c.loudness { h += ["lufs_m", "lufs_s", "lufs_i"] }
        if c.stereo { h += ["correlation", "balance_db"] }
        return h
    }

    private func periodHeader(_ c: Columns) -> [String] {
        var h = (c.stream ? ["stream"] : []) + ["type", "start", "end", "seconds", "partial"]
        h += perChannel(["leq_db", "lmax_db", "lmin_db", "l10_db", "l50_db", "l90_db", "peak_db"], c)
        if c.loudness { h += ["lufs_i", "max_lufs_m", "max_lufs_s"] + perChannel(["true_peak_db"], c) }
        h.append("gap_seconds")
        if c.lden { h += ["date"] + perChannel(["lday_db", "levening_db", "lnight_db", "lden_db"], c) }
        return h
    }

    private func db(_ v: [Double]) -> [String] { v.map { csv.number($0, decimals: 2) } }
    private func time(_ unix: Double, _ offset: Int) -> String { CivilTime.rfc3339(unix, offset: offset) }

    private func frameRow(_ f: MeterFrame, _ c: Columns) -> [String] {
        let rate = Double(rates[f.stream ?? 0] ?? 1)
        var r = (c.stream ? [String(f.stream ?? 0)] : []) + [csv.number(Double(f.pos) / rate, decimals: 5), String(f.pos)]
        if c.live { r.append(f.ts.map { time($0, zone.offset(at: $0)) } ?? "") }
        r += db(f.rmsDb) + db(f.peakDb)
        if c.spl { r += f.spl.map { db($0.splDb) + db($0.leqDb) } ?? blank(2 * c.names.count) }
        if c.loudness { r += f.loudness.map { db([$0.momentary, $0.shortTerm, $0.integrated]) } ?? blank(3) }
        if c.stereo {
            r += [f.correlation.map { csv.number($0, decimals: 3) } ?? "", f.balanceDb.map { csv.number($0, decimals: 2) } ?? ""]
        }
        return r
    }

    private func periodRow(_ p: PeriodReport, _ c: Columns) -> [String] {
        var r = (c.stream ? [String(p.stream ?? 0)] : []) + ["period", time(p.start, p.startOffset), time(p.end, p.endOffset),
                                                                 csv.number(p.seconds, decimals: 3), p.partial ? "true" : "false"]
        r += [p.leqDb, p.lmaxDb, p.lminDb, p.l10Db, p.l50Db, p.l90Db, p.peakDb].flatMap(db)
        if c.loudness {
            r += p.loudness.map { db([$0.integrated, $0.maxMomentary, $0.maxShortTerm] + $0.truePeakDb) } ?? blank(3 + c.names.count)
        }
        r.append(p.gapSeconds.map { csv.number($0, decimals: 3) } ?? "")
        if c.lden { r += blank(1 + 4 * c.names.count) }
        return r
    }

    private func dayRow(_ d: DayReport, _ c: Columns) -> [String] {
        var r = (c.stream ? [String(d.stream ?? 0)] : []) + ["day", time(d.start, d.startOffset), time(d.end, d.endOffset),
                                                                 csv.number(d.seconds, decimals: 3), d.partial ? "true" : "false"]
        r += blank(7 * c.names.count + (c.loudness ? 3 + c.names.count : 0) + 1)
        r.append(d.date.text)
        for v in [d.ldayDb, d.leveningDb, d.lnightDb, d.ldenDb] { r += v.map(db) ?? blank(c.names.count) }
        return r
    }

    private func blank(_ n: Int) -> [String] { Array(repeating: "", count: n) }

    private func write(_ row: [UInt8]) throws {
        guard gathering else { return try output.write(row) }
        rows += row
        if rows.count >= 65536 { try flush() }
    }

    private func writeClosed(_ period: PeriodReport?, _ day: DayReport?) throws {
        guard let c = columns else { return }
        if let period { try write(csv.row(periodRow(period, c))) }
        if let day { try write(csv.row(dayRow(day, c))) }
    }

    public func frame(_ frame: MeterFrame) throws {
        guard let c = columns else { return }
        if periods { return try writeClosed(frame.period, frame.day) }
        try write(csv.row(frameRow(frame, c)))
    }

    public func end(_ summary: StreamSummary) throws {
        if periods { try writeClosed(summary.period, summary.day) }
        try flush()
    }

    public func flush() throws {
        guard !rows.isEmpty else { return }
        let out = rows
        rows.removeAll(keepingCapacity: true)
        try output.write(out)
    }

    public func gap(_ gap: StreamGap) throws {}
    public func device(_ change: DeviceChange) throws {}
    public func file(_ event: RecordingFileEvent) throws {}
    public func event(_ event: MeterEvent, ts: Double, stream: Int?) throws {}
    public func idle(outage: Bool, stream: Int?) throws {}
}
