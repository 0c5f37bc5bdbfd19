import MeterCore

/// A file written under a hidden name beside the one asked for, which takes that name only
/// once it is complete (`RecordingFormat.openBeside`): `normalize`'s outputs. Interrupted
/// (a signal, a full disk, a damaged input), `discard` removes it and the name is as it was.
///
/// Owned by the one thread that writes it.
public final class FinishingFile {
    public let writer: any RecordingWriter
    private let file: NewFile
    private var finished = false

    init(writer: any RecordingWriter, file: NewFile) {
        self.writer = writer
        self.file = file
    }

    /// The name it is written under until `commit` (for TagLib to add tags before then).
    public var writtenPath: FilePath { file.writtenPath }
    /// The name it takes.
    public var path: FilePath { file.path }

    /// Finishes the writer (headers, the encoder's last frames).
    public func close() throws(OutputError) {
        try writer.close()
    }

    /// Gives the complete file its name: over what is there (`replace`, `--force`: a regular
    /// file or a link; `rename(2)`), or only when nothing has taken it (`.recordingExists`).
    public func commit(replace: Bool) throws(OutputError) {
        finished = true
        do {
            if replace { try file.commit() } else { try file.commitIfFree() }
        } catch {
            throw error.outputError(file.path, recording: true)
        }
    }

    /// Abandons the file: its writer closed, the hidden file removed.
    public func discard() {
        guard !finished else { return }
        finished = true
        _ = try? writer.close()
        file.discard()
    }

    deinit { discard() }
}
