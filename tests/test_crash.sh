#!/bin/sh
# Crash consistency: the daemon is killed with SIGKILL at random moments
# while 16 clients (tsctl processes) create (check of a new name, or record
# from a trace), approve and replay snapshots, and is restarted each time.
# A replay right after an acknowledged approval must pass. Afterwards every acknowledged creation and approval
# must be in the store, every file in the store must be a valid snapshot
# (the daemon lists as many snapshots as there are files, reports no
# problem), and no temp file may be left behind.
#
#   TS_CRASH_ROUNDS   kills (default 5; tests/stress_crash.sh runs 20)
#   TS_CRASH_CLIENTS  concurrent clients (default 16)
#   TS_CRASH_SEED     random seed (default: printed, from the clock)
set -u
ROUNDS=${TS_CRASH_ROUNDS:-5}
CLIENTS=${TS_CRASH_CLIENTS:-16}
B=${TS_BUILD_DIR:-$(pwd)/build}
SEED=${TS_CRASH_SEED:-$(($(date +%s) % 100000 + $$))}
DAEMON=$B/toolscored
TSCTL=$B/tsctl

work=$(mktemp -d "${TMPDIR:-/tmp}/ts-crash.XXXXXX") || exit 1
daemon_pid=""
client_pids=""
cleanup() {
	touch "$work/stop"
	for p in $client_pids; do kill "$p" 2>/dev/null; done
	[ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
	echo "test_crash: FAIL: $*" >&2
	exit 1
}

export TOOLSCORE_SOCKET="$work/d.sock"
export TOOLSCORE_DIR="$work/store"
# Clients must not start a daemon of their own: this test owns the daemon.
export TOOLSCORED=/bin/false
unset CI TOOLSCORE_RUN TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE

start_daemon() {
	"$DAEMON" --socket "$TOOLSCORE_SOCKET" --foreground --log-level error \
		>>"$work/daemon.log" 2>&1 &
	daemon_pid=$!
}

wait_ready() {
	i=0
	until "$TSCTL" status >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 1000 ] && { cat "$work/daemon.log" >&2; fail "the daemon did not answer within 20 s"; }
		kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/daemon.log" >&2; fail "the daemon exited"; }
		sleep 0.02
	done
}

# rand_ms LO HI ROUND: a pseudo-random number of milliseconds in [LO, HI).
rand_ms() {
	awk -v s="$SEED" -v r="$3" -v lo="$1" -v hi="$2" \
		'BEGIN { srand(s + r * 7919); printf "%.3f\n", (lo + rand() * (hi - lo)) / 1000 }'
}

printf '[{"tool": "search", "args": {"q": "crash"}}, {"tool": "book", "args": {"id": 7}}]\n' \
	>"$work/calls.json"

# outcome_of JSON: the outcome field of a tsctl check --json reply.
outcome_of() {
	printf '%s' "$1" | grep -o '"outcome": *"[A-Z_]*"' | sed 's/.*"\([A-Z_]*\)"$/\1/'
}

# client K: create c<K>_<i> (odd K: a check of a new name; even K: tsctl
# record --from-trace), approve it, then replay it. Each acknowledged write
# (exit 0 with the expected result) is logged to ack.K; a replay of an
# approved snapshot that answers anything but PASSED is logged to bad.
client() {
	k=$1
	i=0
	while [ ! -e "$work/stop" ]; do
		i=$((i + 1))
		name="c${k}_$i"
		if [ $((k % 2)) = 1 ]; then
			out=$("$TSCTL" check "$name" --calls "$work/calls.json" --json 2>>"$work/client.$k.err")
			rc=$?
			outcome=$(outcome_of "$out")
			case "$rc:$outcome" in
			0:CREATED) echo "created $name" >>"$work/ack.$k" ;;
			0:PENDING) ;; # created before a crash, the reply was lost
			0:*) echo "check $name: unexpected outcome '$outcome': $out" >>"$work/bad" ;;
			esac
		elif "$TSCTL" record --from-trace "$work/calls.json" --name "$name" \
			>/dev/null 2>>"$work/client.$k.err"; then
			echo "created $name" >>"$work/ack.$k"
		fi
		"$TSCTL" approve "$name" >/dev/null 2>>"$work/client.$k.err" || continue
		echo "approved $name" >>"$work/ack.$k"
		out=$("$TSCTL" check "$name" --calls "$work/calls.json" --json 2>>"$work/client.$k.err")
		outcome=$(outcome_of "$out")
		case "$outcome" in
		PASSED | "") ;; # "": the daemon was down, no answer
		*) echo "replay of approved $name: outcome '$outcome': $out" >>"$work/bad" ;;
		esac
	done
}

