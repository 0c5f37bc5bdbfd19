/// What went wrong with the PulseAudio server (or PipeWire's pulse server): the facts, for
/// the command line to word (it knows which command and option the user can turn to).
public enum PulseError: Error, Equatable, Sendable {
    /// The server has no source (record) or sink (playback) of that name.
    case noSuchDevice(PulseStream.Direction, name: String, server: String)
    /// The name is a device of the other kind: a sink where a source is wanted (its monitor
    /// would be), or a source where a sink is wanted.
    case wrongKind(PulseStream.Direction, name: String, server: String)
    /// The server accepted the connection but never started the stream (pipewire-pulse
    /// without a session manager links no stream).
    case streamNeverStarted(server: String)
    /// No server answered, or it refused the connection (`pa_strerror` reason).
    case cannotConnect(server: String, reason: String)
    /// The server answered but the stream could not be opened.
    case cannotOpen(PulseStream.Direction, device: String?, reason: String)
    /// The server did not finish answering in time.
    case noAnswer(server: String)
    /// libpulse could not set up a main loop or context.
    case cannotStart(what: String)
    /// A read or write on an open stream failed: the server or the device went away.
    case streamLost(reason: String)
    /// The source of a live run went away mid-run (and the run does not wait for it).
    case sourceLost(source: String, server: String, reason: String)
}

extension PulseError {
    /// True when the server or the device is not there (yet): what `--reconnect` waits for.
    var isAbsence: Bool {
        switch self {
        case .cannotConnect, .noSuchDevice, .noAnswer: return true
        default: return false
        }
    }

    /// Why, in libpulse's words where it has them, for a `source_lost` event.
    var absenceReason: String {
        switch self {
        case .cannotConnect(_, let reason): return reason
        case .noSuchDevice: return "No such entity"
        case .noAnswer: return "Timeout"
        default: return "\(self)"
        }
    }
}
