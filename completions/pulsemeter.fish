# fish completion for pulsemeter (installed by scripts/install as
# share/fish/vendor_completions.d/pulsemeter.fish). Every option the parser knows must be
# listed here: Tests/PulseMeterCLITests/InstallTests checks it, command by command.

set -l commands monitor record analyze waveform tag normalize play devices presets calibrate help

# True when the command is $argv (monitor: no command word, or "monitor").
function __pulsemeter_command
    set -l words (commandline -opc)
    set -l command monitor
    if test (count $words) -ge 2; and not string match -q -- '-*' $words[2]
        set command $words[2]
    end
    contains -- $command $argv
end

# Device names from `pulsemeter devices --json`: $argv[1] is "source" or "sink".
function __pulsemeter_devices
    set -l sinks
    test "$argv[1]" = sink; and set sinks --sinks
    pulsemeter devices $sinks --json 2>/dev/null | string split '}' | string match "*\"kind\":\"$argv[1]\"*" |
        string match -r '"name":"[^"]*"' | string replace -r '"name":"([^"]*)"' '$1'
    if test "$argv[1]" = sink
        echo @DEFAULT_SINK@
    else
        echo @DEFAULT_SOURCE@
        echo @DEFAULT_MONITOR@
    end
end

# Audio files the decoders read (libsndfile, and ffmpeg for the rest), and directories.
function __pulsemeter_audio_files
    set -l token (commandline -ct)
    for f in $token*
        if test -d $f
            echo $f/
        else if string match -qir '\.(wav|flac|ogg|oga|opus|mp3|wv|aif|aiff|aifc|caf|au|snd|w64|rf64|voc|m4a|aac|mp4|mkv|webm|wma|amr)$' -- $f
            echo $f
        end
    end
end

complete -c pulsemeter -f
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a monitor -d 'meter a live PulseAudio source (the default)'
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a record -d 'meter while recording every captured frame to FILE'
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a analyze -d 'run a file (or raw PCM on stdin) through the meter'
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a waveform -d 'summarize a file into N bars'
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a tag -d 'write ReplayGain 2.0 tags (Opus: R128 gains) from the loudness'
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a normalize -d 'write files at a loudness target with one static gain'
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a play -d 'play a file, showing its waveform and progress'
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a devices -d 'list capture sources (and playback sinks)'
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a presets -d 'list the loudness delivery presets --preset takes'
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a calibrate -d 'measure a calibrator tone, print the --calibration value'
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -a help -d 'help for a command'
complete -c pulsemeter -n '__pulsemeter_command help' -a "monitor record analyze waveform tag normalize play devices presets calibrate"
complete -c pulsemeter -n "not __fish_seen_subcommand_from $commands" -s V -l version -d 'show the version'

