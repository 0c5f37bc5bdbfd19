import MeterCore

/// What a session runs: its sources, each with its own settings, and its sinks. The CLI
/// builds one from the command line; `MeterSession` runs it.
public struct SessionDescription {
    /// One source of a run: a sound file, an ffmpeg decoder, raw PCM on stdin.
    public struct Source {
        public var input: any SampleBlockSource
        public var settings: ValidSettings
        /// Stop after this many frames (`--duration`); nil: to the end.
        public var limit: Int?

        public init(_ input: any SampleBlockSource, settings: ValidSettings, limit: Int? = nil) {
            self.input = input
            self.settings = settings
            self.limit = limit
        }

        /// The frames the run is to read, when known: the file's declared length, or `limit`
        /// when that is shorter.
        public var length: Int? {
            let declared = (input as? any AudioFileSource).map(\.declaredFrames).flatMap { $0 > 0 ? $0 : nil }
            return [declared, limit].compactMap { $0 }.min()
        }
    }

    /// How a run lays its work over threads. The computations are the same either way, so
    /// are the numbers, bit for bit.
    public enum Threads: Sendable {
        /// One source: decoding read ahead on its own thread, levels and loudness on the
        /// caller's, band transforms, encoding and output on a third (one run gets the
        /// machine's cores).
        case spread
        /// Everything on the caller's thread: a worker of a many-file run, where the other
        /// cores already run other files and per-file threads would only cost wake-ups.
        case inline
    }

    public var sources: [Source]
    /// Where every line goes, in this order (one sink: itself; several: a `FanOutSink`).
    public var sinks: [any FrameSink]
    public var threads: Threads
    /// With one source on a terminal: the progress line kept current, and the input's label.
    public var progress: (line: ProgressLine, label: String)?

    public init(sources: [Source], sinks: [any FrameSink], threads: Threads = .spread,
                progress: (line: ProgressLine, label: String)? = nil) {
        self.sources = sources
        self.sinks = sinks
        self.threads = threads
        self.progress = progress
    }

    /// The sinks as one.
    var sink: any FrameSink { sinks.count == 1 ? sinks[0] : FanOutSink(sinks) }
}
