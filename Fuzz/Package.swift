// swift-tools-version:6.0
// libFuzzer harnesses for pulsemeter (not part of CI's budget). Run with scripts/fuzz.
// Each target defines LLVMFuzzerTestOneInput and is built with -sanitize=fuzzer,address.
import PackageDescription

let package = Package(
    name: "pulsemeter-fuzz",
    dependencies: [.package(name: "pulsemeter", path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "PulseMeterKit", package: "pulsemeter")]),
        .executableTarget(name: "FuzzRawPCM", dependencies: ["FuzzSupport", .product(name: "PulseMeterKit", package: "pulsemeter")],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(name: "FuzzArguments", dependencies: ["FuzzSupport", .product(name: "PulseMeterKit", package: "pulsemeter")],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(name: "FuzzSoundFile", dependencies: ["FuzzSupport", .product(name: "PulseMeterKit", package: "pulsemeter")],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ],
    swiftLanguageModes: [.v6]
)
