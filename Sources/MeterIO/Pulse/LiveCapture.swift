import MeterCore

/// What a live session's capture thread reads from: a PulseAudio record stream
/// (`PulseRecordStream`) or a network stream decoded by ffmpeg (`NetworkStream`). Both deliver interleaved s16 at
/// the session's rate and channels, a blocking read at a time, and fail a read when the
/// source is gone; the session reopens one the same way (`LiveOptions.openCapture`) when it
/// reconnects.
public protocol LiveCapture: AnyObject {
    /// Fills `bytes` bytes at `buffer`; blocks until they are there; throws when the source is
    /// lost, and `StopRequested` as soon as the run is stopped.
    func read(_ buffer: UnsafeMutableRawPointer, bytes: Int) throws
    /// The name of what is captured, for the start line (nil: the session's fallback).
    var captureName: String? { get }
    /// Why the last read failed, in words.
    var lastError: String { get }
    /// One name per channel (`front-left`, `lfe`, `aux0`, ...), for the start line.
    var channelNames: [String] { get }
    /// What is metered, when it changed since the last call (the session asks after each
    /// read and sets the position); nil when nothing changed.
    func takeDeviceChange() -> DeviceChange?
    /// Audio the source could not deliver and then delivered again after (an application's
    /// streams that fell behind), when it ended since the last call; the session sets the
    /// position. Nil when none.
    func takeGap() -> StreamGap?
}

extension LiveCapture {
    public func takeDeviceChange() -> DeviceChange? { nil }
    public func takeGap() -> StreamGap? { nil }
}

extension LiveOptions {
    /// Opens what the options name: the network stream (`url`) or the PulseAudio source
    /// (`device`), reading in chunks of `fragmentFrames`; `devices`, a connection already
    /// open, resolves the device (nil: the stream opens one). Cancelling `cancellation` ends
    /// the opening and any read at once (`StopRequested`).
    func openCapture(fragmentFrames: Int, devices: PulseDevices? = nil, cancellation: Cancellation) throws -> any LiveCapture {
        do {
            return try openCapture(fragmentFrames, devices, cancellation)
        } catch where cancellation.isCancelled {
            throw StopRequested()  // a PulseAudio wait ended by the stop says so as a timeout
        }
    }

    private func openCapture(_ fragmentFrames: Int, _ devices: PulseDevices?, _ cancellation: Cancellation) throws -> any LiveCapture {
        let s = settings
        if let url {
            return try NetworkStream(url: url, rate: s.rate, channels: s.channels, ffmpeg: ffmpeg ?? "ffmpeg",
                                     cancellation: cancellation)
        }
        if let device, let app = AppSelector(device: device) {
            return try AppMonitorStream(app: app, rate: s.rate, channels: s.channels, format: sampleFormat,
                                        cancellation: cancellation)
        }
        return try PulseRecordStream(on: devices ?? PulseDevices(timeout: 4, cancellation: cancellation), device: device, rate: s.rate,
                                     channels: s.channels, format: sampleFormat, fragmentFrames: fragmentFrames,
                                     cancellation: cancellation)
    }

    /// The error that ends a run whose source went away (without `reconnect`).
    func lossError(source: String, reason: String) -> Error {
        if let url { return NetworkStreamError.lost(url: url.shown, reason: lossReason(reason)) }
        return PulseError.sourceLost(source: source, server: PulseStream.serverDescription, reason: reason)
    }

    /// Why the source went away as it may be shown: a stream's password removed.
    func lossReason(_ reason: String) -> String { url?.redact(reason) ?? reason }
}
