#!/bin/sh
# The HTML report end to end: a run with every outcome, a flaky name, a
# name claimed by two tests, an orphan, a check with more calls than the
# daemon answers on its loop, and a name and an argument holding <script>
# and <img onerror> payloads; `tsctl report html` of the run (rendered by the
# daemon, run.report {format: "html"}) and of its JSON report
# (--from-reports, rendered by tsctl) give the same page; the page in
# headless Chromium (tests/html/browser_test.py: no console error, nothing
# run, filters, search, keys; screenshots at 1280 and 390 px written to
# $TS_BUILD_DIR/html-screenshots); a partial run's page does not list
# orphans; usage errors and hostile report files.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

export XDG_STATE_HOME="$WORK/state"
SHOTS="$TS_BUILD_DIR/html-screenshots"
calls() { # calls FILE Q ID [N]: N calls (default 2) of search q / book id
	python3 - "$@" <<'PY'
import json, sys
f, q, i = sys.argv[1:4]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 2
c = [{"tool": "search", "args": {"q": q, "n": 1}}, {"tool": "book", "args": {"id": int(i)}}]
c += [{"tool": "step", "args": {"k": k}} for k in range(n - 2)]
json.dump(c, open(f, "w"))
PY
}
EVIL_NAME='tests/t.py::test_x[</script><script>window.__pwned=1</script>]'
EVIL_ARG='<img src=x onerror=window.__pwned=2> </script><!-- '"'"'"'

start_daemon
calls "$WORK/a.json" flights 1
calls "$WORK/big.json" flights 1 80
for n in "$EVIL_NAME" passing big flaky claimed orphan pending_one; do
	f="$WORK/a.json"
	[ "$n" = big ] && f="$WORK/big.json"
	t 0 ts check "$n" --calls "$f"
done
t 0 ts approve "$EVIL_NAME" passing big flaky claimed orphan

calls "$WORK/evil.json" "$EVIL_ARG" 2
calls "$WORK/big2.json" flights 7 80
calls "$WORK/f1.json" trains 1
cat >"$WORK/suite.sh" <<EOF
ck() { f=\$1; shift; TOOLSCORE_TEST=\$1 "$TSCTL" check "\$2" --calls "\$f" >/dev/null || true; }
ck "$WORK/evil.json" "tests/t.py::test_x" '$EVIL_NAME'
ck "$WORK/a.json" tests/t.py::test_passing passing
ck "$WORK/big2.json" tests/t.py::test_big big
ck "$WORK/a.json" tests/t.py::test_flaky flaky
ck "$WORK/f1.json" tests/t.py::test_flaky flaky
ck "$WORK/a.json" tests/t.py::test_flaky flaky
ck "$WORK/a.json" tests/a.py::test_one claimed
ck "$WORK/a.json" tests/b.py::test_two claimed
ck "$WORK/a.json" tests/t.py::test_new created_one
ck "$WORK/a.json" tests/t.py::test_pending pending_one
CI=true ck "$WORK/a.json" tests/t.py::test_ci missing_in_ci
EOF
t 1 ts run --json-report "$WORK/run.json" -- sh "$WORK/suite.sh"

# The run's JSON report carries both lists of each FAILED check.
python3 - "$WORK/run.json" "$EVIL_ARG" <<'PY' || fail "the JSON report's calls"
import json, sys
r = json.load(open(sys.argv[1]))
failed = [c for c in r["checks"] if c["outcome"] == "FAILED"]
assert len(failed) == 3, [c["name"] for c in failed]   # the evil one, big, flaky's trains
for c in failed:
    assert c["calls_id"] in r["calls"] and c["baseline_id"] in r["calls"], c
big = [c for c in failed if c["name"] == "big"][0]
assert len(r["calls"][big["calls_id"]]) == 80 and r["calls"][big["baseline_id"]][1]["args"]["id"] == 1
evil = [c for c in failed if c["name"].startswith("tests/t.py::test_x")][0]
assert r["calls"][evil["calls_id"]][0]["args"]["q"] == sys.argv[2]
assert r["complete"] is True
PY

