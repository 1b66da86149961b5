#!/bin/sh
# Repeats as flakiness through a real daemon and tsctl (docs/rules.md,
# "Repeats"): one name checked 5 times in one run with 2 varying arguments
# gives the flaky line after the summary line and the JSON report's entry;
# `tsctl rules suggest` prints the rules, `--write` merges them into an
# existing config.json keeping its other keys and their order (creates it
# when absent, refuses a malformed one and leaves it as it was); the next
# run with the same variation is stable (PASSED, not flaky); flakiness
# before approval (PENDING, "pending approval"); flaky names fail tsctl run
# only in CI; pytest-repeat-style ids are repeats, not duplicate claims;
# tsctl report merge prints the flaky lines of its shards.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

start_daemon
CONFIG="$WORK/config.json" # beside the snapshot root $STORE
NAME="tests/t.py::test_book"
LINE="flaky: $NAME — 5 runs, 5 distinct; varied: calls[1].args.query (3 values), calls[1].args.request_id (5 values)"

i=1
for q in "weather in Paris" "weather in Paris" "Paris weather" "weather in Paris" "weather Paris"; do
	printf '[{"tool": "lookup", "args": {"city": "Paris"}}, {"tool": "search", "args": {"query": "%s", "request_id": %d}}]\n' \
		"$q" $((100 + i)) >"$WORK/c$i.json"
	i=$((i + 1))
done
cat >"$WORK/five.sh" <<EOF
for i in 1 2 3 4 5; do
	"$TSCTL" --socket "$SOCK" --dir "$STORE" check "$NAME" --calls "$WORK/c\$i.json" >/dev/null
done
exit 0
EOF

# --- the baseline, then one run observing the name 5 times ----------------------------
t 0 ts check "$NAME" --calls "$WORK/c1.json"
t 0 ts approve "$NAME"
t 1 ts run --json-report "$WORK/r1.json" -- sh "$WORK/five.sh"
out_has "toolscore: 1 passed, 4 failed
$LINE"
RUN1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["id"])' "$WORK/r1.json")
python3 - "$WORK/r1.json" "$LINE" <<'PY' || fail "the JSON report's flaky entry"
import json, sys
doc = json.load(open(sys.argv[1]))
assert len(doc["flaky"]) == 1, doc["flaky"]
f = doc["flaky"][0]
assert list(f) == ["name", "observations", "distinct", "k", "pass^k", "pass@k", "pending",
                   "reordered", "varied", "line"], list(f)
assert (f["name"], f["observations"], f["distinct"], f["k"]) == ("tests/t.py::test_book", 5, 5, 5), f
assert f["pass^k"] is False and f["pass@k"] is True and f["pending"] is False and f["reordered"] is False
assert [v["path"] for v in f["varied"]] == ["calls[1].args.query", "calls[1].args.request_id"], f
q = f["varied"][0]
assert q["values"] == 3 and q["samples"][0] == {"value": "weather in Paris", "count": 3}, q
assert {s["value"] for s in q["samples"]} == {"weather in Paris", "Paris weather", "weather Paris"}
assert f["varied"][1]["values"] == 5 and "present" not in f["varied"][1]
assert f["line"] == sys.argv[2], f["line"]
assert doc["repeats"][0]["rules"] is None
PY
# report merge prints the flaky lines of the reports it joins
t 1 ts report merge "$WORK/r1.json"
out_has "$LINE"

# --- rules suggest: printed, then written into an existing config.json ----------------
SUGGESTED='{"ignore": ["search.args.query", "search.args.request_id"]}'
t 0 ts rules suggest --run "$RUN1"
same "$(out_compact)" "$SUGGESTED" "the suggested rules"
err_has "$LINE"
[ -e "$CONFIG" ] && fail "rules suggest without --write wrote $CONFIG"
printf '{\n  "redact": ["*.args.api_key"],\n  "order": "strict",\n  "tools": {"log_event": {"ignore": true}},\n  "ignore": ["*.args.trace_id"]\n}\n' >"$CONFIG"
t 0 ts rules suggest --run "$RUN1" --write
err_has "merged the rules into $CONFIG"
python3 - "$CONFIG" <<'PY' || fail "config.json after --write"
import json, sys
text = open(sys.argv[1]).read()
c = json.loads(text)
assert list(c) == ["redact", "order", "tools", "ignore"], list(c)
assert c["redact"] == ["*.args.api_key"] and c["order"] == "strict"
assert c["tools"] == {"log_event": {"ignore": True}}
assert c["ignore"] == ["*.args.trace_id", "search.args.query", "search.args.request_id"], c
assert text.endswith("}\n") and text.startswith('{\n  "redact": [\n    "*.args.api_key"\n  ],')
PY
cp "$CONFIG" "$WORK/config.after"
t 0 ts rules suggest --run "$RUN1" --write
err_has "already holds these rules"
t 0 cmp "$CONFIG" "$WORK/config.after"
t 0 ts rules check

