import Glibc

/// The controlling terminal: size (`ioctl(TIOCGWINSZ)`), capabilities from the environment,
/// and raw keyboard mode (`tcgetattr`/`tcsetattr`) for `play`.
public enum Terminal {
    /// Columns and rows of the terminal on `fd`, or nil when it is not a terminal.
    public static func size(fd: Int32 = 1) -> (columns: Int, rows: Int)? {
        var ws = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0 else { return nil }
        return (Int(ws.ws_col), Int(ws.ws_row))
    }

    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// True when the locale's character set is UTF-8 (LC_ALL, then LC_CTYPE, then LANG).
    public static var localeIsUTF8: Bool {
        let env = ProcessEnvironment.self
        let value = env.get("LC_ALL") ?? env.get("LC_CTYPE") ?? env.get("LANG") ?? ""
        let v = value.lowercased()
        return v.contains("utf-8") || v.contains("utf8")
    }

    /// False when NO_COLOR is set to anything non-empty (no-color.org) or TERM is "dumb".
    public static var colorAllowed: Bool {
        if let v = ProcessEnvironment.get("NO_COLOR"), !v.isEmpty { return false }
        return ProcessEnvironment.get("TERM") != "dumb"
    }

    /// Saved terminal settings while raw mode is on.
    nonisolated(unsafe) private static var saved: termios?

    /// Puts stdin in non-canonical, no-echo mode so single keys arrive at once.
    public static func enterRawMode(fd: Int32 = 0) {
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else { return }
        saved = t
        t.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(fd, TCSANOW, &t)
    }

    /// Restores the settings saved by `enterRawMode`.
    public static func leaveRawMode(fd: Int32 = 0) {
        guard var t = saved else { return }
        tcsetattr(fd, TCSANOW, &t)
        saved = nil
    }
}

/// Keys `play` understands, decoded from raw terminal input.
public enum Key: Equatable, Sendable {
    case space, left, right, quit, other
}

extension Terminal {
    /// Reads the keys waiting on `fd` without blocking (`read(2)` in raw mode with VMIN 0).
    public static func readKeys(fd: Int32 = 0) -> [Key] {
        var buf = [UInt8](repeating: 0, count: 64)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, 64) }
        guard n > 0 else { return [] }
        return decodeKeys(Array(buf[0..<n]))
    }

    /// Decodes bytes into keys: space, q/Q (and Ctrl-C, Esc) to quit, and the arrow escape
    /// sequences ESC [ C / ESC [ D. An escape not starting a sequence is the Esc key.
    public static func decodeKeys(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B, i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") || bytes[i + 1] == UInt8(ascii: "O") {
                keys.append(bytes[i + 2] == UInt8(ascii: "C") ? .right : bytes[i + 2] == UInt8(ascii: "D") ? .left : .other)
                i += 3
                continue
            }
            switch b {
            case UInt8(ascii: " "): keys.append(.space)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x03, 0x1B: keys.append(.quit)
            default: keys.append(.other)
            }
            i += 1
        }
        return keys
    }
}
