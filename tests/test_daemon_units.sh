#!/bin/sh
# The daemon's documentation and systemd units: the man page renders without
# warnings and documents every option --help lists; the user units pass
# systemd-analyze verify and are wired as socket activation + Type=notify.
set -u
src=${TS_SOURCE_DIR:-.}
bin=${TS_BUILD_DIR:-build}/toolscored
tmp=$(mktemp -d /tmp/tsd-units-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# man page
if ! MANWIDTH=80 man --warnings -l "$src/docs/toolscored.8" >"$tmp/man.txt" 2>"$tmp/man.err"; then
	bad "man -l docs/toolscored.8 failed: $(cat "$tmp/man.err")"
fi
[ -s "$tmp/man.err" ] && bad "man page warnings: $(cat "$tmp/man.err")"
grep -q "SYNOPSIS" "$tmp/man.txt" || bad "man page has no SYNOPSIS"
"$bin" --help >"$tmp/help.txt" 2>&1 || bad "toolscored --help exited non-zero"
for opt in $(grep -o -- '--[a-z][a-z-]*' "$tmp/help.txt" | sort -u); do
	grep -q -- "$opt" "$tmp/man.txt" || bad "option $opt of --help is not in the man page"
done

# systemd units
for u in toolscored.socket toolscored.service; do
	[ -f "$src/systemd/$u" ] || bad "systemd/$u is missing"
done
grep -q '^Type=notify$' "$src/systemd/toolscored.service" || bad "service is not Type=notify"
grep -q '^ListenStream=%t/toolscore/toolscored.sock$' "$src/systemd/toolscored.socket" ||
	bad "socket does not listen on the default path"
grep -q '^SocketMode=0600$' "$src/systemd/toolscored.socket" || bad "socket mode is not 0600"
if command -v systemd-analyze >/dev/null 2>&1; then
	sed "s|/usr/local/bin/toolscored|$bin|" "$src/systemd/toolscored.service" >"$tmp/toolscored.service"
	cp "$src/systemd/toolscored.socket" "$tmp/"
	if ! systemd-analyze verify --man=no "$tmp/toolscored.socket" "$tmp/toolscored.service" \
		>"$tmp/verify.txt" 2>&1; then
		bad "systemd-analyze verify failed: $(cat "$tmp/verify.txt")"
	fi
	grep -v '^$' "$tmp/verify.txt" | grep -q . && bad "systemd-analyze verify: $(cat "$tmp/verify.txt")"
else
	bad "systemd-analyze is not installed (scripts/deps.sh test installs systemd)"
fi
[ $fail = 0 ] && echo "ok: man page and systemd units"
exit $fail
