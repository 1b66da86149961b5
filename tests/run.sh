#!/bin/sh
# Runs every test program: $BUILD/tests/test_* (Check suites, fork mode, each
# test with a timeout) and tests/test_*.sh (shell-driven integration tests).
# Prints Check's own summary per suite and one closing line for the whole run.
# TS_TESTS="name ..." runs only those (e.g. TS_TESTS="test_json test_store.sh").
set -u
BUILD=${BUILD:-build}
export BUILD
export TS_BUILD_DIR="$(cd "$BUILD" && pwd)"
export TS_SOURCE_DIR="$(pwd)"
export CK_FORK=yes
export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-60}
# The suite must not see a CI flag from the machine that runs it: tests that
# need CI set it themselves.
unset CI TOOLSCORE_RUN TOOLSCORE_SOCKET TOOLSCORE_DIR TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE
# Daemons the tests start keep their state (runs, kept observations) in a
# directory of this run, never in the user's.
XDG_STATE_HOME=$(mktemp -d /tmp/ts-test-state-XXXXXX) || exit 1
export XDG_STATE_HOME
# Each test's output is kept: the run's last lines repeat the end of every
# failed test's output, so a log cut to its tail still says what failed.
TS_TEST_LOGS=$(mktemp -d /tmp/ts-test-logs-XXXXXX) || exit 1
trap 'rm -rf "$XDG_STATE_HOME" "$TS_TEST_LOGS"' EXIT INT TERM
passed=0
failed=0
failed_names=""
# A test that exits 77 did not run here, and said why: counted and listed
# as skipped, never as passed (the package tests under a sanitizer build).
skipped_names=""
selected() {
	[ -z "${TS_TESTS:-}" ] && return 0
	for wanted in $TS_TESTS; do [ "$wanted" = "$1" ] && return 0; done
	return 1
}
for t in "$BUILD"/tests/test_*; do
	case "$t" in *.o|*.d) continue ;; esac
	[ -x "$t" ] || continue
	name=$(basename "$t")
	selected "$name" || continue
	echo "== $name"
	start=$(date +%s)
	if "$t" >"$TS_TEST_LOGS/$name" 2>&1; then ok=1; else ok=0; fi
	cat "$TS_TEST_LOGS/$name"
	if [ "$ok" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_names="$failed_names $name"; fi
	echo "-- $name: $(($(date +%s) - start)) s"
done
# make stress (TS_STRESS=1) adds the long hardening scripts tests/stress_*.sh.
shell_tests="tests/test_*.sh"
[ -n "${TS_STRESS:-}" ] && shell_tests="$shell_tests tests/stress_*.sh"
for t in $shell_tests; do
	[ -f "$t" ] || continue
	name=$(basename "$t")
	selected "$name" || continue
	echo "== $name"
	start=$(date +%s)
	timeout 900 sh "$t" >"$TS_TEST_LOGS/$name" 2>&1
	rc=$?
	cat "$TS_TEST_LOGS/$name"
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
	elif [ "$rc" = 77 ]; then
		skipped_names="$skipped_names $name"
	else
		failed=$((failed + 1))
		failed_names="$failed_names $name"
	fi
	echo "-- $name: $(($(date +%s) - start)) s"
done
for name in $failed_names; do
	echo "== the end of $name's output:"
	tail -n 30 "$TS_TEST_LOGS/$name"
done
[ -n "$failed_names" ] && echo "failed:$failed_names"
[ -n "$skipped_names" ] && echo "skipped (each said why above):$skipped_names"
echo "$passed passed, $failed failed$([ -n "$skipped_names" ] && echo ", $(echo $skipped_names | wc -w) skipped")"
[ "$failed" = 0 ]
