#!/bin/sh
# A drift of an argument of a megabyte and more (past what one value may
# take in a report): the check is FAILED, as any drift, its report saying
# which values it cut and how long they were, its observation kept (the
# review queue lists it); the run counts it; tsctl accept makes it the
# baseline, which the same calls then pass.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"
export TOOLSCORE_SOCKET="$SOCK" TOOLSCORE_DIR="$STORE"
start_daemon
export TOOLSCORED=/bin/false # a daemon that died is not started again behind the test
# a baseline with an argument of 1.5 MB (one long line of JSON text: the
# unified diff repeats it whole), and calls that change it
python3 - "$WORK" <<'PY'
import json, sys
for name, ch in (("base", "a"), ("drift", "b")):
    calls = [{"tool": "upload", "args": {"data": "\n".join([ch * 1000] * 1500), "n": 1}}]
    json.dump(calls, open("%s/%s.json" % (sys.argv[1], name), "w"))
PY
"$TSCTL" check big --calls "$WORK/base.json" >/dev/null 2>&1 || fail "creating the baseline"
"$TSCTL" approve big >/dev/null 2>&1 || fail "approving the baseline"

cat >"$WORK/cmd.sh" <<EOS
"$TSCTL" check big --calls "$WORK/drift.json" --json >"$WORK/check.json" 2>"$WORK/check.err"
echo \$? >"$WORK/check.rc"
EOS
"$TSCTL" run --json-report "$WORK/report.json" -- sh "$WORK/cmd.sh" >"$WORK/run.out" 2>&1
echo "test_big_drift: tsctl run: $(cat "$WORK/run.out")"
python3 - "$WORK/check.json" <<'PY' || fail "the check: $(head -c 800 "$WORK/check.json") $(cat "$WORK/check.err")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["outcome"] == "FAILED", r.get("outcome")
rep = r["report"]
assert "Expected vs Actual" in rep
line = [l for l in rep.splitlines() if "args.data:" in l]
assert line and "(longer than 1048576 bytes)" in line[0], rep[:2000]
assert len(rep.encode()) <= 4 << 20, len(rep)
print("test_big_drift: FAILED, a report of %d bytes: %s" % (len(rep.encode()), line[0].strip()))
PY
grep -q "toolscore: 1 failed" "$WORK/run.out" || fail "the run does not count the check: $(cat "$WORK/run.out")"
"$TSCTL" review --list --json >"$WORK/review.json" 2>&1 || fail "review: $(cat "$WORK/review.json")"
python3 - "$WORK/review.json" <<'PY' || fail "the observation was not kept: $(head -c 600 "$WORK/review.json")"
import json, sys
items = json.load(open(sys.argv[1]))
items = items.get("items", items) if isinstance(items, dict) else items
big = [i for i in items if i["name"] == "big"]
assert big and big[0]["kind"] == "failed" and big[0]["observation"]["outcome"] == "FAILED", big
PY
"$TSCTL" accept big >"$WORK/accept.out" 2>&1 || fail "accept: $(cat "$WORK/accept.out")"
"$TSCTL" check big --calls "$WORK/drift.json" >"$WORK/out" 2>&1 || fail "after accept: $(head -c 300 "$WORK/out")"
grep -q PASSED "$WORK/out" || fail "after accept: $(head -c 300 "$WORK/out")"

[ "$FAILURES" = 0 ] || exit 1
echo "test_big_drift: ok"
