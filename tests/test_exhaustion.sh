#!/bin/sh
# Resource exhaustion: the daemon under a small file-descriptor limit, on a
# file system that fills up, and on a store that turns read-only. In each
# case a client that cannot be served gets a clear error (a message on
# stderr, a non-zero exit), the daemon stays up, no file is torn and no temp
# file is left, reads keep working, and once the condition clears the same
# requests succeed.
#
# The full-disk and read-only-mount parts mount a small tmpfs and so need
# root (CI runs as root); without root the test says so and fails (the
# read-only part below uses chmod, honoured for non-root).
set -u
B=${TS_BUILD_DIR:-$(pwd)/build}
DAEMON=$B/toolscored
TSCTL=$B/tsctl
LOADGEN=$B/bench/loadgen
[ -x "$LOADGEN" ] || { echo "test_exhaustion: FAIL: $LOADGEN missing (make builds it)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ts-exhaust.XXXXXX") || exit 1
daemon_pid=""
mounted=""
cleanup() {
	[ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	[ -n "$mounted" ] && { umount "$mounted" 2>/dev/null || umount -l "$mounted" 2>/dev/null; }
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
	echo "test_exhaustion: FAIL: $*" >&2
	[ -f "$work/daemon.log" ] && tail -20 "$work/daemon.log" >&2
	exit 1
}
note() { echo "test_exhaustion: $*"; }

export TOOLSCORE_SOCKET="$work/d.sock"
export TOOLSCORED=/bin/false # the test owns the daemon: no auto-start
unset CI TOOLSCORE_RUN TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE

# start_daemon [FD_LIMIT]
start_daemon() {
	if [ -n "${1:-}" ]; then
		sh -c 'ulimit -n "$1" && shift && exec "$@"' sh "$1" \
			"$DAEMON" --socket "$TOOLSCORE_SOCKET" --foreground --log-level warn \
			>>"$work/daemon.log" 2>&1 &
	else
		"$DAEMON" --socket "$TOOLSCORE_SOCKET" --foreground --log-level warn \
			>>"$work/daemon.log" 2>&1 &
	fi
	daemon_pid=$!
	i=0
	until "$TSCTL" status >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -gt 1000 ] && fail "the daemon did not answer within 20 s"
		kill -0 "$daemon_pid" 2>/dev/null || fail "the daemon exited at start"
		sleep 0.02
	done
}

stop_daemon() {
	kill "$daemon_pid" 2>/dev/null
	wait "$daemon_pid" 2>/dev/null
	st=$?
	daemon_pid=""
	[ "$st" = 0 ] || fail "the daemon did not stop cleanly (status $st)"
}

# CPU time (user + system, in clock ticks) the daemon used so far.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$daemon_pid/stat"
}

alive() {
	kill -0 "$daemon_pid" 2>/dev/null || fail "the daemon died: $1"
}

# outcome NAME [ARGS...]: run tsctl check NAME --json, print the outcome or
# "exit=<code>" when it failed; stderr goes to $work/err.
outcome() {
	name=$1
	shift
	out=$("$TSCTL" check "$name" --calls "$work/calls.json" --json "$@" 2>"$work/err")
	rc=$?
	if [ $rc != 0 ]; then
		echo "exit=$rc"
		return
	fi
	printf '%s' "$out" | grep -o '"outcome": *"[A-Z_]*"' | sed 's/.*"\([A-Z_]*\)"$/\1/'
}

# expect_outcome WANT NAME [ARGS...]
expect_outcome() {
	want=$1
	shift
	got=$(outcome "$@")
	[ "$got" = "$want" ] || fail "check $1: expected $want, got $got ($(cat "$work/err"))"
}

# expect_clear_failure WHAT NAME [ARGS...]: the check must fail with a
# message on stderr.
expect_clear_failure() {
	what=$1
	shift
	got=$(outcome "$@")
	case "$got" in
	exit=*) ;;
	*) fail "$what: check $1 succeeded ($got) where it cannot" ;;
	esac
	[ -s "$work/err" ] || fail "$what: check $1 failed ($got) without a message"
	note "$what: check $1 -> $got: $(head -1 "$work/err")"
}

