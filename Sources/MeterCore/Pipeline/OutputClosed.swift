/// Thrown by a sink whose reader went away (a closed pipe): the run stops quietly, as a
/// success, with nothing reported.
public struct OutputClosed: Error {
    public init() {}
}
