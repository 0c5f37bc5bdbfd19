import MeterCore

/// The `STATUS=` line a service manager shows (`systemctl status`): per source its name and
/// state, the loudest channel's RMS and peak level, and the recording file; sources apart by
/// "; ". For example `vsink.monitor -20.3 dB RMS, -14.1 dB peak, recording take.wav`.
enum ServiceWording {
    static func status(_ s: ServiceStatus) -> String {
        s.sources.map { source in
            let name = SafeText.terminal(source.name)
            var text: String
            if source.lost {
                text = "\(name) lost, waiting for it to return"
            } else if let rms = source.rmsDb, let peak = source.peakDb {
                text = "\(name) \(AnsiMeterRenderer.readout(rms, width: 0)) dB RMS, \(AnsiMeterRenderer.readout(peak, width: 0)) dB peak"
            } else {
                text = "\(name) waiting for audio"
            }
            if let file = source.file { text += ", recording \(SafeText.terminal(file))" }
            return text
        }.joined(separator: "; ")
    }
}
