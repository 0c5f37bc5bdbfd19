import CEBUR128
import MeterCore
import Synchronization

/// The reference loudness measurement on libebur128 (`ebur128_init`, `ebur128_add_frames_float`,
/// `ebur128_loudness_global`, `ebur128_loudness_range`, `ebur128_true_peak`).
///
/// True peak (4x oversampling below 96 kHz) costs about three times everything else, and
/// libebur128 keeps it per channel, so the work is split over states that do not share
/// anything: one state with every channel for integrated loudness and loudness range (modes I
/// and LRA, channel roles from `LoudnessChannel`), and one single-channel state in TRUE_PEAK
/// mode per channel. Each group of states runs on its own worker thread, fed the same blocks
/// in the same order through its own `ChunkHandoff`; a state gives the same result however its
/// input is split, so the figures are identical to a single-threaded run (`threaded: false`,
/// which the tests compare against).
///
/// `add` never drops: when a worker is behind by a full ring (files decode faster than true
/// peak runs), the caller waits for it.
public final class EBUR128Loudness: LoudnessReference, @unchecked Sendable {
    public let rate: Int
    public let channels: Int
    private let workers: [Worker]
    private let threaded: Bool
    private let live: Bool
    private var result: LoudnessReferenceValues?
    private var position = 0

    /// - Parameters:
    ///   - threaded: run the states on worker threads (false: inline, for comparison).
    ///   - live: keep the loudness range current (about once per second of audio) for `snapshot`.
    /// Throws `SettingError` for a rate libebur128 refuses, `OSThread.StartError` when a worker
    /// thread cannot start.
    public init(rate: Int, channels: Int, threaded: Bool = true, live: Bool = false) throws {
        self.rate = rate
        self.channels = channels
        self.threaded = threaded
        self.live = live
        let roles = LoudnessChannel.roles(channels: channels)
        let refused = SettingError(.loudnessRate, value: Double(rate),
                                   allowed: MeterSettings(rate: rate, channels: channels).allowed(.loudnessRate))
        guard let main = ebur128_init(UInt32(channels), UInt(rate), Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue)) else {
            throw refused
        }
        for (c, role) in roles.enumerated() {
            _ = ebur128_set_channel(main, UInt32(c), Int32(Self.channelCode(role).rawValue))
        }
        var peaks: [EBUR128State] = []
        for _ in 0..<channels {
            guard let st = ebur128_init(1, UInt(rate), Int32(EBUR128_MODE_TRUE_PEAK.rawValue)) else {
                ebur128_destroy_all([main] + peaks)
                throw refused
            }
            peaks.append(st)
        }
        // Worker 0: integrated and range. Then true peak, channels split over at most two
        // workers (this is a 2-core class of machine; more threads would only take turns).
        var ws = [Worker(channels: channels, main: main, peaks: [], rangeEvery: live ? rate : 0)]
        let groups = min(channels, 2)
        for g in 0..<groups {
            let mine = stride(from: g, to: channels, by: groups).map { ($0, peaks[$0]) }
            ws.append(Worker(channels: channels, main: nil, peaks: mine, rangeEvery: 0))
        }
        workers = ws
        if threaded {
            for (i, w) in workers.enumerated() {
                do {
                    try OSThread.spawn(role: i == 0 ? "pm-loudness" : "pm-truepeak") { w.run() }
                } catch {
                    for w in workers { w.close() }
                    throw error
                }
            }
        }
    }

    deinit {
        // An abandoned run (the output went away): let the workers end.
        for w in workers { w.close() }
    }

    private static func channelCode(_ role: LoudnessChannel) -> channel {
        switch role {
        case .left: return EBUR128_LEFT
        case .right: return EBUR128_RIGHT
        case .center, .other: return EBUR128_CENTER
        case .lfe: return EBUR128_UNUSED
        case .leftSurround: return EBUR128_LEFT_SURROUND
        case .rightSurround: return EBUR128_RIGHT_SURROUND
        }
    }

    public func add(_ samples: UnsafePointer<Float>, frames: Int) {
        guard result == nil, frames > 0 else { return }
        if !threaded {
            for w in workers { w.measure(samples, frames: frames) }
            return
        }
        var done = 0
        while done < frames {
            let n = min(frames - done, Worker.slotFrames)
            let chunk = UnsafeBufferPointer(start: samples + done * channels, count: n * channels)
            for w in workers { w.push(chunk, position: position) }
            position += n
            done += n
        }
    }

    public func snapshot() -> LoudnessReferenceValues {
        if let result { return result }
        var peaks = Array(repeating: Decibels.floor, count: channels)
        for w in workers { w.publishedPeaks(into: &peaks) }
        return LoudnessReferenceValues(integrated: Decibels.floor, range: workers[0].publishedRange, truePeakDb: peaks)
    }

    public func finish() -> LoudnessReferenceValues {
        if let result { return result }
        for w in workers { w.close() }
        if threaded { for w in workers { w.waitDone() } }
        var peaks = Array(repeating: Decibels.floor, count: channels)
        for w in workers { w.finalPeaks(into: &peaks) }
        let r = LoudnessReferenceValues(integrated: workers[0].finalIntegrated(), range: workers[0].finalRange(),
                                        truePeakDb: peaks)
        result = r
        return r
    }
}

