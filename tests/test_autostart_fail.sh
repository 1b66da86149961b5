#!/bin/sh
# tsctl auto-starts a daemon that dies at once: the failure comes back at
# once (well before the 5 s connect budget) and names how the daemon ended
# and the line it printed; nothing is left running or listening.
set -u
bin=${TS_BUILD_DIR:-$(pwd)/build}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ts-autostart.XXXXXX") || exit 1
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
fail() {
	echo "test_autostart_fail: FAIL: $*" >&2
	exit 1
}
[ -x "$bin/tsctl" ] || fail "$bin/tsctl is not built"
export TOOLSCORE_SOCKET="$tmp/run/d.sock"
export TOOLSCORE_DIR="$tmp/snaps"
mkdir "$TOOLSCORE_DIR" # a store to list (one that does not exist is refused before any daemon)
unset CI TOOLSCORE_RUN TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE

# run_tsctl DAEMON: tsctl snapshots list with TOOLSCORED=DAEMON; sets rc, ms, err.
run_tsctl() {
	t0=$(date +%s%N)
	TOOLSCORED=$1 "$bin/tsctl" snapshots list >"$tmp/out" 2>"$tmp/err"
	rc=$?
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	err=$(cat "$tmp/err")
}

# A real daemon whose start fails: a log file it cannot open.
cat >"$tmp/wrapper" <<WRAP
#!/bin/sh
exec "$bin/toolscored" --log-file "$tmp/no/such/dir/log" "\$@"
WRAP
chmod 700 "$tmp/wrapper"
run_tsctl "$tmp/wrapper"
[ "$rc" = 3 ] || fail "tsctl snapshots list exited $rc, want 3 (unreachable): $err"
[ "$ms" -lt 2000 ] || fail "the failure took $ms ms (the connect budget is 5000 ms)"
case "$err" in
*"exited with status 1: toolscored: cannot open log file $tmp/no/such/dir/log"*) ;;
*) fail "the message does not name the exit status and the daemon's error: $err" ;;
esac
[ -S "$TOOLSCORE_SOCKET" ] && fail "a socket was left at $TOOLSCORE_SOCKET"
echo "test_autostart_fail: log file: $ms ms: $err"

# Not a daemon at all.
run_tsctl /bin/false
[ "$rc" = 3 ] || fail "TOOLSCORED=/bin/false: tsctl exited $rc, want 3: $err"
[ "$ms" -lt 2000 ] || fail "TOOLSCORED=/bin/false: the failure took $ms ms"
case "$err" in
*"started /bin/false, but it exited with status 1"*) ;;
*) fail "TOOLSCORED=/bin/false: $err" ;;
esac
echo "test_autostart_fail: /bin/false: $ms ms: $err"
echo "test_autostart_fail: ok"
