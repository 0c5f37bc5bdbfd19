# Sourced by the scripts: puts the Swift toolchain on PATH when it is installed but not found.
if ! command -v swift >/dev/null 2>&1; then
  for d in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$d/swift" ] && export PATH="$d:$PATH" && break
  done
fi
command -v swift >/dev/null 2>&1 || { echo "pulsemeter: the Swift toolchain (6.x) is not installed; install it from swift.org" >&2; exit 1; }
