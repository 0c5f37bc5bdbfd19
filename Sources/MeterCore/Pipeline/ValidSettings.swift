/// Meter settings that passed every rule of `MeterSettings.allowed`, with the band layout the
/// check computed. `init` is the only way to one, and a value cannot be changed after, so what
/// takes one (`MeterPipeline`, `DeferredBands`, a session's source) checks nothing again: the
/// rules are checked once, where the settings are made (the command line's options), and a
/// mistake is refused before any source is opened.
///
/// Reads go through to the settings (`valid.rate`); `settings` is the whole value.
@dynamicMemberLookup
public struct ValidSettings: Sendable, Equatable {
    public let settings: MeterSettings
    /// The FFT bands' layout; nil when the spectrum is off.
    public let bandLayout: BandLayout?

    /// Throws the first rule `settings` breaks, in the order of `MeterSettings.validate()`.
    public init(_ settings: MeterSettings) throws(SettingError) {
        bandLayout = try settings.validate()
        self.settings = settings
    }

    public subscript<T>(dynamicMember path: KeyPath<MeterSettings, T>) -> T { settings[keyPath: path] }
}
