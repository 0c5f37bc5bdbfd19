import MeterCore
import MeterIO

/// `--mqtt mqtt[s]://[USER@]HOST[:PORT]/PREFIX` (monitor, record) with `--mqtt-every`,
/// `--mqtt-password-file`, `--mqtt-ca` and `--name`: the meter published to an MQTT broker
/// (`MQTTSink` in front of the run's output, `MQTTClient` on libmosquitto's thread). Here:
/// reading the options and wording what the client reports.
enum MQTTOptions {
    static let specs = [OptionSpec("--mqtt"), OptionSpec("--mqtt-every"), OptionSpec("--mqtt-password-file"),
                        OptionSpec("--mqtt-ca"), OptionSpec("--name")]

    /// The address, or nil without `--mqtt` (its companions alone are a mistake).
    static func address(_ a: ParsedArguments) throws(PulsemeterError) -> MQTTAddress? {
        guard let text = a.string("mqtt") else {
            for key in ["mqtt-every", "mqtt-password-file", "mqtt-ca", "name"] where a.has(key) {
                throw PulsemeterError(.usage, "--\(key) is for --mqtt; add --mqtt mqtt://HOST/PREFIX")
            }
            return nil
        }
        switch MQTTAddress.parse(text) {
        case .success(let address):
            if a.has("mqtt-ca") && !address.tls {
                throw PulsemeterError(.usage, "--mqtt-ca is the CA of a TLS broker: use an mqtts:// address")
            }
            return address
        case .failure(let problem):
            throw PulsemeterError(.usage, "--mqtt \(SafeText.terminal(text)) is not allowed: " + word(problem))
        }
    }

    static func word(_ problem: MQTTAddress.Problem) -> String {
        switch problem {
        case .scheme: return "use mqtt://[USER@]HOST[:PORT]/PREFIX or mqtts://..."
        case .password: return "give the password in PULSEMETER_MQTT_PASSWORD or --mqtt-password-file, never in the address"
        case .hostOrPort: return "it needs a HOST and a PORT from 1 to 65535: mqtt://[USER@]HOST[:PORT]/PREFIX"
        case .prefix: return "it needs a topic PREFIX after the host, without +, # or empty levels: mqtt://HOST/PREFIX"
        }
    }

    /// The password: the file's first line, else the environment's, else none.
    static func password(_ a: ParsedArguments) throws -> String? {
        guard let file = a.path("mqtt-password-file") else { return MQTTClient.environmentPassword() }
        let bytes: [UInt8]
        do {
            bytes = try SmallFileReader.read(file, limit: 4096)
        } catch {
            throw ErrorWording.input(error)
        }
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        return String(decoding: line, as: UTF8.self)
    }

    /// The client, connecting in the background, and the MQTT sink in front of `sink`; nil and
    /// `sink` itself without `--mqtt`. `source`: the metered source's name, the default NAME.
    /// `alarms`: the run's alarm names, a Home Assistant binary sensor each. `lines`: the run's.
    static func attach(_ a: ParsedArguments, to sink: any FrameSink, client: MQTTClient?, source: String,
                       periods: Bool, alarms: [String], lines: NDJSONLines) throws -> any FrameSink {
        guard let client, let address = try address(a) else { return sink }
        let every = try a.double("mqtt-every", what: "give seconds from 0.1 to 86400 between state messages",
                                 valid: { $0 >= 0.1 && $0 <= 86400 }) ?? 10
        return MQTTSink(next: sink, publisher: client, topics: topics(a, address, source: source), version: CLI.version,
                        every: every, periods: periods, events: MeterOptions.eventLines(a), alarms: alarms, lines: lines)
    }

    static func topics(_ a: ParsedArguments, _ address: MQTTAddress, source: String) -> MQTTTopics {
        MQTTTopics(prefix: address.prefix, name: MQTTTopics.topicSafe(a.string("name") ?? source))
    }

    /// Starts the client (before the run, so that it connects while the run starts), or nil
    /// without `--mqtt`.
    static func client(_ a: ParsedArguments, source: String) throws -> MQTTClient? {
        guard let address = try address(a) else { return nil }
        _ = try a.double("mqtt-every", what: "give seconds from 0.1 to 86400 between state messages",
                         valid: { $0 >= 0.1 && $0 <= 86400 })
        let settings = MQTTClient.Settings(address: address, password: try password(a), caFile: a.path("mqtt-ca")?.string,
                                           statusTopic: topics(a, address, source: source).status)
        if let ca = a.path("mqtt-ca") {
            do { _ = try SmallFileReader.read(ca, limit: 1 << 20) } catch { throw ErrorWording.input(error) }
        }
        do {
            return try MQTTClient(settings) { problem in CLI.error(word(problem, broker: address.broker)) }
        } catch .setup(let reason) {
            throw PulsemeterError(.unavailable, "MQTT client for \(address.broker) could not start: \(reason)")
        }
    }

    /// One stderr line, once per kind: the run goes on metering.
    static func word(_ problem: MQTTClient.Problem, broker: String) -> String {
        switch problem {
        case .refused(let reason):
            return "MQTT broker \(broker) refused the login: \(plain(reason)); metering goes on, publishing nothing until it accepts"
        case .unreachable(let reason):
            return "MQTT broker \(broker) is not reachable: \(plain(reason)); metering goes on, reconnecting with backoff"
        }
    }

    /// libmosquitto's "Connection Refused: bad user name or password." as "bad user name or password".
    static func plain(_ reason: String) -> String {
        let prefix = "Connection Refused: "
        var r = reason.hasPrefix(prefix) ? reason.dropFirst(prefix.count) : Substring(reason)
        while r.last == "." { r = r.dropLast() }
        return String(r)
    }
}
