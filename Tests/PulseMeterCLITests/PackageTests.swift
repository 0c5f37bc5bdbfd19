import Foundation
import Glibc
import Testing
import TestSupport

/// scripts/package and the Debian package it writes, installed for real: `apt-get install` of
/// the .deb pulls its dependencies, `pulsemeter --version` from /usr/bin, `man -w pulsemeter`
/// and the bash, zsh and fish completions resolve where those programs look, `lintian` finds no
/// error, and `apt-get remove` leaves no file of the package behind (`dpkg -L` taken before).
///
/// It installs into the real /usr, so it needs root, and it packages the binary under test,
/// which must be a release build with the Swift runtime linked statically: scripts/test runs it
/// on its own (PULSEMETER_BIN), beside the unit stage, and skips it there. Under
/// CI (CI=true) either missing is a failure; elsewhere the test is skipped with the reason. The
/// package is removed on every path out of the test, and the test refuses to touch a pulsemeter
/// that was installed before it (it would remove it).
@Suite(.serialized) struct PackageTests {
    static let underCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let isRoot = getuid() == 0

    /// True when the binary under test does not load the Swift runtime from the toolchain
    /// (ldd: libc-bin, on every Debian system, where readelf's binutils is per architecture).
    static let binaryIsStaticRelease: Bool = {
        guard let r = try? Tool.exec("/usr/bin/ldd", [Tool.binary]), r.status == 0 else { return false }
        return !r.out.contains("libswiftCore")
    }()

