import MeterCore

/// The live sources of a `MeterSession`, metered side by side (`-d` given several times): each is
/// its own `LiveMeterSession` (its capture thread, its recorder thread, its analysis, its
/// reconnection), the analyses each on a thread of their own (the first on the caller's),
/// every sink call made through one `SerializedSink`.
///
/// All start lines come first, in source order, before any source captures; each line is
/// tagged with its source's `stream` (set in its `LiveOptions`). A stop (the shared
/// cancellation) ends every source, each writing its end line; a source that fails (lost
/// without `--reconnect`, its output closed) cancels the others, and the run throws the first
/// failure once every source is finished.
final class LiveSessionGroup: Sendable {
    let sessions: [LiveMeterSession]
    private let cancellation: Cancellation

    /// `cancellation`: the one every session was created with.
    init(_ sessions: [LiveMeterSession], cancellation: Cancellation) {
        self.sessions = sessions
        self.cancellation = cancellation
    }

    /// The run's figures (the network server's counters): recorded frames summed, in outage
    /// while any source is.
    var progress: LiveProgress {
        let each = sessions.map(\.progress)
        let recorded = each.compactMap(\.recordedFrames)
        return LiveProgress(recordedFrames: recorded.isEmpty ? nil : recorded.reduce(0, +),
                            outage: each.contains { $0.outage })
    }

    /// Wakes every analysis for a call to the sink (a redraw after a resume).
    func nudge() { for s in sessions { s.nudge() } }

    /// Runs every source to its end; the summaries in source order.
    @discardableResult
    func run(sink: any FrameSink) throws -> [StreamSummary] {
        if sessions.count == 1 { return [try sessions[0].run(sink: sink)] }
        let serial = SerializedSink(sink)
        let analyses = try sessions.map { try $0.prepare(sink: serial) }
        let outcomes = Locked<(results: [Result<StreamSummary, any Error>?], failures: [any Error])>(
            ([Result<StreamSummary, any Error>?](repeating: nil, count: sessions.count), []))
        let finished = Wakeup()
        // One wake-up for every analysis, registered and removed on this thread only.
        let wake = cancellation.onCancel { [sessions] in for s in sessions { s.nudge() } }
        defer { cancellation.remove(wake) }
        let runOne: @Sendable (Int) -> Void = { [sessions, cancellation] k in
            let result = Result { try sessions[k].run(analyses[k], wakes: false) }
            outcomes.withLock { o in
                o.results[k] = result
                if case .failure(let e) = result { o.failures.append(e) }
            }
            if case .failure = result { cancellation.cancel() }  // one failed: every source ends
            finished.signal()
        }
        var spawned = 0
        do {
            for k in 1..<sessions.count {
                try OSThread.spawn(role: "pm-analysis-\(k)") { runOne(k) }
                spawned += 1
            }
        } catch {
            cancellation.cancel()
            outcomes.withLock { $0.failures.append(error) }
        }
        runOne(0)
        for _ in 0...spawned { finished.wait() }  // every source's thread, and this one
        return try outcomes.withLock { o throws -> [StreamSummary] in
            if let first = o.failures.first { throw first }
            return try o.results.map { try $0!.get() }
        }
    }
}
