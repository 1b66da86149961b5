# Helpers of the package tests (tests/test_dist_*.sh), sourced after
# tsctl_helpers.sh: they install what `make dist` wrote into dist/, as a
# user would, and use nothing of the build tree but that.

S=$TS_SOURCE_DIR
DIST="$S/dist"
VERSION=$(sed -n 's/^#define TS_VERSION "\(.*\)".*/\1/p' "$TS_BUILD_DIR/gen/ts_version.h")
NAME=$(basename "$0")

# What ships is never sanitized: under make asan these tests do not run, and
# say so (exit 77: tests/run.sh lists them as skipped). make check runs them.
if [ -n "$SANITIZED" ]; then
	echo "$NAME: not run in a sanitizer build: it tests what make dist ships, which is never sanitized (make check runs it; docs/packaging.md)"
	exit 77
fi
[ -n "$VERSION" ] || { echo "$NAME: no version in $TS_BUILD_DIR/gen/ts_version.h (make)" >&2; exit 1; }

# dist_file GLOB: the one file of dist/ of this build's version matching GLOB
dist_file() {
	# shellcheck disable=SC2086
	set -- $DIST/$1
	if [ "$#" != 1 ] || [ ! -f "$1" ]; then
		echo "$NAME: dist/ has no single $(basename "$1") of version $VERSION (make dist)" >&2
		exit 1
	fi
	echo "$1"
}

