/// Where encoded output bytes go (a file descriptor in MeterIO, an array in tests).
public protocol ByteOutput: AnyObject {
    /// Writes all of `bytes` at once; throws when the output is gone or failing.
    func write(_ bytes: [UInt8]) throws
}
