/// Thrown by a wait that a stop request (`Cancellation`) ended before the run had anything to
/// report (a network stream still opening): the command ends as a stopped live run does, as a
/// success, with nothing reported.
public struct StopRequested: Error, Equatable {
    public init() {}
}
