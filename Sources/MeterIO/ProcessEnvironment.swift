import Glibc

/// Environment variables (`getenv(3)`).
public enum ProcessEnvironment {
    public static func get(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        return String(cString: p)
    }
}
