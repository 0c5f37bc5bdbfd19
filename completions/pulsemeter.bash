# bash completion for pulsemeter (installed by scripts/install as
# share/bash-completion/completions/pulsemeter). Every option the parser knows must be listed
# here: Tests/PulseMeterCLITests/InstallTests checks it, command by command.

_pulsemeter_commands="monitor record analyze waveform tag normalize play devices presets calibrate help"

# Options per command, and the options that take no value (the rest take one).
_pulsemeter_meter_opts="-r --rate -c --channels --fps --window --bands --fft-size --fmin --fmax -f --format -o --output --duration --interval --start-time --lden --events --silence-db --silence-min --clip-db --exec --exec-on --alarm --loudness --target --preset --tolerance --max-true-peak --dual-mono --octaves --meter --vu-ref --spl --weighting --time-weighting --calibration --mic-cal --report -h --help"
_pulsemeter_opts_monitor="$_pulsemeter_meter_opts -d --device --url --reconnect --force --listen --mqtt --mqtt-every --mqtt-password-file --mqtt-ca --name --floor --no-history --record --bitrate --bits"
_pulsemeter_opts_record="$_pulsemeter_meter_opts -d --device --url --reconnect --force --listen --mqtt --mqtt-every --mqtt-password-file --mqtt-ca --name --floor --no-history --bitrate --bits --split --trigger --hold --pre-roll --keep"
_pulsemeter_many_opts="--files-from --files-from0 -0 --null -j --jobs --shard --unordered --recursive"
_pulsemeter_opts_analyze="$_pulsemeter_meter_opts --raw --frames --force $_pulsemeter_many_opts"
_pulsemeter_opts_waveform="-n --bars -f --format --floor -o --output --width --height --color --gap --radius --played --played-color --normalize --bits --pixels-per-second --samples-per-pixel --split-channels --raw -r --rate -c --channels -h --help $_pulsemeter_many_opts"
_pulsemeter_opts_tag="--album --dry-run --skip-existing --true-peak -f --format -o --output -h --help $_pulsemeter_many_opts"
_pulsemeter_opts_normalize="-o --output --preset --target --max-true-peak --limit --album --force -h --help $_pulsemeter_many_opts"
_pulsemeter_opts_play="-d --device -f --format -o --output --loudness --target --preset --tolerance --max-true-peak --dual-mono -h --help"
_pulsemeter_opts_devices="--json --sinks --apps -h --help"
_pulsemeter_opts_presets="--json -h --help"
_pulsemeter_opts_calibrate="-d --device -r --rate -c --channels --reference --duration -h --help"
_pulsemeter_flags="-h --help --reconnect --force --json --sinks --apps --events --loudness --dual-mono --spl --lden -0 --null --unordered --recursive --frames --normalize --split-channels --no-history --album --dry-run --skip-existing --true-peak --limit"

# Audio files the decoders read (libsndfile, and ffmpeg for the rest).
_pulsemeter_audio_ext='@(wav|WAV|flac|FLAC|ogg|OGG|oga|opus|mp3|MP3|wv|aif|aiff|AIFF|aifc|caf|au|snd|w64|rf64|voc|m4a|M4A|aac|mp4|mkv|webm|wma|amr)'

# Device names from `pulsemeter devices --json`: $1 is "source" or "sink".
_pulsemeter_devices() {
  local sinks=
  [ "$1" = sink ] && sinks=--sinks
  "${COMP_WORDS[0]}" devices $sinks --json 2>/dev/null | tr '}' '\n' |
    grep "\"kind\":\"$1\"" | grep -o '"name":"[^"]*"' | cut -d'"' -f4
}

_pulsemeter_files() {  # $1: an extglob of extensions, or empty for any file
  local IFS=$'\n' f
  COMPREPLY=()
  if [ -n "$1" ]; then
    for f in $(compgen -d -- "$cur"); do COMPREPLY+=("$f/"); done
    for f in $(compgen -f -X "!*.$1" -- "$cur"); do [ -d "$f" ] || COMPREPLY+=("$f"); done
  else
    for f in $(compgen -f -- "$cur"); do [ -d "$f" ] && COMPREPLY+=("$f/") || COMPREPLY+=("$f"); done
  fi
  compopt -o nospace -o filenames 2>/dev/null
}