# The page, rendered by the daemon and by tsctl from the JSON report: the same.
t 0 ts report html -o "$WORK/run.html"
out_has "toolscore: wrote $WORK/run.html (11 checks"
t 0 ts report html --from-reports "$WORK/run.json" -o "$WORK/from-json.html"
cmp -s "$WORK/run.html" "$WORK/from-json.html" || fail "the daemon's page and the one of the JSON report differ"
RUN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["id"])' "$WORK/run.json")
t 0 ts report html --run "$RUN" -o "$WORK/by-id.html"
cmp -s "$WORK/run.html" "$WORK/by-id.html" || fail "--run ID gives another page"

# Self-contained and escaped: no reference outside the file, the payloads
# never as markup (the data island and the header are checked in C too).
python3 - "$WORK/run.html" <<'PY' || fail "the page's markup"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
assert page.count("<script") == 2 and page.count("</script>") == 2, page.count("<script")
assert "<img" not in page and "<!-- " not in page, "a payload as markup"
island = page.split('id="toolscore-data">', 1)[1].split("</script>", 1)[0]
assert "<" not in island and ">" not in island and "&" not in island
assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', page), "a reference outside the file"
assert "http://" not in page and "https://" not in page
assert "orphan" in island
PY

# In the browser.
rm -rf "$SHOTS"
t 0 python3 "$TS_SOURCE_DIR/tests/html/browser_test.py" "$WORK/run.html" "$WORK/run.json" "$SHOTS" ||
	printf '%s\n' "$ERR" >&2
for s in report-1280.png report-390.png report-1280-dark.png; do
	[ -s "$SHOTS/$s" ] || fail "no screenshot $SHOTS/$s"
done

# A partial run: its page says why orphans are not listed.
cat >"$WORK/partial.sh" <<EOF
"$TSCTL" check passing --calls "$WORK/a.json" >/dev/null
"$WORK/py" -c 'import os; from toolscored import _native; _native.Client(os.environ["TOOLSCORE_SOCKET"]).run_partial(os.environ["TOOLSCORE_RUN"], ["-k passing"])'
EOF
make_py
t 0 ts run --json-report "$WORK/partial.json" -- sh "$WORK/partial.sh"
t 0 ts report html -o "$WORK/partial.html"
grep -q 'Orphans are shown for complete runs only' "$WORK/partial.html" || fail "a partial run's page lists orphans"
grep -q '"orphans": null' "$WORK/partial.html" || fail "a partial run's page has orphans"
# Shards merged: two reports, one page.
t 0 ts report html --from-reports "$WORK/run.json" "$WORK/partial.json" -o "$WORK/both.html"
out_has "(12 checks"

# Usage errors and hostile files: exit 2, one line, no page written.
t 2 ts report html && err_one_line && err_has "-o FILE"
t 2 ts report html --run "$RUN" --from-reports "$WORK/run.json" -o "$WORK/x.html" && err_one_line
t 2 ts report html --from-reports -o "$WORK/x.html" && err_one_line
printf '{"format": "toolscore-run-report", "version": 1, "runs": "<script>"}' >"$WORK/bad.json"
t 2 ts report html --from-reports "$WORK/bad.json" -o "$WORK/x.html" && err_has "bad.json: runs"
sed 's/"calls": {/"calls": {"<script>": [], /' "$WORK/run.json" >"$WORK/bad2.json"
t 2 ts report html --from-reports "$WORK/bad2.json" -o "$WORK/x.html" && err_has "not a list id"
[ -e "$WORK/x.html" ] && fail "a page was written for a refused report"
t 1 ts report html --run 0123456789abcdef0123456789abcdef -o "$WORK/x.html" && err_has "no run"
t 0 "$TSCTL" help report html
out_has "--from-reports"
finish