# Meter options: monitor, record, analyze.
set -l meter '__pulsemeter_command monitor record analyze'
complete -c pulsemeter -n $meter -s r -l rate -x -a '8000 16000 22050 44100 48000 96000' -d 'capture rate (live, raw stdin)'
complete -c pulsemeter -n $meter -s c -l channels -x -a '1 2' -d 'capture channels, 1..32'
complete -c pulsemeter -n $meter -l fps -x -d 'meter frames per second of audio'
complete -c pulsemeter -n $meter -l window -x -d 'RMS integration window (ms)'
complete -c pulsemeter -n $meter -l bands -x -d 'FFT band levels (0 = off)'
complete -c pulsemeter -n $meter -l fft-size -x -a '512 1024 2048 4096 8192 16384' -d 'FFT length, a power of two'
complete -c pulsemeter -n $meter -l fmin -x -d 'lowest band edge (Hz)'
complete -c pulsemeter -n $meter -l fmax -x -d 'highest band edge (Hz)'
complete -c pulsemeter -n $meter -s f -l format -x -a 'ansi ndjson csv' -d 'output format'
complete -c pulsemeter -n $meter -l interval -x -a '60 300 900 3600' -d 'a period line every so many seconds'
complete -c pulsemeter -n $meter -l start-time -x -d 'the file start, RFC 3339 (analyze)'
complete -c pulsemeter -n $meter -l lden -d 'a day line with Lday, Levening, Lnight, Lden (with --spl)'
complete -c pulsemeter -n $meter -s o -l output -r -F -d 'write meter output there'
complete -c pulsemeter -n $meter -l duration -x -d 'stop after this much audio (s)'
complete -c pulsemeter -n $meter -l events -d 'event lines: silence and clipping'
complete -c pulsemeter -n $meter -l silence-db -x -d 'silence: every channel below this level (dBFS)'
complete -c pulsemeter -n $meter -l silence-min -x -d 'silence: for at least this long (s)'
complete -c pulsemeter -n $meter -l clip-db -x -d 'a sample this loud counts as clipped (dBFS)'
complete -c pulsemeter -n $meter -l exec -x -a '(__fish_complete_command)' -d 'run a shell command for every event, gap, file and device line'
complete -c pulsemeter -n $meter -l exec-on -x -a 'silence_start silence_end clip gap file device source_lost alarm_on alarm_off' -d 'only these lines run the --exec command'
complete -c pulsemeter -n $meter -l alarm -x -d 'alarm: NAME:METRIC>LEVEL/SECONDS[,LEVEL/SECONDS]'
complete -c pulsemeter -n '__pulsemeter_command monitor record analyze play' -l loudness -d 'EBU R128 loudness (LUFS, LRA, true peak)'
complete -c pulsemeter -n '__pulsemeter_command monitor record analyze play' -l target -x -a '-23 -16 -14' -d 'loudness to aim at, -70..0 LUFS'
complete -c pulsemeter -n '__pulsemeter_command monitor record analyze play' -l preset -x -a 'ebu-r128 ebu-r128-s1 atsc-a85 podcast aes-streaming streaming-14 apple' -d 'judge by a delivery preset (implies --loudness)'
complete -c pulsemeter -n '__pulsemeter_command monitor record analyze play' -l tolerance -x -a '0.5 1 2' -d 'how far from the target the integrated loudness may be (LU)'
complete -c pulsemeter -n '__pulsemeter_command monitor record analyze play' -l max-true-peak -x -a '-1 -2' -d 'the true peak ceiling (dBTP)'
complete -c pulsemeter -n '__pulsemeter_command monitor record analyze play' -l dual-mono -d "a mono file's channel counts twice (+3.01 LU)"
complete -c pulsemeter -n '__pulsemeter_command presets' -l json -d 'one JSON array'
complete -c pulsemeter -n $meter -l octaves -x -a '1 3' -d 'octave or third-octave bands (IEC 61260-1)'
complete -c pulsemeter -n $meter -l meter -x -a 'dbfs vu ppm1 ppm2 k20 k14 k12' -d 'meter ballistics (meter_db)'
complete -c pulsemeter -n $meter -l vu-ref -x -a '-18 -20 -14' -d 'dBFS peak level of 0 VU (implies --meter vu)'
complete -c pulsemeter -n $meter -l spl -d 'sound level meter per IEC 61672-1'
complete -c pulsemeter -n $meter -l weighting -x -a 'A C Z' -d 'frequency weighting (implies --spl)'
complete -c pulsemeter -n $meter -l time-weighting -x -a 'F S I' -d 'time weighting (implies --spl)'
complete -c pulsemeter -n $meter -l calibration -x -d 'dB SPL that reads as 0 dBFS (implies --spl)'
complete -c pulsemeter -n $meter -l mic-cal -r -F -d 'measurement microphone calibration file (implies --spl)'
complete -c pulsemeter -n $meter -l report -r -F -d 'an HTML report of the run (DIR/ for many files)'
complete -c pulsemeter -n '__pulsemeter_command monitor record analyze waveform tag normalize play devices presets calibrate' -s h -l help -d 'show help'

