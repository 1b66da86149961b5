#!/bin/sh
# A drift of an argument of a megabyte and more (past what one value may
# take in a report): the check is FAILED, as any drift, its report saying
# which values it cut and how long they were, its observation kept (the
# review queue lists it); the run counts it; tsctl accept makes it the
# baseline, which the same calls then pass.
set -u
B=${TS_BUILD_DIR:-$(pwd)/build}
DAEMON=$B/toolscored
TSCTL=$B/tsctl
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-big-drift.XXXXXX") || exit 1
daemon_pid=""
cleanup() {
	[ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
failures=0
fail() {
	echo "test_big_drift: FAIL: $*" >&2
	failures=$((failures + 1))
}
export TOOLSCORE_SOCKET="$work/d.sock"
export TOOLSCORE_DIR="$work/store"
export TOOLSCORED=/bin/false
unset CI TOOLSCORE_RUN TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE TOOLSCORE_TIMEOUT TOOLSCORE_NO_JSON_DIFF
"$DAEMON" --socket "$TOOLSCORE_SOCKET" --foreground --log-level warn >"$work/daemon.log" 2>&1 &
daemon_pid=$!
i=0
until "$TSCTL" status >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 1000 ] && { fail "the daemon did not answer within 20 s"; exit 1; }
	sleep 0.02
done
# a baseline with an argument of 1.5 MB (one long line of JSON text: the
# unified diff repeats it whole), and calls that change it
python3 - "$work" <<'PY'
import json, sys
for name, ch in (("base", "a"), ("drift", "b")):
    calls = [{"tool": "upload", "args": {"data": "\n".join([ch * 1000] * 1500), "n": 1}}]
    json.dump(calls, open("%s/%s.json" % (sys.argv[1], name), "w"))
PY
"$TSCTL" check big --calls "$work/base.json" >/dev/null 2>&1 || fail "creating the baseline"
"$TSCTL" approve big >/dev/null 2>&1 || fail "approving the baseline"

cat >"$work/cmd.sh" <<EOS
"$TSCTL" check big --calls "$work/drift.json" --json >"$work/check.json" 2>"$work/check.err"
echo \$? >"$work/check.rc"
EOS
"$TSCTL" run --json-report "$work/report.json" -- sh "$work/cmd.sh" >"$work/run.out" 2>&1
echo "test_big_drift: tsctl run: $(cat "$work/run.out")"
python3 - "$work/check.json" <<'PY' || fail "the check: $(head -c 800 "$work/check.json") $(cat "$work/check.err")"
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
grep -q "toolscore: 1 failed" "$work/run.out" || fail "the run does not count the check: $(cat "$work/run.out")"
"$TSCTL" review --list --json >"$work/review.json" 2>&1 || fail "review: $(cat "$work/review.json")"
python3 - "$work/review.json" <<'PY' || fail "the observation was not kept: $(head -c 600 "$work/review.json")"
import json, sys
items = json.load(open(sys.argv[1]))
items = items.get("items", items) if isinstance(items, dict) else items
big = [i for i in items if i["name"] == "big"]
assert big and big[0]["kind"] == "failed" and big[0]["observation"]["outcome"] == "FAILED", big
PY
"$TSCTL" accept big >"$work/accept.out" 2>&1 || fail "accept: $(cat "$work/accept.out")"
"$TSCTL" check big --calls "$work/drift.json" >"$work/out" 2>&1 || fail "after accept: $(head -c 300 "$work/out")"
grep -q PASSED "$work/out" || fail "after accept: $(head -c 300 "$work/out")"

[ "$failures" = 0 ] || exit 1
echo "test_big_drift: ok"
