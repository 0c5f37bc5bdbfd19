import Glibc
import MeterCore

/// This process as the kernel describes it under /proc, the one place that reads it:
/// `/proc/self/stat` (CPU time, start time, resident pages; proc(5)), `/proc/stat`'s `btime`
/// (the boot time the start time counts from) and the entries of `/proc/self/fd`, read as
/// Prometheus' client libraries read them.
public enum ProcessStatistics {
    /// The figures now; nil when /proc cannot be read (not mounted).
    public static func current() -> ProcessFigures? {
        guard let stat = selfStat(), let start = startTime else { return nil }
        let ticks = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
        return ProcessFigures(residentBytes: stat.residentPages * max(1, sysconf(Int32(_SC_PAGESIZE))),
                              cpuSeconds: Double(stat.userTicks + stat.systemTicks) / ticks,
                              startTimeSeconds: start,
                              openDescriptors: openDescriptors().count)
    }

    /// The start time never changes: read once (boot time plus the start's ticks after boot).
    private static let startTime: Double? = {
        guard let stat = selfStat(), let boot = bootTime() else { return nil }
        return Double(boot) + Double(stat.startTicks) / Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
    }()

    /// The descriptors open in this process (/proc/self/fd), the directory's own left out.
    static func openDescriptors() -> [Int32] {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        let own = dirfd(dir)
        var fds: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if let fd = Int32(name), fd != own { fds.append(fd) }
        }
        return fds
    }

    private struct SelfStat {
        var userTicks: Int
        var systemTicks: Int
        var startTicks: Int
        var residentPages: Int
    }

    /// Fields 14 (utime), 15 (stime), 22 (starttime) and 24 (rss) of /proc/self/stat,
    /// counted after the command name's closing parenthesis (the name may hold spaces).
    private static func selfStat() -> SelfStat? {
        guard let text = read("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state).
        guard fields.count > 21, let utime = Int(fields[11]), let stime = Int(fields[12]),
              let start = Int(fields[19]), let rss = Int(fields[21]) else { return nil }
        return SelfStat(userTicks: utime, systemTicks: stime, startTicks: start, residentPages: rss)
    }

    /// The `btime` line of /proc/stat: boot time, Unix seconds.
    private static func bootTime() -> Int? {
        guard let text = read("/proc/stat") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Int(line.dropFirst(6).trimmingPrefixSpaces)
        }
        return nil
    }

    /// A small file of /proc as text (its size reads 0: `SmallFileReader` reads to the end).
    private static func read(_ path: String) -> String? {
        guard let bytes = try? SmallFileReader.read(FilePath(path)) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

private extension Substring {
    var trimmingPrefixSpaces: Substring { drop { $0 == " " } }
}
