import Testing
@testable import MeterCore

/// The shown form of a stream address: the password gone from it and from any text quoting it.
@Suite struct StreamURLTests {
    @Test func passwordRemovedFromTheAddressAndFromMessages() throws {
        let u = try #require(StreamURL("http://dj:p%40ss:w0rd@radio.example:8000/live.mp3?x=1"))
        #expect(u.shown == "http://dj@radio.example:8000/live.mp3?x=1")
        #expect(u.password == "p%40ss:w0rd")
        let said = "[concat @ 0x1] Impossible to open 'http://dj:p%40ss:w0rd@radio.example:8000/live.mp3?x=1' (p%40ss:w0rd)"
        let clean = u.redact(said)
        #expect(!clean.contains("w0rd"))
        #expect(clean == "[concat @ 0x1] Impossible to open 'http://dj@radio.example:8000/live.mp3?x=1' (***)")
    }

    @Test func addressesWithoutPasswordsAreShownAsTyped() throws {
        for text in ["http://radio.example/a", "https://user@host:443/x", "rtsp://10.0.0.1/cam?a=b@c", "icy://h/@x:y"] {
            let u = try #require(StreamURL(text))
            #expect(u.shown == text && u.password.isEmpty)
            #expect(u.redact("x " + text) == "x " + text)
        }
        #expect(StreamURL("radio.example/a") == nil)
        #expect(StreamURL("http://a/b\nfile 'x'") == nil)
        #expect(StreamURL("://x") == nil)
    }
}
