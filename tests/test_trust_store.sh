#!/bin/sh
# File modes (docs/security.md): the daemon writes snapshots 0644 minus its
# umask and never copies the mode of the file it replaces, so a planted
# 04777 file does not become a setuid snapshot and a planted 0666
# placeholder does not become a baseline its planter can rewrite; a store
# directory other users can write is logged once and shown by `tsctl
# status`. As root the placeholder attack is replayed by a second user
# ("nobody") against a daemon of a fresh uid, both running copies of tsctl
# and toolscored in the test's own directory (the checkout may be in a
# folder they cannot enter). Without root that part does not run; as root
# without setpriv the test fails.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

printf '[{"tool": "pay", "args": {"to": "alice"}}]\n' >"$WORK/calls.json"
printf '[{"tool": "pay", "args": {"to": "mallory"}}]\n' >"$WORK/evil.json"
umask 022

# mode FILE: its permission bits in octal and its owner's uid
mode() { stat -c '%a %u' "$1"; }

# --- planted 04777 and 0666 files, rewritten by our daemon -------------------------
start_daemon
t 0 ts check pay --calls "$WORK/calls.json"
t 0 ts snapshots path pay
FILE=$OUT
same "$(mode "$FILE")" "644 $(id -u)" "a new snapshot's mode"
chmod 04777 "$FILE"
t 0 ts approve pay
same "$(mode "$FILE")" "644 $(id -u)" "approve of a planted 04777 file"
chmod 0666 "$FILE"
t 0 ts check pay --calls "$WORK/evil.json" --update
out_has "UPDATED"
same "$(mode "$FILE")" "644 $(id -u)" "update of a planted 0666 file"
chmod 06666 "$FILE"
t 0 ts record --from-trace "$WORK/calls.json" --name pay --format calls --update
same "$(mode "$FILE")" "644 $(id -u)" "rewrite of a planted 06666 file"
# the store directory the daemon made is 0755 minus the umask
same "$(stat -c '%a' "$STORE")" "755" "the store directory's mode"

# --- a store directory writable by others: logged once, shown by status -------------
t 0 ts status
out_lacks "other users can plant"
chmod 0777 "$STORE"
t 0 ts status
out_has "warning:" && out_has "$STORE is writable by every user (mode 0777): other users can plant or replace its snapshots"
t 0 ts status --json
case "$OUT" in *'"stores_exposed"'*'"problem"'*"writable by every user"*) ;; *) fail "status --json lacks stores_exposed: $OUT" ;; esac
t 0 ts check pay --calls "$WORK/calls.json"
same "$(grep -c 'other users can plant or replace' "$WORK/daemon.log")" "1" "warnings logged for the exposed store"
chmod 0755 "$STORE"
t 0 ts status
out_lacks "other users can plant"

# --- another user's placeholder (root only) ---------------------------------------
if [ "$(id -u)" != 0 ]; then
	fail "the cross-user placeholder attack needs root (to become two other users): run make check as root"
	finish
fi
ATTACKER=65534
VICTIM=61000
while getent passwd $VICTIM >/dev/null 2>&1; do VICTIM=$((VICTIM + 1)); done
AS_ATTACKER="setpriv --reuid=$ATTACKER --regid=$ATTACKER --clear-groups"
AS_VICTIM="setpriv --reuid=$VICTIM --regid=$VICTIM --clear-groups"
# The placeholder: a pending snapshot of the calls the victim will make.
"$TSCTL" --socket "$SOCK" --dir "$WORK/scratch" check pay --calls "$WORK/calls.json" >/dev/null || fail "scratch check"
cp "$WORK/scratch/$(basename "$FILE")" "$WORK/placeholder"
binaries_for $ATTACKER $VICTIM
chmod 644 "$WORK/calls.json" "$WORK/evil.json"
mkdir -m 700 "$WORK/v"
chown $VICTIM:$VICTIM "$WORK/v"
# A shared project whose snapshot directory everybody can write.
mkdir -p "$WORK/shared/.toolscore"
chmod 755 "$WORK/shared" "$WORK/shared/.toolscore"
mkdir -m 777 "$WORK/shared/.toolscore/snapshots"
chmod 777 "$WORK/shared/.toolscore/snapshots"
SHARED="$WORK/shared/.toolscore/snapshots"
VSOCK="$WORK/v/d.sock"
# shellcheck disable=SC2086
$AS_VICTIM env HOME="$WORK/v" XDG_STATE_HOME="$WORK/v/state" "$TOOLSCORED" --socket "$VSOCK" \
	--foreground --log-level warn >"$WORK/v.log" 2>&1 &
VPID=$!
trap 'kill $VPID 2>/dev/null; cleanup' EXIT
wait_until 20 "the victim's daemon listening on $VSOCK" socket_there "$VSOCK" ||
	{ cat "$WORK/v.log" >&2; exit 1; }
# shellcheck disable=SC2086
vts() { timeout 30 $AS_VICTIM "$TSCTL" --socket "$VSOCK" --dir "$SHARED" "$@"; }
# The attacker plants the file of "pay", world-writable, before the victim
# ever checks it.
chmod 644 "$WORK/placeholder"
PLANTED="$SHARED/$(basename "$FILE")"
# shellcheck disable=SC2086
$AS_ATTACKER sh -c "cp '$WORK/placeholder' '$PLANTED' && chmod 0666 '$PLANTED'"
same "$(mode "$PLANTED")" "666 $ATTACKER" "the placeholder as planted"
t 0 vts approve pay
same "$(mode "$PLANTED")" "644 $VICTIM" "the baseline approved over the placeholder"
# shellcheck disable=SC2086
if $AS_ATTACKER sh -c "printf x >>'$PLANTED'" 2>/dev/null; then
	fail "the attacker could still write the approved baseline"
fi
t 0 vts check pay --calls "$WORK/calls.json"
out_has "PASSED"
t 1 vts check pay --calls "$WORK/evil.json"
out_has "FAILED"
t 0 vts status
out_has "$SHARED is writable by every user (mode 0777)"
same "$(grep -c 'other users can plant or replace' "$WORK/v.log")" "1" "warnings the victim's daemon logged"
kill $VPID
finish
