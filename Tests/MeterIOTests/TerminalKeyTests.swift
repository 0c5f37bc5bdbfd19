import Testing
@testable import MeterIO

@Suite struct TerminalKeyTests {
    @Test func decodesPlayKeys() {
        #expect(Terminal.decodeKeys(Array(" ".utf8)) == [.space])
        #expect(Terminal.decodeKeys([0x1B, 0x5B, 0x43, 0x1B, 0x5B, 0x44]) == [.right, .left])
        #expect(Terminal.decodeKeys([0x1B, 0x4F, 0x43]) == [.right], "application cursor mode")
        #expect(Terminal.decodeKeys(Array("qQx".utf8)) == [.quit, .quit, .other])
        #expect(Terminal.decodeKeys([0x1B]) == [.quit], "a lone escape is the Esc key: quit")
        #expect(Terminal.decodeKeys([0x1B, UInt8(ascii: "x")]) == [.quit, .other])
    }
}
