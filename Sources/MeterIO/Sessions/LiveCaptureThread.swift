import MeterCore

/// The capture thread of a live run: reads the source a chunk at a time and pushes each chunk
/// to the meter handoff and the record handoff; never waits on analysis, output or disk.
extension LiveMeterSession {
    func captureLoop() {
        let s = options.settings
        let frameBytes = s.channels * options.sampleFormat.bytesPerSample
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: chunkFrames * frameBytes, alignment: 16)
        defer {
            scratch.deallocate()
            recorder?.close()
            meter.close()
            captureDone.signal()
        }
        var pos = 0
        let limit = options.durationFrames ?? Int.max
        var stops = StopLossEstimator(rate: s.rate, chunkSeconds: Double(chunkFrames) / Double(s.rate))
        var seenContinues = continuations()
        var paused = false
        while !shouldStop && pos < limit {
            let frames = min(chunkFrames, limit - pos)
            do {
                guard let stream else { throw PulseError.streamLost(reason: "no stream") }
                try stream.read(scratch, bytes: frames * frameBytes)
            } catch {
                if shouldStop { break }
                guard options.reconnect else {
                    fail(options.lossError(source: sourceName, reason: stream?.lastError ?? "\(error)"))
                    break
                }
                let reason = stream.map(\.lastError).flatMap { $0.isEmpty ? nil : $0 }
                    ?? (pos == 0 ? waitingAtStart?.absenceReason : nil) ?? "\(error)"
                guard reconnectAfterLoss(at: pos, reason: options.lossReason(reason)) else { break }
                stops.reset()
                continue
            }
            if var change = stream?.takeDeviceChange() {
                change.pos = pos
                deviceChanges.push(change)
            }
            if var gap = stream?.takeGap() {
                gap.pos = pos
                gaps.push(gap)
            }
            let continues = continuations()
            if continues != seenContinues {
                seenContinues = continues
                stops.continued()
            }
            if let loss = stops.read(endingAt: pos + frames, at: monotonicSeconds()) {
                let toUnix = unixSeconds() - monotonicSeconds()
                gaps.push(StreamGap(pos: loss.pos, startTs: loss.stoppedAt + toUnix, endTs: loss.continuedAt + toUnix,
                                    seconds: Double(loss.frames) / Double(s.rate), reason: .stopped))
            }
            let chunk = UnsafeBufferPointer(start: scratch.assumingMemoryBound(to: UInt8.self), count: frames * frameBytes)
            if let recorder {
                // Paused: the recorder gets an empty chunk where the pause begins (it reports
                // it), then nothing until the first chunk after the resume.
                let pausedNow = options.pause?.isPaused ?? false
                if pausedNow && !paused {
                    recorder.withWritableSlot(position: pos) { _ in 0 }
                    recorder.nudgeConsumer()  // reported now, not with the next batch
                }
                paused = pausedNow
                if !paused && !recorder.push(chunk, position: pos) {
                    recordOverflow.add(frames, ordering: .relaxed)
                }
            }
            meter.push(chunk, position: pos)  // full: dropped, seen by position
            pos += frames
            captured.store(pos, ordering: .releasing)
        }
    }

    /// Waits for the server and the named device to come back (opening checks that the device
    /// exists, so a server back without it is still an outage), retrying every 0.1 s doubling
    /// to 0.5 s. Records the loss at once (with `--events`, the `source_lost` event, with
    /// `reason`) and the outage as a gap from the loss to the new stream, both at capture
    /// position `pos`; false when stopped meanwhile. Nudges the analysis at each step so the
    /// sink can show the outage.
    func reconnectAfterLoss(at pos: Int, reason: String) -> Bool {
        let start = unixSeconds()
        if options.settings.events != nil {
            losses.push((MeterEvent(.sourceLost(reason: reason), pos: pos), start))
        }
        inOutage.store(true, ordering: .releasing)
        meter.nudgeConsumer()
        defer {
            inOutage.store(false, ordering: .releasing)
            meter.nudgeConsumer()
        }
        stream = nil
        var delay = 0.1
        let pause = Wakeup()
        let wake = cancellation.onCancel { pause.signal() }
        defer { cancellation.remove(wake) }  // an unattended run may reconnect many times
        while !shouldStop {
            if let s = try? options.openCapture(fragmentFrames: chunkFrames, cancellation: cancellation) {
                stream = s
                gaps.push(StreamGap(pos: pos, startTs: start, endTs: unixSeconds()))
                // A source waited for from the start, given as a default: the device it is now.
                if waitingAtStart != nil, let name = s.captureName, name != sourceName {
                    deviceChanges.push(DeviceChange(pos: pos, ts: unixSeconds(), source: name))
                }
                return true
            }
            pause.wait(seconds: delay)  // the back-off; a stop request ends it at once
            delay = min(options.url == nil ? 0.5 : 2, delay * 2)  // a stream server: less often
        }
        return false
    }
}
