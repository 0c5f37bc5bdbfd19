import MeterCore
import MeterIO
import Synchronization

/// The files of a many-file run, in list order, cut to a shard; read one at a time by the
/// worker pool (one call at a time), so a list from stdin is streamed, never held whole.
final class FileList: @unchecked Sendable {
    // Only `OrderedWorkPool`'s `next`, called one at a time under its list lock, touches the
    // mutable state.
    private var positionals: ArraySlice<FilePath>
    private let reader: PathListReader?
    private let shard: (index: Int, count: Int)?
    private var listPosition = 0
    private let failureBox = Mutex<InputError?>(nil)

    init(positionals: [FilePath], reader: PathListReader?, shard: (index: Int, count: Int)?) {
        self.positionals = positionals[...]
        self.reader = reader
        self.shard = shard
    }

    /// A reading error of the list (exit 74), reported after the files read so far.
    var failure: InputError? { failureBox.withLock { $0 } }

    /// The number of files this run will take, when the list's length is known up front (ask
    /// before the first `next`).
    var total: Int? {
        guard reader == nil || reader!.knownCount != nil else { return nil }
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
        if let p = positionals.popFirst() { return p }
        do {
            if let p = try reader?.next() { return p }
        } catch {
            failureBox.withLock { $0 = error }
        }
        reachedEnd = !(reader?.stopped ?? false)
        return nil
    }
}
