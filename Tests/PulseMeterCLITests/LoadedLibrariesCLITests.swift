import Foundation
import Testing
import TestSupport

/// The libraries a run over files or stdin does not use are not in the process at all: libpulse
/// (and the D-Bus, X11 and libsystemd it pulls in), libmicrohttpd and libmosquitto are loaded
/// (`dlopen`) by the first run that talks to a server, serves HTTP or publishes MQTT. The
/// process's own mappings (/proc/PID/maps) are read while it analyses, after its first frame.
/// (That a live run does map libpulse is checked by the live suite's `--listen` test.)
@Suite struct LoadedLibrariesCLITests {
    @Test func analyzingStdinMapsNeitherLibpulseNorTheNetworkLibraries() throws {
        let dir = try TempDir()
        let outPath = dir.path("out.ndjson")
        let (p, input) = try MemoryCLITests.launch(["analyze", "-", "--raw", "s16le", "-r", "8000", "-c", "1"],
                                                   output: outPath)
        defer { if p.isRunning { p.terminate() } }
        // A second of silence: ten frames at the default 10 per second.
        input.fileHandleForWriting.write(Data(count: 16000))
        let framed = Wait.until(timeout: 60, interval: 0.01) {
            ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "").contains("\"type\":\"frame\"") || !p.isRunning
        }
        try #require(framed && p.isRunning, "no frame from pulsemeter while its stdin was open")
        // Read to the end (the file's size says 0): every mapping of the process.
        let path = "/proc/\(p.processIdentifier)/maps"
        let file = try #require(FileHandle(forReadingAtPath: path), "cannot open \(path)")
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        try file.close()
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(maps.contains("libsndfile"), "the maps were read: libsndfile, which every run links, is there")
        for library in ["libpulse", "libpulse-simple", "libdbus", "libX11", "libmicrohttpd", "libmosquitto"] {
            #expect(!maps.contains(library), "analyze mapped \(library)")
        }
    }
}
