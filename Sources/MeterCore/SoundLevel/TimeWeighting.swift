/// The time weightings of a sound level meter: F and S as IEC 61672-1 defines them
/// (exponential averaging of the squared, frequency-weighted signal with a time constant of
/// 125 ms and 1 s), and I (impulse, from IEC 60651): a 35 ms exponential average followed by
/// a peak detector that decays with a 1.5 s time constant.
public enum TimeWeighting: String, Sendable, CaseIterable {
    case fast = "F", slow = "S", impulse = "I"

    /// The (rise) time constant in seconds.
    public var seconds: Double {
        switch self {
        case .fast: 0.125
        case .slow: 1
        case .impulse: 0.035
        }
    }

    /// I's decay time constant in seconds.
    public static let impulseDecaySeconds = 1.5

    /// Samples after which a steady signal reads within 0.03 dB of its level (5 time
    /// constants): minima and percentiles count readings from there on.
    public func settlingSamples(rate: Int) -> Int { Int((5 * seconds * Double(rate)).rounded(.up)) }
}
