import MeterCore
import MeterIO

/// `pulsemeter play FILE [-d SINK]`: plays a file; on a terminal draws its waveform filling in
/// as it plays (space pauses, left/right seek 5 s, q quits); otherwise (or with -f ndjson)
/// plays to the end writing NDJSON frames of what is playing.
enum PlayCommand {
    static let specs: [OptionSpec] = [
        OptionSpec("-d", "--device"), OptionSpec("-f", "--format"), OptionSpec("-o", "--output"),
        OptionSpec("-h", "--help", value: false),
    ] + MeterOptions.loudnessSpecs

    static func run(_ a: ParsedArguments) throws -> Int32 {
        _ = try a.requirePositionals(["FILE"])
        let path = a.positionalPaths[0]
        let device = try LiveSources.single(a)
        let output = try OutputChoice.open(a)
        let interactive = try MeterOptions.format(a, outputIsTerminal: output.isTerminal && Terminal.isTerminal(0)) == .ansi
        // --target's value is checked before the file is opened, and the settings once more for
        // the file's rate and channels, which the played source gives.
        let settingsFor = { (rate: Int, channels: Int) throws(PulsemeterError) -> ValidSettings in
            var s = MeterSettings(rate: rate, channels: channels)
            try MeterOptions.readLoudness(a, into: &s)
            return try MeterOptions.validated(s, a)
        }
        let settings = try settingsFor(MeterSettings.defaults.rate, MeterSettings.defaults.channels)
        let cancellation = try Signals.stopCancellation()
        let opened: PlaybackSource
        do {
            opened = try PlaybackSource(path: path, device: device, cancellation: cancellation)
        } catch where cancellation.isCancelled {
            return 0  // stopped before anything started: nothing to say
        }
        let source = opened
        let played = SessionDescription.Source(played: source, settings: try settingsFor(source.rate, source.channels))
        let session = try MeterSession(SessionDescription(sources: [played]), cancellation: cancellation)
        if !interactive {
            try session.start(into: [NDJSONSink(output: output)])
            do { try session.finish() } catch is OutputClosed {}  // a reader gone (| head) ends the play
            return 0
        }
        let levels = try WaveformPasses.bars(path: path, bars: 1024, floorDb: -60).levels
        let screen = TerminalScreen(output: output, readsKeys: true)
        let renderer = PlayerRenderer(levels: levels, title: path.lastComponent.string, width: screen.columns ?? 80,
                                      color: Terminal.colorAllowed, unicode: Terminal.localeIsUTF8)
        try screen.enter()
        // Ctrl-Z: silent while stopped (the stream paused, the terminal given back); fg plays on.
        try Signals.handleJobControl(screen.jobControl(beforeStop: { [source] in source.holdWhileStopped() },
                                                       afterContinue: { [source] in source.releaseAfterStop() }))
        defer {
            Signals.endJobControl()
            screen.leave()
        }
        // The screen is drawn by its sink on the session's thread, at each frame; this thread
        // reads the keys, and wakes a paused source so that the sink redraws (a resize, fg).
        try session.start(into: [PlayerScreenSink(screen: screen, renderer: renderer, source: source,
                                                  showsLoudness: settings.loudness, target: settings.targetLufs,
                                                  resized: Signals.takeResize)])
        while !session.isFinished && !cancellation.isCancelled {
            for key in screen.readKeys() {
                switch key {
                case .space: source.togglePause()
                case .left: source.seek(bySeconds: -5)
                case .right: source.seek(bySeconds: 5)
                case .quit: source.stop()
                case .other: break
                }
            }
            if source.isPaused { source.nudge() }
            CurrentProcess.pause(seconds: 0.033)
        }
        source.stop()
        try session.finish()
        return 0
    }
}
