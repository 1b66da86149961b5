#!/bin/sh
# tsctl run and tsctl record -- CMD: 8 worker processes checking snapshots in
# parallel under one run give one summary line that counts them all, a JUnit
# file listing every check (valid against tests/data/junit.xsd, escaped,
# skipped/failure/error by outcome, pytest's classname/name split, measured
# times), a JSON report, and the name two tests claimed; CMD's exit code is
# passed through, except that a green CMD with FAILED checks, CI errors or
# duplicate claims exits 1 (--no-fail-on-findings keeps CMD's code).
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

start_daemon

# The worker: checks its snapshots as test "test_worker_$1"; worker 1 and 2
# both claim "shared_name"; with DRIFT set, worker 3 checks w3_c drifted.
cat >"$WORK/worker.sh" <<'WORKER'
w=$1
export TOOLSCORE_TEST="tests/test_workers.py::test_worker_$w"
rc=0
for s in a b c; do
	calls="$DATA/x1.json"
	[ -n "${DRIFT:-}" ] && [ "$w" = 3 ] && [ "$s" = c ] && calls="$DATA/x2.json"
	"$TSCTL" check "w${w}_$s" --calls "$calls" >/dev/null || rc=1
done
if [ "$w" = 4 ]; then
	"$TSCTL" check 'w4_<&"x">' --calls "$DATA/x1.json" >/dev/null || rc=1
fi
if [ "$w" = 1 ] || [ "$w" = 2 ]; then
	"$TSCTL" check shared_name --calls "$DATA/x1.json" >/dev/null || rc=1
fi
exit $rc
WORKER
cat >"$WORK/suite.sh" <<'SUITE'
pids=""
for w in 1 2 3 4 5 6 7 8; do
	sh "$WORK/worker.sh" $w &
	pids="$pids $!"
done
rc=0
for p in $pids; do wait $p || rc=1; done
exit $rc
SUITE
export DATA TSCTL WORK

# --- first run: everything is new; a duplicate claim makes the green suite red ---------
t 1 ts run --junit "$WORK/r1.xml" --json-report "$WORK/r1.json" -- sh "$WORK/suite.sh"
out_has "toolscore: 26 snapshots created (pending approval), 1 pending"
same "$(printf '%s\n' "$OUT" | grep -c '^toolscore: [0-9]')" "1" "one summary line"
out_has "shared_name" && out_has "claimed by more than one test"
out_has "test_worker_1" && out_has "test_worker_2"
err_has "claimed by more than one test" && err_has "--no-fail-on-findings"
t 0 xmllint --noout --schema "$TS_SOURCE_DIR/tests/data/junit.xsd" "$WORK/r1.xml"
python3 - "$WORK/r1.xml" <<'PY' || fail "JUnit of the first run"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = root.findall("testsuite")
assert len(suites) == 2, [s.get("name") for s in suites]  # the run, the duplicate claims
run = suites[0]
cases = run.findall("testcase")
assert len(cases) == 27, len(cases)
assert run.get("tests") == "27" and run.get("skipped") == "27", run.attrib
# CREATED and PENDING are skipped, never a green pass.
assert all(c.find("skipped") is not None for c in cases)
assert all(float(c.get("time")) > 0 for c in cases), [c.get("time") for c in cases]
for w in range(1, 9):
    mine = [c for c in cases if c.get("name") == "test_worker_%d" % w]
    assert all(c.get("classname") == "tests.test_workers" for c in mine)
    assert len(mine) == (4 if w in (1, 2, 4) else 3), (w, len(mine))
msgs = " ".join(c.find("skipped").get("message") for c in cases)
assert 'w4_<&"x">' in msgs, msgs
assert "PENDING" in msgs and "CREATED" in msgs
dup = suites[1].findall("testcase")
assert [c.get("name") for c in dup] == ["shared_name"], dup
assert dup[0].find("error").get("type") == "duplicate_claim"
PY
python3 - "$WORK/r1.json" <<'PY' || fail "JSON report of the first run"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["format"] == "toolscore-run-report" and r["version"] == 1
assert len(r["checks"]) == 27, len(r["checks"])
assert r["counts"]["created"] == 26 and r["counts"]["pending"] == 1, r["counts"]
assert [d["name"] for d in r["duplicates"]] == ["shared_name"], r["duplicates"]
assert r["complete"] and r["runs"][0]["label"] == "sh"
assert "w3_b" in r["referenced"] and len(r["referenced"]) == 26
PY
t 0 ts approve --all
out_has "Approved 26 snapshot(s)."

