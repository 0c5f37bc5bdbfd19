import MeterCore

/// Help text for the tool and each command. Defaults and ranges come from where they are
/// stated once (`MeterSettings`, `EventSettings`, `TriggerSettings`, ...), not from here.
enum Help {
    private static let d = MeterSettings.defaults
    private static func n(_ v: Double) -> String { ErrorWording.number(v) }
    private static func n(_ v: Int) -> String { String(v) }
    /// "LO..HI" of a setting whose rule is a range (or a range of powers of two).
    private static func range(_ setting: SettingError.Setting) -> String {
        switch d.allowed(setting) {
        case .range(let lo, let hi): return n(lo) + ".." + n(hi)
        case .powerOfTwo(let lo, let hi): return n(lo) + ".." + n(hi)
        default: preconditionFailure("\(setting) has no range")
        }
    }
    private static var preRollMost: Double {
        guard case .range(_, let hi) = d.allowed(.preRoll) else { preconditionFailure("pre-roll has no range") }
        return hi
    }

    static let meterOptions = """
      -r, --rate HZ          capture rate (live, raw stdin)             [the source's own]
      -c, --channels N       capture channels, \(range(.channels)) (live, raw stdin)  [the source's own]
          --fps N            meter frames per second of audio; hop = round(rate/fps)  [\(n(d.fps))]
          --window MS        RMS integration window                     [\(n(d.windowMs))]
          --bands N          FFT band levels, log-spaced (0 = off)      [\(n(d.bands))]
          --fft-size N       FFT length, a power of two \(range(.fftSize))       [\(n(d.fftSize))]
          --fmin HZ          lowest band edge                           [\(n(d.fmin))]
          --fmax HZ          highest band edge        [min(16000, 0.95 x Nyquist)]
      -f, --format FMT       ansi, ndjson or csv (RFC 4180)   [ansi on a terminal, else ndjson]
      -o, --output PATH      write meter output there instead of stdout
          --duration SEC     stop after this much audio (counted in frames)
          --report PATH      the run as one HTML page when it ends (DIR/ for many files;
                             an existing one: exit 73 without --force)
          --interval SEC     a period line every SEC (1 to 86400): leq/lmax/lmin/l10/l50/l90/peak
                             per channel; live at wall-clock multiples (900: :00 :15 :30 :45)
          --start-time T     (analyze) the file's start, RFC 3339: periods align to the clock
          --lden             (with --spl) a day line per day: lday, levening, lnight, lden
          --events           event lines: silence_start/silence_end, clip, source_lost
          --silence-db DB    silence: every channel's RMS below this      [\(n(EventSettings().silenceDb))]
          --silence-min SEC  ... for at least this long                   [\(n(EventSettings().silenceMinSeconds))]
          --clip-db DB       a sample this loud counts as clipped   [the 16-bit rail]
          --exec CMD         run /bin/sh -c CMD for every event, gap, file and device line:
                             the line on its stdin, PULSEMETER_TYPE, _EVENT, _POS, _T,
                             _SOURCE, _FILE in its environment; its output goes to stderr;
                             at most 4 at once and 64 waiting (more are dropped, counted)
          --exec-on LIST     only these lines run it: silence_start, silence_end, clip, gap,
                             file, device, source_lost, alarm_on, alarm_off (comma-separated;
                             a silence or clip name implies --events)
          --alarm SPEC       NAME:METRIC>LEVEL/SECONDS[,LEVEL/SECONDS] (< for a low alarm;
                             repeatable): alarm_on/alarm_off event lines, e.g.
                             dead-air:rms_db<-40/30,-35/5 (docs/alarms.md)
    \(soundLevelOptions)
    \(loudnessOptions)
    """

    static let loudnessOptions = """
          --loudness         EBU R128 loudness: lufs_m/lufs_s/lufs_i/lra per frame;
                             lufs_i, lra, max_lufs_m, max_lufs_s, true_peak_db in the end line
          --target LUFS      a loudness to aim at, \(range(.target)) (implies --loudness): the end line
                             adds target_lufs and gain_db, the meter marks it
          --preset NAME      judge by a delivery spec (implies --loudness; pulsemeter presets
                             lists them): its target, and a verdict in the end line
          --tolerance LU     how far from --target I may be (with --target: a verdict too)
          --dual-mono        a mono file's channel counts twice (+3.01 LU, as on both channels
                             of a stereo file; implies --loudness)
          --max-true-peak DB the true peak ceiling, \(range(.maxTruePeak)) dBTP (a verdict; headroom_db
                             is the gain up to it)          [the preset's, else \(n(DeliveryPreset.defaultMaxTruePeak))]

    """