# Live capture: monitor, record.
complete -c pulsemeter -n '__pulsemeter_command monitor record' -s d -l device -x -a '(__pulsemeter_devices source)' -d 'PulseAudio source'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l reconnect -d 'on server or device loss, wait and resume'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l floor -x -d 'the level that reads 0 in the frames level (dB)'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l no-history -d 'no scrolling level history on the recording meter'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l listen -x -d 'serve /metrics, /events, /status and a meter page on [HOST:]PORT'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l mqtt -x -d 'publish to an MQTT broker: mqtt[s]://[USER@]HOST[:PORT]/PREFIX'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l mqtt-every -x -a '1 10 60' -d 'seconds between MQTT state messages'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l mqtt-password-file -r -F -d 'the MQTT broker password'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l mqtt-ca -r -F -d 'the CA certificate of an mqtts broker'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l name -x -d 'the meter name in MQTT topics'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l url -x -d 'meter a network stream (decoded by ffmpeg)'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l force -d 'replace an existing recording file'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l bitrate -x -d 'bit rate of an m4a/aac, opus or mp3 recording (kbps)'
complete -c pulsemeter -n '__pulsemeter_command monitor record' -l bits -x -a '16 24 32 float' -d 'sample format of the capture and the recording'
complete -c pulsemeter -n '__pulsemeter_command monitor' -l record -r -F -d 'also record every captured frame'
complete -c pulsemeter -n '__pulsemeter_command record' -F
complete -c pulsemeter -n '__pulsemeter_command record' -l split -x -d 'a new file every so many seconds of audio'
complete -c pulsemeter -n '__pulsemeter_command record' -l trigger -x -d 'voice-activated takes above this level (dBFS)'
complete -c pulsemeter -n '__pulsemeter_command record' -l hold -x -d 'a take closes after this long below the trigger (s)'
complete -c pulsemeter -n '__pulsemeter_command record' -l pre-roll -x -d 'audio kept from before the trigger (s)'
complete -c pulsemeter -n '__pulsemeter_command record' -l keep -x -d 'keep only the newest N files (split, trigger)'

# analyze
complete -c pulsemeter -n '__pulsemeter_command analyze waveform' -l raw -x -a 's16le s24le s32le f32le' -d 'PCM layout on stdin'
complete -c pulsemeter -n '__pulsemeter_command analyze waveform play tag normalize' -a '(__pulsemeter_audio_files)'

# many files: analyze, waveform, tag
set -l many '__pulsemeter_command analyze waveform tag normalize'
complete -c pulsemeter -n $many -l files-from -r -F -d 'more files, one a line (- for stdin)'
complete -c pulsemeter -n $many -l files-from0 -r -F -d 'more files, NUL-separated (- for stdin)'
complete -c pulsemeter -n $many -s 0 -l null -d '--files-from lists are NUL-separated'
complete -c pulsemeter -n $many -s j -l jobs -x -d 'files at once'
complete -c pulsemeter -n $many -l shard -x -d 'only list positions K, K+N, ... (K/N)'
complete -c pulsemeter -n $many -l unordered -d 'each line as its file finishes'
complete -c pulsemeter -n $many -l recursive -d 'a directory: the audio files under it, sorted'
complete -c pulsemeter -n '__pulsemeter_command analyze' -l frames -d 'many files: also start and frame lines'
complete -c pulsemeter -n '__pulsemeter_command analyze' -l force -d 'replace an existing report'

