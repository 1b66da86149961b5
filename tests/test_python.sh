#!/bin/sh
# The Python package's tests (shims/python/tests, pytest + pytester +
# pytest-xdist, Debian's /usr/bin/python3): the plugin end to end against a
# real daemon, value conversion, the API. The package under test is
# $BUILD/python, found through PYTHONPATH exactly as an installed one is
# (its pytest11 entry point loads the plugin). Under a sanitizer build the
# module is instrumented: the ASan runtime is preloaded into every Python
# process (the interpreter is not instrumented; its own allocations are
# not leak-checked). tests/test_python_compat.sh runs its differential tests
# through this script with TSPY_PYTHON (a venv's interpreter) and
# TSPY_TESTS (their directory below shims/python/tests).
set -eu
BUILD=${BUILD:-build}
B=$(cd "$BUILD" && pwd)
PY=${TSPY_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || { echo "test_python: $PY is missing (Debian's python3)" >&2; exit 1; }
"$PY" -c 'import pytest, xdist' 2>/dev/null ||
	{ echo "test_python: python3-pytest and python3-pytest-xdist are needed (scripts/deps.sh test)" >&2; exit 1; }
mod=$(ls "$B"/python/toolscored/_native*.so 2>/dev/null | head -1)
[ -n "$mod" ] || { echo "test_python: $B/python has no built module (make)" >&2; exit 1; }
if nm -D "$mod" 2>/dev/null | grep -q "__asan_"; then
	asan=$(${CC:-cc} -print-file-name=libasan.so)
	[ -f "$asan" ] || { echo "test_python: the ASan runtime $asan is missing" >&2; exit 1; }
	export LD_PRELOAD="$asan"
	export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fi
export PYTHONPATH="$B/python"
export TS_BUILD_DIR="$B"
export PYTHONDONTWRITEBYTECODE=1
unset PYTEST_ADDOPTS PYTEST_PLUGINS
tmp=$(mktemp -d /tmp/tspy-tests.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
# not exec: the trap removes the directory once pytest is done
rc=0
"$PY" -m pytest -q -p no:cacheprovider --basetemp="$tmp/base" \
	-o cache_dir="$tmp/cache" "${TS_SOURCE_DIR:-.}/shims/python/tests${TSPY_TESTS:+/$TSPY_TESTS}" \
	${TS_PYTEST_ARGS:-} || rc=$?
exit "$rc"
