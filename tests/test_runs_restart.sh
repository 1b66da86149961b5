#!/bin/sh
# Runs that outlive their daemon: a `tsctl run` whose daemon is killed
# (kill -9) between its workers, the next worker auto-starting a new daemon
# that reads the run back from the state directory: one summary line and
# one report counting the checks before and after. A torn last line (a
# crash mid-append) is ignored and cut off. A graceful stop mid-run, a
# closed run read back for orphans and reports, a run marked partial (the
# refusal of orphans --delete without --force), retention (--runs-keep,
# --runs-max-age), the state directory refused when unusable, and a
# status that reports the runs' memory.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

export XDG_STATE_HOME="$WORK/state"
RUNS="$XDG_STATE_HOME/toolscore/runs"
start_daemon
export TOOLSCORED TSCTL DATA SOCK STORE WORK

# Approved baselines a, b; c, d drift.
for n in a b c d; do t 0 ts check "$n" --calls "$DATA/x1.json"; done
t 0 ts approve --all

# --- kill -9 between workers ----------------------------------------------------
cat >"$WORK/suite.sh" <<'SUITE'
set -e
ck() { "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$@" >/dev/null || true; }
TOOLSCORE_TEST=tests/test_x.py::test_before ck a --calls "$DATA/x1.json"
TOOLSCORE_TEST=tests/test_x.py::test_before ck c --calls "$DATA/x2.json"
TOOLSCORE_TEST=tests/test_x.py::test_before ck new1 --calls "$DATA/x1.json"
kill -9 "$DAEMON_PID"
i=0
while kill -0 "$DAEMON_PID" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 400 ] && { echo "suite: the daemon outlived kill -9 by 20 s" >&2; exit 1; }
	sleep 0.05
done
# A crash in the middle of an append leaves a torn last line.
printf '{"name": "torn", "outcome": "PASS' >>"$RUNS/$TOOLSCORE_RUN/checks.jsonl"
# The next workers start a new daemon (the client library) and find the run.
TOOLSCORE_TEST=tests/test_x.py::test_after ck b --calls "$DATA/x1.json"
TOOLSCORE_TEST=tests/test_x.py::test_after ck d --calls "$DATA/x2.json"
TOOLSCORE_TEST=tests/test_x.py::TestY::test_z[p] ck new2 --calls "$DATA/x1.json"
"$TSCTL" --socket "$SOCK" status --json >"$WORK/status.json"
SUITE
export DAEMON_PID RUNS
t 1 ts run --junit "$WORK/r.xml" --json-report "$WORK/r.json" -- sh "$WORK/suite.sh"
DAEMON_PID=""
same "$(printf '%s\n' "$OUT" | grep '^toolscore: [0-9]')" \
	"toolscore: 2 snapshots created (pending approval), 2 passed, 2 failed" "one summary across the restart"
err_has "FAILED checks"
python3 - "$WORK/r.json" "$WORK/status.json" <<'PY' || fail "the report across the restart"
import json, sys
r = json.load(open(sys.argv[1]))
names = [c["name"] for c in r["checks"]]
assert names == ["a", "c", "new1", "b", "d", "new2"], names
assert all(c["duration_ms"] > 0 for c in r["checks"])
assert [c["outcome"] for c in r["checks"]] == ["PASSED", "FAILED", "CREATED", "PASSED", "FAILED", "CREATED"]
assert r["counts"]["checks"] == 6 and r["complete"], r
assert "torn" not in r["referenced"]
fail = [c for c in r["checks"] if c["outcome"] == "FAILED"]
assert all("Expected vs Actual" in c["report"] for c in fail)
assert fail[0]["report"] == fail[1]["report"]
s = json.load(open(sys.argv[2]))
assert s["runs_open"] == 1 and s["runs_memory"] > 0, s
PY
t 0 xmllint --noout --schema "$TS_SOURCE_DIR/tests/data/junit.xsd" "$WORK/r.xml"
grep -q 'classname="tests.test_x.TestY" name="test_z\[p\]"' "$WORK/r.xml" || fail "pytest node id split"
RUN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["id"])' "$WORK/r.json")
# The two FAILED checks drifted alike: their report text is stored once.
same "$(grep -c '"report": ' "$RUNS/$RUN/checks.jsonl")" "1" "one report text on disk"
# The torn line was cut off: the file ends with a whole line.
[ "$(tail -c 1 "$RUNS/$RUN/checks.jsonl" | od -An -c | tr -d ' ')" = '\n' ] || fail "torn line left"
grep -q torn "$RUNS/$RUN/checks.jsonl" && fail "torn line kept"

