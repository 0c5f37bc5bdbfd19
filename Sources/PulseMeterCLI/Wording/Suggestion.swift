/// "Did you mean ...?" for a mistyped option or command: the nearest known word by edit
/// distance (insertions, deletions, substitutions and swaps of neighbours, each costing 1),
/// or the one known word the typed one begins.
enum Suggestion {
    /// The candidate nearest to `word`, compared without leading dashes (the first of equals);
    /// nil when none is close (at most 1 edit for words up to 4 letters, 2 up to 8, 3 beyond;
    /// single letters are never guessed), unless `word` begins exactly one candidate.
    static func nearest(to word: String, in candidates: [String]) -> String? {
        let typed = bare(word)
        guard typed.count >= 2 else { return nil }
        let allowed = typed.count <= 4 ? 1 : (typed.count <= 8 ? 2 : 3)
        var best: (name: String, distance: Int)?
        for c in candidates {
            let d = distance(typed, bare(c))
            if d <= allowed, best == nil || d < best!.distance { best = (c, d) }
        }
        if let best { return best.name }
        let extending = candidates.filter { typed.count >= 2 && bare($0).starts(with: typed) }
        return extending.count == 1 ? extending[0] : nil
    }

    private static func bare(_ s: String) -> [Character] { Array(s.drop(while: { $0 == "-" })) }

    /// Optimal string alignment distance between `a` and `b`.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