_pulsemeter() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=
  [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
  # --opt=value: bash splits at "=" (COMP_WORDBREAKS).
  if [ "$cur" = "=" ]; then
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cur=
  elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
    prev=${COMP_WORDS[COMP_CWORD-2]}
  fi
  shopt -s extglob

  # The command is the first word when it does not start with "-"; monitor otherwise.
  local command=monitor
  if [ "$COMP_CWORD" -eq 1 ]; then
    if [[ "$cur" != -* ]]; then
      COMPREPLY=($(compgen -W "$_pulsemeter_commands" -- "$cur"))
      return
    fi
  elif [[ "${COMP_WORDS[1]}" != -* ]]; then
    command=${COMP_WORDS[1]}
  fi
  if [ "$command" = help ]; then
    [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "$_pulsemeter_commands" -- "$cur"))
    return
  fi
  local optsvar=_pulsemeter_opts_$command
  local opts=${!optsvar}
  [ -n "$opts" ] || return

  # The value of the option before the cursor.
  if [[ "$prev" == -* ]] && [[ " $opts " == *" $prev "* ]] && [[ " $_pulsemeter_flags " != *" $prev "* ]]; then
    case "$prev" in
      -f|--format)
        if [ "$command" = waveform ]; then
          COMPREPLY=($(compgen -W "json svg ansi dat audiowaveform-json peaks" -- "$cur"))
        elif [[ " monitor record analyze tag " == *" $command "* ]]; then
          COMPREPLY=($(compgen -W "ansi ndjson csv" -- "$cur"))
        else
          COMPREPLY=($(compgen -W "ansi ndjson" -- "$cur"))
        fi ;;
      --raw) COMPREPLY=($(compgen -W "s16le s24le s32le f32le" -- "$cur")) ;;
      --preset) COMPREPLY=($(compgen -W "ebu-r128 ebu-r128-s1 atsc-a85 podcast aes-streaming streaming-14 apple" -- "$cur")) ;;
      --bits)
        if [ "$command" = waveform ]; then
          COMPREPLY=($(compgen -W "8 16" -- "$cur"))
        else
          COMPREPLY=($(compgen -W "16 24 32 float" -- "$cur"))
        fi ;;
      --weighting) COMPREPLY=($(compgen -W "A C Z" -- "$cur")) ;;
      --octaves) COMPREPLY=($(compgen -W "1 3" -- "$cur")) ;;
      --meter) COMPREPLY=($(compgen -W "dbfs vu ppm1 ppm2 k20 k14 k12" -- "$cur")) ;;
      --time-weighting) COMPREPLY=($(compgen -W "F S I" -- "$cur")) ;;
      --reference) COMPREPLY=($(compgen -W "94 114" -- "$cur")) ;;
      --mic-cal) _pulsemeter_files "" ;;
      --exec-on)  # a comma-separated list: complete the last item
        local done=${cur%"${cur##*,}"}
        COMPREPLY=($(compgen -P "$done" -W "silence_start silence_end clip gap file device source_lost alarm_on alarm_off" -- "${cur##*,}")) ;;
      -d|--device)
        local IFS=$'\n'
        if [ "$command" = play ]; then
          COMPREPLY=($(compgen -W "$(_pulsemeter_devices sink)"$'\n'"@DEFAULT_SINK@" -- "$cur"))
        else
          COMPREPLY=($(compgen -W "$(_pulsemeter_devices source)"$'\n'"@DEFAULT_SOURCE@"$'\n'"@DEFAULT_MONITOR@" -- "$cur"))
        fi ;;
      -o|--output|--record|--files-from|--files-from0) _pulsemeter_files "" ;;
      -j|--jobs) COMPREPLY=($(compgen -W "1 2 4 8 $(nproc 2>/dev/null)" -- "$cur")) ;;
      -c|--channels) COMPREPLY=($(compgen -W "1 2" -- "$cur")) ;;
      -r|--rate) COMPREPLY=($(compgen -W "8000 16000 22050 44100 48000 96000" -- "$cur")) ;;
      --fft-size) COMPREPLY=($(compgen -W "512 1024 2048 4096 8192 16384" -- "$cur")) ;;
      *) COMPREPLY=() ;;
    esac
    return
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  case "$command" in
    analyze|waveform|play|tag|normalize) _pulsemeter_files "$_pulsemeter_audio_ext" ;;
    record) _pulsemeter_files "" ;;
  esac
}
complete -F _pulsemeter pulsemeter
