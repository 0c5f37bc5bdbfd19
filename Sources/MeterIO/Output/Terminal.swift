import Glibc

/// The controlling terminal: size (`ioctl(TIOCGWINSZ)`), capabilities from the environment,
/// and the keyboard's raw mode (`tcgetattr`/`tcsetattr`) for the views that read keys.
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

    /// The terminal settings of `fd` (`tcgetattr(3)`), or nil when it is not a terminal.
    public static func settings(fd: Int32 = 0) -> termios? {
        var t = termios()
        return tcgetattr(fd, &t) == 0 ? t : nil
    }

    /// Puts the terminal on `fd` in non-canonical, no-echo mode so single keys arrive at once,
    /// starting from `base` (the settings to come back to); `tcsetattr(3)`.
    public static func makeRaw(from base: termios, fd: Int32 = 0) {
        var t = base
        t.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(fd, TCSANOW, &t)
    }

    /// Puts back settings taken with `settings(fd:)`.
    public static func restore(_ t: termios, fd: Int32 = 0) {
        var t = t
        tcsetattr(fd, TCSANOW, &t)
    }

    /// True when this process's group owns the terminal on `fd` (`tcgetpgrp(3)`): a job put
    /// in the background must not read it (the read would stop it with SIGTTIN).
    public static func isForeground(fd: Int32 = 0) -> Bool {
        let owner = tcgetpgrp(fd)
        return owner >= 0 && owner == getpgrp()
    }
}

/// Keys `play` and the recording meter understand, decoded from raw terminal input; `.space`
/// is the pause key (space, or p).
public enum Key: Equatable, Sendable {
    case space, left, right, quit, other
}

extension Terminal {
    /// Reads the keys waiting on `fd` without ever blocking: `poll(2)` with no timeout first,
    /// so a terminal that is not (or no longer) in raw mode cannot hold the caller in `read(2)`
    /// waiting for a line, and nothing at all while the process is not in the foreground.
    public static func readKeys(fd: Int32 = 0) -> [Key] {
        guard isForeground(fd: fd) else { return [] }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 0) == 1, p.revents & Int16(POLLIN) != 0 else { return [] }
        var buf = [UInt8](repeating: 0, count: 64)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, 64) }
        guard n > 0 else { return [] }
        return decodeKeys(Array(buf[0..<n]))
    }

    /// Decodes bytes into keys: space or p/P (pause), q/Q (and Ctrl-C, Esc) to quit, and the arrow escape
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
            case UInt8(ascii: " "), UInt8(ascii: "p"), UInt8(ascii: "P"): keys.append(.space)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x03, 0x1B: keys.append(.quit)
            default: keys.append(.other)
            }
            i += 1
        }
        return keys
    }
}
