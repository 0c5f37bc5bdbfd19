import MeterCore
import MeterIO
import Synchronization

/// The files of a many-file run, in list order, cut to a shard; read one at a time by the
/// worker pool (one call at a time), so a list from stdin is streamed, never held whole.
/// With `--recursive` a directory among the positionals stands for the audio files under it
/// (`DirectoryWalk`, by `AudioFile.extensions`, sorted by path), walked as its turn comes.
final class FileList: @unchecked Sendable {
    // Only `OrderedWorkPool`'s `next`, called one at a time under its list lock, touches the
    // mutable state.
    private var positionals: ArraySlice<FilePath>
    private let reader: PathListReader?
    private let shard: (index: Int, count: Int)?
    /// Walk directories (`--recursive`), and the one being walked.
    private let recursive: Bool
    private var walk: DirectoryWalk?
    private var listPosition = 0
    private let failureBox = Mutex<InputError?>(nil)

    init(positionals: [FilePath], reader: PathListReader?, shard: (index: Int, count: Int)?, recursive: Bool = false) {
        self.positionals = positionals[...]
        self.reader = reader
        self.shard = shard
        self.recursive = recursive
    }

    /// A reading error of the list (exit 74), or the first directory a walk could not list,
    /// reported after the files read so far.
    var failure: InputError? { failureBox.withLock { $0 } }

    /// The number of files this run will take, when the list's length is known up front (ask
    /// before the first `next`).
    var total: Int? {
        guard reader == nil || reader!.knownCount != nil else { return nil }
        if recursive && positionals.contains(where: \.isDirectory) { return nil }  // known as walked
        let all = positionals.count + (reader?.knownCount ?? 0)
        guard let shard else { return all }
        return all >= shard.index ? (all - shard.index) / shard.count + 1 : 0
    }

    /// The next file of this shard, or nil at the end of the list.
    func next() -> FilePath? {
        while let path = nextOfList() {
            listPosition += 1
            if let shard, (listPosition - shard.index) % shard.count != 0 { continue }
            return path
        }
        return nil
    }

    /// True once the end of the list was reached (every file of it was handed out), not a
    /// stop request.
    private(set) var reachedEnd = false

    private func nextOfList() -> FilePath? {
        while true {
            if let walk {
                if let p = walk.next() { return p }
                if let e = walk.failure { keep(e) }
                self.walk = nil
            }
            guard let p = positionals.popFirst() else { break }
            guard recursive && p.isDirectory else { return p }
            do {
                walk = try DirectoryWalk(p, extensions: AudioFile.extensions)
            } catch {
                keep(error)
            }
        }
        do {
            if let p = try reader?.next() { return p }
        } catch {
            keep(error)
        }
        reachedEnd = !(reader?.stopped ?? false)
        return nil
    }

    /// Keeps the first error.
    private func keep(_ e: InputError) {
        failureBox.withLock { if $0 == nil { $0 = e } }
    }
}
