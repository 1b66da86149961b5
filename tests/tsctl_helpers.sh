# Shared helpers of the tsctl shell tests (sourced, not run on its own).
# Each test gets its own temporary directory holding its socket and store,
# and stops the daemon it started on exit, also on failure.
set -u
: "${TS_BUILD_DIR:=$(pwd)/build}"
: "${TS_SOURCE_DIR:=$(pwd)}"
TSCTL="$TS_BUILD_DIR/tsctl"
TOOLSCORED="$TS_BUILD_DIR/toolscored"
export TOOLSCORED
DATA="$TS_SOURCE_DIR/tests/data/tsctl"
COMPAT="$TS_SOURCE_DIR/tests/data/compat"
unset CI TOOLSCORE_RUN TOOLSCORE_SOCKET TOOLSCORE_DIR TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE TOOLSCORE_TEST NO_COLOR
unset TOOLSCORE_TIMEOUT
unset COLUMNS TOOLSCORE_REPORT_WIDTH TOOLSCORE_NO_JSON_DIFF
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tsctl-test.XXXXXX")
SOCK="$WORK/d.sock"
STORE="$WORK/snapshots"
DAEMON_PID=""
FAILURES=0
CHECKS=0

cleanup() {
	if [ -n "$DAEMON_PID" ]; then
		# (CONT first: a test may have stopped it, test_deadlines.sh)
		kill -CONT "$DAEMON_PID" 2>/dev/null
		kill "$DAEMON_PID" 2>/dev/null
		i=0
		while kill -0 "$DAEMON_PID" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$DAEMON_PID" 2>/dev/null
	fi
	# A daemon auto-started on our socket: stop it by its own pid file/lock.
	if [ -S "$SOCK" ]; then
		"$TSCTL" --socket "$SOCK" stop >/dev/null 2>&1
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	FAILURES=$((FAILURES + 1))
	printf 'FAIL: %s\n' "$*" >&2
}

# t CODE CMD... : run CMD (stdout -> $OUT, stderr -> $ERR), expect exit CODE.
t() {
	want=$1
	shift
	CHECKS=$((CHECKS + 1))
	"$@" >"$WORK/out" 2>"$WORK/err"
	got=$?
	OUT=$(cat "$WORK/out")
	ERR=$(cat "$WORK/err")
	if [ "$got" != "$want" ]; then
		fail "exit $got, wanted $want: $*"
		printf '  stdout: %s\n  stderr: %s\n' "$(head -c 2000 "$WORK/out")" "$(head -c 2000 "$WORK/err")" >&2
		return 1
	fi
	return 0
}

# has TEXT WHAT : $OUT (or $ERR with "err") contains TEXT.
out_has() {
	CHECKS=$((CHECKS + 1))
	case "$OUT" in *"$1"*) return 0 ;; esac
	fail "stdout lacks '$1'"
	printf '  stdout: %s\n' "$OUT" >&2
	return 1
}
err_has() {
	CHECKS=$((CHECKS + 1))
	case "$ERR" in *"$1"*) return 0 ;; esac
	fail "stderr lacks '$1'"
	printf '  stderr: %s\n' "$ERR" >&2
	return 1
}
err_lacks() {
	CHECKS=$((CHECKS + 1))
	case "$ERR" in *"$1"*) fail "stderr has '$1'"; printf '  stderr: %s\n' "$ERR" >&2; return 1 ;; esac
	return 0
}
out_lacks() {
	CHECKS=$((CHECKS + 1))
	case "$OUT" in *"$1"*) fail "stdout has '$1'"; printf '  stdout: %s\n' "$OUT" >&2; return 1 ;; esac
	return 0
}
# The stderr of a usage error is exactly one line.
err_one_line() {
	CHECKS=$((CHECKS + 1))
	n=$(printf '%s\n' "$ERR" | wc -l)
	[ -n "$ERR" ] && [ "$n" = 1 ] && return 0
	fail "stderr is not one line ($n): $ERR"
	return 1
}
same() {
	CHECKS=$((CHECKS + 1))
	[ "$1" = "$2" ] && return 0
	fail "${3:-values differ}: got '$1', wanted '$2'"
	return 1
}