# --- a closed run is read back by the next daemon ------------------------------------
t 0 ts stop
wait_until 20 "the daemon removing its socket after stop" socket_gone "$SOCK"
start_daemon
t 0 ts orphans --run "$RUN"
same "$OUT" "No orphaned snapshots." "every snapshot was checked"
err_has "orphans of run $RUN (sh)" && err_has "6 checks, complete"
t 0 ts check extra --calls "$DATA/x1.json"
t 0 ts orphans
same "$OUT" "extra" "the last run's orphans after a restart"

# --- a graceful stop in the middle of a run --------------------------------------------
t 0 ts run --no-fail-on-findings -- sh -c '
	"$0" --socket "$SOCK" --dir "$STORE" check a --calls "$1" >/dev/null &&
	"$0" --socket "$SOCK" stop >/dev/null && i=0 &&
	while [ -S "$SOCK" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done && [ ! -S "$SOCK" ] &&
	"$0" --socket "$SOCK" --dir "$STORE" check b --calls "$1" >/dev/null' "$TSCTL" "$DATA/x1.json"
same "$(printf '%s\n' "$OUT" | grep '^toolscore: [0-9]')" "toolscore: 2 passed" "summary across a stop"
DAEMON_PID=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["pid"])' "$("$TSCTL" --socket "$SOCK" status --json)")

# --- partial runs: orphans are listed, not deleted without --force ---------------------
make_py
cat >"$WORK/partial.py" <<'PY'
import os, sys
from toolscored import _native
c = _native.Client(os.environ["TOOLSCORE_SOCKET"])
try:
    c.run_partial(os.environ["TOOLSCORE_RUN"], [])
    sys.exit("an empty reason list was accepted")
except Exception as e:
    assert "reason" in str(e), e
c.run_partial(os.environ["TOOLSCORE_RUN"], ["-k 'not slow'", "2 test(s) deselected"])
c.run_partial(os.environ["TOOLSCORE_RUN"], ["-k 'not slow'"])
PY
t 0 ts run --json-report "$WORK/p.json" -- sh -c '"$0" check a --calls "$1" && "$WORK/py" "$2"' "$TSCTL" "$DATA/x1.json" "$WORK/partial.py"
python3 - "$WORK/p.json" <<'PY' || fail "the partial run's report"
import json, sys
r = json.load(open(sys.argv[1]))
assert not r["complete"] and r["runs"][0]["partial"], r["runs"]
assert r["runs"][0]["partial_reasons"] == ["-k 'not slow'", "2 test(s) deselected"], r["runs"]
PY
t 1 ts orphans --delete --yes
err_has "partial (-k 'not slow'; 2 test(s) deselected)" && err_has "--force"
out_has "extra"
t 0 ts snapshots list --json
case "$OUT" in *'"extra"'*) ;; *) fail "a partial run's orphans were deleted" ;; esac
t 0 ts orphans --delete --yes --force
out_has "Deleted"
t 2 ts orphans --force && err_has "--delete"

# --- a closed run takes no partial mark; unknown runs -----------------------------------
PRUN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["id"])' "$WORK/p.json")
t 1 env TOOLSCORE_RUN="$PRUN" "$WORK/py" "$WORK/partial.py"

# --- retention: --runs-keep and --runs-max-age ------------------------------------------
t 0 ts stop
wait_until 20 "the daemon removing its socket after stop" socket_gone "$SOCK"
start_daemon --runs-keep 2
for i in 1 2 3; do t 0 ts run -- true; done
same "$(ls "$RUNS" | wc -l | tr -d ' ')" "2" "--runs-keep 2 keeps two closed runs"
t 1 ts orphans --run "$RUN" && err_has "no run '$RUN'"
t 0 ts stop
wait_until 20 "the daemon removing its socket after stop" socket_gone "$SOCK"
sleep 1.1
start_daemon --runs-max-age 1s
same "$(ls "$RUNS" | wc -l | tr -d ' ')" "0" "--runs-max-age drops old runs at start"
t 0 ts stop
wait_until 20 "the daemon removing its socket after stop" socket_gone "$SOCK"
DAEMON_PID=""

# --- the state directory -------------------------------------------------------------
t 2 "$TOOLSCORED" --state-dir relative/dir --socket "$SOCK" && err_has "absolute"
mkdir -m 0755 "$WORK/open-state"
t 1 "$TOOLSCORED" --foreground --state-dir "$WORK/open-state" --socket "$SOCK" &&
	err_has "state directory" && err_has "chmod 700"
[ -S "$SOCK" ] && fail "a daemon without a state directory took the socket"
t 2 "$TOOLSCORED" --runs-keep 0 && err_has "--runs-keep"
t 2 "$TOOLSCORED" --runs-max-age 7x && err_has "--runs-max-age"

finish
