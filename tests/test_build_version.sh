#!/bin/sh
# One version per build (docs/packaging.md): toolscored --version, tsctl
# --version and the daemon's hello and status say the build's version; a
# daemon of another build is used and said once (tsctl status shows both),
# except one a client started that is idle, which is replaced by this
# build's. "Another build" is this build's daemon (and tsctl) with its
# version string rewritten in place (same length), so it speaks the same
# protocol and reports another version.
. "$(dirname "$0")/tsctl_helpers.sh"

VERSION=$(sed -n 's/^#define TS_VERSION "\(.*\)".*/\1/p' "$TS_BUILD_DIR/gen/ts_version.h")
[ -n "$VERSION" ] || { echo "test_build_version: no version in $TS_BUILD_DIR/gen/ts_version.h" >&2; exit 1; }
t 0 "$TOOLSCORED" --version && same "$OUT" "toolscored $VERSION" "toolscored --version"
t 0 "$TSCTL" --version && same "$OUT" "tsctl $VERSION" "tsctl --version"
case "$VERSION" in
[0-9]*.[0-9]*.[0-9]* | [0-9]*.[0-9]*.[0-9]*+g[0-9a-f]*) ;;
*) fail "version '$VERSION' is neither a release nor release+g<commit>" ;;
esac
# a build from a checkout carries its commit unless it is the release tag
if git -C "$TS_SOURCE_DIR" rev-parse HEAD >/dev/null 2>&1 &&
	! git -C "$TS_SOURCE_DIR" tag --points-at HEAD | grep -qx "v${VERSION%%+*}"; then
	case "$VERSION" in
	*+g$(git -C "$TS_SOURCE_DIR" rev-parse --short=12 HEAD)*) ;;
	*) fail "version '$VERSION' does not carry the commit $(git -C "$TS_SOURCE_DIR" rev-parse --short=12 HEAD)" ;;
	esac
fi

OTHER_VERSION=$(other_build "$TOOLSCORED" "$WORK/other-toolscored" "$VERSION")
other_build "$TSCTL" "$WORK/other-tsctl" "$VERSION" >/dev/null
OTHER="$WORK/other-toolscored"
OTHER_TSCTL="$WORK/other-tsctl"
t 0 "$OTHER" --version && same "$OUT" "toolscored $OTHER_VERSION" "the other build's version"
mkdir -p "$STORE"

status_field() { # FIELD: of tsctl status --json
	t 0 ts status --json && json_get "$1"
}
wait_gone() { # PID
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	kill -0 "$1" 2>/dev/null && fail "process $1 is still running"
}
# other [auto]: the other build on $SOCK (start_other), stopped on exit
other() {
	start_other "$OTHER" "$OTHER_TSCTL" "$SOCK" "$@"
	DAEMON_PID=$OTHER_PID
}

# ---- this build, started by hand, then by a client --------------------------
start_daemon
same "$(status_field version)" "$VERSION" "status version"
same "$(status_field client_version)" "$VERSION" "status client_version"
same "$(status_field auto_started)" "false" "a daemon started by hand"
t 0 ts snapshots list
same "$ERR" "" "stderr with a daemon of this build"
t 0 ts stop
DAEMON_PID=""
t 0 ts snapshots list
same "$(status_field auto_started)" "true" "a daemon a client started"
t 0 ts status
out_has "  version:          $VERSION (started by a client)"
out_lacks "tsctl version:"
t 0 ts stop

# ---- another build a client started, idle: replaced -------------------------
other auto
old_pid=$DAEMON_PID
same "$(status_field version)" "$OTHER_VERSION" "the other build serves"
same "$(status_field auto_started)" "true" "the other build, as if a client started it"
t 0 ts snapshots list
same "$ERR" "" "stderr when the other build was replaced"
wait_gone "$old_pid"
same "$(status_field version)" "$VERSION" "after the replacement"
same "$(status_field auto_started)" "true" "the replacement was started by the client"
t 0 ts stop
DAEMON_PID=""

# ---- another build a client started, in use (a run open): kept, said once ---
other auto
old_pid=$DAEMON_PID
printf '#!/bin/sh\n"%s" --socket "%s" --dir "%s" snapshots list 2>"%s"\n' "$TSCTL" "$SOCK" "$STORE" "$WORK/inner.err" >"$WORK/inner.sh"
t 0 "$OTHER_TSCTL" --socket "$SOCK" --dir "$STORE" run -- sh "$WORK/inner.sh"
kill -0 "$old_pid" 2>/dev/null || fail "the other build in use was stopped"
ERR=$(cat "$WORK/inner.err")
err_has "note: the daemon at $SOCK is toolscored $OTHER_VERSION, this tsctl is $VERSION (another build;"
err_one_line

# ---- another build started by hand: kept, said once; status shows both ------
t 0 "$OTHER_TSCTL" --socket "$SOCK" stop
wait_gone "$old_pid"
other
t 0 ts snapshots list
err_has "note: the daemon at $SOCK is toolscored $OTHER_VERSION, this tsctl is $VERSION (another build; \`tsctl stop\` lets the next command start this build's)"
err_one_line
same "$(status_field auto_started)" "false" "the other build started by hand"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the other build started by hand was stopped"
t 0 ts status
out_has "  version:          $OTHER_VERSION"
out_lacks "(started by a client)"
out_has "  tsctl version:    $VERSION (another build: \`tsctl stop\` lets the next command start this build's daemon)"
same "$ERR" "" "status says it on stdout only"
t 0 ts stop
wait_gone "$DAEMON_PID"
DAEMON_PID=""

# ---- finding the daemon: $TOOLSCORED, beside tsctl, PATH --------------------
mkdir -p "$WORK/lone" "$WORK/onpath"
cp "$TSCTL" "$WORK/lone/tsctl"
lone() { env -u TOOLSCORED PATH=/nonexistent "$WORK/lone/tsctl" --socket "$SOCK" --dir "$STORE" "$@"; }
t 3 lone snapshots list
err_has "TOOLSCORED is not set, $WORK/lone/toolscored does not exist, and PATH has no toolscored"
err_one_line
: >"$WORK/lone/toolscored"
chmod 644 "$WORK/lone/toolscored"
t 3 lone snapshots list
err_has "$WORK/lone/toolscored is not executable (mode 0644), and PATH has no toolscored"
ln -s "$TOOLSCORED" "$WORK/onpath/toolscored"
t 0 env -u TOOLSCORED PATH="$WORK/onpath" "$WORK/lone/tsctl" --socket "$SOCK" --dir "$STORE" snapshots list
t 0 ts stop
rm -f "$WORK/lone/toolscored"
cp "$TOOLSCORED" "$WORK/lone/toolscored"
t 0 lone snapshots list
t 0 ts status --json
pid=$(json_get pid)
same "$(readlink "/proc/$pid/exe")" "$WORK/lone/toolscored" "the daemon beside tsctl served"
t 0 ts stop
t 3 env TOOLSCORED="$WORK/nowhere/toolscored" "$WORK/lone/tsctl" --socket "$SOCK" --dir "$STORE" snapshots list
err_has "TOOLSCORED=$WORK/nowhere/toolscored is not an executable file (point it at a toolscored executable, or unset it"
err_one_line
finish
