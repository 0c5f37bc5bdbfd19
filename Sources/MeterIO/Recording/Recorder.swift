import Glibc
import MeterCore

/// The recorder thread's half of a recording: captured chunks in, files out, as the plan says.
///
/// - single: every frame into one file.
/// - split: a new file at every multiple of the split length, counted in capture positions,
///   so the files put end to end are the capture, no frame lost or written twice.
/// - trigger: the take decisions come from the analysis side as positions (`decide`); the
///   recorder keeps the last pre-roll + 10 s of audio in its own ring (`history`, bounded) and
///   cuts each take there, so a take is the captured samples of its span bit for bit and the
///   capture thread never waits for a decision.
///
/// - trigger with a split length: a take longer than it goes on in a new file at each
///   multiple of the length from the take's start.
/// - keep: with split and trigger, once more than `keepFiles` files are closed the oldest is
///   removed (`unlink(2)`) and reported (`removed`): a rolling archive of the newest files.
/// - pause: an empty chunk marks where a pause begins (reported as a `pause` event); the next
///   chunk, at a later position, is where the recording resumes (`resume`). Paused audio never
///   reaches the recorder: split files and takes simply have no frames for that span.
///
/// Every file is created through `createFile`, the one place that makes a writer. Open and
/// close are reported through `report` (on this thread). Owned by the recorder thread.
final class Recorder {
    let plan: RecordingPlan
    private let rate: Int
    /// Bytes per frame in the capture's sample format (chunks arrive as bytes).
    private let frameBytes: Int
    private let format: RecordingFormat
    private let report: (RecordingFileEvent) -> Void
    private var namer: FileNamer
    private var writer: (any RecordingWriter)?
    private var fileStart = 0
    /// Capture position just past the last frame written to the open file (its close `pos`;
    /// with a pause inside the file, more than `fileStart` plus its frames).
    private var fileEnd = 0
    /// Frames in the files closed so far (as each writer counts them once closed: an encoder
    /// process acknowledges its frames only when it exits).
    private var closedFrames = 0
    /// Frames in every file so far.
    var framesWritten: Int { closedFrames + (writer?.framesWritten ?? 0) }
    /// The last file created.
    private(set) var lastFile: FilePath?

    // split
    private var splitEnd = 0

    // pause
    private var paused = false

    // keep: the closed files still on disk, oldest first, with their frame counts
    private var kept: [(path: FilePath, frames: Int)] = []

    // trigger
    private var history: UnsafeMutableRawPointer?
    private var historyFrames = 0
    private var have = 0          // capture position just past the newest frame received
    private var cursor = 0        // capture position up to which the decisions are applied
    private var validFrom = 0     // the history holds captured frames from here (none in a hole)
    private var pending: [TakeDetector.Change] = []
    private var pendingHead = 0
    private var takeOpen: Bool { writer != nil }

    /// Slack the history keeps beyond the pre-roll for decisions that arrive late.
    static let decisionSlackSeconds = 10

    /// For single and split, creates the first file now, so that one which cannot be created fails before capture starts.
    init(plan: RecordingPlan, format: RecordingFormat,
         report: @escaping (RecordingFileEvent) -> Void) throws(OutputError) {
        self.plan = plan
        rate = format.rate
        frameBytes = format.channels * format.sampleFormat.bytesPerSample
        self.format = format
        self.report = report
        namer = FileNamer(pattern: plan.path)
        switch plan.mode {
        case .single:
            if plan.replaceExisting {
                writer = try format.openWriter(path: plan.path)
            } else {
                // O_EXCL: a file that appeared after the CLI's check is left as it is too.
                guard let w = try format.openNewWriter(path: plan.path) else {
                    throw OutputError.recordingExists(plan.path)
                }
                writer = w
            }
            lastFile = plan.path
        case .split(let frames):
            try openFile(at: 0)
            splitEnd = frames
        case .trigger(let t):
            historyFrames = t.preRollFrames + Self.decisionSlackSeconds * rate
            history = .allocate(byteCount: historyFrames * frameBytes, alignment: 16)
        }
    }

    deinit { history?.deallocate() }

    /// Takes the captured frames at `position` (chunks come in order), as bytes in the
    /// format's sample format.
    func receive(_ chunk: UnsafeRawBufferPointer, position: Int) throws(OutputError) {
        if chunk.isEmpty {
            guard !paused else { return }
            paused = true
            reportPause(.pause, at: position)
            return
        }
        if paused {
            paused = false
            reportPause(.resume, at: position)
        }
        let frames = chunk.count / frameBytes
        guard frames > 0, let base = chunk.baseAddress else { return }
        switch plan.mode {
        case .single:
            try write(chunk, at: position)
        case .split(let length):
            var done = 0
            while done < frames {
                let pos = position + done
                if pos >= splitEnd {
                    try closeFile()
                    let start = pos - pos % length
                    try openFile(at: start)
                    splitEnd = start + length
                }
                let n = min(frames - done, splitEnd - pos)
                try write(UnsafeRawBufferPointer(start: base + done * frameBytes, count: n * frameBytes), at: pos)
                done += n
            }
        case .trigger:
            try keep(base, frames: frames, at: position)
        }
    }

