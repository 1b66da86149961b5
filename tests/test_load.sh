#!/bin/sh
# Load: 256 concurrent connections (loadgen threads, one connection each)
# send a mix of replays, checks that create snapshots, and listings for a
# bounded time. Every request must succeed, `tsctl status` must keep
# answering throughout, and the store must be consistent afterwards. With
# TS_LOAD_RSS=1 (tests/stress_load.sh) the daemon's resident memory must also
# level off: at the end it may exceed the value measured after the first
# third of the run by at most 10% + 4 MiB (a leak per request grows without
# bound; caches do not).
#
#   TS_LOAD_SECONDS  duration (default 3)
#   TS_LOAD_CLIENTS  connections (default 256)
set -u
B=${TS_BUILD_DIR:-$(pwd)/build}
DAEMON=$B/toolscored
TSCTL=$B/tsctl
LOADGEN=$B/bench/loadgen
SECS=${TS_LOAD_SECONDS:-3}
CLIENTS=${TS_LOAD_CLIENTS:-256}
[ -x "$LOADGEN" ] || { echo "test_load: FAIL: $LOADGEN missing (make builds it)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ts-load.XXXXXX") || exit 1
daemon_pid=""
load_pid=""
cleanup() {
	[ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null
	[ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
	echo "test_load: FAIL: $*" >&2
	[ -f "$work/daemon.log" ] && tail -20 "$work/daemon.log" >&2
	exit 1
}

export TOOLSCORE_SOCKET="$work/d.sock"
export TOOLSCORE_DIR="$work/store"
export TOOLSCORED=/bin/false
unset CI TOOLSCORE_RUN TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE

rss_kb() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$daemon_pid/status"
}

"$DAEMON" --socket "$TOOLSCORE_SOCKET" --foreground --log-level warn >"$work/daemon.log" 2>&1 &
daemon_pid=$!
i=0
until "$TSCTL" status >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 1000 ] && fail "the daemon did not answer within 20 s"
	sleep 0.02
done
printf '[{"tool": "search", "args": {"q": "load"}}, {"tool": "book", "args": {"id": 3}}]\n' \
	>"$work/calls.json"
"$TSCTL" check base --calls "$work/calls.json" >/dev/null 2>&1 || fail "creating the baseline failed"
"$TSCTL" approve base >/dev/null 2>&1 || fail "approving the baseline failed"
store=$(cd "$TOOLSCORE_DIR" && pwd -P)

"$LOADGEN" --mode mix --socket "$TOOLSCORE_SOCKET" --store "$store" --name base \
	--calls "$work/calls.json" --prefix m --clients "$CLIENTS" --seconds "$SECS" \
	>"$work/load.out" 2>"$work/load.err" &
load_pid=$!

statuses=0
status_max=0
rss_third=""
rss_max=0
start=$(date +%s)
third=$(awk -v s="$SECS" 'BEGIN { printf "%d", s / 3 + 1 }')
while kill -0 "$load_pid" 2>/dev/null; do
	# TOOLSCORE_DIR names no directory: status then asks only for the
	# daemon's status, without listing the store as well.
	t0=$(date +%s%N)
	TOOLSCORE_DIR="$work/no-store" timeout 10 "$TSCTL" status >/dev/null 2>"$work/status.err" ||
		{ kill -0 "$load_pid" 2>/dev/null || break; fail "tsctl status did not answer under load: $(cat "$work/status.err")"; }
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$ms" -gt "$status_max" ] && status_max=$ms
	statuses=$((statuses + 1))
	rss=$(rss_kb)
	[ -n "$rss" ] || fail "the daemon died under load"
	[ "$rss" -gt "$rss_max" ] && rss_max=$rss
	if [ -z "$rss_third" ] && [ $(($(date +%s) - start)) -ge "$third" ]; then
		rss_third=$rss
	fi
	sleep 0.2
done
wait "$load_pid"
lrc=$?
load_pid=""
out=$(cat "$work/load.out")
echo "test_load: $out"
echo "test_load: $statuses status requests answered during the run (slowest $status_max ms); RSS after a third ${rss_third:-?} KiB, peak $rss_max KiB"
[ "$lrc" = 0 ] || fail "requests failed under load: $(cat "$work/load.err")"
ops=$(printf '%s\n' "$out" | tr ' ' '\n' | sed -n 's/^ops=//p')
[ "${ops:-0}" -ge "$CLIENTS" ] || fail "only ${ops:-0} requests done by $CLIENTS connections"
[ "$statuses" -ge 1 ] || fail "no status request completed during the load"

rss_end=$(rss_kb)
[ -n "$rss_end" ] || fail "the daemon died after the load"
if [ "${TS_LOAD_RSS:-}" = 1 ]; then
	[ -n "$rss_third" ] || fail "no RSS sample after the first third"
	limit=$((rss_third + rss_third / 10 + 4096))
	echo "test_load: RSS at the end $rss_end KiB (limit $limit KiB)"
	[ "$rss_end" -le "$limit" ] || fail "resident memory kept growing: $rss_third KiB -> $rss_end KiB"
fi

files=$(find "$TOOLSCORE_DIR" -maxdepth 1 -name '*.json' ! -name '.*' | wc -l)
listed=$("$TSCTL" snapshots list --json | grep -o '"file": *"' | wc -l)
[ "$files" = "$listed" ] || fail "$files files but $listed listed"
max=$((CLIENTS * 4 + 1))
[ "$files" -le "$max" ] || fail "$files snapshots, more than the $max the load can create"
"$TSCTL" check base --calls "$work/calls.json" >/dev/null || fail "the baseline no longer passes"
kill "$daemon_pid"
wait "$daemon_pid"
st=$?
daemon_pid=""
[ "$st" = 0 ] || fail "the daemon did not stop cleanly after the load (status $st)"
echo "test_load: ok"
exit 0
