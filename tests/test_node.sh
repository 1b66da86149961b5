#!/bin/sh
# The Node.js package end to end: its own tests (node --test), its
# TypeScript declarations compiled against each runner's types, then a real
# Vitest project and a real Jest project (tests/node/, installed from their
# package-lock.json files) against a real daemon: record, approve with tsctl,
# replay, drift failing with the report, update mode (TOOLSCORE_RECORD_UPDATE,
# vitest -u, jest -u), CI rules, several workers with one summary line,
# duplicate claims, an unreachable daemon, a daemon stopped (SIGSTOP) or
# restarted mid-suite
# (the run outlives it); the report files (TOOLSCORE_JUNIT: valid against
# tests/data/junit.xsd, TOOLSCORE_JSON_REPORT, TOOLSCORE_HTML: one
# self-contained page), checked before the tests and not left stale when
# the daemon is gone at the end; the rules option (a volatile argument
# ignored passes, invalid rules name the key).
. "$(dirname "$0")/tsctl_helpers.sh"

cd "$TS_SOURCE_DIR" || exit 1
if ! command -v node >/dev/null 2>&1; then
	echo "test_node.sh: node is missing (make check installs it through scripts/deps.sh)" >&2
	exit 1
fi
scripts/node_deps.sh || exit 1

# the package's own tests
t 0 sh -c "cd shims/node && node --test test/*.test.js" || printf '%s\n%s\n' "$OUT" "$ERR" | tail -30 >&2

# the declarations, as TypeScript users of each runner write against them
t 0 sh -c "cd tests/node/vitest-project && ./node_modules/.bin/tsc -p tsconfig.json" || printf '%s\n' "$OUT" >&2
t 0 sh -c "cd tests/node/jest-project && ./node_modules/.bin/tsc -p tsconfig.json" || printf '%s\n' "$OUT" >&2

export TOOLSCORE_SOCKET="$SOCK" NO_COLOR=1
PATH="$TS_BUILD_DIR:$PATH"
start_daemon
VDIR="$TS_SOURCE_DIR/tests/node/vitest-project"
JDIR="$TS_SOURCE_DIR/tests/node/jest-project"
VSTORE="$WORK/vstore"
JSTORE="$WORK/jstore"

# vitest ARGS...: a run of the Vitest project ($OUT/$ERR hold its output, both).
vitest() {
	(cd "$VDIR" && TOOLSCORE_DIR="$VSTORE" ./node_modules/.bin/vitest run "$@")
}
jest() {
	(cd "$JDIR" && TOOLSCORE_DIR="$JSTORE" ./node_modules/.bin/jest --cacheDirectory "$WORK/jest-cache" "$@")
}
# all ...: stdout and stderr of the last run together in $ALL
all_has() {
	CHECKS=$((CHECKS + 1))
	case "$OUT$ERR" in *"$1"*) return 0 ;; esac
	fail "${2:-output} lacks: $1"
	printf '  stdout: %s\n  stderr: %s\n' "$(printf '%s' "$OUT" | tail -40)" "$(printf '%s' "$ERR" | tail -20)" >&2
}
summary_lines() {
	printf '%s\n%s\n' "$OUT" "$ERR" | grep -c '^toolscore: [0-9]'
}
one_summary() {
	CHECKS=$((CHECKS + 1))
	n=$(summary_lines)
	[ "$n" = 1 ] || fail "$n summary lines, wanted exactly one"
	all_has "$1" "summary"
}
stored() { "$TSCTL" --dir "$1" snapshots show "$2" 2>&1; }
# rules_round RUNNER STORE: tests/rules.test.js records a call whose volatile
# argument its rules ignore, passes once approved although the argument
# changed, then runs with invalid rules (exit 1; the caller checks the error).
rules_round() {
	RULES_TEST=1 t 0 "$1" tests/rules.test.js
	one_summary "toolscore: 1 snapshot created (pending approval)"
	t 0 "$TSCTL" --dir "$2" approve --all
	RULES_TEST=1 t 0 "$1" tests/rules.test.js
	one_summary "toolscore: 1 passed"
	RULES_TEST=invalid t 1 "$1" tests/rules.test.js
}

