import Dispatch
import Glibc
import MeterCore
import Synchronization

/// What a live run captures and does.
public struct LiveOptions: Sendable {
    public var device: String?
    public var settings: MeterSettings
    /// Stop after this many captured frames (`--duration`).
    public var durationFrames: Int?
    /// Also record every captured frame here.
    public var recordPath: FilePath?
    /// On server or device loss, wait and resume instead of failing.
    public var reconnect: Bool
    /// The lossy encoder's bit rate (`--bitrate`); nil: its default.
    public var bitrateKbps: Int?

    public init(device: String? = nil, settings: MeterSettings, durationFrames: Int? = nil,
                recordPath: FilePath? = nil, reconnect: Bool = false, bitrateKbps: Int? = nil) {
        self.device = device
        self.settings = settings
        self.durationFrames = durationFrames
        self.recordPath = recordPath
        self.reconnect = reconnect
        self.bitrateKbps = bitrateKbps
    }
}

/// Live capture: three threads joined by lock-free rings.
///
/// ```
/// capture thread (pa_simple_read) ─┬─► meter ring ─► analysis (caller's thread) ─► sink
///                                  └─► record ring ─► recorder thread ─► RecordingWriter
/// ```
/// The capture thread only reads and pushes; it never waits on analysis, output or disk. A full
/// meter ring drops the chunk (the analysis sees the hole by position and counts it in
/// `dropped`); the record ring holds about 10 s, and an overflow is counted and reported.
/// The analysis runs the same `MeterPipeline` as `analyze`, on the same Float conversion.
///
/// Thread-safety invariant for `@unchecked Sendable`: `stream` is touched only by the capture
/// thread once `run` starts; `writer` only by the recorder thread; everything else shared is an
/// Atomic, a Mutex, or a ChunkRing used by exactly one producer and one consumer.
public final class LiveMeterSession: @unchecked Sendable {
    public let options: LiveOptions
    /// The source name shown in the `start` line (the default source resolved to its name).
    public let sourceName: String

    private var stream: PulseStream?
    private var writer: (any RecordingWriter)?
    private let chunkFrames: Int
    private let meterRing: ChunkRing<Int16>
    private let recordRing: ChunkRing<Int16>?

    private let captured = Atomic<Int>(0)            // frames captured so far
    private let recordOverflow = Atomic<Int>(0)      // frames the record ring could not take
    private let abandoned = Atomic<Bool>(false)      // analysis gave up waiting for a blocked read
    private let internalStop = Atomic<Bool>(false)   // a consumer failed; stop capturing
    private let captureDone = DispatchSemaphore(value: 0)
    private let recorderDone = DispatchSemaphore(value: 0)
    /// Signalled by the capture thread after each push (never blocks it), so the analysis
    /// wakes at once instead of polling.
    private let meterWake = DispatchSemaphore(value: 0)
    private let failures = Mutex<[PulsemeterError]>([])
    private let gaps = Mutex<[StreamGap]>([])
    /// True while the capture thread waits for the server to come back (`--reconnect`).
    public let inOutage = Atomic<Bool>(false)

    /// Connects to the server (exit 69 when it or the device is missing), then creates the
    /// recording (exit 73), before anything is captured.
    public init(options: LiveOptions) throws(PulsemeterError) {
        self.options = options
        let s = options.settings
        // The container is checked first (a usage error), the file created only once the
        // server answered (no empty file left behind when it does not).
        let format = try options.recordPath.map { (path) throws(PulsemeterError) in
            try RecordingFormat.choose(path: path, rate: s.rate, channels: s.channels, bitrateKbps: options.bitrateKbps)
        }
        stream = try PulseStream(direction: .record, device: options.device, rate: s.rate, channels: s.channels)
        sourceName = Self.resolveName(options.device)
        if let path = options.recordPath, let format {
            writer = try format.openWriter(path: path)
        }
        chunkFrames = max(1, s.rate / 100)
        let slot = chunkFrames * s.channels
        let slotBytes = slot * 2
        // ~2.5 s of meter input (less for very wide specs): enough to ride out bursts from
        // sources that deliver in lumps (pipe sources, PipeWire) without dropping.
        meterRing = ChunkRing(slots: max(32, min(256, (4 << 20) / slotBytes)), slotCapacity: slot)
        let recordSlots = max(200, min(1000, (24 << 20) / slotBytes))  // ~10 s, at most ~24 MB
        recordRing = options.recordPath == nil ? nil : ChunkRing(slots: recordSlots, slotCapacity: slot)
    }

