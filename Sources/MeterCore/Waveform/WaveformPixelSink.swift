/// The sink of a waveform run of min/max pixels (`WaveformRequest.pixels`): writes the pixels
/// each frame carries as they come, and at the end line the last ones and the document's end.
public final class WaveformPixelSink: DiscardingSink {
    private let writer: WaveformDataWriter
    private let statedFrames: Int?

    /// `statedFrames`: the length the header stated, when it states one; a stream that turns
    /// out another length ends without its document's end (the caller says why), one stopped
    /// part way with it (`WaveformDataWriter.finish`).
    public init(writer: WaveformDataWriter, statedFrames: Int?) {
        self.writer = writer
        self.statedFrames = statedFrames
    }

    public override func frame(_ frame: MeterFrame) throws {
        try write(frame.pixels)
    }

    public override func end(_ summary: StreamSummary) throws {
        if let statedFrames, summary.pos != statedFrames, summary.complete != false { return }
        try write(summary.pixels)
        try writer.finish(frames: summary.pos)
    }

    private func write(_ pixels: [Float]) throws {
        let width = writer.pixelWidth
        try pixels.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: width) {
                try writer.pixel(UnsafeBufferPointer(rebasing: all[start..<start + width]))
            }
        }
    }
}
