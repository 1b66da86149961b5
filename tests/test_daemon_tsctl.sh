#!/bin/sh
# The snapshot state machine end to end: tsctl (which takes the mode flags
# from ITS environment) over the real socket to a real toolscored. Every row
# of the table locally and in CI, CI=0 and CI=false counting as CI (set and
# non-empty, as in the reference), an empty CI counting as local,
# --allow-pending, and TOOLSCORE_RECORD_UPDATE's truthy/falsy spellings.
set -u
bin=${TS_BUILD_DIR:-build}
tmp=$(mktemp -d /tmp/tsd-tsctl-XXXXXX)
sock="$tmp/run/toolscored.sock"
dir="$tmp/snaps"
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

if [ ! -x "$bin/tsctl" ]; then
	echo "FAIL: $bin/tsctl is not built"
	exit 1
fi
"$bin/toolscored" --foreground --socket "$sock" --log-file "$tmp/log" >"$tmp/out" 2>&1 &
pid=$!
i=0
while [ ! -S "$sock" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$sock" ] || { echo "FAIL: toolscored did not start within 20 s: $(cat "$tmp/out")"; exit 1; }

printf '[{"tool": "search", "args": {"q": "NYC"}}]\n' >"$tmp/a.json"
printf '[{"tool": "search", "args": {"q": "LAX"}}]\n' >"$tmp/b.json"

# expect NAME CALLS OUTCOME EXIT [ENV=VALUE ...] [-- EXTRA FLAGS]
expect() {
	name=$1 calls=$2 want=$3 want_rc=$4
	shift 4
	envs=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086
	env -u CI -u TOOLSCORE_RECORD_UPDATE -u TOOLSCORE_RUN $envs \
		"$bin/tsctl" check "$name" --calls "$tmp/$calls" --json --dir "$dir" --socket "$sock" "$@" \
		>"$tmp/res" 2>"$tmp/err"
	rc=$?
	grep -Eq "\"outcome\": *\"$want\"" "$tmp/res" ||
		bad "check $name [$envs $*]: want $want, got: $(cat "$tmp/res" "$tmp/err")"
	[ "$rc" = "$want_rc" ] || bad "check $name [$envs $*]: exit $rc, want $want_rc"
}
file_of() { "$bin/tsctl" snapshots path "$1" --dir "$dir"; }

# locally
expect a a.json CREATED 0
expect a b.json PENDING 0
# an empty CI is not CI
expect c a.json CREATED 0 CI=
# CI=0 and CI=false are CI: nothing written
expect missing a.json ERROR_MISSING_IN_CI 1 CI=0
expect missing a.json ERROR_MISSING_IN_CI 1 CI=false
[ -e "$(file_of missing)" ] && bad "a snapshot was written in CI"
expect a a.json ERROR_PENDING_IN_CI 1 CI=true
# allow-pending: missing and pending behave as locally
expect d a.json CREATED 0 CI=1 -- --allow-pending
expect d a.json PENDING 0 CI=1 -- --allow-pending
# approved: evaluated locally and in CI
"$bin/tsctl" approve a --dir "$dir" --socket "$sock" >/dev/null 2>&1 || bad "approve a failed"
expect a a.json PASSED 0
expect a a.json PASSED 0 CI=0
expect a b.json FAILED 1 CI=1
expect a b.json FAILED 1 CI=1 -- --allow-pending
# update: TOOLSCORE_RECORD_UPDATE truthy, or --update
expect a b.json FAILED 1 TOOLSCORE_RECORD_UPDATE=0
expect a b.json FAILED 1 TOOLSCORE_RECORD_UPDATE=false
expect a b.json FAILED 1 TOOLSCORE_RECORD_UPDATE=NO
expect a b.json FAILED 1 TOOLSCORE_RECORD_UPDATE=
# trimmed as Python's str.strip(): Unicode whitespace too (U+2003, U+3000,
# U+00A0, U+0085, U+001C); U+200B is no whitespace, so that value is truthy
expect a b.json FAILED 1 "TOOLSCORE_RECORD_UPDATE=$(printf '\342\200\203false\343\200\200')"
expect a b.json FAILED 1 "TOOLSCORE_RECORD_UPDATE=$(printf '\302\240No\302\205\034')"
expect a b.json UPDATED 0 "TOOLSCORE_RECORD_UPDATE=$(printf '\342\200\2130')"
expect a b.json UPDATED 0 TOOLSCORE_RECORD_UPDATE=1 CI=1
expect a b.json PASSED 0 CI=1
expect a a.json UPDATED 0 -- --update
expect a a.json PASSED 0
expect e a.json UPDATED 0 TOOLSCORE_RECORD_UPDATE=yes CI=1
expect e a.json PASSED 0 CI=1

kill "$pid" && wait "$pid"
status=$?
pid=""
[ "$status" = 0 ] || bad "toolscored exited with $status on SIGTERM"
[ -e "$sock" ] && bad "the socket was not removed"
[ $fail = 0 ] && echo "ok: state machine through tsctl"
exit $fail
