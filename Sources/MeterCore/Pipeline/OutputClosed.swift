/// Thrown by a sink whose reader went away (a closed pipe): the run stops quietly, exit 0.
public struct OutputClosed: Error {
    public init() {}
}
