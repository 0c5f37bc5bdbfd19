/// An optional value kept behind one reference: a struct that holds a large, rarely set field
/// this way stays small, and copying it moves a word and takes a reference only when the field
/// is set. `MeterFrame.period` and `.day` were 274 of a frame's 521 bytes, copied with every
/// frame on its way to the output thread, though set once a period.
@propertyWrapper
public struct Boxed<Value: Sendable & Equatable>: Sendable, Equatable {
    private final class Storage: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    private var storage: Storage?

    public init(wrappedValue: Value?) { storage = wrappedValue.map(Storage.init) }

    public var wrappedValue: Value? {
        get { storage?.value }
        set { storage = newValue.map(Storage.init) }
    }

    public static func == (a: Boxed, b: Boxed) -> Bool { a.wrappedValue == b.wrappedValue }
}