# --- second run: replays, one drifts; CMD fails so run exits 1 ---------------------
t 1 env DRIFT=1 "$TSCTL" --socket "$SOCK" --dir "$STORE" run --junit "$WORK/r2.xml" --html "$WORK/r2.html" -- sh "$WORK/suite.sh"
out_has "toolscore: 26 passed, 1 failed"
out_has "shared_name"
# --html: the run's page, self-contained, with the drift and how to accept it
python3 - "$WORK/r2.html" <<'PY' || fail "HTML page of the second run"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
assert page.lower().startswith("<!doctype html"), page[:40]
assert "26 passed, 1 failed" in page
assert "tsctl accept" in page
assert not re.search(r'(src|href)\s*=\s*["\']?https?:', page, re.I)
PY
t 0 xmllint --noout --schema "$TS_SOURCE_DIR/tests/data/junit.xsd" "$WORK/r2.xml"
python3 - "$WORK/r2.xml" <<'PY' || fail "JUnit of the second run"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
run = root.findall("testsuite")[0]
cases = run.findall("testcase")
assert len(cases) == 27, len(cases)
failed = [c for c in cases if c.find("failure") is not None]
assert [c.get("name") for c in failed] == ["test_worker_3"], [c.get("name") for c in failed]
f = failed[0].find("failure")
assert f.get("type") == "FAILED"
assert "Expected vs Actual Tool Calls" in f.text, f.text
assert "  calls[0] " in f.text and "  args.x: " in f.text, f.text
assert "\x1b" not in f.text
assert run.get("failures") == "1" and run.get("tests") == "27" and run.get("skipped") == "0"
PY

# --- the workers' reports: the width measured here, --no-json-diff passed on -------
t 0 env COLUMNS=77 "$TSCTL" --socket "$SOCK" --dir "$STORE" run -- sh -c 'echo "width=$TOOLSCORE_REPORT_WIDTH json=${TOOLSCORE_NO_JSON_DIFF:-on}"'
out_has "width=77 json=on"
t 0 "$TSCTL" --socket "$SOCK" --dir "$STORE" run --no-json-diff -- sh -c 'echo "width=$TOOLSCORE_REPORT_WIDTH json=${TOOLSCORE_NO_JSON_DIFF:-on}"'
out_has "width=100 json=1"
t 0 env COLUMNS=200 "$TSCTL" --socket "$SOCK" --dir "$STORE" record --no-json-diff -- sh -c 'echo "width=$TOOLSCORE_REPORT_WIDTH json=${TOOLSCORE_NO_JSON_DIFF:-on}"'
out_has "width=200 json=1"

# --- --test names the claiming test (beats TOOLSCORE_TEST) --------------------------
t 0 env TOOLSCORE_TEST=from_env "$TSCTL" --socket "$SOCK" --dir "$STORE" run --no-fail-on-findings --json-report "$WORK/t.json" -- \
	sh -c '"$0" check dup --calls "$1" --test test_a && "$0" check dup --calls "$1" --test test_b && "$0" check dup --calls "$1"' "$TSCTL" "$DATA/x1.json"
out_has "snapshot 'dup' was claimed by more than one test: "
python3 - "$WORK/t.json" <<'PY' || fail "--test in the JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
assert [c["test"] for c in r["checks"]] == ["test_a", "test_b", "from_env"], r["checks"]
assert sorted(r["duplicates"][0]["tests"]) == ["from_env", "test_a", "test_b"], r["duplicates"]
PY
t 0 ts snapshots rm dup --yes

# --- exit codes ----------------------------------------------------------------------
# A green command does not hide a red snapshot: FAILED, CI errors, duplicates.
t 1 ts run -- sh -c '"$0" check w3_c --calls "$1" || true' "$TSCTL" "$DATA/x2.json"
out_has "1 failed" && err_has "FAILED checks or CI errors"
t 0 ts run --no-fail-on-findings -- sh -c '"$0" check w3_c --calls "$1" || true' "$TSCTL" "$DATA/x2.json"
t 1 ts run -- sh -c 'CI=true "$0" check never_recorded --calls "$1" || true' "$TSCTL" "$DATA/x1.json"
out_has "1 failed"
[ -e "$STORE/never_recorded-$(printf 'never_recorded' | sha1sum | cut -c1-8).json" ] &&
	fail "CI wrote a snapshot"
t 5 ts run -- sh -c '"$0" check w3_c --calls "$1"; exit 5' "$TSCTL" "$DATA/x2.json"
t 0 ts run -- sh -c '"$0" check w3_c --calls "$1"' "$TSCTL" "$DATA/x1.json"
out_has "1 passed"
t 7 ts run -- sh -c 'exit 7'
same "$OUT" "" "nothing happened: no summary line"
t 0 ts run -- sh -c 'test -n "$TOOLSCORE_RUN" && test "$TOOLSCORE_SOCKET" = "$0"' "$SOCK"
t 0 ts run -- sh -c 'test "$TOOLSCORE_DIR" = "$0"' "$(cd "$STORE" && pwd -P)"
(cd "$WORK" && "$TSCTL" --socket d.sock --dir snapshots run -- sh -c 'test "$TOOLSCORE_SOCKET" = "$0/d.sock"' "$(pwd)") ||
	fail "a relative --socket is exported as an absolute path"