# widest WIDTH: every line of the report in $OUT (after the outcome line
# and its blank line) takes at most WIDTH terminal cells (counted as code
# points; the reports' wide characters are tested in C).
widest() {
	CHECKS=$((CHECKS + 1))
	w=$(printf '%s\n' "$OUT" | python3 -c 'import sys
text = sys.stdin.read().split("\n\n", 1)[-1]
print(max((len(l) for l in text.split("\n")), default=0))')
	[ "$w" -le "$1" ] && return 0
	fail "a line of $w characters, wider than $1"
	printf '  stdout: %s\n' "$OUT" >&2
	return 1
}

# A JSON field of $OUT via python3 when present, else a crude grep.
json_get() {
	printf '%s' "$OUT" | python3 -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v=v[int(k)] if isinstance(v,list) else v[k]
print(json.dumps(v) if not isinstance(v,str) else v)' "$1" 2>/dev/null
}

# wait_until SECONDS WHAT CMD...: run CMD every 50 ms until it succeeds;
# after SECONDS without success the test fails saying WHAT did not happen
# (return 1). The deadline only ends a test whose condition never comes: on
# a loaded machine the condition comes late, and the test waits for it.
wait_until() {
	limit=$1
	what=$2
	shift 2
	CHECKS=$((CHECKS + 1))
	polls=$((limit * 20))
	until "$@"; do
		polls=$((polls - 1))
		if [ "$polls" -le 0 ]; then
			fail "$what: not within $limit s"
			return 1
		fi
		sleep 0.05
	done
	return 0
}

# Start a daemon on $SOCK (foreground mode, in the background here).
start_daemon() {
	"$TOOLSCORED" --socket "$SOCK" --foreground --log-level warn "$@" >"$WORK/daemon.log" 2>&1 &
	DAEMON_PID=$!
	i=0
	while [ ! -S "$SOCK" ] && [ $i -lt 400 ]; do
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.05
		i=$((i + 1))
	done
	if [ ! -S "$SOCK" ]; then
		echo "cannot start toolscored:" >&2
		cat "$WORK/daemon.log" >&2
		exit 1
	fi
}

ts() { "$TSCTL" --socket "$SOCK" --dir "$STORE" "$@"; }

# socket_gone PATH / socket_there PATH: for wait_until.
socket_gone() { [ ! -S "$1" ]; }
socket_there() { [ -S "$1" ]; }

# binaries_for UID...: the programs run as other uids are copies of tsctl
# and toolscored in $WORK/bin (0755, removed with $WORK), since the build
# directory may be closed to them (a checkout in a 0700 folder, or under
# /root); TSCTL and TOOLSCORED name the copies from then on, and $WORK is
# opened (0755) for those uids to enter. Each UID must be able to run
# them: where it cannot (a TMPDIR that only its owner may enter), the test
# says so in one line and exits 1, never passes without the checks.
binaries_for() {
	command -v setpriv >/dev/null 2>&1 || {
		echo "$(basename "$0"): FAIL: the checks as another user need setpriv (util-linux), which is not installed" >&2
		exit 1
	}
	chmod 755 "$WORK"
	mkdir -p "$WORK/bin"
	cp "$TSCTL" "$WORK/bin/tsctl"
	cp "$TOOLSCORED" "$WORK/bin/toolscored"
	chmod 755 "$WORK/bin" "$WORK/bin/tsctl" "$WORK/bin/toolscored"
	TSCTL=$WORK/bin/tsctl
	TOOLSCORED=$WORK/bin/toolscored
	# (through env: setpriv itself execs with root's capabilities still
	# held, so only a program it starts looks the path up as the uid)
	for uid in "$@"; do
		setpriv --reuid="$uid" --regid="$uid" --clear-groups env "$TSCTL" --version >/dev/null 2>&1 || {
			echo "$(basename "$0"): FAIL: uid $uid cannot run $TSCTL: the checks as another user need a TMPDIR other users can enter (${TMPDIR:-/tmp})" >&2
			exit 1
		}
	done
}

finish() {
	if [ "$FAILURES" != 0 ]; then
		echo "$(basename "$0"): $FAILURES of $CHECKS checks failed" >&2
		exit 1
	fi
	echo "$(basename "$0"): all $CHECKS checks passed"
	exit 0
}

# $OUT re-serialized compactly (json.dumps defaults), "" when not JSON.
out_compact() {
	printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))' 2>/dev/null
}
# The sorted top-level keys of the JSON object in $OUT.
out_keys() {
	printf '%s' "$OUT" | python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin))))' 2>/dev/null
}