/// One group of libebur128 states and the thread that feeds them.
///
/// `@unchecked Sendable`: the states are used only by the worker thread while it runs, and by
/// the owner after `waitDone()` (or inline when not threaded); the ring is SPSC; the published
/// figures are atomics.
private final class Worker: @unchecked Sendable {
    static let slotFrames = 4096
    private let channels: Int
    private let main: EBUR128State?
    private let peaks: [(Int, EBUR128State)]
    private let handoff: ChunkHandoff<Float>
    private let done = Wakeup()
    private let mono: UnsafeMutablePointer<Float>
    /// Frames between live loudness-range updates (0: never).
    private let rangeEvery: Int
    private var sinceRange = 0
    private let rangeBits = Atomic<UInt64>(0.0.bitPattern)
    /// True peak so far of this worker's channels, for the live display.
    private let published: Mutex<[Double]>

    init(channels: Int, main: EBUR128State?, peaks: [(Int, EBUR128State)], rangeEvery: Int) {
        self.channels = channels
        self.main = main
        self.peaks = peaks
        self.rangeEvery = rangeEvery
        handoff = ChunkHandoff(slots: 16, slotCapacity: Self.slotFrames * channels)
        mono = .allocate(capacity: Self.slotFrames)
        published = Mutex(Array(repeating: Decibels.floor, count: peaks.count))
    }

    deinit {
        mono.deallocate()
        ebur128_destroy_all((main.map { [$0] } ?? []) + peaks.map(\.1))
    }

    /// Producer: queues a chunk, waiting while the ring is full (never for good: the worker
    /// drains until it is closed).
    func push(_ chunk: UnsafeBufferPointer<Float>, position: Int) {
        while !handoff.push(chunk, position: position) {
            guard handoff.waitForSpace() else { return }
        }
    }

    func close() { handoff.close() }

    func waitDone() { done.wait() }

    /// The worker thread: measures chunks until the ring is closed and empty.
    func run() {
        defer { done.signal() }
        repeat {
            while handoff.pop({ chunk, _ in measure(chunk.baseAddress!, frames: chunk.count / channels) }) {}
        } while handoff.waitForChunks()
        while handoff.pop({ chunk, _ in measure(chunk.baseAddress!, frames: chunk.count / channels) }) {}
    }

    /// Runs `frames` interleaved frames through this group's states (any block size).
    func measure(_ samples: UnsafePointer<Float>, frames: Int) {
        // ebur128_add_frames_* fails only when out of memory, which it reports by leaving the
        // state unchanged; nothing more can be done about it here.
        if let main {
            _ = ebur128_add_frames_float(main, samples, frames)
            if rangeEvery > 0 {
                sinceRange += frames
                if sinceRange >= rangeEvery {
                    sinceRange = 0
                    rangeBits.store(range(main).bitPattern, ordering: .releasing)
                }
            }
        }
        var done = 0
        while done < frames {
            let n = min(frames - done, Self.slotFrames)
            for (c, st) in peaks {
                let src = samples + done * channels + c
                for k in 0..<n { mono[k] = src[k * channels] }
                _ = ebur128_add_frames_float(st, mono, n)
            }
            done += n
        }
        if !peaks.isEmpty {
            let now = peaks.map { Self.truePeakDb($0.1) }
            published.withLock { $0 = now }
        }
    }

    var publishedRange: Double { Double(bitPattern: rangeBits.load(ordering: .acquiring)) }

    func publishedPeaks(into out: inout [Double]) {
        let now = published.withLock { $0 }
        for (i, (c, _)) in peaks.enumerated() { out[c] = now[i] }
    }

    func finalPeaks(into out: inout [Double]) {
        for (c, st) in peaks { out[c] = Self.truePeakDb(st) }
    }

    func finalIntegrated() -> Double {
        guard let main else { return Decibels.floor }
        var out = 0.0
        guard ebur128_loudness_global(main, &out) == EBUR128_SUCCESS.rawValue, out.isFinite else { return Decibels.floor }
        return max(Decibels.floor, out)
    }

    func finalRange() -> Double { main.map(range) ?? 0 }

    private func range(_ st: EBUR128State) -> Double {
        var out = 0.0
        guard ebur128_loudness_range(st, &out) == EBUR128_SUCCESS.rawValue, out.isFinite else { return 0 }
        return max(0, out)
    }

    private static func truePeakDb(_ st: EBUR128State) -> Double {
        var out = 0.0
        guard ebur128_true_peak(st, 0, &out) == EBUR128_SUCCESS.rawValue else { return Decibels.floor }
        return Decibels.fromAmplitude(out)
    }
}

private typealias EBUR128State = UnsafeMutablePointer<ebur128_state>

/// Destroys libebur128 states (`ebur128_destroy`).
private func ebur128_destroy_all(_ states: [EBUR128State]) {
    for st in states {
        var p: EBUR128State? = st
        ebur128_destroy(&p)
    }
}