# --- the next run with the same variation: stable ------------------------------------
t 0 ts run --json-report "$WORK/r2.json" -- sh "$WORK/five.sh"
same "$OUT" "toolscore: 5 passed" "the stable run's output"
t 0 python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["flaky"] == [] and d["repeats"][0]["distinct"] == 5 and d["repeats"][0]["rules"]["ignore"][-1] == "search.args.request_id", d["repeats"]' "$WORK/r2.json"
t 0 ts rules suggest
err_has "has no flaky names: nothing to suggest"
same "$OUT" "{}" "nothing suggested"

# --- a malformed config.json is an error naming it, never overwritten ----------------
printf '{"ignore": ["search.args.query",]}\n' >"$CONFIG"
cp "$CONFIG" "$WORK/config.bad"
t 2 ts rules suggest --run "$RUN1" --write
err_has "$CONFIG: line 1, column"
err_has "not changed"
t 0 cmp "$CONFIG" "$WORK/config.bad"
printf '{"ignroe": []}\n' >"$CONFIG"
t 2 ts rules suggest --run "$RUN1" --write
err_has "unknown key 'ignroe'"
# ... and created when absent
rm -f "$CONFIG"
t 0 ts rules suggest --run "$RUN1" --write
same "$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$CONFIG")" \
	"$SUGGESTED" "the created config.json"
t 1 ts rules suggest --run no-such-run
err_has "no-such-run"

# --- before approval: flaky, the outcome stays PENDING ----------------------------------
printf '[{"tool": "book", "args": {"seat": "12A", "class": "eco"}}]\n' >"$WORK/s1.json"
printf '[{"tool": "book", "args": {"seat": "14C", "class": "eco"}}]\n' >"$WORK/s2.json"
cat >"$WORK/pending.sh" <<EOF
T="$TSCTL --socket $SOCK --dir $STORE"
\$T check seat --calls "$WORK/s1.json" >/dev/null
\$T check seat --calls "$WORK/s2.json" >/dev/null
\$T check seat --calls "$WORK/s2.json" >/dev/null
EOF
t 0 ts run --json-report "$WORK/r3.json" -- sh "$WORK/pending.sh"
out_has "toolscore: 1 snapshot created (pending approval), 2 pending
flaky: seat — 3 runs, 2 distinct (pending approval); varied: calls[0].args.seat (2 values)"
t 0 python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["flaky"][0]; assert f["pending"] is True and f["k"] == 0 and f["pass^k"] is None, f' "$WORK/r3.json"
t 0 ts snapshots show seat
out_has '"seat": "12A"'

# --- every check passes, the agent varies: flaky; a finding only in CI -----------------
t 0 ts approve seat
cat >"$WORK/loose.sh" <<EOF
T="$TSCTL --socket $SOCK --dir $STORE"
\$T check seat --calls "$WORK/s1.json" --min-score 0.5 >/dev/null
\$T check seat --calls "$WORK/s2.json" --min-score 0.5 >/dev/null
EOF
t 0 ts run -- sh "$WORK/loose.sh"
out_has "toolscore: 2 passed
flaky: seat — 2 runs, 2 distinct; varied: calls[0].args.seat (2 values)"
CI=1 t 1 ts run -- sh "$WORK/loose.sh"
out_has "flaky: seat"
err_has "has flaky snapshots (in CI)"
CI=1 t 0 ts run --no-fail-on-findings -- sh "$WORK/loose.sh"

# --- pytest-repeat ids are repeats of one test, not duplicate claims --------------------
cat >"$WORK/claims.sh" <<EOF
T="$TSCTL --socket $SOCK --dir $STORE"
for n in 1 2 3; do \$T check repeated --calls "$WORK/s1.json" --test "tests/t.py::test_x[\$n-3]" >/dev/null; done
\$T check param --calls "$WORK/s1.json" --test "tests/t.py::test_p[a]" >/dev/null
\$T check param --calls "$WORK/s1.json" --test "tests/t.py::test_p[b-c]" >/dev/null
\$T check claimed --calls "$WORK/s1.json" --test "tests/a.py::test_one[1]" >/dev/null
\$T check claimed --calls "$WORK/s1.json" --test "tests/b.py::test_two[1]" >/dev/null
EOF
t 1 ts run --json-report "$WORK/r4.json" -- sh "$WORK/claims.sh"
out_has "toolscore: error: snapshot 'claimed' was claimed by more than one test: tests/a.py::test_one[1], tests/b.py::test_two[1]"
out_lacks "'repeated' was claimed"
out_lacks "'param' was claimed"
t 0 python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [x["name"] for x in d["duplicates"]] == ["claimed"], d["duplicates"]; assert [r["name"] for r in d["repeats"]] == ["claimed", "param", "repeated"]' "$WORK/r4.json"

finish
