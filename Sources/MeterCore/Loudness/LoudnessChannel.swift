/// A channel's role in a BS.1770 loudness sum, from the channel count as WAVE orders
/// channels (README.md "Loudness"): 1 mono, 2 L R, 3 L R C, 4 L R Ls Rs, 5 L R C Ls Rs,
/// 6 L R C LFE Ls Rs; any other count weighs every channel 1.0.
public enum LoudnessChannel: Sendable, Equatable {
    case left, right, center, lfe, leftSurround, rightSurround, other

    /// The BS.1770 weight: 1.0 for front channels, 1.41 (+1.5 dB) for surrounds, 0 for LFE
    /// (not counted). 1.41 is libebur128's constant, kept so the two agree to the last bit.
    public var weight: Double {
        switch self {
        case .left, .right, .center, .other: return 1.0
        case .leftSurround, .rightSurround: return 1.41
        case .lfe: return 0
        }
    }

    /// The roles of `channels` channels.
    public static func roles(channels: Int) -> [LoudnessChannel] {
        switch channels {
        case 1: return [.center]
        case 2: return [.left, .right]
        case 3: return [.left, .right, .center]
        case 4: return [.left, .right, .leftSurround, .rightSurround]
        case 5: return [.left, .right, .center, .leftSurround, .rightSurround]
        case 6: return [.left, .right, .center, .lfe, .leftSurround, .rightSurround]
        default: return Array(repeating: .other, count: max(0, channels))
        }
    }
}
