/// What the meter's needle follows (`meter_db`): dBFS RMS as the levels do, a VU meter
/// (IEC 60268-17), a peak programme meter of type I (DIN) or II (BBC, EBU) (IEC 60268-10), or
/// a K-system meter (RMS, 0 at -20, -14 or -12 dBFS).
public enum MeterKind: String, Sendable, CaseIterable {
    case dbfs, vu, ppm1, ppm2, k20, k14, k12

    /// The unit its readings are in.
    public var unit: String {
        switch self {
        case .dbfs, .ppm1, .ppm2: "dBFS"
        case .vu: "VU"
        case .k20: "K-20"
        case .k14: "K-14"
        case .k12: "K-12"
        }
    }

    /// The range its scale shows, in its unit, and the ticks labelled on it.
    public var scale: (low: Double, high: Double, ticks: [Double]) {
        switch self {
        case .dbfs: (-60, 0, [-60, -40, -20, -10, -6, -3, 0])
        case .vu: (-20, 3, [-20, -10, -7, -5, -3, -1, 0, 1, 2, 3])
        case .ppm1, .ppm2: (-50, 0, [-50, -40, -30, -20, -10, -5, 0])
        case .k20: (-40, 20, [-40, -30, -20, -10, -6, 0, 4, 8, 12, 20])
        case .k14: (-46, 14, [-40, -30, -20, -10, -6, 0, 4, 8, 14])
        case .k12: (-48, 12, [-40, -30, -20, -10, -6, 0, 4, 8, 12])
        }
    }

    /// For a K-system meter, the dBFS RMS level that reads 0.
    public var kReference: Double? {
        switch self {
        case .k20: -20
        case .k14: -14
        case .k12: -12
        default: nil
        }
    }
}
