#!/bin/sh
# Reports CI reads and shards joined by them: three "CI machines" (three
# daemons on three sockets over three copies of one checkout's store) each
# run their share of the suite with `tsctl run --json-report`; `tsctl
# report merge` joins the three reports into one summary, one JUnit file
# (valid against tests/data/junit.xsd) and one JSON report, finds the name
# two tests claimed on different shards, and fails on findings;
# `tsctl orphans --from-reports` lists the snapshots no shard referenced and
# refuses --delete while a shard was partial. Repeats: one name checked 5
# times with 2 varying args gives 5 observations, its distinct call lists,
# pass^k and pass@k in the JSON report.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

export XDG_STATE_HOME="$WORK/state"
make_py
calls() { printf '[{"tool": "search", "args": {"q": "%s"}}, {"tool": "book", "args": {"id": %s}}]' "$1" "$2" >"$WORK/c.json"; }

# One checkout's store, approved, copied to three machines.
start_daemon
for n in a1 a2 a3 b1 b2 c1 shared orphan1 orphan2; do
	calls "$n" 1
	t 0 ts check "$n" --calls "$WORK/c.json"
done
t 0 ts approve --all
t 0 ts stop
wait_until 20 "the daemon removing its socket after stop" socket_gone "$SOCK"
DAEMON_PID=""
for m in 1 2 3; do cp -a "$STORE" "$WORK/store$m"; done

# shard M: its daemon, its store, its checks (as `tsctl check` in a test job).
PIDS=""
shard() {
	m=$1
	shift
	"$TOOLSCORED" --socket "$WORK/s$m.sock" --foreground --log-level warn >>"$WORK/d$m.log" 2>&1 &
	PIDS="$PIDS $!"
	wait_until 20 "shard $m's daemon listening" socket_there "$WORK/s$m.sock" || return 1
	cat >"$WORK/shard$m.sh"
	t "$@" "$TSCTL" --socket "$WORK/s$m.sock" --dir "$WORK/store$m" run \
		--json-report "$WORK/shard$m.json" --junit "$WORK/shard$m.xml" -- sh "$WORK/shard$m.sh"
}
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; cleanup' EXIT
export TSCTL WORK
FNS=$(cat <<'EOF'
ck() {
	f="$WORK/in.$$.$(date +%s%N).json"
	printf '[{"tool": "search", "args": {"q": "%s"}}, {"tool": "book", "args": {"id": %s}}]' "$2" "$3" >"$f"
	TOOLSCORE_TEST=$4 "$TSCTL" check "$1" --calls "$f" >/dev/null || true
}
EOF
)

shard 1 1 <<EOF
$FNS
ck a1 a1 1 tests/test_a.py::test_a1
ck a2 a2 1 tests/test_a.py::test_a2
ck a3 a3 1 tests/test_a.py::TestA::test_a3[x]
ck shared shared 1 tests/test_a.py::test_shared
# The repeats: test_a1 checks a1 five more times, 2 args varying.
for v in "flights 1" "flights 2" "flights 1" "trains 3" "flights 2"; do
	set -- \$v
	ck a1 "\$1" "\$2" tests/test_a.py::test_a1
done
EOF
shard 2 1 <<EOF
$FNS
ck b1 b1 1 tests/test_b.py::test_b1
ck b2 b2 2 tests/test_b.py::test_b2
ck shared shared 1 tests/test_b.py::test_other
EOF
shard 3 1 <<EOF
$FNS
ck c1 c1 1 tests/test_c.py::test_c1
CI=true ck never never 1 tests/test_c.py::test_never
"$WORK/py" -c 'import os; from toolscored import _native; _native.Client(os.environ["TOOLSCORE_SOCKET"]).run_partial(os.environ["TOOLSCORE_RUN"], ["-k test_c"])'
EOF
for m in 1 2 3; do
	t 0 xmllint --noout --schema "$TS_SOURCE_DIR/tests/data/junit.xsd" "$WORK/shard$m.xml"
done

# --- the repeats of shard 1 -------------------------------------------------------------
python3 - "$WORK/shard1.json" <<'PY' || fail "repeats in the JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
reps = {x["name"]: x for x in r["repeats"]}
assert list(reps) == ["a1"], list(reps)
a = reps["a1"]
assert a["observations"] == 6, a            # the first check and the five repeats
assert a["outcomes"] == {"PASSED": 1, "FAILED": 5}, a["outcomes"]
assert a["k"] == 6 and a["pass^k"] is False and a["pass@k"] is True, a
assert a["distinct"] == 4 and a["unlisted"] == 0, a
counts = {json.dumps(l["calls"]): l["count"] for l in a["lists"]}
args = sorted((l["calls"][0]["args"]["q"], l["calls"][1]["args"]["id"], l["count"]) for l in a["lists"])
assert args == [("a1", 1, 1), ("flights", 1, 2), ("flights", 2, 2), ("trains", 3, 1)], args
# Each check names its list; the lists are the checks' calls.
ids = [c["calls_id"] for c in r["checks"] if c["name"] == "a1"]
assert len(ids) == 6 and len(set(ids)) == 4, ids
assert {l["id"] for l in a["lists"]} == set(ids)
# Each FAILED check names its baseline; the report carries both lists.
for c in r["checks"]:
    if c["outcome"] != "FAILED":
        assert c["baseline_id"] is None, c
        continue
    assert r["calls"][c["baseline_id"]] == [{"tool": "search", "args": {"q": "a1"}}, {"tool": "book", "args": {"id": 1}}]
    assert r["calls"][c["calls_id"]] == next(l["calls"] for l in a["lists"] if l["id"] == c["calls_id"])