    private static func resolveName(_ device: String?) -> String {
        if let device, !device.hasPrefix("@") { return device }
        guard let d = try? PulseDevices(timeout: 2).defaults() else { return device ?? "default" }
        if device == "@DEFAULT_MONITOR@" { return d.sink + ".monitor" }
        if device == "@DEFAULT_SINK@" { return d.sink }
        return d.source
    }

    private var shouldStop: Bool { Signals.stopRequested || internalStop.load(ordering: .acquiring) }

    private func fail(_ e: PulsemeterError) {
        failures.withLock { $0.append(e) }
        internalStop.store(true, ordering: .releasing)
    }

    // MARK: capture thread

    private func captureLoop() {
        let s = options.settings
        let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: chunkFrames * s.channels)
        defer {
            scratch.deallocate()
            recordRing?.close()
            meterRing.close()
            meterWake.signal()
            captureDone.signal()
        }
        var pos = 0
        let limit = options.durationFrames ?? Int.max
        while !shouldStop && pos < limit {
            let frames = min(chunkFrames, limit - pos)
            do {
                guard let stream else { throw PulsemeterError(.io, "no stream") }
                try stream.read(scratch, bytes: frames * s.channels * 2)
            } catch {
                if shouldStop { break }
                guard options.reconnect else {
                    fail(PulsemeterError(.io, "lost the PulseAudio source \(sourceName) on \(PulseStream.serverDescription) (\(stream?.lastError ?? "\(error)")); the recording holds every frame captured before; use --reconnect to wait for it instead"))
                    break
                }
                guard reconnectAfterLoss() else { break }
                continue
            }
            if abandoned.load(ordering: .acquiring) { break }
            let chunk = UnsafeBufferPointer(start: scratch, count: frames * s.channels)
            if let recordRing, !recordRing.push(chunk, position: pos) {
                recordOverflow.add(frames, ordering: .relaxed)
            }
            meterRing.push(chunk, position: pos)  // full: dropped, seen by position
            meterWake.signal()
            pos += frames
            captured.store(pos, ordering: .releasing)
        }
    }

    /// Waits for the server or device to come back, with backoff (0.1 s doubling to 2 s).
    /// Records the outage as a gap; false when stopped meanwhile.
    private func reconnectAfterLoss() -> Bool {
        let start = unixSeconds()
        inOutage.store(true, ordering: .releasing)
        defer { inOutage.store(false, ordering: .releasing) }
        stream = nil
        var delay = 0.1
        while !shouldStop {
            if let s = try? PulseStream(direction: .record, device: options.device,
                                        rate: options.settings.rate, channels: options.settings.channels) {
                stream = s
                gaps.withLock { $0.append(StreamGap(startTs: start, endTs: unixSeconds())) }
                return true
            }
            let until = monotonicSeconds() + delay
            while !shouldStop && monotonicSeconds() < until { usleep(20_000) }
            delay = min(2, delay * 2)
        }
        return false
    }

    // MARK: recorder thread

    private func recordLoop() {
        defer { recorderDone.signal() }
        guard let ring = recordRing, let writer else { return }
        var failed = false
        while true {
            var got = false
            do {
                got = try ring.pop { chunk, _ in
                    if !failed { try writer.write(chunk) }
                }
            } catch let e as PulsemeterError {
                failed = true
                fail(e)
            } catch {}
            if !got {
                if ring.isClosed && ring.available == 0 { break }
                if abandoned.load(ordering: .acquiring) && ring.available == 0 { break }
                usleep(5_000)
            }
        }
        do { try writer.close() } catch { if !failed { fail(error) } }
    }

    // MARK: analysis (the caller's thread)

    /// Runs until --duration, a stop signal, a failure, or the sink's reader going away.
    /// Emits start, frames (with `ts`), gaps and the end line; the recording is finished before
    /// the end line is written. Throws the first failure after everything is finished.
    @discardableResult
    public func run(sink: any FrameSink, transform: (any PowerSpectrumTransform)?) throws -> StreamSummary {
        let s = options.settings
        let pipeline = try MeterPipeline(settings: s, transform: transform, clock: unixSeconds)
        var sinkError: Error?
        do { try sink.start(pipeline.streamInfo(source: sourceName, live: true)) } catch {
            // The output is already unusable (EPIPE, ENOSPC on /dev/full): stop at once rather
            // than capture until a signal with nowhere to report.
            sinkError = error
            internalStop.store(true, ordering: .releasing)
        }
        OSThread.spawn(role: "pm-capture") { [self] in captureLoop() }
        OSThread.spawn(role: "pm-recorder") { [self] in recordLoop() }

        let floats = UnsafeMutablePointer<Float>.allocate(capacity: meterRing.slotCapacity)
        defer { floats.deallocate() }
        var expected = 0
        var stopSeen: Double?
        let emit: (MeterFrame) throws -> Void = { try sink.frame($0) }
        func guarded(_ body: () throws -> Void) {
            guard sinkError == nil else { return }
            do { try body() } catch {
                sinkError = error
                internalStop.store(true, ordering: .releasing)
            }
        }
        while true {
            var got = false
            meterRing.pop { chunk, position in
                got = true
                let frames = chunk.count / s.channels
                guarded {
                    if position > expected { try pipeline.skip(frames: position - expected, emit: emit) }
                    SampleConversion.floats(from: chunk.baseAddress!, into: floats, count: chunk.count)
                    try pipeline.process(floats, frames: frames, emit: emit)
                }
                expected = position + frames
            }
            let pending = gaps.withLock { g -> [StreamGap] in defer { g.removeAll() }; return g }
            for g in pending { guarded { try sink.gap(g) } }
            if got { continue }
            if meterRing.isClosed && meterRing.available == 0 { break }
            if shouldStop {
                // A read blocked on a silent source cannot be interrupted; give it half a second.
                let now = monotonicSeconds()
                if stopSeen == nil { stopSeen = now }
                if now - stopSeen! > 0.5 {
                    abandoned.store(true, ordering: .releasing)
                    break
                }
            }
            if let live = sink as? LiveStatusSink { guarded { try live.idle(outage: inOutage.load(ordering: .acquiring)) } }
            _ = meterWake.wait(timeout: .now() + .milliseconds(50))
        }
        if !abandoned.load(ordering: .acquiring) { captureDone.wait() }
        let total = captured.load(ordering: .acquiring)
        guarded {
            if total > expected { try pipeline.skip(frames: total - expected, emit: emit) }
            try pipeline.finish(emit: emit)
        }
        recorderDone.wait()
        var summary = pipeline.summary()
        if let writer {
            summary.recordedFrames = writer.framesWritten
            summary.file = writer.path.string
        }
        guarded { try sink.end(summary) }

        let overflow = recordOverflow.load(ordering: .acquiring)
        if overflow > 0 {
            throw PulsemeterError(.io, "the recording lost \(overflow) frames: the disk did not keep up for over 10 s; \(summary.recordedFrames ?? 0) frames were written")
        }
        if let first = failures.withLock({ $0.first }) { throw first }
        if let sinkError { throw sinkError }
        return summary
    }
}

/// A sink that wants a call while no audio arrives (to show an outage or follow a resize).
public protocol LiveStatusSink: FrameSink {
    func idle(outage: Bool) throws
}
