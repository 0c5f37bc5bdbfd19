/// The figures every Prometheus client library exports about its own process, as /metrics
/// shows them (`process_resident_memory_bytes`, `process_cpu_seconds_total`,
/// `process_start_time_seconds`, `process_open_fds`). Read from the system by MeterIO's
/// `ProcessStatistics`; here only carried and rendered.
public struct ProcessFigures: Sendable, Equatable {
    /// Resident set size, bytes.
    public var residentBytes: Int
    /// User and system CPU time used so far, seconds.
    public var cpuSeconds: Double
    /// When the process started, Unix time in seconds.
    public var startTimeSeconds: Double
    /// Open file descriptors.
    public var openDescriptors: Int

    public init(residentBytes: Int, cpuSeconds: Double, startTimeSeconds: Double, openDescriptors: Int) {
        self.residentBytes = residentBytes
        self.cpuSeconds = cpuSeconds
        self.startTimeSeconds = startTimeSeconds
        self.openDescriptors = openDescriptors
    }
}
