/// Encodes meter output as newline-delimited JSON, version 1 of CONTRACT.md.
///
/// Each call returns one complete line (ending in `\n`) in a reused buffer; the caller writes
/// it in one go. dB values carry 2 decimals, times 5 (ts 6), band edges 3.
public struct NDJSONEncoder {
    public static let version = 1
    private var line = JSONLineBuilder()
    private var rate = 1

    public init() {}

    public mutating func start(_ info: StreamInfo) -> [UInt8] {
        let s = info.settings
        rate = s.rate
        line.reset()
        line.raw("{\"type\":\"start\",\"version\":")
        line.int(Self.version)
        line.raw(",\"source\":")
        line.string(info.source)
        line.raw(",\"rate\":")
        line.int(s.rate)
        line.raw(",\"channels\":")
        line.int(s.channels)
        line.raw(",\"fps\":")
        line.number(s.fps, decimals: 3)
        line.raw(",\"hop\":")
        line.int(s.hop)
        line.raw(",\"window\":")
        line.int(s.window)
        if let bands = info.bandsHz {
            line.raw(",\"fft_size\":")
            line.int(s.fftSize)
            line.raw(",\"bands_hz\":[")
            for (i, (lo, hi)) in bands.enumerated() {
                if i > 0 { line.byte(UInt8(ascii: ",")) }
                line.numbers([lo, hi], decimals: 3)
            }
            line.byte(UInt8(ascii: "]"))
        }
        line.raw("}\n")
        return line.bytes
    }

    public mutating func frame(_ f: MeterFrame) -> [UInt8] {
        line.reset()
        line.raw("{\"type\":\"frame\",\"t\":")
        line.number(Double(f.pos) / Double(rate), decimals: 5)
        line.raw(",\"pos\":")
        line.int(f.pos)
        if let ts = f.ts {
            line.raw(",\"ts\":")
            line.number(ts, decimals: 6)
        }
        line.raw(",\"rms_db\":")
        line.numbers(f.rmsDb, decimals: 2)
        line.raw(",\"peak_db\":")
        line.numbers(f.peakDb, decimals: 2)
        if let bands = f.bandsDb {
            line.raw(",\"bands_db\":")
            line.numbers(bands, decimals: 2)
        }
        line.raw("}\n")
        return line.bytes
    }

    public mutating func gap(_ g: StreamGap) -> [UInt8] {
        line.reset()
        line.raw("{\"type\":\"gap\",\"start_ts\":")
        line.number(g.startTs, decimals: 6)
        line.raw(",\"end_ts\":")
        line.number(g.endTs, decimals: 6)
        line.raw(",\"seconds\":")
        line.number(g.seconds, decimals: 3)
        line.raw("}\n")
        return line.bytes
    }

    public mutating func end(_ s: StreamSummary) -> [UInt8] {
        line.reset()
        line.raw("{\"type\":\"end\",\"pos\":")
        line.int(s.pos)
        line.raw(",\"duration\":")
        line.number(s.duration, decimals: 5)
        line.raw(",\"rms_db\":")
        line.numbers(s.rmsDb, decimals: 2)
        line.raw(",\"peak_db\":")
        line.numbers(s.peakDb, decimals: 2)
        line.raw(",\"dropped\":")
        line.int(s.dropped)
        if let r = s.recordedFrames {
            line.raw(",\"recorded_frames\":")
            line.int(r)
        }
        if let file = s.file {
            line.raw(",\"file\":")
            line.string(file)
        }
        line.raw("}\n")
        return line.bytes
    }
}