t 127 ts run -- "$WORK/no-such-command" && err_has "no-such-command"
t 2 ts run && err_one_line
t 2 ts run -- && err_one_line
t 2 ts run true && err_one_line
# missing folders are made, as pytest's --junitxml and the plugin's options make them
t 0 ts run --junit "$WORK/nodir/x.xml" --json-report "$WORK/nodir/deeper/x.json" \
	--html "$WORK/made/x.html" -- true
t 0 xmllint --noout --schema "$TS_SOURCE_DIR/tests/data/junit.xsd" "$WORK/nodir/x.xml"
t 0 grep -q '"format": "toolscore-run-report"' "$WORK/nodir/deeper/x.json"
t 0 grep -qi "^<!doctype html" "$WORK/made/x.html"
: >"$WORK/afile"
t 2 ts run --junit "$WORK/afile/x.xml" -- touch "$WORK/ran" && err_one_line &&
	err_has "cannot write $WORK/afile/x.xml: $WORK/afile is not a directory"
[ -e "$WORK/ran" ] && fail "run started CMD although its report file cannot be written"
t 2 ts run --junit && err_one_line
# A report that cannot be written whole fails the run with one line.
if [ -w /dev/full ]; then
	t 1 ts run --junit /dev/full -- true && err_one_line && err_has "cannot write /dev/full"
	t 1 ts run --json-report /dev/full -- true && err_one_line && err_has "cannot write /dev/full"
	t 1 ts run --html /dev/full -- true && err_one_line && err_has "cannot write /dev/full"
fi
t 2 ts run --html "$WORK/afile/sub/x.html" -- true && err_one_line && err_has "$WORK/afile is not a directory"

# --- record -- CMD ------------------------------------------------------------------------
t 0 ts record -- sh -c 'test "$TOOLSCORE_RECORD" = 1 && test -z "${TOOLSCORE_RECORD_UPDATE:-}" && test -n "$TOOLSCORE_RUN"'
t 0 ts record --update -- sh -c 'test "$TOOLSCORE_RECORD" = 1 && test "$TOOLSCORE_RECORD_UPDATE" = 1'
t 3 ts record -- sh -c 'exit 3'
t 0 ts record --update -- sh -c '"$0" check w3_c --calls "$1"' "$TSCTL" "$DATA/x2.json"
out_has "toolscore: 1 updated"
t 0 ts record -- sh -c '"$0" check rec_new --calls "$1"' "$TSCTL" "$DATA/x1.json"
out_has "toolscore: 1 snapshot created (pending approval)"
t 2 ts record --name x -- true && err_one_line

# --- orphans ---------------------------------------------------------------------------
t 0 ts run --json-report "$WORK/r3.json" -- sh -c '"$0" check w1_a --calls "$1"' "$TSCTL" "$DATA/x1.json"
RUN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["id"])' "$WORK/r3.json")
t 0 ts orphans --json --run "$RUN"
err_has "orphans of run $RUN (sh)" && err_has "1 check, complete"
python3 -c 'import json,sys; n=json.loads(sys.argv[1]); assert "w1_a" not in n and "w2_b" in n, n' "$OUT" || fail "orphans: $OUT"
t 0 ts orphans --run "$RUN"
out_has "w2_b" && out_lacks "w1_a"
t 2 ts orphans --delete --run "$RUN" && err_one_line
t 1 ts orphans --run no-such-run
t 0 env TOOLSCORE_RUN="$RUN" "$TSCTL" --socket "$SOCK" --dir "$STORE" orphans
out_has "w2_b" && out_lacks "w1_a"
t 0 ts orphans
out_has "w2_b" && out_lacks "w1_a"
t 1 "$TSCTL" --socket "$SOCK" --dir "$WORK/other" orphans && err_has "no snapshot store at $WORK/other (given with --dir)"
mkdir "$WORK/other"
t 2 "$TSCTL" --socket "$SOCK" --dir "$WORK/other" orphans && err_one_line && err_has "--run"
t 0 ts orphans --delete --yes --run "$RUN"
out_has "Deleted 26 orphaned snapshot(s)."
t 0 ts snapshots list --json
same "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(" ".join(s["name"] for s in json.load(sys.stdin)))')" "w1_a" "orphans deleted"

finish
