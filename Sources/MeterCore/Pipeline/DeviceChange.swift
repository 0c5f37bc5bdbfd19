/// What a live source is metering now, when that changes mid-run (the NDJSON `device` line):
/// the server's default switched and the meter followed, the server moved the stream, or an
/// application's playback streams came or went.
public struct DeviceChange: Sendable, Equatable {
    /// Captured frames before the change (the session sets it).
    public var pos: Int
    /// Unix time of the change.
    public var ts: Double
    /// What is metered from now on: a source's name, or `app:NAME`.
    public var source: String
    /// For `app:NAME`: how many of its playback streams are metered (summed); 0 while waiting.
    public var streams: Int?
    /// With several sources in one session: which one (the NDJSON `stream` field).
    public var stream: Int?

    public init(pos: Int = 0, ts: Double, source: String, streams: Int? = nil) {
        self.pos = pos
        self.ts = ts
        self.source = source
        self.streams = streams
    }

    /// True while an application source waits for the application to play.
    public var waiting: Bool { streams == 0 }
}