# $WORK/py: python3 with this build's Python package (build/python) importable;
# for a sanitizer build, with the sanitizer runtime preloaded as
# tests/test_python.sh does (a sanitized extension cannot load otherwise).
# A file, not a function, so commands run by `tsctl run` can use it too.
# SANITIZED is set when the build is a sanitizer build.
SANITIZED=""
if nm -D "$TOOLSCORED" 2>/dev/null | grep -q "__asan_"; then
	SANITIZED=1
fi
make_py() {
	preload=""
	[ -n "$SANITIZED" ] && preload="LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0"
	cat >"$WORK/py" <<PY
#!/bin/sh
exec env PYTHONPATH="$TS_BUILD_DIR/python" PYTHONDONTWRITEBYTECODE=1 $preload python3 "\$@"
PY
	chmod +x "$WORK/py"
}

# paste_line TEXT LABEL: the line of TEXT that follows a line ending in
# LABEL (the command a failure prints under "To accept the observed
# calls:"), as a person copies it: its indentation and a runner's prefix
# (pytest's "E   ") cut.
paste_line() {
	printf '%s\n' "$1" | awk -v label="$2" 'found { sub(/^(E )?[ \t]*/, ""); print; exit }
		{ n = length(label); if (n && substr($0, length($0) - n + 1) == label) found = 1 }'
}

# paste_into SHELL LINE [WHERE]: LINE typed (pasted) into an interactive
# SHELL (bash -i or zsh -i: history expansion on), in an empty directory
# made in WHERE (default $WORK; a Node project, for `npx tsctl`), with tsctl
# on PATH and TOOLSCORE_SOCKET / TOOLSCORE_DIR as exported by the caller.
# The shell's status is $PASTE_RC; a file the line made in the directory (a
# redirection, a glob, an injection) fails the check.
paste_into() {
	CHECKS=$((CHECKS + 1))
	pdir="${3:-$WORK}/.paste"
	rm -rf "$pdir" "$WORK/home"
	mkdir "$pdir" "$WORK/home"
	: >"$WORK/home/.zshrc"
	(cd "$pdir" && printf '%s\n' "$2" |
		env HOME="$WORK/home" HISTFILE=/dev/null PATH="$TS_BUILD_DIR:$PATH" "$1" -i \
			>"$WORK/paste.out" 2>&1)
	PASTE_RC=$?
	stray=$(ls -A "$pdir")
	rm -rf "$pdir"
	[ -z "$stray" ] && return 0
	fail "pasting into $1 made files: $stray (line: $2)"
	return 1
}

# start_other EXE TSCTL SOCKET [auto]: EXE (another build's daemon,
# other_build) on SOCKET, as if a client had started it with "auto", until
# TSCTL's status is answered there; OTHER_PID is its pid. A daemon that
# exits instead fails the test (return 1), its output shown.
start_other() {
	if [ "${4:-}" = auto ]; then
		TOOLSCORED_AUTO_STARTED=1 "$1" --socket "$3" --foreground --log-level warn >"$WORK/other.log" 2>&1 &
	else
		"$1" --socket "$3" --foreground --log-level warn >"$WORK/other.log" 2>&1 &
	fi
	OTHER_PID=$!
	i=0
	while ! "$2" --socket "$3" status >/dev/null 2>&1 && [ $i -lt 200 ]; do
		kill -0 "$OTHER_PID" 2>/dev/null || { fail "the other build did not start: $(cat "$WORK/other.log")"; return 1; }
		sleep 0.05
		i=$((i + 1))
	done
}

# other_build FILE DEST VERSION: DEST is FILE (an executable of this build)
# with its version string VERSION rewritten in place to one of the same
# length that differs in its last character, printed: "another build" for
# the tests of docs/packaging.md, speaking the same protocol.
other_build() {
	python3 - "$1" "$2" "$3" <<'PY'
import os, sys
src, dst, old = sys.argv[1:]
new = old[:-1] + ("1" if old[-1] == "0" else "0")
data = open(src, "rb").read()
assert data.count(old.encode()) > 0, "no version string in " + src
open(dst, "wb").write(data.replace(old.encode(), new.encode()))
os.chmod(dst, 0o755)
print(new)
PY
}