# ---- Vitest ---------------------------------------------------------------
t 0 vitest
one_summary "toolscore: 6 snapshots created (pending approval)"
all_has "toolscore: snapshots in $VSTORE (\$TOOLSCORE_DIR; not created yet)"
all_has "snapshot 'tests/booking.test.js::booking > books a flight' created: $VSTORE/tests__booking.test.js__booking______books__a__flight-"
all_has ".json - review it, then approve with \`npx tsctl approve 'tests/booking.test.js::booking > books a flight'\`"
all_has "snapshot 'tests/booking.test.js::booking > two checks in one test-2' created"
t 0 "$TSCTL" --dir "$VSTORE" snapshots list
out_has "tests/agents.test.js::refunds an order"
out_has "langgraph weather"
t 0 stored "$VSTORE" "tests/booking.test.js::booking > books a flight"
out_has '"passengers": 2,'
# labelled with what made them (the reference reads any source)
t 0 "$TSCTL" --dir "$VSTORE" snapshots show "tests/booking.test.js::booking > books a flight" --json
out_has '"source": "vitest"'
out_has '"budget": 450.5'
out_has '"to": "NYC"'
t 0 vitest
one_summary "toolscore: 6 pending"
t 0 "$TSCTL" --dir "$VSTORE" approve --all
rm -f "$WORK/pids"
PIDS_FILE="$WORK/pids" t 0 vitest
one_summary "toolscore: 6 passed"
CHECKS=$((CHECKS + 1))
workers=$(sort -u "$WORK/pids" | wc -l)
[ "$workers" -ge 2 ] || fail "the Vitest run used $workers worker process(es), wanted several"
AGENT_DRIFT=1 t 1 vitest
one_summary "toolscore: 5 passed, 1 failed"
all_has "Expected vs Actual Tool Calls"
all_has '  calls[0] searchFlights  args.to: "NYC" → "LA"'
all_has "score 0.95 < 1.00 required"
# the failure names the snapshot before its table and ends with the commands
# that accept it and review everything, through npx (node_modules/.bin is
# on no shell's PATH); the accept command, pasted into bash and then zsh in
# the project, accepts exactly that snapshot (its name holds '>', which
# unquoted redirects) and makes no file
drifted="snapshot 'tests/booking.test.js::booking > books a flight' drifted from its approved baseline"
named_first() {
	CHECKS=$((CHECKS + 1))
	printf '%s\n%s\n' "$OUT" "$ERR" | awk -v a="$1" -v b="$2" '
		index($0, b) && !seen { exit 1 } index($0, a) { seen = 1 } END { exit !seen }' ||
		fail "'$1' is not printed before '$2'"
}
named_first "$drifted" "Expected vs Actual Tool Calls"
all_has "To review everything:"
line=$(paste_line "$OUT$ERR" "To accept the observed calls:")
same "$line" "npx tsctl accept 'tests/booking.test.js::booking > books a flight'" "the accept command"
all_has "  npx tsctl review"
export TOOLSCORE_DIR="$VSTORE"
paste_into bash "$line" "$VDIR"
same "$PASTE_RC" 0 "bash: $line"
t 0 stored "$VSTORE" "tests/booking.test.js::booking > books a flight"
out_has '"to": "LA"'
t 1 vitest tests/booking.test.js
all_has "$drifted"
paste_into zsh "$(paste_line "$OUT$ERR" "To accept the observed calls:")" "$VDIR"
same "$PASTE_RC" 0 "zsh: $line"
t 0 stored "$VSTORE" "tests/booking.test.js::booking > books a flight"
out_has '"to": "NYC"'
unset TOOLSCORE_DIR
# CI: a snapshot never recorded is an error and nothing is written
CI=1 AGENT_EXTRA=1 t 1 vitest
all_has "snapshot 'tests/extra.test.js::a new test' does not exist; snapshots cannot be created in CI"
one_summary "toolscore: 6 passed, 1 failed"
t 0 "$TSCTL" --dir "$VSTORE" snapshots list
out_lacks "a new test"
# update mode: the environment, then vitest -u
# (one test's calls changed: the other updates are unchanged, and say nothing)
TOOLSCORE_RECORD_UPDATE=1 AGENT_DRIFT=1 t 0 vitest
one_summary "toolscore: 1 updated, 5 unchanged"
all_has "snapshot 'tests/booking.test.js::booking > books a flight' updated (calls overwritten and approved)"
all_lacks() {
	CHECKS=$((CHECKS + 1))
	case "$OUT$ERR" in *"$1"*) fail "output has: $1" ;; esac
}
all_lacks "its calls are already the approved ones"
AGENT_DRIFT=1 t 0 vitest
one_summary "toolscore: 6 passed"
t 0 vitest -u
one_summary "toolscore: 1 updated, 5 unchanged"
all_lacks "its calls are already the approved ones"
t 0 stored "$VSTORE" "tests/booking.test.js::booking > books a flight"
out_has '"to": "NYC"'
t 0 vitest
one_summary "toolscore: 6 passed"

