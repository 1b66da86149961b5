#!/bin/sh
# Crash consistency, long form (make stress): tests/test_crash.sh with 20
# kill -9 rounds instead of 5.
TS_CRASH_ROUNDS=${TS_CRASH_ROUNDS:-20}
export TS_CRASH_ROUNDS
exec sh "$(dirname "$0")/test_crash.sh"
