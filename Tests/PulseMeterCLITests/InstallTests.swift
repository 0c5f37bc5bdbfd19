import Foundation
@testable import PulseMeterCLI
import Testing
import TestSupport

/// scripts/install, the man page and the shell completions: every option the parser knows is
/// documented and completed (the list comes from the parser itself, `CLI.specs(for:)`), and an
/// install into a temporary prefix gives a binary that runs, a man page `man -l` renders and
/// completions each shell finds where they were installed.
@Suite struct InstallTests {
    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }()

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// Every spelling of every option, per command, from the parser.
    static var optionsByCommand: [(command: String, names: [String])] {
        CLI.commands.map { c in (c, (CLI.specs(for: c) ?? []).flatMap(\.names)) }
    }

    /// True when `name` occurs in `text` as a whole option word (not inside a longer one).
    static func mentions(_ text: String, _ name: String) -> Bool {
        var rest = text[...]
        while let r = rest.range(of: name) {
            let before = r.lowerBound == text.startIndex ? nil : text[text.index(before: r.lowerBound)]
            let after = r.upperBound == text.endIndex ? nil : text[r.upperBound]
            func optionChar(_ c: Character?) -> Bool { c.map { $0.isLetter || $0.isNumber || $0 == "-" } ?? false }
            if !optionChar(before) && !optionChar(after) { return true }
            rest = text[r.upperBound...]
        }
        return false
    }

    @Test func theParserKnowsOptions() {
        // Guards the tests below against an empty list.
        #expect(CLI.commands.contains("analyze"))
        #expect(Self.optionsByCommand.allSatisfy { !$0.names.isEmpty })
        #expect(CLI.specs(for: "analyze")?.contains { $0.names.contains("--raw") } == true)
    }

    @Test func manPageDocumentsEveryOption() throws {
        let source = try Self.text("docs/pulsemeter.1")
        // The option words of the .TP tags (the line after each .TP), roff escapes removed.
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var tags = ""
        for (i, line) in lines.enumerated() where line.hasPrefix(".TP") && i + 1 < lines.count {
            tags += lines[i + 1].replacingOccurrences(of: "\\-", with: "-")
                .replacingOccurrences(of: "\\f[BIRP]", with: " ", options: .regularExpression) + "\n"
        }
        for (command, names) in Self.optionsByCommand {
            for name in names {
                let documented = Self.mentions(tags, name)
                #expect(documented, "docs/pulsemeter.1 has no .TP item for \(name) (\(command))")
            }
            #expect(source.contains(".BR \(command)") || source.contains(".BI \(command)") || source.contains(".B \(command)"),
                    "docs/pulsemeter.1 does not describe the command \(command)")
        }
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "NDJSON OUTPUT", "EXIT STATUS", "EXAMPLES"] {
            #expect(source.contains(".SH \(section)"), "docs/pulsemeter.1 lacks the section \(section)")
        }
        for line in ["start", "frame", "gap", "end"] { #expect(source.contains(".B \(line)\n")) }
        for code in [0, 64, 65, 66, 69, 73, 74] { #expect(source.contains(".B \(code)\n"), "exit status \(code)") }
    }

    /// The man page's title line names the version `--version` prints (CLI.version, the one
    /// place it is set; the package ships this page).
    @Test func manPageNamesTheVersion() throws {
        let title = try Self.text("docs/pulsemeter.1").split(separator: "\n").first { $0.hasPrefix(".TH ") }
        #expect(title?.contains("\"pulsemeter \(CLI.version)\"") == true, "docs/pulsemeter.1: \(title ?? "no .TH line")")
    }

    /// What the bash completion offers for `words` (the last one being completed).
    static func bashCompletions(_ words: [String], source: String? = nil, environment: [String: String] = [:]) throws -> [String] {
        let file = source ?? root.appendingPathComponent("completions/pulsemeter.bash").path
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let script = """
        source '\(file)'
        COMP_WORDS=(\(quoted)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
        _pulsemeter
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let r = try Tool.exec("/bin/bash", ["--norc", "--noprofile", "-c", script], environment: environment)
        #expect(r.status == 0, "bash: \(r.err)")
        return r.out.split(separator: "\n").map(String.init)
    }

    /// What bash offers for `pulsemeter an` with the completion bash-completion's loader finds
    /// (as an interactive shell loads it), in `environment`.
    static func loadedBashCompletion(environment: [String: String]) throws -> Tool.Result {
        let script = """
        source /usr/share/bash-completion/bash_completion
        _completion_loader pulsemeter
        COMP_WORDS=(pulsemeter an); COMP_CWORD=1; COMPREPLY=()
        $(complete -p pulsemeter | sed -e 's/.*-F \\([^ ]*\\) .*/\\1/') pulsemeter an pulsemeter
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        return try Tool.exec("/bin/bash", ["--norc", "--noprofile", "-c", script], environment: environment)
    }

    /// What fish offers for `line`.
    static func fishCompletions(_ line: String, environment: [String: String] = [:], load: Bool = true) throws -> [String] {
        let fish = try #require(Tool.which("fish"), "fish is not installed (scripts/setup installs it)")
        let file = root.appendingPathComponent("completions/pulsemeter.fish").path
        // Without --no-config when it is not to load the file itself: fish's own config.fish
        // sets the vendor completion path from XDG_DATA_DIRS.
        let r = try Tool.exec(fish, (load ? ["--no-config"] : []) + ["-c", (load ? "source '\(file)'; " : "") + "complete -C '\(line)'"],
                              environment: environment)
        #expect(r.status == 0, "fish: \(r.err)")
        return r.out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
    }

    @Test func bashCompletesEveryOptionOfEveryCommand() throws {
        for (command, names) in Self.optionsByCommand {
            let offered = Set(try Self.bashCompletions(["pulsemeter", command, "-"]))
            for name in names { #expect(offered.contains(name), "bash: pulsemeter \(command) - does not offer \(name)") }
            #expect(offered.isSubset(of: Set(names)), "bash offers \(offered.subtracting(names).sorted()) that \(command) does not take")
        }
        // monitor is the default command.
        let monitor = Set(try Self.bashCompletions(["pulsemeter", "--"]))
        #expect(monitor == Set(CLI.specs(for: "monitor")!.flatMap(\.names).filter { $0.hasPrefix("--") }))
        #expect(try Self.bashCompletions(["pulsemeter", ""]) == CLI.commands + ["help"])
        #expect(try Self.bashCompletions(["pulsemeter", "analyze", "--raw", ""]) == ["s16le", "s24le", "s32le", "f32le"])
        #expect(try Self.bashCompletions(["pulsemeter", "analyze", "--format", "=", ""]) == ["ansi", "ndjson", "csv"])
        #expect(try Self.bashCompletions(["pulsemeter", "play", "-f", ""]) == ["ansi", "ndjson"])
        #expect(try Self.bashCompletions(["pulsemeter", "waveform", "-f", ""]) == ["json", "svg", "ansi", "dat", "audiowaveform-json", "peaks"])
        #expect(try Self.bashCompletions(["pulsemeter", "waveform", "--bits", ""]) == ["8", "16"])
        #expect(try Self.bashCompletions(["pulsemeter", "analyze", "--bands", ""]).isEmpty)
    }

    @Test func bashCompletesAudioFilesAndDirectories() throws {
        let dir = try TempDir()
        for name in ["voice.m4a", "take.wav", "notes.txt", "song.FLAC"] { _ = try dir.write([], name) }
        try FileManager.default.createDirectory(atPath: dir.path("sub"), withIntermediateDirectories: true)
        let got = try Self.bashCompletions(["pulsemeter", "analyze", dir.url.path + "/"])
        #expect(Set(got) == Set(["voice.m4a", "take.wav", "song.FLAC", "sub/"].map { dir.url.path + "/" + $0 }), "\(got)")
    }

    @Test func fishCompletesEveryOptionOfEveryCommand() throws {
        for (command, names) in Self.optionsByCommand {
            let offered = Set(try Self.fishCompletions("pulsemeter \(command) -"))
            for name in names { #expect(offered.contains(name), "fish: pulsemeter \(command) - does not offer \(name)") }
            #expect(offered.isSubset(of: Set(names)), "fish offers \(offered.subtracting(names).sorted()) that \(command) does not take")
        }
        #expect(try Self.fishCompletions("pulsemeter analyze --raw ").sorted() == ["f32le", "s16le", "s24le", "s32le"])
        #expect(try Self.fishCompletions("pulsemeter waveform --format ").sorted() == ["ansi", "audiowaveform-json", "dat", "json", "peaks", "svg"])
    }

    @Test func zshCompletionListsEveryOption() throws {
        let source = try Self.text("completions/_pulsemeter")
        for (command, names) in Self.optionsByCommand {
            for name in names {
                let listed = Self.mentions(source, name)
                #expect(listed, "completions/_pulsemeter lacks \(name) (\(command))")
            }
            #expect(source.contains("    \(command))"), "completions/_pulsemeter has no case for \(command)")
        }
        let zsh = try #require(Tool.which("zsh"), "zsh is not installed (scripts/setup installs it)")
        let r = try Tool.exec(zsh, ["-n", Self.root.appendingPathComponent("completions/_pulsemeter").path])
        #expect(r.status == 0, "zsh -n: \(r.err)")
    }

    @Test func installIntoATemporaryPrefix() throws {
        let dir = try TempDir()
        let prefix = dir.path("prefix")
        let install = try Tool.exec(Self.root.appendingPathComponent("scripts/install").path,
                                    ["--prefix", prefix, "--bin", Tool.binary])
        #expect(install.status == 0, "scripts/install: \(install.err)")

        // The binary runs.
        let version = try Tool.exec(prefix + "/bin/pulsemeter", ["--version"])
        #expect(version.status == 0 && version.out.hasPrefix("pulsemeter "), "\(version.out)\(version.err)")

        // man -l renders the page without warnings.
        let page = prefix + "/share/man/man1/pulsemeter.1"
        let man = try Tool.exec("/usr/bin/man", ["--warnings", "-l", page],
                                environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80", "LC_ALL": "C"])
        #expect(man.status == 0, "man: \(man.err)")
        #expect(man.err.isEmpty, "man warnings: \(man.err)")
        let rendered = man.out.replacingOccurrences(of: ".\u{8}", with: "", options: .regularExpression)
        for needle in ["PULSEMETER(1)", "EXIT STATUS", "EXAMPLES", "--bands", "pulsemeter analyze song.flac"] {
            #expect(rendered.contains(needle), "man -l output lacks \(needle)")
        }

        // bash-completion finds the installed file next to the binary's prefix and completes
        // `pulsemeter an` to `analyze`.
        let bash = try Self.loadedBashCompletion(environment: ["PATH": prefix + "/bin:/usr/bin:/bin", "XDG_DATA_DIRS": prefix + "/share"])
        #expect(bash.out == "analyze\n", "bash completion of `pulsemeter an`: \(bash.out) \(bash.err)")

        // fish finds its vendor completions through XDG_DATA_DIRS.
        let fish = try Self.fishCompletions("pulsemeter an", environment: ["XDG_DATA_DIRS": prefix + "/share:/usr/share",
                                                                         "HOME": dir.path("home"), "XDG_CONFIG_HOME": dir.path("config"),
                                                                         "PATH": prefix + "/bin:/usr/bin:/bin"], load: false)
        #expect(fish == ["analyze"], "fish: \(fish)")

        // zsh's compinit picks up _pulsemeter from the site-functions directory.
        let zsh = try #require(Tool.which("zsh"))
        let z = try Tool.exec(zsh, ["-f", "-c", "fpath=(\(prefix)/share/zsh/site-functions $fpath); autoload -Uz compinit; compinit -u -d \(dir.path("zcompdump")); print -r -- $_comps[pulsemeter]"])
        #expect(z.out == "_pulsemeter\n", "zsh: \(z.out) \(z.err)")
    }
}