# report_ok PREFIX CHECKS: $WORK/PREFIX.{xml,json,html} are the run's reports
report_ok() {
	t 0 xmllint --noout --schema "$TS_SOURCE_DIR/tests/data/junit.xsd" "$WORK/$1.xml"
	t 0 node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		if (r.format !== "toolscore-run-report" || r.counts.checks !== Number(process.argv[2]) ||
		    r.checks.length !== r.counts.checks) { console.error(JSON.stringify(r.counts)); process.exit(1); }' \
		"$WORK/$1.json" "$2"
	t 0 grep -q "<testcase" "$WORK/$1.xml"
	t 0 grep -qi "^<!doctype html" "$WORK/$1.html"
	t 1 grep -Eqi "(src|href) *= *[\"']? *(https?:)?//" "$WORK/$1.html"
}
# ---- report files (Vitest) ----
AGENT_DRIFT=1 TOOLSCORE_JUNIT="$WORK/v.xml" TOOLSCORE_JSON_REPORT="$WORK/v.json" TOOLSCORE_HTML="$WORK/v.html" t 1 vitest
one_summary "toolscore: 5 passed, 1 failed"
report_ok v 6
t 0 grep -c "<failure" "$WORK/v.xml"
out_has 1
t 0 grep -q "tests/booking.test.js::booking .* books a flight" "$WORK/v.html"
t 0 ls -A "$WORK"
out_lacks ".tmp"
: >"$WORK/afile"
TOOLSCORE_JUNIT="$WORK/afile/v.xml" t 1 vitest
all_has "TOOLSCORE_JUNIT=$WORK/afile/v.xml: cannot write the report there: $WORK/afile is not a directory"
CHECKS=$((CHECKS + 1))
[ "$(summary_lines)" = 0 ] || fail "tests ran although the report cannot be written"
# ---- rules (Vitest): a volatile argument ignored passes ----
rules_round vitest "$VSTORE"
all_has "rules: unknown key 'ignroe'"
# a DaemonError points at the test's line, not only at the client's socket code
all_has "tests/rules.test.js:15:"
all_has "option rules must be a plain object of comparison rules (docs/rules.md), not an array"
# an object with toolCalls that detection does not take: what to pass
FORMAT_TEST=1 t 1 vitest tests/format.test.js
all_has "give the format 'vercel-ai' (format: 'vercel-ai'"
all_has "tests/format.test.js:6:"

# ---- Jest ----------------------------------------------------------------
rm -f "$WORK/pids"
PIDS_FILE="$WORK/pids" t 0 jest --maxWorkers=3
one_summary "toolscore: 5 snapshots created (pending approval), 1 pending"
all_has "toolscore: snapshots in $JSTORE (\$TOOLSCORE_DIR; not created yet)"
all_has "toolscore: error: snapshot 'shared name' was claimed by more than one test: "
all_has "tests/more.test.js::claims a shared name too"
CHECKS=$((CHECKS + 1))
workers=$(sort -u "$WORK/pids" | wc -l)
[ "$workers" -ge 2 ] || fail "the Jest run used $workers worker process(es), wanted several"
t 0 "$TSCTL" --dir "$JSTORE" snapshots list
out_has "tests/orders.test.js::orders looks up an order"
out_has "tests/weather.test.js::weather twice-2"
t 0 "$TSCTL" --dir "$JSTORE" snapshots show "tests/orders.test.js::orders looks up an order" --json
out_has '"source": "jest"'
t 0 "$TSCTL" --dir "$JSTORE" approve --all
t 0 jest
one_summary "toolscore: 6 passed"
AGENT_DRIFT=1 t 1 jest
one_summary "toolscore: 5 passed, 1 failed"
all_has '  calls[0] lookupOrder  args.id: "A-1" → "B-2"'
named_first "snapshot 'tests/orders.test.js::orders looks up an order' drifted" "Expected vs Actual Tool Calls"
same "$(paste_line "$OUT$ERR" "To accept the observed calls:")" \
	"npx tsctl accept 'tests/orders.test.js::orders looks up an order'" "Jest's accept command"
AGENT_DRIFT=1 t 0 jest -u
one_summary "toolscore: 1 updated, 5 unchanged"
all_lacks "its calls are already the approved ones"
AGENT_DRIFT=1 t 0 jest
one_summary "toolscore: 6 passed"
# in CI, names claimed by two tests fail the run even when every check passed
AGENT_DRIFT=1 CI=1 t 1 jest
one_summary "toolscore: 6 passed"
all_has "was claimed by more than one test"
# report files and rules (Jest)
TOOLSCORE_JUNIT="$WORK/j.xml" TOOLSCORE_JSON_REPORT="$WORK/j.json" TOOLSCORE_HTML="$WORK/j.html" \
	AGENT_DRIFT=1 t 0 jest
