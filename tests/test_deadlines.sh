#!/bin/sh
# Every request has a deadline (docs/protocol.md, "Deadlines"): against a
# daemon that stops answering (SIGSTOP), `tsctl status` fails after its
# default of 10 s and `tsctl check` after TOOLSCORE_TIMEOUT's 2 s, each with
# exit status 3 and a message naming the daemon (pid and socket) and what to
# do; a TOOLSCORE_TIMEOUT that is no number of seconds is refused, naming
# the variable; once the daemon runs again, everything is answered. (The
# Python and Node packages: shims/python/tests/test_faults.py and
# tests/test_node.sh, the same way.)
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"
export TOOLSCORE_SOCKET="$SOCK" TOOLSCORE_DIR="$STORE"
printf '[{"tool": "search", "args": {"q": "x"}}]\n' >"$WORK/calls.json"

start_daemon
export TOOLSCORED=/bin/false # a daemon that died is not started again behind the test
"$TSCTL" check base --calls "$WORK/calls.json" >/dev/null 2>&1 || fail "creating the baseline failed"
"$TSCTL" approve base >/dev/null 2>&1 || fail "approving the baseline failed"
kill -STOP "$DAEMON_PID"

# run SECONDS_AT_MOST COMMAND...: exit status in rc, output in $WORK/out,
# milliseconds in ms; a command still running after SECONDS_AT_MOST is a hang
run() {
	limit=$1
	shift
	t0=$(date +%s%3N)
	timeout "$limit" "$@" >"$WORK/out" 2>&1
	rc=$?
	ms=$(($(date +%s%3N) - t0))
}
expect_timeout() {
	[ "$rc" = 3 ] || fail "$1: exit status $rc (wanted 3): $(cat "$WORK/out")"
	for want in "toolscored (pid $DAEMON_PID, socket $TOOLSCORE_SOCKET) did not answer" "$2" \
		"TOOLSCORE_TIMEOUT" "kill $DAEMON_PID"; do
		grep -qF "$want" "$WORK/out" || fail "$1: the message lacks: $want: $(cat "$WORK/out")"
	done
	echo "test_deadlines: $1: exit $rc after $ms ms: $(cat "$WORK/out")"
}

run 60 "$TSCTL" status
expect_timeout "tsctl status" "within 10 s"
[ "$ms" -ge 9500 ] || fail "tsctl status gave up after $ms ms, before its 10 s"
run 60 env TOOLSCORE_TIMEOUT=2 "$TSCTL" check base --calls "$WORK/calls.json"
expect_timeout "tsctl check" "within 2 s"
[ "$ms" -ge 1900 ] || fail "tsctl check gave up after $ms ms, before its 2 s"
run 60 env TOOLSCORE_TIMEOUT=soon "$TSCTL" status
grep -q "TOOLSCORE_TIMEOUT is 'soon': a number of seconds" "$WORK/out" ||
	fail "TOOLSCORE_TIMEOUT=soon: $(cat "$WORK/out")"

kill -CONT "$DAEMON_PID"
"$TSCTL" check base --calls "$WORK/calls.json" >"$WORK/out" 2>&1 || fail "after SIGCONT: $(cat "$WORK/out")"
grep -q PASSED "$WORK/out" || fail "after SIGCONT: $(cat "$WORK/out")"

[ "$FAILURES" = 0 ] || exit 1
echo "test_deadlines: ok"