# store_consistent DIR: the daemon lists as many snapshots as there are
# files, and no temp file is left.
store_consistent() {
	files=$(find "$1" -maxdepth 1 -name '*.json' ! -name '.*' | wc -l)
	listed=$("$TSCTL" snapshots list --json 2>"$work/err" | grep -o '"file": *"' | wc -l)
	[ "$files" = "$listed" ] || fail "$2: $files files but $listed listed ($(cat "$work/err"))"
	temps=$(find "$1" -maxdepth 1 -name '.*.tmp' | wc -l)
	[ "$temps" = 0 ] || fail "$2: $temps temp file(s) left behind"
}

printf '[{"tool": "search", "args": {"q": "limits"}}, {"tool": "book", "args": {"id": 1}}]\n' \
	>"$work/calls.json"

# ---- A: file descriptors ---------------------------------------------------
export TOOLSCORE_DIR="$work/store-fd"
start_daemon 48
expect_outcome CREATED base
"$TSCTL" approve base >/dev/null 2>"$work/err" || fail "approve base: $(cat "$work/err")"
# 100 connections held until $work/held is removed (60 s at most).
"$LOADGEN" --mode hold --socket "$TOOLSCORE_SOCKET" --clients 100 --seconds 60 \
	--ready "$work/held" >"$work/hold.out" 2>"$work/hold.err" &
hold_pid=$!
i=0
until [ -e "$work/held" ]; do
	i=$((i + 1))
	[ $i -gt 1000 ] && fail "fd limit: loadgen did not connect its 100 clients within 20 s"
	kill -0 "$hold_pid" 2>/dev/null || fail "fd limit: loadgen exited: $(cat "$work/hold.err")"
	sleep 0.02
done
# While the descriptors are used up, a new client is answered at once with
# the daemon's "busy" reply naming the descriptor limit (not a reset, not a
# timeout), and the daemon does not spin on its listening socket.
cpu_before=$(cpu_ticks)
t0=$(date +%s%N)
got=$(outcome base)
t1=$(date +%s%N)
case "$got" in
exit=3) grep -q 'cannot accept more connections: it has used all 48 file descriptors' "$work/err" ||
	fail "fd limit: the refused check did not say why: $(cat "$work/err")"
	note "fd limit: check -> $got: $(head -1 "$work/err")" ;;
*) fail "fd limit: check base gave $got while every descriptor was in use ($(cat "$work/err"))" ;;
esac
[ $(((t1 - t0) / 1000000)) -lt 2000 ] || fail "fd limit: the refusal took $(((t1 - t0) / 1000000)) ms"
sleep 1
cpu=$(($(cpu_ticks) - cpu_before))
note "fd limit: the daemon used $cpu clock ticks of CPU in the second out of descriptors"
[ "$cpu" -lt 50 ] || fail "fd limit: the daemon used $cpu/100 s of CPU while out of descriptors (spinning)"
alive "while the descriptors were used up"
rm "$work/held"
wait "$hold_pid"
hold=$(cat "$work/hold.out")
connect_errors=$(printf '%s\n' "$hold" | tr ' ' '\n' | sed -n 's/^connect_errors=//p')
held=$(printf '%s\n' "$hold" | tr ' ' '\n' | sed -n 's/^ops=//p')
errors=$(printf '%s\n' "$hold" | tr ' ' '\n' | sed -n 's/^errors=//p')
[ -n "$held" ] || fail "fd limit: loadgen printed nothing ($(cat "$work/hold.err"))"
note "fd limit: $held connections held and served, $connect_errors refused"
[ "$connect_errors" -gt 0 ] || fail "fd limit: 100 connections under a limit of 48 descriptors were all accepted"
[ "$held" -gt 0 ] || fail "fd limit: no connection was served at all"
# The connections that got in are unaffected: each answered its request.
[ "$errors" = "$connect_errors" ] ||
	fail "fd limit: $((errors - connect_errors)) accepted connection(s) failed later: $(cat "$work/hold.err")"
