#!/bin/sh
# A run's records on a state directory that fills up (a small tmpfs; needs
# root to mount it): a check its run cannot record is never acknowledged as
# recorded (tsctl check fails with the error; the run is marked incomplete,
# naming how many were lost and why), a record cut short is cut back, so
# the records written once space came back are whole lines of their own,
# and after a daemon restart in the middle of the run the report (summary,
# JUnit, JSON) counts exactly the checks recorded and says the run is not
# complete.
set -u
B=${TS_BUILD_DIR:-$(pwd)/build}
DAEMON=$B/toolscored
TSCTL=$B/tsctl
if [ "$(id -u)" != 0 ]; then
	echo "test_runs_full: FAIL: it needs root to mount a tmpfs: run make check as root" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ts-runs-full.XXXXXX") || exit 1
mounted=""
cleanup() {
	[ -f "$work/pid" ] && kill -9 "$(cat "$work/pid")" 2>/dev/null
	wait 2>/dev/null
	[ -n "$mounted" ] && { umount "$mounted" 2>/dev/null || umount -l "$mounted" 2>/dev/null; }
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
failures=0
fail() {
	echo "test_runs_full: FAIL: $*" >&2
	failures=$((failures + 1))
}
export TOOLSCORE_SOCKET="$work/d.sock"
export TOOLSCORE_DIR="$work/store"
export TOOLSCORED=/bin/false
unset CI TOOLSCORE_RUN TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE TOOLSCORE_TIMEOUT
mkdir "$work/fs"
mount -t tmpfs -o size=256k,mode=0700 tmpfs "$work/fs" || { echo "test_runs_full: FAIL: cannot mount a tmpfs" >&2; exit 1; }
mounted="$work/fs"
export STATE="$work/fs/state"
mkdir -m 700 "$STATE"

# start: a daemon on the socket with its state on the tmpfs; its pid in $work/pid
cat >"$work/start.sh" <<EOS
"$DAEMON" --socket "$TOOLSCORE_SOCKET" --state-dir "$STATE" --foreground --log-level warn \
	>>"$work/daemon.log" 2>&1 &
echo \$! >"$work/pid"
i=0
until "$TSCTL" status >/dev/null 2>&1; do
	i=\$((i + 1))
	[ \$i -gt 1000 ] && { echo "the daemon did not answer within 20 s" >&2; exit 1; }
	sleep 0.02
done
EOS
sh "$work/start.sh" || { fail "the daemon did not start"; exit 1; }
printf '[{"tool": "search", "args": {"q": "a"}}]\n' >"$work/calls.json"
# each drift other calls, and large: its record needs pages of its own
for i in 1 2 3 4; do
	python3 -c 'import sys; print("[{\"tool\": \"search\", \"args\": {\"q\": \"%s\"}}]" % (sys.argv[1] * 6000))' "$i" \
		>"$work/drift$i.json"
done
"$TSCTL" check base --calls "$work/calls.json" >/dev/null 2>&1 || fail "creating the baseline failed"
"$TSCTL" approve base >/dev/null 2>&1 || fail "approving the baseline failed"

# The run: a FAILED check recorded; the state directory full: two FAILED
# checks its run cannot record; space back: one more, recorded; the daemon
# restarted; the run closed by tsctl run, which writes the reports.
cat >"$work/cmd.sh" <<EOS
echo "\$TOOLSCORE_RUN" >"$work/run"
"$TSCTL" check base --calls "$work/drift1.json" >"$work/c1" 2>&1
dd if=/dev/zero of="$work/fs/filler" bs=4k 2>/dev/null
dd if=/dev/zero of="$work/fs/filler2" bs=64 2>/dev/null
"$TSCTL" check base --calls "$work/drift2.json" >"$work/c2" 2>&1; echo \$? >"$work/c2.rc"
"$TSCTL" check base --calls "$work/drift3.json" >"$work/c3" 2>&1; echo \$? >"$work/c3.rc"
rm -f "$work/fs/filler" "$work/fs/filler2"
"$TSCTL" check base --calls "$work/drift4.json" >"$work/c4" 2>&1
kill "\$(cat "$work/pid")"
while kill -0 "\$(cat "$work/pid")" 2>/dev/null; do sleep 0.02; done
sh "$work/start.sh"
exit 0
EOS
"$TSCTL" run --junit "$work/junit.xml" --json-report "$work/report.json" -- sh "$work/cmd.sh" \
	>"$work/run.out" 2>&1
echo "test_runs_full: tsctl run exited $?: $(cat "$work/run.out")"
run=$(cat "$work/run")
for c in c2 c3; do
	echo "test_runs_full: $c (state directory full): exit $(cat "$work/$c.rc"): $(head -c 600 "$work/$c")"
	[ "$(cat "$work/$c.rc")" != 0 ] || fail "$c: exit 0"
	# an error, not the drift report of a check recorded
	grep -q "^tsctl check: the check of 'base' was done (FAILED) but run $run could not record this check" \
		"$work/$c" || fail "$c: the error does not say so: $(head -c 600 "$work/$c")"
	grep -q "Expected vs Actual" "$work/$c" && fail "$c: answered as a check recorded"
	grep -q "No space left on device" "$work/$c" || fail "$c: the error does not say why"
done
grep -q FAILED "$work/c1" || fail "c1: $(cat "$work/c1")"
grep -q FAILED "$work/c4" || fail "c4 (space back): $(cat "$work/c4")"
# the records: whole lines, the two recorded checks and nothing else
python3 - "$STATE/runs/$run/checks.jsonl" <<'PY' || fail "checks.jsonl is not two whole records"
import json, sys
data = open(sys.argv[1], "rb").read()
assert data.endswith(b"\n"), "a torn last line"
lines = data.decode().splitlines()
assert len(lines) == 2, "%d lines" % len(lines)
for l in lines:
    assert json.loads(l)["outcome"] == "FAILED"
PY
# the reports of the closed run, read back by the restarted daemon
grep -q 'failures="2"' "$work/junit.xml" || fail "JUnit: $(grep '<testsuite ' "$work/junit.xml")"
grep -q 'name="toolscore.complete" value="false"' "$work/junit.xml" || fail "JUnit: the run is said complete"
grep -q '2 check(s) of this run could not be written' "$work/junit.xml" || fail "JUnit: no reason given"
python3 - "$work/report.json" <<'PY' || fail "the JSON report: $(head -c 600 "$work/report.json")"
import json, sys
r = json.load(open(sys.argv[1]))
run = r["runs"][0]
assert run["partial"] is True, run
assert any("2 check(s) of this run could not be written" in x for x in run["partial_reasons"]), run
assert r["counts"]["failed"] == 2, r["counts"]
PY
grep -q "could not be written" "$work/run.out" || fail "tsctl run did not say the run is incomplete: $(cat "$work/run.out")"

[ "$failures" = 0 ] || exit 1
echo "test_runs_full: ok"
