#!/bin/sh
# A run's records on a state directory that fills up (a small tmpfs; needs
# root to mount it): a check its run cannot record is never acknowledged as
# recorded (tsctl check fails with the error; the run is marked incomplete,
# naming how many were lost and why), a record cut short is cut back, so
# the records written once space came back are whole lines of their own,
# and after a daemon restart in the middle of the run the report (summary,
# JUnit, JSON) counts exactly the checks recorded and says the run is not
# complete.
if [ "$(id -u)" != 0 ]; then
	echo "test_runs_full: FAIL: it needs root to mount a tmpfs: run make check as root" >&2
	exit 1
fi
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"
DAEMON=$TOOLSCORED
mounted=""
# the daemon (started by start.sh, also from within the run) by its pid
# file, then the tmpfs, then the helpers' cleanup
cleanup_mount() {
	[ -f "$WORK/pid" ] && kill -9 "$(cat "$WORK/pid")" 2>/dev/null
	[ -n "$mounted" ] && { umount "$mounted" 2>/dev/null || umount -l "$mounted" 2>/dev/null; }
	cleanup
}
trap cleanup_mount EXIT
export TOOLSCORE_SOCKET="$SOCK" TOOLSCORE_DIR="$STORE"
export TOOLSCORED=/bin/false # a daemon that died is not started again behind the test
mkdir "$WORK/fs"
mount -t tmpfs -o size=256k,mode=0700 tmpfs "$WORK/fs" || { echo "test_runs_full: FAIL: cannot mount a tmpfs" >&2; exit 1; }
mounted="$WORK/fs"
export STATE="$WORK/fs/state"
mkdir -m 700 "$STATE"

# start: a daemon on the socket with its state on the tmpfs; its pid in $WORK/pid
cat >"$WORK/start.sh" <<EOS
"$DAEMON" --socket "$TOOLSCORE_SOCKET" --state-dir "$STATE" --foreground --log-level warn \
	>>"$WORK/daemon.log" 2>&1 &
echo \$! >"$WORK/pid"
i=0
until "$TSCTL" status >/dev/null 2>&1; do
	i=\$((i + 1))
	[ \$i -gt 1000 ] && { echo "the daemon did not answer within 20 s" >&2; exit 1; }
	sleep 0.02
done
EOS
sh "$WORK/start.sh" || { fail "the daemon did not start"; exit 1; }
printf '[{"tool": "search", "args": {"q": "a"}}]\n' >"$WORK/calls.json"
# each drift other calls, and large: its record needs pages of its own
for i in 1 2 3 4; do
	python3 -c 'import sys; print("[{\"tool\": \"search\", \"args\": {\"q\": \"%s\"}}]" % (sys.argv[1] * 6000))' "$i" \
		>"$WORK/drift$i.json"
done
"$TSCTL" check base --calls "$WORK/calls.json" >/dev/null 2>&1 || fail "creating the baseline failed"
"$TSCTL" approve base >/dev/null 2>&1 || fail "approving the baseline failed"

# The run: a FAILED check recorded; the state directory full: two FAILED
# checks its run cannot record; space back: one more, recorded; the daemon
# restarted; the run closed by tsctl run, which writes the reports.
cat >"$WORK/cmd.sh" <<EOS
echo "\$TOOLSCORE_RUN" >"$WORK/run"
"$TSCTL" check base --calls "$WORK/drift1.json" >"$WORK/c1" 2>&1
dd if=/dev/zero of="$WORK/fs/filler" bs=4k 2>/dev/null
dd if=/dev/zero of="$WORK/fs/filler2" bs=64 2>/dev/null
"$TSCTL" check base --calls "$WORK/drift2.json" >"$WORK/c2" 2>&1; echo \$? >"$WORK/c2.rc"
"$TSCTL" check base --calls "$WORK/drift3.json" >"$WORK/c3" 2>&1; echo \$? >"$WORK/c3.rc"
rm -f "$WORK/fs/filler" "$WORK/fs/filler2"
"$TSCTL" check base --calls "$WORK/drift4.json" >"$WORK/c4" 2>&1
kill "\$(cat "$WORK/pid")"
while kill -0 "\$(cat "$WORK/pid")" 2>/dev/null; do sleep 0.02; done
sh "$WORK/start.sh"
exit 0
EOS
"$TSCTL" run --junit "$WORK/junit.xml" --json-report "$WORK/report.json" -- sh "$WORK/cmd.sh" \
	>"$WORK/run.out" 2>&1
echo "test_runs_full: tsctl run exited $?: $(cat "$WORK/run.out")"
run=$(cat "$WORK/run")
for c in c2 c3; do
	echo "test_runs_full: $c (state directory full): exit $(cat "$WORK/$c.rc"): $(head -c 600 "$WORK/$c")"
	[ "$(cat "$WORK/$c.rc")" != 0 ] || fail "$c: exit 0"
	# an error, not the drift report of a check recorded
	grep -q "^tsctl check: the check of 'base' was done (FAILED) but run $run could not record this check" \
		"$WORK/$c" || fail "$c: the error does not say so: $(head -c 600 "$WORK/$c")"
	grep -q "Expected vs Actual" "$WORK/$c" && fail "$c: answered as a check recorded"
	grep -q "No space left on device" "$WORK/$c" || fail "$c: the error does not say why"
done
grep -q FAILED "$WORK/c1" || fail "c1: $(cat "$WORK/c1")"
grep -q FAILED "$WORK/c4" || fail "c4 (space back): $(cat "$WORK/c4")"
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
grep -q 'failures="2"' "$WORK/junit.xml" || fail "JUnit: $(grep '<testsuite ' "$WORK/junit.xml")"
grep -q 'name="toolscore.complete" value="false"' "$WORK/junit.xml" || fail "JUnit: the run is said complete"
grep -q '2 check(s) of this run could not be written' "$WORK/junit.xml" || fail "JUnit: no reason given"
python3 - "$WORK/report.json" <<'PY' || fail "the JSON report: $(head -c 600 "$WORK/report.json")"
import json, sys
r = json.load(open(sys.argv[1]))
run = r["runs"][0]
assert run["partial"] is True, run
assert any("2 check(s) of this run could not be written" in x for x in run["partial_reasons"]), run
assert r["counts"]["failed"] == 2, r["counts"]
PY
grep -q "could not be written" "$WORK/run.out" || fail "tsctl run did not say the run is incomplete: $(cat "$WORK/run.out")"

[ "$FAILURES" = 0 ] || exit 1
echo "test_runs_full: ok"
