import Glibc
import MeterCore
@testable import MeterIO
import Testing

/// libsndfile's failures reach the user in our words, never as its own strings.
@Suite struct SoundFileErrorTests {
    @Test func aRecordingInAMissingDirectory() {
        let path = FilePath("/nonexistent-pulsemeter-dir/take.wav")
        guard let format = try? RecordingFormat.choose(path: path, rate: 48000, channels: 2) else {
            Issue.record("wav at 48000 Hz stereo refused")
            return
        }
        do {
            _ = try format.openWriter(path: path)
            Issue.record("created a file in a missing directory")
        } catch {
            #expect(error == .cannotCreateRecording(path, reason: "No such file or directory"))
        }
    }

    @Test func everyCodeHasOurWords() {
        #expect(SoundFileError.reason(code: 1, savedErrno: 0) == "not a format libsndfile reads")
        #expect(SoundFileError.reason(code: 2, savedErrno: ENOSPC) == String(cString: strerror(ENOSPC)))
        #expect(SoundFileError.reason(code: 3, savedErrno: 0) == "its header is damaged")
        #expect(SoundFileError.reason(code: 4, savedErrno: 0) == "an encoding libsndfile cannot handle")
        #expect(SoundFileError.reason(code: 99, savedErrno: 0) == "libsndfile refused it")
    }

    @Test func decodeErrorsInOurWords() {
        for code in Int32(5)...Int32(200) {
            let reason = SoundFileError.decodeReason(code: code)
            #expect(!reason.contains("Error :") && !reason.hasSuffix("."), "\(code): \(reason)")
        }
    }
}
