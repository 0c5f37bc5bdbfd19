/// Which application's playback `-d app:NAME` or `-d app:PID` meters: NAME matches a playback
/// stream's `application.name` or `application.process.binary` ignoring case; a number matches
/// its `application.process.id`.
public struct AppSelector: Sendable, Equatable {
    public enum Key: Sendable, Equatable { case name(String), pid(Int) }
    public let key: Key

    /// The selector a `-d` value names, nil when it does not start with `app:` (or names nothing).
    public init?(device: String) {
        guard device.hasPrefix("app:") else { return nil }
        let rest = String(device.dropFirst(4))
        guard !rest.isEmpty else { return nil }
        if let pid = Int(rest), pid > 0 { key = .pid(pid) } else { key = .name(rest) }
    }

    /// What the meter says it waits for and meters: the NAME or PID as given.
    public var shown: String {
        switch key {
        case .name(let n): return n
        case .pid(let p): return String(p)
        }
    }

    /// The `-d` value itself (`app:firefox`), the `source` of the start and device lines.
    public var device: String { "app:" + shown }

    /// True when a playback stream with these properties belongs to the application.
    public func matches(application: String?, binary: String?, pid: Int?) -> Bool {
        switch key {
        case .pid(let p): return pid == p
        case .name(let n):
            let wanted = n.lowercased()
            return application?.lowercased() == wanted || binary?.lowercased() == wanted
        }
    }
}