grep -q 'first: connect: .*cannot accept more connections: it has used all 48 file descriptors' "$work/hold.err" ||
	fail "fd limit: a refused client did not get the busy reply: $(cat "$work/hold.err")"
grep -q "out of file descriptors: new connections are answered 'busy'" "$work/daemon.log" ||
	fail "fd limit: the daemon did not log the refusals"
alive "after the descriptors were released"
"$TSCTL" status >/dev/null 2>"$work/err" || fail "fd limit: status after release: $(cat "$work/err")"
expect_outcome PASSED base
expect_outcome CREATED after_fd
store_consistent "$TOOLSCORE_DIR" "fd limit"
stop_daemon

# ---- B: a file system that fills up -----------------------------------------
if [ "$(id -u)" = 0 ]; then
	mkdir "$work/full"
	mount -t tmpfs -o size=1m,mode=0755 tmpfs "$work/full" || fail "cannot mount a tmpfs"
	mounted="$work/full"
	export TOOLSCORE_DIR="$work/full/store"
	start_daemon
	expect_outcome CREATED base
	"$TSCTL" approve base >/dev/null 2>"$work/err" || fail "approve base: $(cat "$work/err")"
	expect_outcome CREATED keep
	cp "$TOOLSCORE_DIR"/keep-*.json "$work/keep.before"
	dd if=/dev/zero of="$work/full/filler" bs=4k 2>/dev/null # until ENOSPC
	dd if=/dev/zero of="$work/full/filler2" bs=512 2>/dev/null
	expect_clear_failure "disk full" new_full
	alive "after a write failed on a full disk"
	"$TSCTL" approve keep >/dev/null 2>"$work/err" && fail "disk full: approve keep succeeded"
	[ -s "$work/err" ] || fail "disk full: approve failed without a message"
	note "disk full: approve keep -> $(head -1 "$work/err")"
	cmp -s "$work/keep.before" "$TOOLSCORE_DIR"/keep-*.json ||
		fail "disk full: a failed approval changed the file"
	expect_outcome PASSED base # reads keep working
	[ -z "$(find "$TOOLSCORE_DIR" -name 'new_full-*')" ] || fail "disk full: a failed write left a snapshot"
	store_consistent "$TOOLSCORE_DIR" "disk full"
	rm -f "$work/full/filler" "$work/full/filler2"
	expect_outcome PENDING keep
	expect_outcome CREATED new_full
	"$TSCTL" approve keep >/dev/null 2>"$work/err" || fail "disk freed: approve keep: $(cat "$work/err")"
	expect_outcome PASSED keep
	store_consistent "$TOOLSCORE_DIR" "disk freed"

	# ---- C (root): the mount turns read-only under the daemon ---------
	mount -o remount,ro "$work/full" || fail "cannot remount read-only"
	expect_clear_failure "read-only mount" ro_new
	"$TSCTL" approve new_full >/dev/null 2>"$work/err" && fail "read-only mount: approve succeeded"
	[ -s "$work/err" ] || fail "read-only mount: approve failed without a message"
	expect_outcome PASSED base
	alive "on a read-only mount"
	mount -o remount,rw "$work/full" || fail "cannot remount read-write"
	expect_outcome CREATED ro_new
	"$TSCTL" approve new_full >/dev/null 2>"$work/err" || fail "read-write again: approve: $(cat "$work/err")"
	store_consistent "$TOOLSCORE_DIR" "read-only mount"
	stop_daemon
	umount "$work/full" || fail "cannot unmount the tmpfs"
	mounted=""
else
	fail "the full-disk and read-only-mount parts need root to mount a tmpfs: run make check as root"
fi