    static let soundLevelOptions = """
          --meter KIND       meter_db and the bars: dbfs, vu, ppm1, ppm2, k20, k14 or k12
          --vu-ref DB        the dBFS peak level of 0 VU (implies --meter vu)   [\(n(d.vuReference))]
          --octaves 1|3      octave or third-octave bands (IEC 61260-1) instead of --bands
          --spl              sound level meter (IEC 61672-1): spl_db, leq_db per frame; leq_db,
                             lmax_db, lmin_db, lpeak_db, sel_db, ln_db in the end line
          --weighting W      frequency weighting A, C or Z (implies --spl)  [A]
          --time-weighting T F (125 ms), S (1 s) or I (impulse) (implies --spl)  [F]
          --calibration DB   the dB SPL that reads as 0 dBFS; without it levels are dBFS(A)
      --mic-cal FILE     a microphone calibration file (Sens Factor, frequency dB rows)
    """

    static let main = """
    pulsemeter: real-time audio level and spectrum meter for PulseAudio

    usage:
      pulsemeter [monitor] [OPTIONS]        meter a live PulseAudio source (the default command)
      pulsemeter record FILE [OPTIONS]      the same, while recording every captured frame to FILE
      pulsemeter analyze FILE|- [OPTIONS]   run a file (or raw PCM on stdin) through the same meter
      pulsemeter waveform FILE [OPTIONS]    summarize a file into N bars (a voice-message waveform)
      pulsemeter tag FILE... [--album]      write ReplayGain 2.0 tags (Opus: R128 gains) from the loudness
      pulsemeter normalize IN... -o OUT     write files at a loudness target with one static gain
      pulsemeter play FILE [-d SINK]        play a file, showing its waveform and progress
      pulsemeter devices [--json]           list capture sources (and with --sinks, playback sinks)
      pulsemeter presets [--json]           list the loudness delivery presets --preset takes
      pulsemeter calibrate -d SOURCE        measure a calibrator's 1 kHz tone, print the --calibration value
      pulsemeter --help | --version         also pulsemeter COMMAND --help

    Levels: rms_db = 10*log10(mean(x^2)) over the window (a full-scale sine reads -3.01),
    peak_db = 20*log10(max|x|) over each hop; every value is finite and at least -160.0.
    Loudness (--loudness): EBU R128 / ITU-R BS.1770-4, EBU Tech 3342 (2016), in LUFS, LU, dBTP.

    exit codes: 0 done or stopped, 1 analyze: a file fails its verdict, 64 bad command line, 65 not decodable audio,
    66 input missing or unreadable, 69 PulseAudio unavailable, 73 cannot create output,
    74 I/O failure while running.

    """

    /// The MQTT options of monitor and record.
    static let mqttOptions = """
          --mqtt mqtt[s]://[USER@]HOST[:PORT]/PREFIX
                             publish to an MQTT broker: state on PREFIX/NAME/state, period and
                             event lines on PREFIX/NAME/event, Home Assistant discovery
          --mqtt-every SEC   seconds between state messages                     [10]
          --mqtt-password-file FILE  the broker password (else PULSEMETER_MQTT_PASSWORD)
          --mqtt-ca FILE     the CA certificate of an mqtts:// broker          [system CAs]
          --name NAME        the meter's name in topics               [the source's name]

    """

    /// The many-file options of analyze and waveform.
    static let manyOptions = """
          --files-from LIST  more files, one a line (- : stdin), after the arguments
          --files-from0 LIST the same, NUL-separated (find -print0)
      -0, --null             --files-from lists are NUL-separated
      -j, --jobs N           files at once                   [number of cores]
          --shard K/N        only list positions K, K+N, K+2N, ... (array jobs)
          --unordered        each line as its file finishes, not in list order
          --recursive        a directory: the audio files under it, by extension, sorted
                             by path (dot names skipped, linked directories not followed)

    """

