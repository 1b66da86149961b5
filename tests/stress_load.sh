#!/bin/sh
# Load, long form (make stress): tests/test_load.sh for 60 seconds with the
# daemon's resident memory required to level off.
TS_LOAD_SECONDS=${TS_LOAD_SECONDS:-60}
TS_LOAD_RSS=1
export TS_LOAD_SECONDS TS_LOAD_RSS
exec sh "$(dirname "$0")/test_load.sh"
