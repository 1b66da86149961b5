#!/bin/sh
# Every attack of the review at once, for a bounded time (make stress):
# a second daemon on another socket for the same store, 4 clients that
# never read their replies, 400 connections trickling their hello, 16
# connections stalling 16 MiB frames, a loop asking for a 29 MiB snapshot
# (show) and sending 4 MB frames of empty maps (3 GB once decoded: refused
# by their price), while a legitimate load creates snapshots through both daemons
# and a normal client replays a baseline. Nothing may be lost: every
# CREATED acknowledged is a file, exactly once, no request of the load
# fails, the normal client sees no error and a p99 under 50 ms, `status`
# is answered every time, the daemon stays under its memory budget, and
# the trickling hellos and stalled frames are closed at their deadlines.
# The figures (connections held, RSS peak, the normal client's p99) are
# printed, for docs/performance.md.
#
#   TS_STRESS_SECONDS  duration (default 60; 35 at least, for the 30 s frame
#                      deadline to pass)
set -u
B=${TS_BUILD_DIR:-$(pwd)/build}
DAEMON=$B/toolscored
TSCTL=$B/tsctl
ATTACK=$B/bench/attack
LOADGEN=$B/bench/loadgen
SECS=${TS_STRESS_SECONDS:-60}
[ "$SECS" -ge 35 ] || SECS=35
for x in "$ATTACK" "$LOADGEN"; do
	[ -x "$x" ] || { echo "stress_attacks: FAIL: $x missing (make stress builds it)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ts-attacks.XXXXXX") || exit 1
pids=""
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
failures=0
fail() {
	echo "stress_attacks: FAIL: $*" >&2
	failures=$((failures + 1))
}
die() {
	fail "$*"
	tail -5 "$work/a.log" "$work/b.log" >&2
	exit 1
}
unset CI TOOLSCORE_RUN TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE
export TOOLSCORED=/bin/false
mkdir -p "$work/proj"
STORE="$work/proj/.toolscore/snapshots"
A="$work/a.sock"
BS="$work/b.sock"
printf '[{"tool": "search", "args": {"q": "stress"}}, {"tool": "book", "args": {"id": 3}}]\n' \
	>"$work/calls.json"

start() {
	"$DAEMON" --socket "$1" --foreground --log-level warn >"$2" 2>&1 &
	pids="$pids $!"
	i=0
	until "$TSCTL" --socket "$1" status >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 1000 ] && die "the daemon on $1 did not answer within 20 s"
		sleep 0.02
	done
}
start "$A" "$work/a.log"
a_pid=$(echo $pids | awk '{print $1}')
start "$BS" "$work/b.log"
ts() { "$TSCTL" --socket "$A" --dir "$STORE" "$@"; }
ts check base --calls "$work/calls.json" >/dev/null 2>&1 || die "creating the baseline failed"
ts approve base >/dev/null 2>&1 || die "approving the baseline failed"
# a 29 MiB snapshot for the shows
python3 - "$STORE" <<'EOF' || die "cannot write the big snapshot"
import hashlib, json, sys
pad = "x" * (29 * 1024 * 1024 // 100000 - 120)
calls = [{"tool": "tool_%d" % (i % 50), "args": {"i": i, "text": pad}} for i in range(100000)]
d = {"schema_version": 1, "name": "big", "created_at": "2025-06-01T12:00:00+00:00",
     "updated_at": "2025-06-01T12:00:00+00:00", "toolscore_version": "1.8.1", "approved": True,
     "source": "pytest", "calls": calls}
name = "big-" + hashlib.sha1(b"big").hexdigest()[:8] + ".json"
open(sys.argv[1] + "/" + name, "w").write(json.dumps(d, indent=2, ensure_ascii=False) + "\n")
EOF
store=$(cd "$STORE" && pwd -P)

# the attackers and the normal client (daemon a holds the store)
"$ATTACK" --socket "$A" --store "$store" --name base --calls "$work/calls.json" --pid "$a_pid" \
	--probe --status --nonread 4 --partial 16 --slow 400 --seconds "$SECS" \
	>"$work/attack.out" 2>"$work/attack.err" &
attack_pid=$!
pids="$pids $attack_pid"
# The load joins once the attack is under way: its 400 trickling
# connections (and the others) held by daemon a.
connections_a() {
	"$TSCTL" --socket "$A" status --json 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["connections"])' 2>/dev/null
}
i=0
until [ "$(connections_a)" -ge 400 ] 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 400 ] && die "the attack's connections were not held within 20 s ($(connections_a) connections)"
	kill -0 "$attack_pid" 2>/dev/null || die "attack exited: $(cat "$work/attack.err")"
	sleep 0.05