# PATH without the build tree and without any directory holding a toolscored
# or tsctl (a system install): what the tests run must find the package's own.
CLEAN_PATH=""
old_ifs=$IFS
IFS=:
for d in $PATH; do
	case "$d" in "" | "$TS_BUILD_DIR"* | "$S"/*) continue ;; esac
	[ -e "$d/toolscored" ] || [ -e "$d/tsctl" ] && continue
	CLEAN_PATH="${CLEAN_PATH:+$CLEAN_PATH:}$d"
done
IFS=$old_ifs
unset TOOLSCORED PYTHONPATH PYTHONHOME PYTEST_ADDOPTS PYTEST_PLUGINS VIRTUAL_ENV
# No daemon of the developer's: every socket and state directory is this test's.
export TOOLSCORE_SOCKET="$WORK/run/toolscored.sock"
export XDG_STATE_HOME="$WORK/state"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
mkdir -p "$WORK/run" "$WORK/state"
chmod 700 "$WORK/run"

# Stop the daemon an auto-start left on our socket (the helpers' cleanup
# does too); $1 is a tsctl that can reach it.
stop_autostarted() {
	"$1" --socket "$TOOLSCORE_SOCKET" stop >/dev/null 2>&1 || true
}

# The daemon serving our socket: its executable, read from /proc.
served_by() {
	pid=$("$1" --socket "$TOOLSCORE_SOCKET" status --json 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])' 2>/dev/null)
	[ -n "$pid" ] && readlink "/proc/$pid/exe"
}

# ELF checks of what ships, printed: only glibc's libraries are needed.
GLIBC_LIBS="linux-vdso.so.1 libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2 ld-linux-aarch64.so.1 /lib/ld-linux-aarch64.so.1"
glibc_only() { # FILE...
	for f in "$@"; do
		CHECKS=$((CHECKS + 1))
		echo "ldd $(basename "$f"):"
		ldd "$f" | sed 's/^/    /'
		for lib in $(ldd "$f" | awk '{print $1}'); do
			case " $GLIBC_LIBS " in *" $lib "*) ;; *) fail "$f needs $lib (only glibc's libraries may be needed)" ;; esac
		done
	done
}
pie() { # FILE...
	for f in "$@"; do
		CHECKS=$((CHECKS + 1))
		file -L "$f" | grep -q "pie executable" || fail "$f is not a position-independent executable: $(file -L "$f")"
	done
}

# pypi_reachable: pip's index answers (PIP_INDEX_URL, else PyPI)
pypi_reachable() {
	python3 - "${PIP_INDEX_URL:-https://pypi.org/simple}" <<'PY' >/dev/null 2>&1
import sys, urllib.request
urllib.request.urlopen(sys.argv[1].rstrip("/") + "/pytest/", timeout=10).read(1)
PY
}

# make_venv PYTHON DIR REQUIREMENTS: a fresh virtualenv with the pinned test
# tools from PyPI; when PyPI cannot be reached, one that sees the system's
# (Debian's pytest and pytest-xdist) instead, said in one line. Sets VENV_PY.
make_venv() {
	rm -rf "$2"
	if pypi_reachable; then
		"$1" -m venv "$2" || { fail "cannot make a virtualenv with $1 (python3-venv)"; return 1; }
		"$2/bin/python" -m pip install -q --require-hashes -r "$3" ||
			{ fail "pip cannot install the pinned $(basename "$3")"; return 1; }
	else
		echo "$NAME: PyPI is not reachable: the virtualenv uses the system's pytest and pytest-xdist (--system-site-packages) instead of $(basename "$3")"
		"$1" -m venv --system-site-packages "$2" || { fail "cannot make a virtualenv with $1"; return 1; }
		"$2/bin/python" -c 'import pytest, xdist' 2>/dev/null ||
			{ fail "$1 has no pytest and pytest-xdist of its own either (python3-pytest, python3-pytest-xdist)"; return 1; }
	fi
	VENV_PY="$2/bin/python"
}

# The venv's files, for "pip uninstall leaves nothing behind" (caches of
# Python and pytest for other packages left out: they are theirs).
venv_files() {
	(cd "$1" && find . -name __pycache__ -prune -o -print | LC_ALL=C sort)
}

# plugin_tests SITE: the plugin's own tests (shims/python/tests) pass with
# $VENV_PY, the package installed in SITE, from $WORK with PATH clean
# (TS_BUILD_DIR unset: conftest.py takes the package's bin/), and every
# daemon their fixtures start (each writes its executable into a log) is
# the package's own.
plugin_tests() {
	: >"$WORK/served"
	(cd "$WORK" && env -u TS_BUILD_DIR PATH="$CLEAN_PATH" TSPY_SERVED_LOG="$WORK/served" \
		"$VENV_PY" -m pytest -q -p no:cacheprovider --basetemp="$WORK/pt" "$S/shims/python/tests") \
		>"$WORK/suite.out" 2>&1
	rc=$?
	tail -3 "$WORK/suite.out"
	CHECKS=$((CHECKS + 1))
	[ "$rc" = 0 ] || { fail "the plugin's tests failed in the venv (exit $rc)"; tail -60 "$WORK/suite.out" >&2; }
	served=$(sort -u "$WORK/served")
	echo "the plugin's tests were served by: $served"
	same "$served" "$(realpath "$1/toolscored/bin/toolscored")" "the daemon of the plugin's tests"
}

# another_build_round RUN TSCTL DAEMON: the session RUN (a command) replaces
# an idle daemon of another build that a client started, and uses one
# started by hand, saying so once (in $OUT/$ERR).
another_build_round() {
	OTHER_VERSION=$(other_build "$3" "$WORK/other-toolscored" "$VERSION")
	start_other "$WORK/other-toolscored" "$2" "$TOOLSCORE_SOCKET" auto || return
	t 0 $1
	case "$OUT$ERR" in *"another build"*) fail "a replaced daemon was said" ;; esac
	same "$(served_by "$2")" "$(realpath "$3")" "the daemon after the replacement"
	kill -0 "$OTHER_PID" 2>/dev/null && fail "the idle daemon of another build still runs"
	stop_autostarted "$2"
	start_other "$WORK/other-toolscored" "$2" "$TOOLSCORE_SOCKET" || return
	t 0 $1
	CHECKS=$((CHECKS + 1))
	n=$(printf '%s\n%s\n' "$OUT" "$ERR" | grep -c "^toolscore: note: the daemon at $TOOLSCORE_SOCKET is toolscored $OTHER_VERSION, this package is $VERSION (another build;")
	[ "$n" = 1 ] || { fail "$n notes of the other build, wanted one"; printf '%s\n%s\n' "$OUT" "$ERR" | tail -20 >&2; }
	same "$(served_by "$2")" "$WORK/other-toolscored" "a daemon of another build started by hand is used"
	stop_autostarted "$2"
	wait "$OTHER_PID" 2>/dev/null
}
