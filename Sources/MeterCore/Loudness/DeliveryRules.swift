/// What a run judges its loudness against (`--preset`, `--target` with `--tolerance`,
/// `--max-true-peak`): the integrated loudness's range, the true peak's ceiling and, where the
/// specification has one, the highest short-term loudness. The `end` line's `verdict` judges
/// the stream's figures by them (`judge`).
public struct DeliveryRules: Sendable, Equatable {
    /// The preset these come from, when one was named.
    public var preset: String?
    /// Integrated loudness to reach (LUFS) and how far from it it may be (LU), either way;
    /// nil: not judged.
    public var integrated: Double?
    public var tolerance: Double?
    /// The highest true peak allowed (dBTP): also the ceiling `headroom_db` is measured to.
    public var maxTruePeak: Double
    /// The highest short-term loudness allowed (LUFS), where the specification limits it.
    public var maxShortTerm: Double?

    public init(preset: String? = nil, integrated: Double? = nil, tolerance: Double? = nil,
                maxTruePeak: Double = DeliveryPreset.defaultMaxTruePeak, maxShortTerm: Double? = nil) {
        self.preset = preset
        self.integrated = integrated
        self.tolerance = tolerance
        self.maxTruePeak = maxTruePeak
        self.maxShortTerm = maxShortTerm
    }

    /// A preset's rules, with the tolerance of a live programme (`live`) or of a file.
    public init(_ p: DeliveryPreset, live: Bool) {
        self.init(preset: p.name, integrated: p.integrated, tolerance: live ? p.liveTolerance : p.tolerance,
                  maxTruePeak: p.maxTruePeak, maxShortTerm: p.maxShortTerm)
    }

    /// The rules a verdict has, in its order: the integrated loudness when there is a target
    /// and a tolerance, the true peak, the highest short-term loudness where it is limited.
    public var kinds: [Verdict.Rule.Kind] {
        (integrated != nil && tolerance != nil ? [.integrated] : []) + [.truePeak] + (maxShortTerm != nil ? [.maxShortTerm] : [])
    }

    /// The stream's figures judged: each rule's value is the figure as the `end` line gives
    /// it (to 0.01), so that a reader of the line comes to the same verdict.
    public func judge(_ s: LoudnessSummary) -> Verdict {
        Verdict(rules: kinds.map { kind in
            switch kind {
            case .integrated: .init(.integrated, value: s.integrated, min: integrated! - tolerance!, max: integrated! + tolerance!)
            case .truePeak: .init(.truePeak, value: s.maxTruePeakDb, max: maxTruePeak)
            case .maxShortTerm: .init(.maxShortTerm, value: s.maxShortTerm, max: maxShortTerm!)
            }
        })
    }
}

/// A stream judged by `DeliveryRules`: each rule with the measured value, its limits and
/// whether it passes; the stream passes when all of them do.
public struct Verdict: Sendable, Equatable {
    public struct Rule: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case integrated, truePeak = "true_peak", maxShortTerm = "max_short_term"

            /// How the rule is named to a person ("integrated", "true peak", "max short-term").
            public var label: String {
                switch self {
                case .integrated: "integrated"
                case .truePeak: "true peak"
                case .maxShortTerm: "max short-term"
                }
            }
        }
        public var kind: Kind
        /// The measured figure, rounded to 0.01 as the `end` line prints it.
        public var value: Double
        public var min: Double?
        public var max: Double
        public var pass: Bool

        public init(_ kind: Kind, value: Double, min: Double? = nil, max: Double) {
            let shown = Self.printed(value)
            self.kind = kind
            self.value = shown
            self.min = min
            self.max = max
            pass = shown <= Self.printed(max) && min.map { shown >= Self.printed($0) } ?? true
        }

        /// `v` to 0.01, as the NDJSON lines print dB values.
        static func printed(_ v: Double) -> Double { (v * 100).rounded() / 100 }

        /// How the rule is named to a person.
        public var label: String { kind.label }
    }

    public var rules: [Rule]
    public var pass: Bool { rules.allSatisfy(\.pass) }
    /// The rules that fail.
    public var failed: [Rule] { rules.filter { !$0.pass } }
}
