import MeterCore

/// The recorder thread of a live run: drains the record handoff into the `Recorder` about four
/// times a second, applies the analysis's take decisions (`--trigger`), finishes the files.
extension LiveMeterSession {
    func recordLoop() {
        defer { recorderDone.signal() }
        guard let recorder, let files else { return }
        var failed = false
        var triggered = false
        if case .trigger = files.plan.mode { triggered = true }
        func attempt(_ body: () throws(OutputError) -> Void) {
            guard !failed else { return }
            do { try body() } catch {
                failed = true
                fail(error)
            }
        }
        while recorder.waitForChunks(recorderBatch) {
            while recorder.pop({ chunk, position in
                attempt { () throws(OutputError) in try files.receive(UnsafeRawBufferPointer(chunk), position: position) }
            }) {}
            if triggered { attempt { () throws(OutputError) in try takeDecisions(into: files) } }
            // A file line (a pause above all) reaches the output now, even while no audio comes.
            if fileEvents.list.withLock({ !$0.isEmpty }) { meter.nudgeConsumer() }
            recorded.store(files.framesWritten, ordering: .releasing)
        }
        if triggered {
            decisionsDone.wait()  // the analysis's last decisions (it signals right after capture)
            attempt { () throws(OutputError) in try takeDecisions(into: files) }
        }
        do { try files.finish() } catch { if !failed { fail(error) } }
        recorded.store(files.framesWritten, ordering: .releasing)
    }

    /// Hands the analysis side's take decisions so far to the recorder.
    func takeDecisions(into files: Recorder) throws(OutputError) {
        let horizon = decidedUpTo.load(ordering: .acquiring)  // before the changes: those up to it are in
        let changes = takeChanges.withLock { c in defer { c.removeAll() }; return c }
        try files.decide(changes, upTo: horizon)
    }
}

extension LiveMeterSession {
    /// Analysis side: publishes a take decision to the recorder thread (never waits).
    func publish(_ change: TakeDetector.Change) {
        takeChanges.withLock { $0.append(change) }
    }

}