    static let command: [String: String] = [
        "tag": """
        usage: pulsemeter tag FILE... [--album] [--dry-run] [--skip-existing] [--true-peak] [OPTIONS]

        Measures each file's integrated loudness (the meter of analyze) and writes ReplayGain
        2.0 tags with TagLib: REPLAYGAIN_TRACK_GAIN ("\(ReplayGain.gainText(-6.52))", \(n(ReplayGain.referenceLufs)) LUFS minus the loudness)
        and REPLAYGAIN_TRACK_PEAK ("\(ReplayGain.peakText(0.988553))", the sample peak as a ratio of full scale)
        into FLAC, Ogg Vorbis, MP3 (ID3v2 TXXX), M4A, WavPack and what else TagLib tags. Opus
        files get R128_TRACK_GAIN (RFC 7845: 1/256 dB of \(n(ReplayGain.opusReferenceLufs)) LUFS minus the loudness); their
        header gain stays as it is. The audio itself is not rewritten.

        options:
              --album            also REPLAYGAIN_ALBUM_GAIN/PEAK (Opus: R128_ALBUM_GAIN): the
                                 loudness of all the files' gating blocks together, the largest peak
              --true-peak        peaks are true peaks (between samples, as true_peak_db)
              --dry-run          write nothing; show the existing and the new values
              --skip-existing    leave a file alone when its tags already hold the new values
          -f, --format FMT       ansi (a table), ndjson or csv       [ansi on a terminal, else ndjson]
          -o, --output PATH      write the lines there instead of stdout
        \(manyOptions)
        A file that cannot be measured or tagged is one line on stderr; the others are still
        tagged, and the exit status is the first failure's (65 not audio or not taggable, 66
        missing, 73 the tags could not be written).

        examples:
          pulsemeter tag --album album/*.flac
          pulsemeter tag --dry-run -f ndjson *.opus
          pulsemeter tag --album --dry-run -f csv album/*.flac > gains.csv

        """,
        "normalize": """
        usage: pulsemeter normalize IN... (-o OUT | -o DIR/) (--preset NAME | --target LUFS) [OPTIONS]

        Writes each input at the target loudness with one static linear gain, never dynamics:
        pass one measures its integrated loudness and true peak (the meter of analyze), pass
        two writes it with the gain target minus I. The output keeps the input's rate,
        channels and sample format (16-bit with TPDF dither of 1 LSB; 24, 32-bit and float
        without; an input without one, such as MP3, as 24-bit), takes its container from the
        name (wav, flac, ogg, opus, mp3, aiff, caf, au, w64, rf64; m4a and aac through ffmpeg)
        and the input's title, artist, album and date where both containers carry tags.

        When the gain would lift the true peak over the ceiling, the gain is lowered to it and
        one stderr line says so (the end line has "limited_by":"true_peak"); --limit keeps the
        gain and holds the peaks with a true-peak limiter instead.

        options:
          -o, --output OUT|DIR/  the output file (one input), or a directory (a name ending in
                                 /, or an existing one) that takes each input's name
              --preset NAME      a delivery spec's target and ceiling (pulsemeter presets)
              --target LUFS      the loudness to reach (overrides the preset's); one of the two
              --max-true-peak DB the true-peak ceiling, dBTP  [the preset's, else \(n(DeliveryPreset.defaultMaxTruePeak))]
              --limit            reach the target: a true-peak limiter (4x oversampled
                                 detection, 5 ms look-ahead, 150 ms release) holds the peaks
              --album            one gain for all the inputs: the loudness of all their
                                 gating blocks together, the largest true peak
              --force            replace an existing output (without it: exit 73)
        \(manyOptions)
        Each output is written beside its name and renamed when complete: a signal, a full
        disk or a damaged input leaves nothing under the name. One NDJSON end line a file on
        stdout; a file that fails is one line on stderr and the others go on. Exit status: 0
        every file written, else the first failure's (64 a container that cannot take the
        input, 65 not audio or silent, 66 missing, 73 output exists or cannot be created, 74
        disk full), 130 stopped by a signal (nothing partial left).

        examples:
          pulsemeter normalize episode.wav -o episode-16.wav --preset podcast
          pulsemeter normalize --album --target -14 album/*.flac -o out/

        """,
        "calibrate": """
        usage: pulsemeter calibrate -d SOURCE [--reference DB] [-r HZ] [-c N] [--duration SEC]

        Measures a sound level calibrator's 1 kHz tone on a live source for the sound level
        meter (--spl): once the A-weighted level has held steady to 0.1 dB for 3 s, prints
        --calibration VALUE on stdout (the dB SPL that reads as 0 dBFS), so that
        pulsemeter --spl $(pulsemeter calibrate -d SOURCE) reads the calibrator's level.
        Gives up after --duration seconds (exit 65), saying why: no tone, not steady, not 1 kHz.

        options:
          -d, --device NAME      the source the measurement microphone is on   [server default]
              --reference DB     the calibrator's level in dB SPL, \(range(.calibratorLevel))          [\(n(CalibrationMeasurement.defaultReference))]
          -r, --rate HZ          capture rate                                 [the source's own]
          -c, --channels N       capture channels (the loudest one is measured) [the source's own]
              --duration SEC     give up after this much audio                      [\(n(CalibrationMeasurement.defaultLimitSeconds))]
          -h, --help             this help

        """,
        "analyze": """
        usage: pulsemeter analyze FILE [OPTIONS]
               pulsemeter analyze FILE FILE... | --files-from LIST | --recursive DIR [OPTIONS]
               pulsemeter analyze - --raw s16le|s24le|s32le|f32le -r HZ -c N [OPTIONS]

        Runs a sound file (WAV, FLAC, AIFF, Ogg Vorbis, Opus, MP3: whatever libsndfile reads;
        m4a/AAC, mkv, webm and the rest through ffmpeg when it is on PATH) or raw PCM on stdin
        through the meter, as fast as it decodes. NDJSON gives start,
        frame and end lines; -f ansi gives a summary per channel (and a spectrum with --bands).
        Stopped by Ctrl-C, SIGTERM or SIGHUP before the end: the end line so far with
        "complete":false, a line on stderr saying how far it got, exit 130.
        With a verdict (--preset, --tolerance, --max-true-peak) the exit status is 1 when a
        file fails it (as cmp and grep say "differ", "not found"), 0 when all pass.
        Many files on a terminal (or -f ansi): a table, a row a file (I, LRA, true peak, gain,
        verdict, the file), the count of verdicts last; errors on stderr.

        options:
        \(meterOptions)      --raw FMT          PCM layout on stdin: s16le, s24le, s32le or f32le
              --force            replace an existing --report page

        many files (one NDJSON end line per file, carrying "file"):
        \(manyOptions)      --frames           also each file's start and frame lines

        examples:
          pulsemeter analyze voice.wav -f ndjson | jq -c 'select(.type=="end")'
          pulsemeter analyze episode.flac --target -16 -f ndjson | jq '.gain_db // empty'
          pulsemeter analyze spot.wav --preset ebu-r128-s1 || echo "spot.wav fails R128 s1"
          find archive -name '*.flac' -print0 | pulsemeter analyze --files-from0 - --bands 8
          parec --format=s16le --rate=48000 --channels=2 | pulsemeter analyze - --raw s16le -r 48000 -c 2
          ffmpeg -i in.mkv -f f32le -ac 2 -ar 48000 - | pulsemeter analyze - --raw f32le -r 48000 -c 2 --bands 32

        """,
        "monitor": """
        usage: pulsemeter [monitor] [OPTIONS]

        Meters a live PulseAudio source (PipeWire's pulse server too): live bars on a terminal,
        NDJSON otherwise or with -f ndjson. Ctrl-C or SIGTERM (or q or Esc on the meter) stops it
        (exit 0) after the end line. The meter: one bar per channel over a -60..0 dB scale, a
        peak marker held 1.5 s then falling 20 dB/s, a clip lamp lit 2 s after a sample at the rail.

        options:
          -d, --device NAME      source; @DEFAULT_MONITOR@ meters what is playing   [server default]
                                 app:NAME or app:PID meters what one application plays;
                                 given up to 8 times: the sources side by side (NDJSON "stream")
              --url URL          a network stream instead (http, https, Icecast, HLS, rtsp: what
                                 ffmpeg reads), decoded by ffmpeg at -r/-c   [\(n(d.rate)) / \(n(d.channels))]
        \(meterOptions)      --record FILE      also record every captured frame (container from the extension)
              --force            with --record: replace FILE if it exists (without it, exit 73)
              --bitrate KBPS     with --record: the bit rate of .m4a/.aac, .opus and .mp3   [encoder's default]
              --bits 16|24|32|float  with --record: the capture's and the file's sample format   [16]
              --reconnect        on server or device loss, wait and resume (a "gap" line marks it)
              --floor DB         the level that reads 0 in the frames' level (0..1)   [\(n(Decibels.defaultLevelFloor))]
              --no-history       no scrolling level history on the recording meter
              --listen [HOST:]PORT
                                 serve /metrics (Prometheus), /events (SSE), /status and a live
                                 meter page at / (?overlay=1 for OBS)        [host 127.0.0.1]
        \(mqttOptions)
        examples:
          pulsemeter
          pulsemeter -d @DEFAULT_MONITOR@ --bands 32
          pulsemeter -d @DEFAULT_MONITOR@ --target -23
          pulsemeter -f ndjson --fps 10 | jq -c '.rms_db'
          pulsemeter -d @DEFAULT_MONITOR@ --events --loudness --listen 9412
          pulsemeter --url http://radio.example:8000/live.mp3 --events --reconnect

        """,
        "record": """
        usage: pulsemeter record FILE [OPTIONS]

        Meters a live source while recording every captured frame to FILE, the container from
        the extension: wav, flac, aiff, caf, au, w64, rf64 (16 bits, bit for bit), ogg (Vorbis),
        opus (8/12/16/24/48 kHz), mp3, and m4a or aac (AAC, encoded by ffmpeg when it is on
        PATH). The file is valid after any stop, even a kill (then at most the last second is
        missing). The end line gives recorded_frames. An existing FILE is never touched (exit 73)
        unless --force is given. q or Esc on the meter stops like Ctrl-C, the recording finished;
        the meter shows REC, FILE and the recorded time. Space or p pauses the recording and
        resumes it (PAUSED; the meter goes on), as SIGUSR1 and SIGUSR2 do for scripts.

        options:
          -d, --device NAME      source                                             [server default]
                                 given up to 8 times: one file each, FILE-1.EXT, FILE-2.EXT, ...
              --url URL          record a network stream instead (decoded by ffmpeg)
        \(meterOptions)      --reconnect        on server or device loss, wait and resume in the same file
              --floor DB         the level that reads 0 in the frames' level (0..1)   [\(n(Decibels.defaultLevelFloor))]
              --no-history       no scrolling level history on the recording meter
              --listen [HOST:]PORT
                                 serve /metrics, /events, /status and the meter page   [host 127.0.0.1]
        \(mqttOptions)      --force            replace FILE if it exists, a link itself, never its target (else 73)
              --bitrate KBPS     bit rate of .m4a/.aac, .opus and .mp3              [encoder's default]
              --bits 16|24|32|float  the capture's and the file's sample format, bit for bit   [16]
                                 (wav, aiff, caf, au, w64, rf64; flac up to 24)
              --split SEC        a new file every SEC of audio (counted in frames): FILE-001.wav, ...
              --trigger DB       voice-activated: a take opens when any channel's RMS rises above DB
              --hold SEC         ... and closes after this long below it                 [\(n(TriggerSettings.defaultHoldSeconds))]
              --pre-roll SEC     ... starting this long before the trigger (at most \(n(preRollMost)))  [\(n(TriggerSettings.defaultPreRollSeconds))]
                                 (--split with --trigger: a take longer than SEC is split)
              --keep N           keep only the newest N files (split, trigger): a rolling archive

        With --split or --trigger, FILE holding % is a strftime(3) pattern (local time, when
        each file starts), else -001, -002, ... go before the extension; a name that exists
        or would repeat gets the next counter: nothing is ever overwritten. NDJSON "file"
        lines tell when each file opens and closes.

        examples:
          pulsemeter record take1.flac
          pulsemeter record memo.m4a -r 12000 -c 1        # a voice memo: 12 kHz mono AAC
          pulsemeter record take1.wav --duration 60 -f ndjson -o levels.ndjson
          pulsemeter record 'log-%Y%m%d-%H%M%S.flac' --split 3600 --events
          pulsemeter record memo.wav --trigger -45 --hold 3 --pre-roll 1

        """,
        "presets": """
        usage: pulsemeter presets [--json]

        The delivery specifications --preset judges by: integrated loudness and its tolerance
        (live programmes, monitor and record, take the live one), the true peak ceiling and,
        for short-form content, the highest short-term loudness. --target, --tolerance and
        --max-true-peak override a preset's figures.

        \(PresetsCommand.table)
        """,
        "devices": """
        usage: pulsemeter devices [--json] [--sinks | --apps]

        Lists capture sources (with --sinks, playback sinks too): name, description, rate,
        channels, sample format, whether it is a monitor, and the default (marked *).
        --apps lists the applications' playback streams instead (index, application, binary,
        pid, sink), which -d app:NAME / app:PID meter.

        """,
        "play": """
        usage: pulsemeter play FILE [-d SINK] [-f ansi|ndjson] [-o PATH] [--loudness] [--target LUFS]

        Plays a file through PulseAudio. On a terminal: the waveform across the width with the
        played part in another colour (another glyph under NO_COLOR), elapsed / total time and
        the level being heard. Keys: space pause/resume, left/right seek 5 s, q quit.
        Off a terminal, or with -f ndjson: plays to the end writing NDJSON frames of what plays.

        options:
          -d, --device NAME      playback sink                                      [server default]
          -f, --format FMT       ansi or ndjson          [ansi on a terminal, else ndjson]
          -o, --output PATH      write NDJSON there instead of stdout
        \(loudnessOptions)
        """,
        "waveform": """
        usage: pulsemeter waveform FILE [--bars N] [--format json|svg|ansi] [--floor DB] [OPTIONS]
               pulsemeter waveform FILE --format dat|audiowaveform-json|peaks [--pixels-per-second N] [OPTIONS]
               pulsemeter waveform - --raw s16le|s24le|s32le|f32le -r HZ -c N [OPTIONS]
               pulsemeter waveform FILE FILE... | --files-from LIST [--bars N] [OPTIONS]

        Summarizes a file (m4a and others through ffmpeg, as analyze) or raw PCM on stdin
        into N bars: bar i covers frames [floor(i*F/N), floor((i+1)*F/N)).
        rms_db and peak_db are of the mono mix; levels = clamp((rms_db - floor) / -floor, 0, 1).

        options:
          -n, --bars N           number of bars                  [\(CountLimit.bars.defaultValue!)]
          -f, --format FMT       json, svg, ansi, dat, audiowaveform-json or peaks   [json]
              --floor DB         level that reads 0              [\(n(Decibels.defaultLevelFloor))]
              --normalize        levels scaled so the loudest bar is 1.0
          dat, audiowaveform-json, peaks (min/max pixels for waveform players):
              --bits \(WaveformDataWriter.Format.allowedBits.map(String.init).joined(separator: "|"))        dat and audiowaveform-json resolution   [\(WaveformDataWriter.Format.defaultBits)]
              --pixels-per-second N | --samples-per-pixel N   pixel spacing   [the --bars bars]
              --split-channels   a min/max pair per channel, not the mono mix
          -o, --output PATH      write there instead of stdout
              --raw FMT          PCM layout on stdin: s16le, s24le, s32le or f32le (with -r HZ, -c N)
          svg:  --width PX [300]  --height PX [48]  --color CSS [#4a90e2]
                --gap PX  --radius PX  --played FRACTION  --played-color CSS [#1a5fb4]

        many files (one JSON object per file, carrying "file"):
        \(manyOptions)
        examples:
          pulsemeter waveform voice.ogg --bars 48
          pulsemeter waveform --bars 48 inbox/*.ogg > waveforms.ndjson
          pulsemeter waveform voice.ogg --bars 48 --format svg --played 0.3 > voice.svg
          pulsemeter waveform talk.flac --format dat --bits 8 --pixels-per-second 20 -o talk.dat

        """,
    ]
}
