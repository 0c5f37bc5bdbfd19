/// A full-screen view's part in job control, run by whoever handles the process's signals:
/// `suspend` gives the terminal back as it was (main screen, cursor, echo, keyboard mode)
/// before the process stops; `resume` takes it again after any continue (also one the view
/// did not see coming, as after SIGSTOP).
public struct JobControl: Sendable {
    public var suspend: @Sendable () -> Void
    public var resume: @Sendable () -> Void
    public init(suspend: @escaping @Sendable () -> Void, resume: @escaping @Sendable () -> Void) {
        self.suspend = suspend
        self.resume = resume
    }
}
