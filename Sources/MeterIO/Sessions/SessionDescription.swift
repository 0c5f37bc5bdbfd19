import MeterCore

/// What a session runs: its sources, each with its own settings, and how it lays them over
/// threads. The CLI builds one from the command line; `MeterSession` runs it into sinks.
public struct SessionDescription {
    /// One source of a run: samples read as fast as they come (a sound file, an ffmpeg decoder,
    /// raw PCM on stdin), a live source captured at its own pace (a PulseAudio source, an
    /// application's streams, a network stream, with its recording: `LiveOptions`), or a file
    /// played at the pace of its playback stream (`PlaybackSource`).
    public struct Source {
        public enum Input {
            case samples(any SampleBlockSource)
            case live(LiveOptions)
            case played(PlaybackSource)
        }
        public let input: Input
        /// A live source's are its options' (so neither can say otherwise).
        public let settings: ValidSettings
        /// Stop after this many frames (`--duration`); nil: to the end.
        public let limit: Int?

        public init(_ input: any SampleBlockSource, settings: ValidSettings, limit: Int? = nil) {
            self.input = .samples(input)
            self.settings = settings
            self.limit = limit
        }

        /// A file played as it is metered: frames carry the time they were played (`ts`), the
        /// start line says `live`, and the end line has no `complete`.
        public init(played: PlaybackSource, settings: ValidSettings) {
            input = .played(played)
            self.settings = settings
            limit = nil
        }

        /// A live source: its settings and duration are the options'.
        public init(live options: LiveOptions) {
            input = .live(options)
            settings = options.settings
            limit = options.durationFrames
        }

        /// The samples of a source read as fast as they come; nil for a live one.
        var samples: (any SampleBlockSource)? {
            if case .samples(let s) = input { return s }
            return nil
        }

        /// The frames the run is to read, when known: the file's declared length, or `limit`
        /// when that is shorter.
        public var length: Int? {
            let declared = (samples as? any AudioFileSource).map(\.declaredFrames).flatMap { $0 > 0 ? $0 : nil }
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

    /// All of one kind: samples, or live (a run does not mix them).
    public var sources: [Source]
    /// For sample sources (live ones have their own threads: capture, recorder, analysis).
    public var threads: Threads
    /// With one sample source on a terminal: the progress line kept current, and the input's label.
    public var progress: (line: ProgressLine, label: String)?

    public init(sources: [Source], threads: Threads = .spread, progress: (line: ProgressLine, label: String)? = nil) {
        precondition(!sources.isEmpty, "a session has a source")
        self.sources = sources
        self.threads = threads
        self.progress = progress
    }

    /// The live sources' options, in order; empty for a run of sample sources.
    public var liveOptions: [LiveOptions] {
        sources.compactMap { if case .live(let o) = $0.input { return o } else { return nil } }
    }
}