# waveform
set -l wave '__pulsemeter_command waveform'
complete -c pulsemeter -n $wave -s n -l bars -x -d 'number of bars'
complete -c pulsemeter -n $wave -s f -l format -x -a 'json svg ansi dat audiowaveform-json peaks' -d 'output format'
complete -c pulsemeter -n $wave -l floor -x -d 'level that reads 0 (dB)'
complete -c pulsemeter -n $wave -l normalize -d 'levels scaled so the loudest bar is 1.0'
complete -c pulsemeter -n $wave -l bits -x -a '8 16' -d 'dat and audiowaveform-json resolution'
complete -c pulsemeter -n $wave -l pixels-per-second -x -d 'pixels per second of audio'
complete -c pulsemeter -n $wave -l samples-per-pixel -x -d 'frames per pixel'
complete -c pulsemeter -n $wave -l split-channels -d 'min/max pairs of each channel'
complete -c pulsemeter -n $wave -s o -l output -r -F -d 'write there instead of stdout'
complete -c pulsemeter -n $wave -l width -x -d 'SVG width (px)'
complete -c pulsemeter -n $wave -l height -x -d 'SVG height (px)'
complete -c pulsemeter -n $wave -l color -x -d 'SVG bar colour'
complete -c pulsemeter -n $wave -l gap -x -d 'SVG gap between bars (px)'
complete -c pulsemeter -n $wave -l radius -x -d 'SVG bar corner radius (px)'
complete -c pulsemeter -n $wave -l played -x -d 'played fraction, 0..1'
complete -c pulsemeter -n $wave -l played-color -x -d 'SVG played bar colour'
complete -c pulsemeter -n $wave -s r -l rate -x -a '8000 16000 22050 44100 48000 96000' -d 'rate of the PCM on stdin'
complete -c pulsemeter -n $wave -s c -l channels -x -a '1 2' -d 'channels of the PCM on stdin'

# tag
set -l tag '__pulsemeter_command tag'
complete -c pulsemeter -n $tag -l album -d 'also album gain and peak: all the files together'
complete -c pulsemeter -n $tag -l dry-run -d 'write nothing; show the existing and the new values'
complete -c pulsemeter -n $tag -l skip-existing -d 'leave files whose tags hold the new values alone'
complete -c pulsemeter -n $tag -l true-peak -d 'true peaks, not sample peaks'
complete -c pulsemeter -n $tag -s f -l format -x -a 'ansi ndjson csv' -d 'output format'
complete -c pulsemeter -n $tag -s o -l output -r -F -d 'write the lines there instead of stdout'

# play
set -l play '__pulsemeter_command play'
complete -c pulsemeter -n $play -s d -l device -x -a '(__pulsemeter_devices sink)' -d 'PulseAudio sink'
complete -c pulsemeter -n $play -s f -l format -x -a 'ansi ndjson' -d 'output format'
complete -c pulsemeter -n $play -s o -l output -r -F -d 'write there instead of stdout'

# devices
complete -c pulsemeter -n '__pulsemeter_command devices' -l json -d 'one JSON array'
complete -c pulsemeter -n '__pulsemeter_command devices' -l sinks -d 'list playback sinks too'
complete -c pulsemeter -n '__pulsemeter_command devices' -l apps -d 'list applications'"'"' playback streams'

# calibrate
set -l cal '__pulsemeter_command calibrate'
complete -c pulsemeter -n $cal -s d -l device -x -a '(__pulsemeter_devices source)' -d 'PulseAudio source'
complete -c pulsemeter -n $cal -s r -l rate -x -a '44100 48000 96000' -d 'capture rate'
complete -c pulsemeter -n $cal -s c -l channels -x -a '1 2' -d 'capture channels'
complete -c pulsemeter -n $cal -l reference -x -a '94 114' -d 'calibrator level (dB SPL)'
complete -c pulsemeter -n $cal -l duration -x -d 'give up after this much audio (s)'

# normalize
set -l normalize '__pulsemeter_command normalize'
complete -c pulsemeter -n $normalize -s o -l output -r -F -d 'the output file, or a directory DIR/'
complete -c pulsemeter -n $normalize -l preset -x -a 'ebu-r128 ebu-r128-s1 atsc-a85 podcast aes-streaming streaming-14 apple' -d 'a delivery spec'
complete -c pulsemeter -n $normalize -l target -x -a '-23 -16 -14' -d 'the loudness to reach, LUFS'
complete -c pulsemeter -n $normalize -l max-true-peak -x -a '-1 -2' -d 'the true-peak ceiling, dBTP'
complete -c pulsemeter -n $normalize -l limit -d 'reach the target with a true-peak limiter'
complete -c pulsemeter -n $normalize -l album -d 'one gain for all the files'
complete -c pulsemeter -n $normalize -l force -d 'replace an existing output'
