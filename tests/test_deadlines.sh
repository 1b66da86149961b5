#!/bin/sh
# Every request has a deadline (docs/protocol.md, "Deadlines"): against a
# daemon that stops answering (SIGSTOP), `tsctl status` fails after its
# default of 10 s and `tsctl check` after TOOLSCORE_TIMEOUT's 2 s, each with
# exit status 3 and a message naming the daemon (pid and socket) and what to
# do; a TOOLSCORE_TIMEOUT that is no number of seconds is refused, naming
# the variable; once the daemon runs again, everything is answered. (The
# Python and Node packages: shims/python/tests/test_faults.py and
# tests/test_node.sh, the same way.)
set -u
B=${TS_BUILD_DIR:-$(pwd)/build}
DAEMON=$B/toolscored
TSCTL=$B/tsctl
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-deadlines.XXXXXX") || exit 1
daemon_pid=""
cleanup() {
	[ -n "$daemon_pid" ] && { kill -CONT "$daemon_pid"; kill -9 "$daemon_pid"; } 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
failures=0
fail() {
	echo "test_deadlines: FAIL: $*" >&2
	failures=$((failures + 1))
}
export TOOLSCORE_SOCKET="$work/d.sock"
export TOOLSCORE_DIR="$work/store"
export TOOLSCORED=/bin/false
unset CI TOOLSCORE_RUN TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE TOOLSCORE_TIMEOUT
printf '[{"tool": "search", "args": {"q": "x"}}]\n' >"$work/calls.json"

"$DAEMON" --socket "$TOOLSCORE_SOCKET" --foreground --log-level warn >"$work/daemon.log" 2>&1 &
daemon_pid=$!
i=0
until "$TSCTL" status >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 1000 ] && { fail "the daemon did not answer within 20 s"; exit 1; }
	sleep 0.02
done
"$TSCTL" check base --calls "$work/calls.json" >/dev/null 2>&1 || fail "creating the baseline failed"
"$TSCTL" approve base >/dev/null 2>&1 || fail "approving the baseline failed"
kill -STOP "$daemon_pid"

# run SECONDS_AT_MOST COMMAND...: exit status in rc, output in $work/out,
# milliseconds in ms; a command still running after SECONDS_AT_MOST is a hang
run() {
	limit=$1
	shift
	t0=$(date +%s%3N)
	timeout "$limit" "$@" >"$work/out" 2>&1
	rc=$?
	ms=$(($(date +%s%3N) - t0))
}
expect_timeout() {
	[ "$rc" = 3 ] || fail "$1: exit status $rc (wanted 3): $(cat "$work/out")"
	for want in "toolscored (pid $daemon_pid, socket $TOOLSCORE_SOCKET) did not answer" "$2" \
		"TOOLSCORE_TIMEOUT" "kill $daemon_pid"; do
		grep -qF "$want" "$work/out" || fail "$1: the message lacks: $want: $(cat "$work/out")"
	done
	echo "test_deadlines: $1: exit $rc after $ms ms: $(cat "$work/out")"
}

run 60 "$TSCTL" status
expect_timeout "tsctl status" "within 10 s"
[ "$ms" -ge 9500 ] || fail "tsctl status gave up after $ms ms, before its 10 s"
run 60 env TOOLSCORE_TIMEOUT=2 "$TSCTL" check base --calls "$work/calls.json"
expect_timeout "tsctl check" "within 2 s"
[ "$ms" -ge 1900 ] || fail "tsctl check gave up after $ms ms, before its 2 s"
run 60 env TOOLSCORE_TIMEOUT=soon "$TSCTL" status
grep -q "TOOLSCORE_TIMEOUT is 'soon': a number of seconds" "$work/out" ||
	fail "TOOLSCORE_TIMEOUT=soon: $(cat "$work/out")"

kill -CONT "$daemon_pid"
"$TSCTL" check base --calls "$work/calls.json" >"$work/out" 2>&1 || fail "after SIGCONT: $(cat "$work/out")"
grep -q PASSED "$work/out" || fail "after SIGCONT: $(cat "$work/out")"

[ "$failures" = 0 ] || exit 1
echo "test_deadlines: ok"