# ---- C: a store directory made read-only (modes; as a non-root uid) ----------
# Root ignores directory modes, so as root the daemon runs as nobody.
export TOOLSCORE_DIR="$work/store-ro"
mkdir "$TOOLSCORE_DIR"
as_user=""
ro_daemon=$DAEMON
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || fail "setpriv is needed to run the daemon as another uid"
	chmod 755 "$work"
	# The build directory may not be reachable by nobody (a checkout under
	# /root): run a copy of the binary from the scratch directory.
	mkdir "$work/bin"
	cp "$DAEMON" "$work/bin/toolscored"
	chmod 755 "$work/bin" "$work/bin/toolscored"
	ro_daemon=$work/bin/toolscored
	chown nobody "$TOOLSCORE_DIR"
	as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	# The socket directory must belong to the daemon's uid.
	mkdir "$work/sock"
	chown nobody "$work/sock"
	chmod 700 "$work/sock"
	export TOOLSCORE_SOCKET="$work/sock/d.sock"
	# A client talks only to a daemon of its own uid (or root's): tsctl
	# runs as nobody too.
	cp "$TSCTL" "$work/bin/tsctl"
	chmod 755 "$work/bin/tsctl"
	printf '#!/bin/sh\nexec setpriv --reuid=nobody --regid=nogroup --clear-groups %s "$@"\n' \
		"$work/bin/tsctl" >"$work/bin/tsctl-as-nobody"
	chmod 755 "$work/bin/tsctl-as-nobody"
	TSCTL=$work/bin/tsctl-as-nobody
fi
# The daemon's state directory must be its uid's too.
mkdir -m 700 "$work/state"
[ -n "$as_user" ] && chown nobody "$work/state"
# shellcheck disable=SC2086
(cd / && exec $as_user "$ro_daemon" --socket "$TOOLSCORE_SOCKET" --state-dir "$work/state" \
	--foreground --log-level warn >>"$work/daemon.log" 2>&1) &
daemon_pid=$!
i=0
until "$TSCTL" status >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 1000 ] && fail "read-only dir: the daemon did not answer within 20 s"
	kill -0 "$daemon_pid" 2>/dev/null || fail "read-only dir: the daemon exited at start"
	sleep 0.02
done
expect_outcome CREATED base
"$TSCTL" approve base >/dev/null 2>"$work/err" || fail "approve base: $(cat "$work/err")"
expect_outcome CREATED pend
chmod 555 "$TOOLSCORE_DIR"
expect_clear_failure "read-only dir" ro_dir_new
"$TSCTL" approve pend >/dev/null 2>"$work/err" && fail "read-only dir: approve succeeded"
[ -s "$work/err" ] || fail "read-only dir: approve failed without a message"
note "read-only dir: approve pend -> $(head -1 "$work/err")"
expect_outcome PASSED base
expect_outcome PENDING pend
alive "on a read-only directory"
chmod 755 "$TOOLSCORE_DIR"
expect_outcome CREATED ro_dir_new
"$TSCTL" approve pend >/dev/null 2>"$work/err" || fail "writable again: approve: $(cat "$work/err")"
expect_outcome PASSED pend
store_consistent "$TOOLSCORE_DIR" "read-only dir"

# ---- D: a store root that cannot be opened: every request refused with the
# reason, the log saying it once, not once a request ------------------------
# (a project's snapshot root that is a file: tsctl refuses such a root
# itself, a raw client sends it as the store)
mkdir -p "$work/proj/.toolscore"
[ -n "$as_user" ] && chown nobody "$work/proj/.toolscore"
notdir="$work/proj/.toolscore/snapshots"
echo "a file" >"$notdir"
n=0
while [ $n -lt 20 ]; do
	n=$((n + 1))
	python3 "${TS_SOURCE_DIR:-.}/tests/memory_client.py" large "$TOOLSCORE_SOCKET" "$notdir" "nope$n" 10 \
		>"$work/out" 2>&1
	grep -q "code=ok\|code=closed" "$work/out" && fail "root is a file: $(cat "$work/out")"
done
note "root is a file: the 20th check -> $(cat "$work/out")"
grep "cannot open store $notdir" "$work/daemon.log" | sed 's/^/test_exhaustion: root is a file: logged: /'
lines=$(grep -c "cannot open store $notdir" "$work/daemon.log")
note "root is a file: 20 checks refused, $lines log line(s)"
[ "$lines" = 1 ] || fail "root is a file: $lines log lines for 20 refused checks (wanted 1)"
alive "after a root that cannot be opened"
stop_daemon
note "ok"
exit 0
