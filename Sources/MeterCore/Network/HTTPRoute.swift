/// What the monitoring server answers to a request line: the one statement of its paths and
/// methods (only GET and HEAD; every other path is 404; nothing is read from disk).
public enum HTTPRoute: Equatable, Sendable {
    /// `/metrics`: the Prometheus exposition.
    case metrics
    /// `/events`: the event stream; `frames` false for `?frames=0`.
    case events(frames: Bool)
    /// `/status`: one JSON object.
    case status
    /// `/history`: the retained frames of the last `seconds` (all retained without the
    /// argument), NDJSON.
    case history(seconds: Double)
    /// `/`: the live meter page (`?overlay=1` is read by the page itself).
    case page
    case notFound
    case methodNotAllowed
    /// A query argument that is not what the path takes (`seconds` not a number >= 0).
    case badRequest(String)

    /// `path` without its query; `frames` and `seconds` the values of those query arguments, if any.
    public static func resolve(method: String, path: String, frames: String?, seconds: String? = nil) -> HTTPRoute {
        guard method == "GET" || method == "HEAD" else { return .methodNotAllowed }
        switch path {
        case "/metrics": return .metrics
        case "/events": return .events(frames: !(frames == "0" || frames == "false" || frames == "no"))
        case "/status": return .status
        case "/history":
            guard let text = seconds else { return .history(seconds: Double(FrameHistory.seconds)) }
            guard let n = Double(text), n.isFinite, n >= 0 else { return .badRequest("seconds must be a number of seconds (0 or more)") }
            return .history(seconds: n)
        case "/": return .page
        default: return .notFound
        }
    }

    /// The HTTP status code.
    public var status: Int {
        switch self {
        case .notFound: return 404
        case .methodNotAllowed: return 405
        case .badRequest: return 400
        default: return 200
        }
    }
}
