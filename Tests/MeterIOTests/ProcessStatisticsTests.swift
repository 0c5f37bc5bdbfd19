import Foundation
import Glibc
import Testing
@testable import MeterIO

/// The process figures /metrics exports, read from /proc, against what the test itself did
/// and the clock.
@Suite struct ProcessStatisticsTests {
    @Test("CPU time grows with work, the start time is constant and before now, descriptors and memory are counted")
    func figuresMove() throws {
        let first = try #require(ProcessStatistics.current())
        let now = Date().timeIntervalSince1970
        #expect(first.startTimeSeconds <= now + 0.01 && first.startTimeSeconds > now - 3600,
                "started \(now - first.startTimeSeconds) s ago")
        #expect(first.residentBytes > 1_000_000)
        // Half a second of CPU on this thread.
        let until = first.cpuSeconds + 0.5
        var x = 0.0, spins = 0
        var later = first
        while later.cpuSeconds < until && spins < 10_000 {
            for i in 0..<200_000 { x += sin(Double(i)) }
            spins += 1
            later = try #require(ProcessStatistics.current())
        }
        #expect(x.isFinite)
        #expect(later.cpuSeconds >= until, "CPU \(first.cpuSeconds) -> \(later.cpuSeconds)")
        #expect(later.startTimeSeconds == first.startTimeSeconds)
        // Thirty more descriptors are about thirty more counted (other suites running in
        // parallel open and close a few meanwhile).
        let before = try #require(ProcessStatistics.current()).openDescriptors
        let fds = (0..<30).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        defer { for fd in fds { close(fd) } }
        #expect(fds.allSatisfy { $0 >= 0 })
        let after = try #require(ProcessStatistics.current()).openDescriptors
        #expect(abs(after - before - 30) <= 5, "\(before) -> \(after)")
    }
}
