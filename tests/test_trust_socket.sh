#!/bin/sh
# Trust before talking (docs/security.md): a client refuses a socket whose
# directory is not the user's (or root's) with no group or other access, or
# whose daemon runs as another uid, and sends it nothing; the daemon refuses
# a socket directory that is a symbolic link. As root the attack of a second
# user is replayed: "nobody" plants /tmp/toolscore-<uid> (world-writable, or
# its own 0700 directory, or a symbolic link) with a fake server that
# records every byte it receives, and a victim of a fresh uid runs
# `tsctl check` with the default socket; the fake server must receive
# nothing. The other users run copies of tsctl, toolscored and the fake
# server in the test's own directory, so the checkout may be anywhere (a
# 0700 folder too). Without root only the same-user parts run; as root
# without setpriv the test fails.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

printf '[{"tool": "pay", "args": {"token": "s3cret-token"}}]\n' >"$WORK/calls.json"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

FAKE="$TS_SOURCE_DIR/tests/fake_daemon.py"

FAKE_PID=""
stop_fake() {
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
	FAKE_PID=""
}

# start_fake SOCKET LOG PREFIX...: the fake server (tests/fake_daemon.py)
# run as PREFIX says (env, or setpriv and its arguments), ready on return.
start_fake() {
	sock=$1
	log=$2
	shift 2
	rm -f "$WORK/fake.ready"
	"$@" "$PY" "$FAKE" "$sock" "$log" >"$WORK/fake.ready" 2>"$WORK/fake.err" &
	FAKE_PID=$!
	i=0
	until grep -q ready "$WORK/fake.ready" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 400 ] || ! kill -0 "$FAKE_PID" 2>/dev/null; then
			fail "the fake server did not start: $(cat "$WORK/fake.err")"
			return 1
		fi
		sleep 0.05
	done
}

# received LOG: what the fake server got ("" when nobody connected).
received() { cat "$1" 2>/dev/null; }

# --- same user: a socket directory open to others is refused -------------------------
mkdir -m 700 "$WORK/open"
start_fake "$WORK/open/toolscored.sock" "$WORK/open.log" env
chmod 777 "$WORK/open"
t 3 timeout 30 "$TSCTL" --socket "$WORK/open/toolscored.sock" --dir "$WORK/store" check pay --calls "$WORK/calls.json"
err_has "refusing the socket $WORK/open/toolscored.sock without talking to it" && err_has "0777"
err_one_line
same "$(received "$WORK/open.log")" "" "bytes sent to a socket in a 0777 directory"
t 3 timeout 30 "$TSCTL" --socket "$WORK/open/toolscored.sock" status
err_has "refusing the socket"
same "$(received "$WORK/open.log")" "" "bytes sent to a socket in a 0777 directory (status)"
stop_fake

# --- same user: a socket directory that is a symbolic link -----------------------------
mkdir -m 700 "$WORK/real"
ln -s "$WORK/real" "$WORK/link"
t 1 "$TOOLSCORED" --socket "$WORK/link/toolscored.sock" --foreground
err_has "$WORK/link is a symbolic link" && err_has "must be the directory itself"
[ -e "$WORK/real/toolscored.sock" ] && fail "the daemon bound a socket through a symbolic link"
start_fake "$WORK/real/toolscored.sock" "$WORK/link.log" env
t 3 timeout 30 "$TSCTL" --socket "$WORK/link/toolscored.sock" --dir "$WORK/store" check pay --calls "$WORK/calls.json"
err_has "is a symbolic link"
same "$(received "$WORK/link.log")" "" "bytes sent through a symbolic link"
stop_fake

# --- a real daemon of ours is trusted -------------------------------------------------
start_daemon
t 0 ts check pay --calls "$WORK/calls.json"
out_has "CREATED"

# --- another user: needs root and setpriv -----------------------------------------------
if [ "$(id -u)" != 0 ]; then
	fail "the cross-user attacks need root (to become two other users): run make check as root"
	finish
fi
ATTACKER=65534
ATTACKER_NAME=$(getent passwd $ATTACKER | cut -d: -f1)
[ -n "$ATTACKER_NAME" ] || ATTACKER_NAME=""
# A victim uid that names no user and whose default directory is free.
VICTIM=61000
while getent passwd $VICTIM >/dev/null 2>&1 || [ -e "/tmp/toolscore-$VICTIM" ]; do
	VICTIM=$((VICTIM + 1))
