import Glibc

/// Environment variables (`getenv(3)`, `environ`).
public enum ProcessEnvironment {
    public static func get(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        return String(cString: p)
    }

    /// Every "NAME=value" entry of this process's environment (`environ`), for a child's.
    public static func all() -> [String] {
        var list: [String] = []
        var p = environ
        while let entry = p.pointee {
            list.append(String(cString: entry))
            p += 1
        }
        return list
    }
}
