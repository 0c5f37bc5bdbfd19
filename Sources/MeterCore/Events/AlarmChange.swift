/// An alarm that went on or off (the `alarm_on` / `alarm_off` event): which alarm, on which
/// channel (nil for a metric of the whole stream), the level read and how long the condition
/// had held, in seconds.
public struct AlarmChange: Sendable, Equatable {
    public var on: Bool
    public var name: String
    public var metric: AlarmSpec.Metric
    public var channel: Int?
    public var level: Double
    public var heldSeconds: Double

    public init(on: Bool, name: String, metric: AlarmSpec.Metric, channel: Int?, level: Double, heldSeconds: Double) {
        self.on = on
        self.name = name
        self.metric = metric
        self.channel = channel
        self.level = level
        self.heldSeconds = heldSeconds
    }
}