assert len(r["calls"]) == 4 and r["calls_omitted"] == 0, (len(r["calls"]), r["calls_omitted"])
PY

# --- merging the shards -----------------------------------------------------------------
t 1 "$TSCTL" report merge "$WORK/shard1.json" "$WORK/shard2.json" "$WORK/shard3.json" \
	--junit "$WORK/all.xml" --json-report "$WORK/all.json"
out_has "toolscore: merged 3 reports: 3 runs, 14 checks"
same "$(printf '%s\n' "$OUT" | grep -c '^toolscore: [0-9]')" "1" "one summary line"
out_has "toolscore: 7 passed, 7 failed"
out_has "snapshot 'shared' was claimed by more than one test: tests/test_a.py::test_shared, tests/test_b.py::test_other"
out_has "partial (-k test_c)"
t 0 xmllint --noout --schema "$TS_SOURCE_DIR/tests/data/junit.xsd" "$WORK/all.xml"
python3 - "$WORK/all.xml" "$WORK/all.json" <<'PY' || fail "the merged JUnit and JSON report"
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = root.findall("testsuite")
assert [s.get("id") for s in suites] == ["0", "1", "2", "3"], [s.get("id") for s in suites]
assert sum(int(s.get("tests")) for s in suites[:3]) == 14
assert sum(int(s.get("failures")) for s in suites) == 6      # b2 and the five repeats of a1
assert int(suites[2].get("errors")) == 1                     # ERROR_MISSING_IN_CI on shard 3
dup = suites[3].findall("testcase")
assert [c.get("name") for c in dup] == ["shared"], dup
c = [c for c in suites[0].findall("testcase") if c.get("name") == "test_a3[x]"]
assert c and c[0].get("classname") == "tests.test_a.TestA", c
r = json.load(open(sys.argv[2]))
assert not r["complete"] and len(r["runs"]) == 3
assert r["counts"]["checks"] == 14 and r["counts"]["errors"] == 1
assert sorted(r["referenced"]) == ["a1", "a2", "a3", "b1", "b2", "c1", "never", "shared"], sorted(r["referenced"])
assert [d["name"] for d in r["duplicates"]] == ["shared"]
failed = [c for c in r["checks"] if c["outcome"] == "FAILED"]
assert len(failed) == 6 and all(c["calls_id"] in r["calls"] and c["baseline_id"] in r["calls"] for c in failed)
PY
t 0 "$TSCTL" report merge --no-fail-on-findings "$WORK/shard1.json" "$WORK/shard2.json" "$WORK/shard3.json"
# The merged report merges again, to the same report.
t 1 "$TSCTL" report merge "$WORK/all.json" --json-report "$WORK/again.json"
cmp -s "$WORK/all.json" "$WORK/again.json" || fail "a merged report merged again differs"
# The same shard twice, a file that is no report, a newer version.
t 2 "$TSCTL" report merge "$WORK/shard1.json" "$WORK/shard1.json" && err_has "the same report given twice"
t 2 "$TSCTL" report merge "$WORK/shard1.xml" && err_has "shard1.xml"
sed 's/"version": 1/"version": 9/' "$WORK/shard2.json" >"$WORK/v9.json"
t 2 "$TSCTL" report merge "$WORK/v9.json" && err_has "newer"
t 2 "$TSCTL" report merge && err_one_line
t 2 "$TSCTL" report merge "$WORK/no-such.json" && err_has "no-such.json"
# A clean shard alone passes.
t 0 "$TSCTL" report merge "$WORK/shard2.json" --no-fail-on-findings
t 1 "$TSCTL" report merge "$WORK/shard2.json"

# --- orphans across the shards -----------------------------------------------------------
ORPH="$TSCTL --socket $WORK/s1.sock --dir $WORK/store1 orphans"
t 0 $ORPH --from-reports "$WORK/shard1.json" "$WORK/shard2.json" "$WORK/shard3.json"
same "$OUT" "$(printf 'orphan1\norphan2')" "orphans no shard referenced"
err_has "orphans of run" && err_has "partial (-k test_c)"
same "$(printf '%s\n' "$ERR" | grep -c '^toolscore: orphans of run')" "3" "the three runs used"
t 0 $ORPH --from-reports "$WORK/all.json" --json
same "$OUT" "$(printf '[\n  "orphan1",\n  "orphan2"\n]')" "orphans of the merged report"
# One shard alone would call the other shards' snapshots orphans.
t 0 $ORPH --from-reports "$WORK/shard2.json"
out_has "a2" && out_has "c1"
t 1 $ORPH --from-reports "$WORK/shard1.json" "$WORK/shard2.json" "$WORK/shard3.json" --delete --yes
err_has "--force"
t 0 $ORPH --from-reports "$WORK/shard1.json" "$WORK/shard2.json" --delete --yes
out_has "Deleted 3 orphaned snapshot(s)."
t 2 $ORPH --from-reports && err_has "SHARD.json"
t 2 $ORPH --from-reports "$WORK/shard1.json" --run x && err_has "not both"
t 2 $ORPH --from-reports "$WORK/shard1.xml"

finish
