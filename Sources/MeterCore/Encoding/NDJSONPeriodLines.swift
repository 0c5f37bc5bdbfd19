/// The `period` and `day` lines (`--interval`, `--lden`): times in RFC 3339 with the offset
/// from UTC, dB values with 2 decimals, one value per channel.
extension NDJSONEncoder {
    public mutating func period(_ p: PeriodReport) -> [UInt8] {
        begin("period", stream: p.stream)
        line.field("start", CivilTime.rfc3339(p.start, offset: p.startOffset))
        line.field("end", CivilTime.rfc3339(p.end, offset: p.endOffset))
        line.field("seconds", p.seconds, decimals: 3)
        line.field("partial", p.partial)
        line.field("leq_db", p.leqDb, decimals: 2)
        line.field("lmax_db", p.lmaxDb, decimals: 2)
        line.field("lmin_db", p.lminDb, decimals: 2)
        line.field("l10_db", p.l10Db, decimals: 2)
        line.field("l50_db", p.l50Db, decimals: 2)
        line.field("l90_db", p.l90Db, decimals: 2)
        line.field("peak_db", p.peakDb, decimals: 2)
        if let l = p.loudness {
            line.field("lufs_i", l.integrated, decimals: 2)
            line.field("max_lufs_m", l.maxMomentary, decimals: 2)
            line.field("max_lufs_s", l.maxShortTerm, decimals: 2)
            line.field("true_peak_db", l.truePeakDb, decimals: 2)
        }
        if let g = p.gapSeconds { line.field("gap_seconds", g, decimals: 3) }
        return finish()
    }

    public mutating func day(_ d: DayReport) -> [UInt8] {
        begin("day", stream: d.stream)
        line.field("date", d.date.text)
        line.field("start", CivilTime.rfc3339(d.start, offset: d.startOffset))
        line.field("end", CivilTime.rfc3339(d.end, offset: d.endOffset))
        line.field("seconds", d.seconds, decimals: 3)
        line.field("partial", d.partial)
        if let v = d.ldayDb { line.field("lday_db", v, decimals: 2) }
        if let v = d.leveningDb { line.field("levening_db", v, decimals: 2) }
        if let v = d.lnightDb { line.field("lnight_db", v, decimals: 2) }
        if let v = d.ldenDb { line.field("lden_db", v, decimals: 2) }
        return finish()
    }
}