    /// A plain environment: the default XDG directories and a fresh HOME, so what the shells
    /// find is what a new user on this machine gets.
    static func plainEnvironment(home: String) -> [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": home, "XDG_DATA_DIRS": "/usr/local/share:/usr/share",
         "XDG_DATA_HOME": home + "/.local/share", "XDG_CONFIG_HOME": home + "/.config",
         "BASH_COMPLETION_USER_DIR": home + "/bash-completion", "LC_ALL": "C"]
    }

    static func plain(_ executable: String, _ args: [String], home: String) throws -> Tool.Result {
        try Tool.exec(executable, args, environment: plainEnvironment(home: home))
    }

    /// dpkg's state of the package: "installed", "not-installed", "config-files", ...
    static func packageState() throws -> String {
        let r = try Tool.exec("/usr/bin/dpkg-query", ["-W", "-f", "${db:Status-Status}", "pulsemeter"])
        return r.status == 0 ? r.out : "not-installed"
    }

    static func apt(_ args: [String]) throws -> Tool.Result {
        try Tool.exec("/usr/bin/apt-get", ["-o", "DPkg::Lock::Timeout=300"] + args,
                      environment: ["DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"])
    }

    @Test(.enabled(if: isRoot || underCI, "installs into /usr with apt-get: needs root (under CI=true, a failure)"),
          .enabled(if: binaryIsStaticRelease || underCI,
                   "needs the release binary (swift build -c release --static-swift-stdlib, given as PULSEMETER_BIN, as scripts/test does; under CI=true, a failure)"))
    func packageInstallsAndRemovesCleanly() throws {
        try #require(Self.isRoot, "the package test installs into /usr: run it as root (CI does)")
        try #require(Self.binaryIsStaticRelease,
                     "\(Tool.binary) links the Swift runtime dynamically: give a release build (--static-swift-stdlib) in PULSEMETER_BIN")
        let before = try Self.packageState()
        try #require(before == "not-installed",
                     "pulsemeter is already installed (dpkg state \(before)); the test would remove it: remove it first")
        try #require(!FileManager.default.fileExists(atPath: "/usr/bin/pulsemeter"),
                     "/usr/bin/pulsemeter exists outside a package; the test would replace and remove it")

        let root = InstallTests.root.path
        let dir = try TempDir()
        let started = Date()

        // The package, named by the version the binary prints and dpkg's architecture.
        let version = try Tool.exec(Tool.binary, ["--version"]).out
            .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "pulsemeter ", with: "")
        let arch = try Tool.exec("/usr/bin/dpkg", ["--print-architecture"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let package = try Tool.exec(root + "/scripts/package", ["--bin", Tool.binary])
        try #require(package.status == 0, "scripts/package: \(package.err)")
        let deb = "\(root)/dist/pulsemeter_\(version)_\(arch).deb"
        #expect(package.out == deb + "\n", "scripts/package printed \(package.out)")
        try #require(FileManager.default.fileExists(atPath: deb), "no \(deb)")

        // Its fields: Depends from dpkg-shlibdeps plus libmicrohttpd and libmosquitto (loaded with dlopen).
        func field(_ name: String) throws -> String {
            try Tool.exec("/usr/bin/dpkg-deb", ["-f", deb, name]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try field("Version") == version)
        #expect(try field("Architecture") == arch)
        #expect(try field("Recommends") == "ffmpeg")
        let depends = try field("Depends")
        let dependedOn = depends.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        // (A prefix: Debian 13 renamed some for 64-bit time, libmicrohttpd12t64.)
        for library in ["libc6 (>= ", "libpulse0 (>= ", "libsndfile1", "libfftw3-single3 (>= ", "libmicrohttpd12", "libmosquitto1"] {
            #expect(dependedOn.contains { $0.hasPrefix(library) }, "Depends lacks \(library): \(depends)")
        }

        // lintian: no error.
        let lintian = try Tool.exec("/usr/bin/lintian", [deb])
        let errors = lintian.out.split(separator: "\n").filter { $0.hasPrefix("E:") }
        #expect(errors.isEmpty, "lintian: \(errors.joined(separator: "\n"))")
        if !lintian.out.isEmpty { print("PackageTests: lintian says (docs/packaging.md lists what remains):\n\(lintian.out)") }
        #expect(lintian.status == 0, "lintian exit \(lintian.status): \(lintian.out)\(lintian.err)")

        // Installed with apt; removed on every way out of this test.
        defer {
            if (try? Self.packageState()) != "not-installed" {
                let r = try? Self.apt(["remove", "-y", "pulsemeter"])
                if r?.status != 0 { Issue.record("cleanup: apt-get remove pulsemeter: \(r?.err ?? "did not run")") }
            }
            #expect(!FileManager.default.fileExists(atPath: "/usr/bin/pulsemeter"), "/usr/bin/pulsemeter left behind")
        }
        let install = try Self.apt(["install", "-y", deb])
        try #require(install.status == 0, "apt-get install \(deb): \(install.out)\(install.err)")
        #expect(try Self.packageState() == "installed")
        // Every dependency is installed (apt pulled what was missing).
        for clause in depends.split(separator: ",") {
            let name = String(clause.split(separator: "|")[0].split(separator: " ")[0]).trimmingCharacters(in: .whitespaces)
            let state = try Tool.exec("/usr/bin/dpkg-query", ["-W", "-f", "${db:Status-Status}", name])
            #expect(state.out == "installed", "dependency \(name): \(state.out)\(state.err)")
        }

        // The binary, the man page, the completions where each shell looks.
        let home = dir.path("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let run = try Self.plain("/bin/sh", ["-c", "command -v pulsemeter && pulsemeter --version"], home: home)
        #expect(run.out == "/usr/bin/pulsemeter\npulsemeter \(version)\n", "\(run.out)\(run.err)")
        let man = try Self.plain("/usr/bin/man", ["-w", "pulsemeter"], home: home)
        #expect(man.status == 0 && man.out == "/usr/share/man/man1/pulsemeter.1.gz\n", "man -w: \(man.out)\(man.err)")

        let bash = try InstallTests.loadedBashCompletion(environment: Self.plainEnvironment(home: home))
        #expect(bash.out == "analyze\n", "bash completion of `pulsemeter an`: \(bash.out) \(bash.err)")
        let zsh = try #require(Tool.which("zsh"), "zsh is not installed (scripts/setup installs it)")
        let z = try Self.plain(zsh, ["-f", "-c", "autoload -Uz compinit; compinit -u -d \(dir.path("zcompdump")); print -r -- $_comps[pulsemeter] $^fpath/_pulsemeter(N)"], home: home)
        #expect(z.out.hasPrefix("_pulsemeter ") && z.out.contains(" /usr/share/zsh/vendor-completions/_pulsemeter"), "zsh: \(z.out) \(z.err)")
        let fish = try #require(Tool.which("fish"), "fish is not installed (scripts/setup installs it)")
        let f = try Self.plain(fish, ["-c", "complete -C 'pulsemeter an'"], home: home)
        #expect(f.out.split(separator: "\n").map { $0.split(separator: "\t").first ?? "" } == ["analyze"], "fish: \(f.out) \(f.err)")

        // What dpkg installed, then removed with apt: no file of it left, and no directory but
        // those other packages hold.
        let listed = try Tool.exec("/usr/bin/dpkg", ["-L", "pulsemeter"]).out.split(separator: "\n").map(String.init)
        for path in ["/usr/bin/pulsemeter", "/usr/share/man/man1/pulsemeter.1.gz", "/usr/share/doc/pulsemeter/copyright",
                     "/usr/share/doc/pulsemeter/changelog.gz", "/usr/share/bash-completion/completions/pulsemeter",
                     "/usr/share/zsh/vendor-completions/_pulsemeter", "/usr/share/fish/vendor_completions.d/pulsemeter.fish",
                     "/usr/lib/systemd/user/pulsemeter@.service", "/usr/lib/systemd/system/pulsemeter-system@.service",
                     "/usr/share/doc/pulsemeter/examples/pulsemeter.conf"] {
            #expect(listed.contains(path), "dpkg -L pulsemeter lacks \(path)")
        }
        let hasAlerts = FileManager.default.fileExists(atPath: root + "/share/alerts.yml")
        #expect(listed.contains("/usr/share/pulsemeter/alerts.yml") == hasAlerts, "alerts.yml in the package: \(!hasAlerts)")
        let remove = try Self.apt(["remove", "-y", "pulsemeter"])
        #expect(remove.status == 0, "apt-get remove: \(remove.out)\(remove.err)")
        #expect(try Self.packageState() == "not-installed")
        for path in listed where path != "/." {
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }  // gone
            if (st.st_mode & S_IFMT) == S_IFDIR {
                let owner = try Tool.exec("/usr/bin/dpkg-query", ["-S", path])
                #expect(owner.status == 0, "the directory \(path) is left and no other package holds it")
            } else {
                Issue.record("\(path) is left after apt-get remove")
            }
        }
        print("PackageTests: scripts/package, lintian, install, checks and removal took \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}