done
# the legitimate load: new snapshots through both daemons (b's clients are
# sent to a by store_busy), names of their own per daemon
"$LOADGEN" --mode record --socket "$A" --store "$store" --prefix ra --calls "$work/calls.json" \
	--clients 8 --seconds $((SECS - 5)) >"$work/load_a.out" 2>"$work/load_a.err" &
load_a=$!
"$LOADGEN" --mode record --socket "$BS" --store "$store" --prefix rb --calls "$work/calls.json" \
	--clients 8 --seconds $((SECS - 5)) >"$work/load_b.out" 2>"$work/load_b.err" &
load_b=$!
pids="$pids $load_a $load_b"
shows=0
bombs=0
unread=0
until ! kill -0 "$load_a" 2>/dev/null; do
	ts snapshots show big >/dev/null 2>&1
	shows=$((shows + 1))
	# a 4 MB frame of empty maps (3 GB decoded): refused by its price, or
	# not read at all while the stalled frames hold the connections' share
	# (busy, naming the budget); never decoded
	python3 "${TS_SOURCE_DIR:-.}/tests/memory_client.py" bomb "$A" "$store" 80 4194304 \
		>"$work/bomb.out" 2>&1
	if grep -q "code=too_large" "$work/bomb.out"; then
		bombs=$((bombs + 1))
	elif grep -q "code=busy.*over its memory budget" "$work/bomb.out"; then
		unread=$((unread + 1))
	else
		fail "a memory bomb got: $(cat "$work/bomb.out")"
	fi
	sleep 1
done
wait "$load_a" || fail "the load through a failed: $(cat "$work/load_a.err")"
wait "$load_b" || fail "the load through b failed: $(cat "$work/load_b.err")"
wait "$attack_pid" || fail "attack: $(cat "$work/attack.err")"

field() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -1; }
echo "stress_attacks: attack: $(cat "$work/attack.out")"
echo "stress_attacks: load through a: $(cat "$work/load_a.out")"
echo "stress_attacks: load through b: $(cat "$work/load_b.out")"
echo "stress_attacks: $shows shows of the 29 MiB snapshot; 4 MB frames of empty maps: $bombs refused by their price, $unread not read (busy: the budget held by the stalled frames)"
at_most() { [ -n "$2" ] && [ "${2%%.*}" -le "$3" ] || fail "$1: $2, wanted at most $3"; }
at_least() { [ -n "$2" ] && [ "${2%%.*}" -ge "$3" ] || fail "$1: $2, wanted at least $3"; }
at_most "the normal client's errors" "$(field "$work/attack.out" probe_errors)" 0
at_most "the normal client's p99 (us)" "$(field "$work/attack.out" probe_p99_us)" 50000
at_most "status refused" "$(field "$work/attack.out" status_failed)" 0
at_most "resident memory (KiB, budget 512 MiB)" "$(field "$work/attack.out" rss_peak_kb)" $((512 * 1024))
at_least "connections held" "$(field "$work/attack.out" conns_max)" 400
at_least "trickling hellos closed" "$(field "$work/attack.out" slow_reconnects)" 400
at_least "stalled frames closed" "$(field "$work/attack.out" partial_reconnects)" 16
at_most "load errors through a" "$(field "$work/load_a.out" errors)" 0
at_most "load errors through b" "$(field "$work/load_b.out" errors)" 0

# nothing lost: every acknowledged CREATED is one file
for p in ra rb; do
	acked=$(field "$work/load_$(echo $p | cut -c2).out" ops)
	files=$(find "$STORE" -maxdepth 1 -name "${p}_*.json" | wc -l)
	[ "$acked" = "$files" ] || fail "$p: $acked creations acknowledged, $files files"
done
listed=$(ts snapshots list --json | grep -o '"file": *"' | wc -l)
all=$(find "$STORE" -maxdepth 1 -name '*.json' | wc -l)
[ "$listed" = "$all" ] || fail "$all files but $listed listed"
ts check base --calls "$work/calls.json" >/dev/null || fail "the baseline no longer passes"
grep -q "this daemon holds its lock" "$work/b.log" && fail "daemon b took the store's lock"
for s in "$A" "$BS"; do
	"$TSCTL" --socket "$s" status >/dev/null 2>&1 || fail "the daemon on $s no longer answers"
done
[ "$failures" = 0 ] || exit 1
echo "stress_attacks: ok"
