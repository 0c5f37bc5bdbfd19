# Sourced by scripts/test and scripts/live-tests: what a stop of theirs must end.
# descendants PID: every process below PID, children first from the top, one per line.
descendants() {
  local child
  for child in $(pgrep -P "$1"); do
    echo "$child"
    descendants "$child"
  done
}