done
PLANTED=/tmp/toolscore-$VICTIM
# What the attacker and the victim run: copies they can reach.
binaries_for $ATTACKER $VICTIM
cp "$FAKE" "$WORK/bin/fake_daemon.py"
chmod 644 "$WORK/bin/fake_daemon.py"
FAKE=$WORK/bin/fake_daemon.py
AS_ATTACKER="setpriv --reuid=$ATTACKER --regid=$ATTACKER --clear-groups"
# shellcheck disable=SC2086
as_attacker() { $AS_ATTACKER "$@"; }
as_victim() {
	timeout 30 setpriv --reuid=$VICTIM --regid=$VICTIM --clear-groups \
		env -u XDG_RUNTIME_DIR -u TOOLSCORE_SOCKET HOME="$WORK/victim" XDG_STATE_HOME="$WORK/victim/state" \
		TOOLSCORED="$TOOLSCORED" "$@"
}
cleanup_planted() {
	stop_fake
	rm -rf "$PLANTED"
}
trap 'cleanup_planted; cleanup' EXIT
mkdir -m 700 "$WORK/victim" "$WORK/attacker"
chown $VICTIM:$VICTIM "$WORK/victim"
chown $ATTACKER:$ATTACKER "$WORK/attacker"
chmod 644 "$WORK/calls.json"
VICTIM_CHECK="$TSCTL --dir $WORK/victim/store check test_payment --calls $WORK/calls.json"
LOG="$WORK/attacker/fake.log"

# The attack of the review: a world-writable directory and a fake server.
as_attacker mkdir -m 777 "$PLANTED"
as_attacker chmod 777 "$PLANTED"
start_fake "$PLANTED/toolscored.sock" "$LOG" $AS_ATTACKER
# shellcheck disable=SC2086
t 3 as_victim $VICTIM_CHECK
err_has "refusing the socket $PLANTED/toolscored.sock without talking to it"
err_has "owned by uid $ATTACKER${ATTACKER_NAME:+ ($ATTACKER_NAME)}" && err_has "0777"
out_lacks "PASSED"
same "$(received "$LOG")" "" "bytes the planted server received"
[ -e "$WORK/victim/store" ] && fail "the refused check created the victim's store"
cleanup_planted

# The attacker's own 0700 directory.
as_attacker mkdir -m 700 "$PLANTED"
start_fake "$PLANTED/toolscored.sock" "$LOG" $AS_ATTACKER
# shellcheck disable=SC2086
t 3 as_victim $VICTIM_CHECK
err_has "owned by uid $ATTACKER" && err_has "mode 0700"
same "$(received "$LOG")" "" "bytes the planted server received (0700 directory)"
cleanup_planted

# A symbolic link of the attacker's at the default path, to its directory.
as_attacker mkdir -m 700 "$WORK/attacker/dir"
as_attacker ln -s "$WORK/attacker/dir" "$PLANTED"
start_fake "$WORK/attacker/dir/toolscored.sock" "$LOG" $AS_ATTACKER
# shellcheck disable=SC2086
t 3 as_victim $VICTIM_CHECK
err_has "is a symbolic link (owned by uid $ATTACKER"
same "$(received "$LOG")" "" "bytes the planted server received (symbolic link)"
cleanup_planted
rm -rf "$WORK/attacker/dir"

# A directory of the victim's holding a socket another uid listens on (a
# root-made mix-up, a race): the peer's credentials refuse it.
mkdir -m 700 "$PLANTED"
chown $ATTACKER "$PLANTED"
start_fake "$PLANTED/toolscored.sock" "$LOG" $AS_ATTACKER
chown $VICTIM:$VICTIM "$PLANTED"
# shellcheck disable=SC2086
t 3 as_victim $VICTIM_CHECK
err_has "it runs as uid $ATTACKER" && err_has "not as you (uid $VICTIM)"
# (the server logs from its own thread: wait until it saw the close)
logged_close() { grep -qx closed "$LOG" 2>/dev/null; }
wait_until 20 "the planted server seeing the victim's connection closed" logged_close
same "$(received "$LOG")" "connection
closed" "the planted server got a connection and not a byte"
cleanup_planted

# The daemon refuses another user's symbolic link to the victim's own 0700
# directory.
mkdir -m 700 "$WORK/victim/run"
chown $VICTIM:$VICTIM "$WORK/victim/run"
as_attacker ln -s "$WORK/victim/run" "$WORK/attacker/run"
chmod 755 "$WORK/attacker"
t 1 as_victim "$TOOLSCORED" --socket "$WORK/attacker/run/toolscored.sock" --foreground
err_has "is a symbolic link (owned by uid $ATTACKER"
[ -e "$WORK/victim/run/toolscored.sock" ] && fail "the daemon bound through another user's link"

# The victim with no planted directory: auto-start makes its own, and works.
# shellcheck disable=SC2086
t 0 as_victim $VICTIM_CHECK
out_has "CREATED"
same "$(stat -c '%u %a' "$PLANTED")" "$VICTIM 700" "the default directory auto-start made"
as_victim "$TSCTL" stop >/dev/null 2>&1
planted_socket_gone() { [ ! -e "$PLANTED/toolscored.sock" ]; }
wait_until 20 "the victim's auto-started daemon removing its socket after stop" planted_socket_gone
finish