    /// Applies the analysis side's take decisions for every position before `horizon`.
    func decide(_ changes: [TakeDetector.Change], upTo horizon: Int) throws(OutputError) {
        if pendingHead > 64 {
            pending.removeFirst(pendingHead)
            pendingHead = 0
        }
        pending += changes
        try advance(to: min(horizon, have))
    }

    /// Finishes: the last decisions are applied and the open file closed.
    func finish() throws(OutputError) {
        if case .trigger = plan.mode { try advance(to: have) }
        try closeFile()
    }

    // MARK: files

    /// Opens the next split or take file: a new file only, never an existing one (the writer
    /// factory gives nil for a taken name and the namer moves on).
    private func openFile(at pos: Int) throws(OutputError) {
        let (name, w) = try namer.next(at: time(nil)) { (candidate) throws(OutputError) in
            try format.openNewWriter(path: candidate)
        }
        writer = w
        fileStart = pos
        fileEnd = pos
        lastFile = name
        report(RecordingFileEvent(.open, file: name.string, pos: pos, frames: 0))
    }

    /// A pause or resume, on the open file (or, between takes, the name pattern).
    private func reportPause(_ kind: RecordingFileEvent.Kind, at position: Int) {
        let file = writer?.path ?? (plan.mode == .single ? plan.path : lastFile ?? plan.path)
        report(RecordingFileEvent(kind, file: file.string, pos: position, frames: writer?.framesWritten ?? 0))
    }

    private func closeFile() throws(OutputError) {
        guard let w = writer else { return }
        writer = nil
        defer { closedFrames += w.framesWritten }
        try w.close()
        if case .single = plan.mode { return }
        let end = fileEnd
        report(RecordingFileEvent(.close, file: w.path.string, pos: end, frames: w.framesWritten))
        guard let keep = plan.keepFiles else { return }
        kept.append((w.path, w.framesWritten))
        while kept.count > keep {
            let old = kept.removeFirst()
            // A file already gone (removed by hand) is not reported.
            if old.path.withCString({ unlink($0) }) == 0 {
                report(RecordingFileEvent(.removed, file: old.path.string, pos: end, frames: old.frames))
            }
        }
    }

    /// Writes frames captured at `position` onwards to the open file.
    private func write(_ samples: UnsafeRawBufferPointer, at position: Int) throws(OutputError) {
        try writer?.write(samples)
        fileEnd = position + samples.count / frameBytes
    }

    // MARK: trigger

    /// Appends frames to the history, first applying (as they stand) the decisions for the
    /// oldest frames when the analysis has fallen so far behind that they would be lost.
    private func keep(_ base: UnsafeRawPointer, frames: Int, at position: Int) throws(OutputError) {
        guard let history else { return }
        if position > have {
            // Frames the record ring lost (reported as an overflow): no take gets them.
            try advance(to: have)
            have = position
            cursor = max(cursor, position)
            validFrom = position
        }
        var done = 0
        while done < frames {
            let n = min(frames - done, historyFrames)
            let oldest = have + n - historyFrames
            if oldest > cursor { try advance(to: oldest) }
            var k = 0
            while k < n {
                let slot = (have + k) % historyFrames
                let m = min(n - k, historyFrames - slot)
                (history + slot * frameBytes).copyMemory(from: base + (done + k) * frameBytes, byteCount: m * frameBytes)
                k += m
            }
            have += n
            done += n
        }
    }

    /// Writes (inside a take) or passes over (outside) the history up to `target`, opening and
    /// closing takes where the decisions say.
    private func advance(to target: Int) throws(OutputError) {
        while pendingHead < pending.count {
            switch pending[pendingHead] {
            case .open(let start):
                if takeOpen { try closeFile() }  // a close lost to history overflow
                if start > cursor {
                    guard start <= target else {
                        cursor = max(cursor, target)
                        return
                    }
                    cursor = start
                }
                let first = max(start, have - historyFrames, validFrom, 0)
                try openFile(at: first)
                try writeHistory(from: first, to: cursor)
            case .close(let end):
                if takeOpen && end > cursor {
                    let upTo = min(end, target)
                    try writeHistory(from: cursor, to: upTo)
                    cursor = upTo
                    guard upTo == end else { return }
                }
                try closeFile()
            }
            pendingHead += 1
        }
        guard target > cursor else { return }
        if takeOpen { try writeHistory(from: cursor, to: target) }
        cursor = target
    }

    /// Writes history frames [a, b) to the open file, in at most two contiguous runs (more
    /// where a take longer than the split length goes on in a new file).
    private func writeHistory(from a: Int, to b: Int) throws(OutputError) {
        guard let history, b > a else { return }
        var p = a
        while p < b {
            if let limit = plan.takeSplitFrames, takeOpen, p - fileStart >= limit {
                try closeFile()
                try openFile(at: p)
            }
            let slot = p % historyFrames
            var m = min(b - p, historyFrames - slot)
            if let limit = plan.takeSplitFrames { m = min(m, fileStart + limit - p) }
            try write(UnsafeRawBufferPointer(start: history + slot * frameBytes, count: m * frameBytes), at: p)
            p += m
        }
    }
}
