/// The frames of one history slot merged into one frame (`FrameHistory`): levels (`rms_db`,
/// `bands_db`, `lufs_m`, `lufs_s`, `spl_db`, `meter_db`) as power means, peaks (`peak_db`, the
/// true peak so far) as maxima, clipped samples summed; what is already a running figure
/// (`pos`, `ts`, `lufs_i`, `lra`, `leq_db`, `dropped`) and the rest as of the slot's last frame.
public struct FrameMerge: Sendable {
    /// Frames merged so far.
    public private(set) var count = 0
    /// The slot's last frame, with the merged values once `merged` is read.
    private var last: MeterFrame?
    private var rms: [Double] = []
    private var peak: [Double] = []
    private var bands: [Double]?
    private var momentary = 0.0, shortTerm = 0.0
    private var truePeak: [Double]?
    private var spl: [Double]?
    private var meter: [Double]?
    private var clips: [Int] = []

    public init() {}

    public mutating func add(_ f: MeterFrame) {
        if count == 0 {
            rms = f.rmsDb.map(Self.power)
            peak = f.peakDb
            bands = f.bandsDb?.map(Self.power)
            momentary = f.loudness.map { Self.power($0.momentary) } ?? 0
            shortTerm = f.loudness.map { Self.power($0.shortTerm) } ?? 0
            truePeak = f.loudness?.truePeakDb
            spl = f.spl?.splDb.map(Self.power)
            meter = f.meterDb?.map(Self.power)
            clips = f.clipSamples
        } else {
            Self.addPowers(&rms, f.rmsDb)
            peak = Self.maxima(peak, f.peakDb)
            if let b = f.bandsDb, bands != nil { Self.addPowers(&bands!, b) }
            if let l = f.loudness {
                momentary += Self.power(l.momentary)
                shortTerm += Self.power(l.shortTerm)
                if let tp = l.truePeakDb { truePeak = truePeak.map { Self.maxima($0, tp) } ?? tp }
            }
            if let s = f.spl?.splDb, spl != nil { Self.addPowers(&spl!, s) }
            if let m = f.meterDb, meter != nil { Self.addPowers(&meter!, m) }
            for (c, n) in f.clipSamples.enumerated() where c < clips.count { clips[c] += n }
        }
        last = f
        count += 1
    }

    /// The merged frame (nil before the first `add`); without events, periods or days (the
    /// history keeps event lines by themselves).
    public var merged: MeterFrame? {
        guard var f = last else { return nil }
        let n = Double(count)
        f.rmsDb = rms.map { Decibels.fromPower($0 / n) }
        f.peakDb = peak
        f.bandsDb = bands.map { $0.map { Decibels.fromPower($0 / n) } }
        if f.loudness != nil {
            f.loudness!.momentary = Decibels.fromPower(momentary / n)
            f.loudness!.shortTerm = Decibels.fromPower(shortTerm / n)
            f.loudness!.truePeakDb = truePeak
        }
        if f.spl != nil, let spl { f.spl!.splDb = spl.map { Decibels.fromPower($0 / n) } }
        f.meterDb = meter.map { $0.map { Decibels.fromPower($0 / n) } }
        f.clipSamples = clips
        f.events = []
        f.period = nil
        f.day = nil
        return f
    }

    /// The power of a dB value; the floor (-160, silence) counts as 0.
    static func power(_ db: Double) -> Double {
        db <= Decibels.floor ? 0 : PureMath.pow(10, db / 10)
    }

    private static func addPowers(_ sums: inout [Double], _ db: [Double]) {
        for (i, v) in db.enumerated() where i < sums.count { sums[i] += power(v) }
    }

    private static func maxima(_ a: [Double], _ b: [Double]) -> [Double] {
        zip(a, b).map { Swift.max($0, $1) }
    }
}
