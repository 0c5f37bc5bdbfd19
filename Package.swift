// swift-tools-version:6.0
// pulsemeter: a real-time audio level and spectrum analyzer for Linux.
//
// Layers (each folder under Sources/ is one):
//   MeterCore      pure Swift, no C: levels, bands, frames, encoders, renderers, rings
//   MeterIO        the only layer that touches C and the OS: PulseAudio, libsndfile, FFTW,
//                  TagLib (through CTagLib's C functions), terminal, libmosquitto, libmicrohttpd (loaded when a daemon starts; libebur128 is the
//                  tests' loudness reference only)
//   PulseMeterCLI  argument parsing, commands, help text, exit codes
//   pulsemeter     the executable: a few lines calling PulseMeterCLI
import PackageDescription

// scripts/test's ThreadSanitizer build (PULSEMETER_THREADED_TESTS_ONLY=1) compiles only what
// the tests it runs need: the command-line layer, its tests and the executable are left out,
// and each test target keeps the files named in `threadedSources`. The build took 274 s of
// CPU with everything, 97 s with this (2026-12-06, a clean build, nothing else running), and
// it shares the CI machine's two cores with the other builds and the unit stage. scripts/test
// fails when a suite its filter names is missing from that build.
let threadedOnly = Context.environment["PULSEMETER_THREADED_TESTS_ONLY"] == "1"

/// The files of a test target that the ThreadSanitizer build compiles: the threaded parts'
/// tests (the suites scripts/test's `tsan_filter` names) and what they use.
let threadedSources: [String: [String]] = [
    "MeterCoreTests": ["ChunkRingTests.swift", "FactQueueTests.swift", "CancellationTests.swift", "ServiceNotifySinkTests.swift"],
    "MeterIOTests": ["ChunkHandoffTests.swift", "ThreadedAnalysisTests.swift", "OrderedWorkPoolTests.swift",
                     "HookRunnerTests.swift", "ChildProcessTests.swift", "SoundFileTestSupport.swift"],
    "LiveTests": ["InProcessSessionTests.swift", "MonitorHTTPServerTests.swift",
                  "AppSourceLiveTests.swift", "StopLatencyTests.swift", "LiveSuite.swift", "LiveSupport.swift",
                  "PulseServer.swift", "Subprocess.swift", "JSONLine.swift", "Feed.swift", "RecordedAudio.swift",
                  "LiveWaits.swift", "FedRecording.swift", "HTTPTestClient.swift"],
]

/// A test target: its whole folder, or in the ThreadSanitizer build its threaded sources.
func testTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: dependencies, sources: threadedOnly ? threadedSources[name] : nil)
}

/// The command-line layer, the executable and their tests (not in the ThreadSanitizer build).
let commandLineTargets: [Target] = [
    .target(name: "PulseMeterCLI", dependencies: ["MeterCore", "MeterIO"]),
    .executableTarget(name: "pulsemeter", dependencies: ["PulseMeterCLI"]),
    .testTarget(name: "PulseMeterCLITests", dependencies: ["PulseMeterCLI", "MeterIO", "MeterCore", "TestSupport"]),
]

let package = Package(
    name: "pulsemeter",
    products: threadedOnly ? [] : [
        .executable(name: "pulsemeter", targets: ["pulsemeter"]),
        .library(name: "MeterCore", targets: ["MeterCore"]),
        // Everything but main, for the fuzz harnesses in Fuzz/.
        .library(name: "PulseMeterKit", targets: ["MeterCore", "MeterIO", "PulseMeterCLI"]),
    ],
    targets: (threadedOnly ? [] : commandLineTargets) + [
        // Loaded at run time by its wrapper (dlopen) when a run first talks to a server, not
        // linked: no pkg-config link flags.
        .systemLibrary(
            name: "CPulse",
            providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(
            name: "CSndFile", pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(
            name: "CFFTW", pkgConfig: "fftw3f",
            providers: [.apt(["libfftw3-dev"])]),
        // Loaded at run time by its wrapper (dlopen), not linked: no pkg-config link flags.
        .systemLibrary(
            name: "CMicroHTTPD",
            providers: [.apt(["libmicrohttpd-dev"])]),
        // The MQTT client of --mqtt (its own network thread: mosquitto_loop_start). Loaded at
        // run time by its wrapper (dlopen), not linked: no pkg-config link flags.
        .systemLibrary(
            name: "CMosquitto",
            providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(
            name: "CEBUR128", pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]),
        // Optimized in debug builds too: the tests run its DSP over minutes of audio (the EBU
        // loudness cases, the octave filters' masks), which unoptimized took 100 of the unit
        // tests' 150 s; optimized, the whole unit stage takes under 40 s. Its preconditions
        // and overflow checks stay (-O, not -Ounchecked). The release build leaves out the
        // run-time checks of exclusive access (each access to a class's stored property was a
        // call into the runtime and a thread-local lookup: about a tenth of `analyze`'s CPU);
        // the debug build the tests run keeps them, so a conflicting access still traps there.
        .target(name: "MeterCore", swiftSettings: [
            .unsafeFlags(["-O"], .when(configuration: .debug)),
            .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
        ]),
        // TagLib's C++ API (property maps: ReplayGain and R128 keys) behind a few C functions;
        // TagLib 1.13's own C API (tag_c.h) has no arbitrary fields.
        .target(name: "CTagLib", linkerSettings: [.linkedLibrary("tag")]),
        .target(name: "MeterIO", dependencies: ["MeterCore", "CPulse", "CSndFile", "CFFTW", "CMicroHTTPD", "CTagLib", "CMosquitto"]),
        // What every test target shares (as swift-argument-parser's ArgumentParserTestHelpers):
        // the one way of waiting for a condition and of pacing input (`Wait`), the seeded RNG,
        // the WAV writer, the temporary directory, the recording `FrameSink` double, the dB
        // helper, the sd_notify listener.
        // Optimized in debug builds too, as MeterCore is: it holds the tests' own signal
        // generators and oracles (the exact peak's 16x upsampling, speech-like programme), which
        // unoptimized were most of the loudness and true-peak tests' CPU time.
        .target(name: "TestSupport", dependencies: ["MeterCore"], path: "Tests/TestSupport",
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        testTarget("MeterCoreTests", ["MeterCore", "TestSupport"]),
        testTarget("MeterIOTests", ["MeterIO", "MeterCore", "CEBUR128", "TestSupport"]),
        // Against a real private PulseAudio (scripts/pulse-private); fail, never skip, without one.
        testTarget("LiveTests", ["MeterIO", "MeterCore", "CSndFile", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
