import Foundation
import Glibc
import Synchronization
import TestSupport

// MARK: - NDJSON

/// One parsed NDJSON line.
struct JSONLine: @unchecked Sendable {
    let raw: String
    let object: [String: Any]

    init(_ raw: String) throws {
        self.raw = raw
        guard let data = raw.data(using: .utf8),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw LiveSetupError("stdout line is not a JSON object: \(raw.prefix(300))")
        }
        object = obj
    }

    var type: String { object["type"] as? String ?? "" }
    func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
    func double(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
    func doubles(_ key: String) -> [Double]? { (object[key] as? [NSNumber])?.map(\.doubleValue) }
    func string(_ key: String) -> String? { object[key] as? String }
}

func parseLines(_ lines: [String]) throws -> [JSONLine] { try lines.map(JSONLine.init) }