one_summary "toolscore: 6 passed"
report_ok j 6
t 0 grep -q "tests/orders.test.js::orders looks up an order" "$WORK/j.html"
rules_round jest "$JSTORE"
all_has "rules: 'order' must be one of strict, unordered, superset, subset (got 'sideways')"
all_has "tests/rules.test.js:13:"

# ---- a mistyped TOOLSCORE_SOCKET: a daemon started there, the store's answers --
mkdir -m 700 "$WORK/typo"
TOOLSCORE_SOCKET="$WORK/typo/toolscored.sock" TOOLSCORED="$TS_BUILD_DIR/toolscored" t 0 vitest tests/booking.test.js
all_has "toolscore: note: no daemon answered at $WORK/typo/toolscored.sock, so one was started there; but the store is served by the daemon at $SOCK, which answered instead, and the one started was stopped (a mistyped TOOLSCORE_SOCKET?)"
one_summary "toolscore: 3 passed"
# said once, by the global setup: its workers went to the store's daemon
CHECKS=$((CHECKS + 1))
[ "$(printf '%s\n%s\n' "$OUT" "$ERR" | grep -c 'a mistyped TOOLSCORE_SOCKET')" = 1 ] ||
	fail "the note is not printed once"
wait_until 20 "the daemon started on the mistyped socket stopping" socket_gone "$WORK/typo/toolscored.sock"

# ---- the daemon out of reach ----------------------------------------------
TOOLSCORE_SOCKET="$WORK/nowhere/toolscored.sock" TOOLSCORED="$WORK/no-such-daemon" t 1 vitest
all_has "toolscored is not reachable at $WORK/nowhere/toolscored.sock"
all_has "TOOLSCORED=$WORK/no-such-daemon is not an executable file"
# the first line after Vitest's banner is the reason (not "No test files found")
CHECKS=$((CHECKS + 1))
(cd "$VDIR" && TOOLSCORE_SOCKET="$WORK/nowhere/toolscored.sock" TOOLSCORED="$WORK/no-such-daemon" \
	TOOLSCORE_DIR="$VSTORE" ./node_modules/.bin/vitest run >"$WORK/both" 2>&1)
first=$(grep -v '^ *$' "$WORK/both" | grep -v '^ *RUN ' | head -1)
case "$first" in
"toolscore: error: toolscored is not reachable at $WORK/nowhere/toolscored.sock: no socket (no daemon is running); TOOLSCORED=$WORK/no-such-daemon is not an executable file"*) ;;
*) fail "Vitest's first line without a daemon: $first" ;;
esac
TOOLSCORE_SOCKET="$WORK/nowhere/toolscored.sock" TOOLSCORED="$WORK/no-such-daemon" t 1 jest
all_has "toolscored is not reachable at $WORK/nowhere/toolscored.sock"

# ---- a daemon that stops answering mid-suite (SIGSTOP): the check errors at
# its deadline, naming the daemon, and the suite ends -------------------------
started_at=$(date +%s)
STOP_CMD="kill -STOP $DAEMON_PID" TOOLSCORE_TIMEOUT=2 t 1 vitest tests/stopped.test.js
kill -CONT "$DAEMON_PID"
all_has "toolscored (pid $DAEMON_PID, socket $SOCK) did not answer check within 2 s"
all_has "TOOLSCORE_TIMEOUT"
all_has "3 passed"
CHECKS=$((CHECKS + 1))
[ $(($(date +%s) - started_at)) -lt 60 ] || fail "the suite with a stopped daemon took $(($(date +%s) - started_at)) s"

# ---- a daemon restarted mid-suite (stopped; the next check starts one, which
# reads the run back from its state directory: one summary for both checks) --
RESTART_CMD="'$TSCTL' --socket '$SOCK' stop >/dev/null" t 0 vitest tests/restart.test.js
one_summary "toolscore: 2 snapshots created (pending approval)"
t 0 "$TSCTL" --dir "$VSTORE" snapshots list
out_has "restart-2"
# the daemon gone at the end (stopped, and none can be started): an error
# line, a failed run, and no stale report
echo stale >"$WORK/gone.xml"
RESTART_CMD="'$TSCTL' --socket '$SOCK' stop >/dev/null" TOOLSCORED="$WORK/no-such-daemon" \
	TOOLSCORE_JUNIT="$WORK/gone.xml" t 1 vitest tests/restart.test.js
all_has "toolscore: error: TOOLSCORE_JUNIT=$WORK/gone.xml was not written: "
CHECKS=$((CHECKS + 1))
[ ! -e "$WORK/gone.xml" ] || fail "a stale report was left"
DAEMON_PID=""
finish
