/// What the monitoring server answers to a request line: the one statement of its paths and
/// methods (only GET and HEAD; every other path is 404; nothing is read from disk).
public enum HTTPRoute: Equatable, Sendable {
    /// `/metrics`: the Prometheus exposition.
    case metrics
    /// `/events`: the event stream; `frames` false for `?frames=0`.
    case events(frames: Bool)
    /// `/status`: one JSON object.
    case status
    /// `/`: the live meter page (`?overlay=1` is read by the page itself).
    case page
    case notFound
    case methodNotAllowed

    /// `path` without its query; `frames` the value of the `frames` query argument, if any.
    public static func resolve(method: String, path: String, frames: String?) -> HTTPRoute {
        guard method == "GET" || method == "HEAD" else { return .methodNotAllowed }
        switch path {
        case "/metrics": return .metrics
        case "/events": return .events(frames: !(frames == "0" || frames == "false" || frames == "no"))
        case "/status": return .status
        case "/": return .page
        default: return .notFound
        }
    }

    /// The HTTP status code.
    public var status: Int {
        switch self {
        case .notFound: return 404
        case .methodNotAllowed: return 405
        default: return 200
        }
    }
}