echo "test_crash: $ROUNDS rounds, $CLIENTS clients, seed $SEED"
start_daemon
wait_ready
k=0
while [ $k -lt "$CLIENTS" ]; do
	k=$((k + 1))
	client $k &
	client_pids="$client_pids $!"
done

# within WHAT CMD...: run CMD every 20 ms until it succeeds; after 60 s the
# test fails: "WHAT within 60 s".
within() {
	what=$1
	shift
	i=0
	until "$@"; do
		i=$((i + 1))
		[ $i -gt 3000 ] && fail "$what within 60 s"
		sleep 0.02
	done
}
# acks: the writes acknowledged so far; more_acks_than N / created_at_least N.
acks() { cat "$work"/ack.* 2>/dev/null | wc -l; }
more_acks_than() { [ "$(acks)" -gt "$1" ]; }
created_at_least() { [ "$(cat "$work"/ack.* 2>/dev/null | grep -c '^created ')" -ge "$1" ]; }

# Each round kills the daemon at a random moment while the clients write
# (a write was acknowledged since it started), and restarts it.
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	within "round $r: no write acknowledged" more_acks_than "$(acks)"
	sleep "$(rand_ms 150 900 $r)"
	kill -9 "$daemon_pid" || fail "round $r: the daemon was not running"
	wait "$daemon_pid" 2>/dev/null
	sleep "$(rand_ms 0 200 $((r + 1000)))"
	start_daemon
	wait_ready
done
# The last daemon serves the clients too before they stop, until they
# have created at least one snapshot each on average.
within "after the last restart: no write acknowledged" more_acks_than "$(acks)"
within "the clients made no progress: not $CLIENTS creations acknowledged" created_at_least "$CLIENTS"
touch "$work/stop"
for p in $client_pids; do wait "$p"; done
client_pids=""

[ -e "$work/bad" ] && { head -5 "$work/bad" >&2; fail "a check gave an unexpected outcome"; }
cat "$work"/ack.* 2>/dev/null | sort -u >"$work/acks"
created=$(grep -c '^created ' "$work/acks")
approved=$(grep -c '^approved ' "$work/acks")
echo "test_crash: $created creations and $approved approvals acknowledged"
[ "$created" -ge "$CLIENTS" ] || fail "only $created creations acknowledged: the clients made no progress"

# What the store holds, as the daemon sees it.
"$TSCTL" snapshots list --json >"$work/all.json" || fail "snapshots list failed"
"$TSCTL" snapshots list --pending --json >"$work/pending.json" || fail "snapshots list --pending failed"
grep -o '"name": *"c[0-9]*_[0-9]*"' "$work/all.json" | sed 's/.*"\(c[0-9_]*\)"$/\1/' | sort -u >"$work/names"
grep -o '"name": *"c[0-9]*_[0-9]*"' "$work/pending.json" | sed 's/.*"\(c[0-9_]*\)"$/\1/' | sort -u >"$work/pending"

missing=$(sed -n 's/^created //p' "$work/acks" | sort | comm -23 - "$work/names")
[ -z "$missing" ] && missing_count=0 || missing_count=$(printf '%s\n' "$missing" | wc -l)
[ "$missing_count" = 0 ] || fail "$missing_count acknowledged snapshot(s) missing, e.g. $(printf '%s\n' "$missing" | head -3 | tr '\n' ' ')"
unapproved=$(sed -n 's/^approved //p' "$work/acks" | sort | comm -12 - "$work/pending")
[ -z "$unapproved" ] || fail "acknowledged approval(s) lost: $(printf '%s\n' "$unapproved" | head -3 | tr '\n' ' ')"

files=$(find "$work/store" -maxdepth 1 -name '*.json' ! -name '.*' | wc -l)
listed=$(wc -l <"$work/names")
[ "$files" = "$listed" ] || fail "$files snapshot files but $listed readable snapshots: a file is torn or invalid"
temps=$(find "$work/store" -maxdepth 1 -name '.*.tmp' | wc -l)
[ "$temps" = 0 ] || fail "$temps temp file(s) left after a restart"

kill "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
st=$?
daemon_pid=""
[ "$st" = 0 ] || fail "the daemon did not stop cleanly after the test (status $st)"
echo "test_crash: ok"
exit 0
