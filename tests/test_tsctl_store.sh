#!/bin/sh
# tsctl through a daemon: check (every outcome, CI and update rules, --json),
# approve, snapshots list/show/rm, record --from-trace, status, stop; the
# files written are byte-compatible with the reference tool's; unknown names
# are exit 1, bad input exit 2, no daemon exit 3.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

FL="tests/test_flights.py::test_books_a_flight"
start_daemon

# Compare a file with a reference file except created_at/updated_at/version
# (and source, with a third argument: the source FILE must have).
same_file() {
	CHECKS=$((CHECKS + 1))
	if ! [ -f "$1" ]; then
		fail "missing file $1"
		return 1
	fi
	skip="created_at|updated_at|toolscore_version"
	if [ $# -ge 3 ]; then
		skip="$skip|source"
		grep -q "^  \"source\": \"$3\",\$" "$1" || fail "$1: source is not $3"
	fi
	sed -E "/^  \"($skip)\": /d" "$1" >"$WORK/a.cmp"
	sed -E "/^  \"($skip)\": /d" "$2" >"$WORK/b.cmp"
	if ! cmp -s "$WORK/a.cmp" "$WORK/b.cmp"; then
		fail "$1 differs from $2"
		diff "$WORK/a.cmp" "$WORK/b.cmp" >&2
		return 1
	fi
}

# --- status ----------------------------------------------------------------------
t 0 ts status && out_has "running" && out_has "pid"
t 0 ts status --json
same "$(json_get pid)" "$DAEMON_PID" "status pid"
out_has '"requests_served"'

# --- check: CREATED, PENDING, CI rules -------------------------------------------
t 0 ts check "$FL" --calls "$DATA/trace_flights.json"
out_has "CREATED" && out_has "snapshot '$FL' created: " && out_has " - review it, then approve with \`tsctl approve '$FL'\`"
t 0 ts snapshots path "$FL"
FLFILE=$OUT
[ -f "$FLFILE" ] || fail "check did not write $FLFILE"
t 0 ts check "$FL" --calls "$DATA/trace_flights.json" --json
same "$(json_get outcome)" "PENDING" "second check is pending"
same "$(json_get result)" "null" "pending has no result"
same "$(json_get report)" "null" "pending has no report"
same "$(out_keys)" "file message name outcome report result" "check --json keys"
out_has "pending approval - run \`tsctl approve '$FL'\` to use it as a baseline"
t 1 env CI=1 "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/trace_flights.json" --json
same "$(json_get outcome)" "ERROR_PENDING_IN_CI" "pending in CI"
t 1 env CI=0 "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/trace_flights.json"
out_has "ERROR_PENDING_IN_CI"
t 0 env CI= "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/trace_flights.json"
out_has "PENDING"
t 0 env CI=true "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/trace_flights.json" --allow-pending
out_has "PENDING"
t 1 env CI=1 "$TSCTL" --socket "$SOCK" --dir "$STORE" check brand_new --calls "$DATA/x1.json"
out_has "ERROR_MISSING_IN_CI" && out_has "snapshots cannot be created in CI"
t 0 ts snapshots path brand_new
[ -e "$OUT" ] && fail "a check in CI wrote $OUT"
t 0 env CI=1 "$TSCTL" --socket "$SOCK" --dir "$STORE" check brand_new --calls "$DATA/x1.json" --allow-pending
out_has "CREATED"

# --- approve ---------------------------------------------------------------------
t 1 ts approve "$FL" no_such_name && err_has "no_such_name"
t 1 env CI=1 "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/trace_flights.json"
t 0 ts approve "$FL"
out_has "Name" && out_has "Calls" && out_has "Age" && out_has "today" && out_has "Approved 1 snapshot(s)."
same_file "$FLFILE" "$COMPAT/tests__test_flights.py__test_books_a_flight-a17e174d.json" tsctl
# Ages: snapshots written behind the daemon's back, created 1 and 5 days ago.
for age in 1 5; do
	t 0 ts snapshots path "aged_$age"
	created=$(date -u -d "@$(($(date +%s) - age * 86400 - 60))" +%Y-%m-%dT%H:%M:%S.000000+00:00)
	printf '{\n  "schema_version": 1,\n  "name": "aged_%s",\n  "created_at": "%s",\n  "updated_at": "%s",\n  "toolscore_version": "1.8.1",\n  "approved": false,\n  "source": "pytest",\n  "calls": []\n}\n' \
		"$age" "$created" "$created" >"$OUT"
done
t 0 ts approve aged_1 aged_5
out_has "1 day ago" && out_has "5 days ago" && out_has "Approved 2 snapshot(s)."
t 0 ts snapshots rm aged_1 --yes
t 0 ts snapshots rm aged_5 --yes
t 0 ts approve --all
out_has "brand_new" && out_has "Approved 1 snapshot(s)."
t 0 ts approve --all
same "$OUT" "No pending snapshots found — nothing to approve." "approve --all, nothing pending"
t 2 ts approve && err_one_line
t 2 ts approve --all x && err_one_line

# --- replay: PASSED, FAILED with the drift report, min-score, update --------------
t 0 ts check "$FL" --calls "$DATA/trace_flights.json"
out_has "PASSED"
t 0 ts check "$FL" --calls "$DATA/trace_flights.json" --json
same "$(json_get outcome)" "PASSED" "replay passes"
same "$(json_get result.passed)" "true" "result.passed"
same "$(json_get result.redundant_count)" "0" "result keys"
t 1 ts check "$FL" --calls "$DATA/flights_drift.json"
out_has "FAILED" && out_has "Expected vs Actual Tool Calls" && out_has '  calls[0] search_flights  args.destination: "NYC" → "LA"'
out_has "required"
out_lacks "$(printf '\033')"
# the report's width: 100 without a terminal, COLUMNS when set; the JSON
# diff unless --no-json-diff (or an outer run's TOOLSCORE_NO_JSON_DIFF)
out_has '@@ -2,7 +2,7 @@' && out_has '-      "destination": "NYC"' && out_has '+      "destination": "LA"'
widest 100
t 1 env COLUMNS=60 "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/flights_drift.json"
widest 60 && out_has '  calls[0] search_flights  args.destination: "NYC" → "LA"'
t 1 env COLUMNS=45 TOOLSCORE_REPORT_WIDTH=200 "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/flights_drift.json"
out_has '  ·  selection' && out_has '  ·  sequence' # one score line: 200 wins over COLUMNS
t 1 env COLUMNS=abc "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/flights_drift.json"
widest 100
t 1 ts check "$FL" --calls "$DATA/flights_drift.json" --no-json-diff
out_has "Expected vs Actual Tool Calls" && out_lacks "@@" && out_lacks "- expected"
t 1 env TOOLSCORE_NO_JSON_DIFF=1 "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/flights_drift.json"
out_lacks "@@"
t 1 ts check "$FL" --calls "$DATA/flights_drift.json" --json --no-json-diff
same "$(json_get outcome)" "FAILED" "drift fails"
case "$(json_get report)" in *"@@"*) fail "--no-json-diff: the report has a JSON diff" ;; esac
t 1 ts check "$FL" --calls "$DATA/flights_drift.json" --json
same "$(json_get outcome)" "FAILED" "drift fails"
out_has "Expected vs Actual Tool Calls"
t 0 ts check "$FL" --calls "$DATA/flights_drift.json" --min-score 0.5
out_has "PASSED"
t 1 env TOOLSCORE_RECORD_UPDATE=no "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/flights_drift.json"
t 1 env TOOLSCORE_RECORD_UPDATE=" FALSE " "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/flights_drift.json"
t 1 env TOOLSCORE_RECORD_UPDATE= "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/flights_drift.json"
t 0 env TOOLSCORE_RECORD_UPDATE=yes "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$FL" --calls "$DATA/flights_drift.json"
out_has "UPDATED" && out_has "updated (calls overwritten and approved)"
t 0 ts check "$FL" --calls "$DATA/flights_drift.json"
out_has "PASSED"
t 0 ts check "$FL" --calls "$DATA/trace_flights.json" --update
out_has "UPDATED"
same_file "$FLFILE" "$COMPAT/tests__test_flights.py__test_books_a_flight-a17e174d.json" tsctl
t 0 sh -c "\"$TSCTL\" --socket \"$SOCK\" --dir \"$STORE\" check '$FL' --calls - < \"$DATA/trace_flights.json\""
out_has "PASSED"

# --- check: bad input ----------------------------------------------------------------
t 2 ts check "$FL" && err_one_line && err_has "--calls"
t 2 ts check --calls "$DATA/x1.json" && err_one_line
t 2 ts check "$FL" --calls "$WORK/none.json" && err_one_line && err_has "No such file"
t 2 ts check "$FL" --calls "$DATA/invalid_json.json" && err_one_line && err_has "line 3"
t 2 ts check "$FL" --calls "$DATA/x1.json" --format nope && err_one_line
t 2 ts check "$FL" --calls "$DATA/unknown_shape.json" && err_one_line && err_has "auto-detect"
t 2 ts check "$FL" --calls "$DATA/x1.json" --weights '{"x": 1}' && err_one_line
t 2 ts check "$FL" --calls "$DATA/x1.json" --min-score 2 && err_one_line
# the empty name is a name (snapshot-da39a3ee.json, as the reference writes it)
t 0 ts check "" --calls "$DATA/x1.json" && out_has "snapshot '' created"
t 0 ts snapshots path "" && same "$(basename "$OUT")" "snapshot-da39a3ee.json" "the empty name's file"
t 0 ts approve ""
t 0 ts check "" --calls "$DATA/x1.json" && out_has "PASSED"
t 0 ts snapshots show "" --json && same "$(json_get name)" "" "show of the empty name"
t 0 ts snapshots rm "" --yes
t 2 ts check "$FL" --calls "$DATA" && err_one_line && err_has "Is a directory"
t 2 ts record --from-trace "$DATA" --name a && err_one_line && err_has "Is a directory"

# --- garbage in argv and the environment --------------------------------------------
BAD=$(printf 'bad\377')
t 2 ts check "$BAD" --calls "$DATA/x1.json" && err_one_line && err_has "UTF-8"
t 2 ts check "$(head -c 5000 /dev/zero | tr '\0' a)" --calls "$DATA/x1.json" && err_one_line && err_has "4096"
python3 -c 'print("[" * 200 + "]" * 200)' >"$WORK/deep.json"
t 2 ts check deep --calls "$WORK/deep.json" && err_one_line && err_has "nesting"
t 2 ts snapshots show "$BAD" && err_one_line
t 2 ts snapshots path "$BAD" && err_one_line && err_has "UTF-8"
t 2 ts approve "$BAD" && err_one_line
t 2 ts check x --calls "$DATA/x1.json" --test "$BAD" && err_one_line
t 2 env TOOLSCORE_TEST="$BAD" "$TSCTL" --socket "$SOCK" --dir "$STORE" check x --calls "$DATA/x1.json" && err_one_line
t 1 env TOOLSCORE_RUN=no-such-run "$TSCTL" --socket "$SOCK" --dir "$STORE" check x --calls "$DATA/x1.json" && err_has "no-such-run"
t 0 ts snapshots path x
[ -e "$OUT" ] && fail "a refused check wrote $OUT"

# --- record --from-trace: byte-compatible files, exists, update --------------------
t 0 ts record --from-trace "$DATA/trace_floats.json" --name floats_and_ints
out_has "pending approval"
t 0 ts snapshots path floats_and_ints
same_file "$OUT" "$COMPAT/floats_and_ints-75b53452.json"
# An import writes {"tool", "args"} only, args absent or null as {} (the
# reference tool's own file of these calls keeps "ping" without args).
t 0 ts record --from-trace "$DATA/trace_no_args.json" --name no_args --format calls
t 0 ts snapshots path no_args
NOARGS=$OUT
same_file "$NOARGS" "$DATA/no_args_imported.json"
t 0 ts record --from-trace "$DATA/trace_extra_keys.json" --name extra_keys
t 0 ts snapshots show extra_keys --json
same "$(json_get calls)" \
	'[{"tool": "a", "args": {}}, {"tool": "b", "args": {}}, {"tool": "c", "args": {"x": [1, {"y": null}]}}]' \
	"record --from-trace normalizes calls"
t 0 ts snapshots rm extra_keys --yes
printf '[{"tool": "a", "args": "text"}]' >"$WORK/bad_args.json"
t 2 ts record --from-trace "$WORK/bad_args.json" --name bad_args && err_one_line && err_has "item at index 0"
t 1 ts record --from-trace "$DATA/trace_no_args.json" --name no_args && err_has "already exists"
t 0 ts record --from-trace "$DATA/x1.json" --name no_args --update
out_has "updated"
t 0 ts snapshots show no_args --json
same "$(json_get approved)" "true" "record --update approves"
same "$(json_get source)" "trace" "source trace"
same "$(json_get calls.0.tool)" "a" "record --update overwrites"
t 0 ts record --from-trace "$DATA/langchain_steps.json" --name lc --format langchain
t 2 ts record --from-trace "$DATA/x1.json" && err_one_line && err_has "--name"
t 2 ts record --from-trace "$DATA/x1.json" --name a -- true && err_one_line
t 2 ts record && err_one_line
t 2 ts record --from-trace "$WORK/none.json" --name a && err_one_line
t 2 ts record --from-trace "$DATA/invalid_json.json" --name a && err_one_line && err_has "line 3"
t 2 ts record --from-trace "$DATA/x1.json" --name a --format bogus && err_one_line
t 2 ts record --from-trace "$DATA/openai_search.json" --name a --format gemini && err_one_line

# --- snapshots list / show / rm ------------------------------------------------------
t 0 ts snapshots list
out_has "Status" && out_has "Name" && out_has "Calls" && out_has "Updated" && out_has "Source"
out_has "✓ approved" && out_has "○ pending" && out_has "$FL" && out_has "floats_and_ints"
first=$(printf '%s\n' "$OUT" | sed -n 2p)
case "$first" in *brand_new*) ;; *) fail "list is not sorted by name: $first" ;; esac
t 0 ts snapshots list --json
same "$(json_get 0.name)" "brand_new" "list --json sorted"
same "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin)[0])))')" \
	"approved calls created_at file name source updated_at" "list --json keys"
t 0 ts snapshots list --pending --json
same "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(" ".join(s["name"] for s in json.load(sys.stdin)))')" \
	"floats_and_ints lc" "list --pending"
t 0 ts snapshots show "$FL"
out_has "Call 1 — search_flights" && out_has "Call 2 — book_flight" && out_has '"destination": "NYC"'
t 0 ts snapshots show "$FL" --json
same "$(out_compact)" "$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$FLFILE")" "show --json is the file"
t 1 ts snapshots show no_such && err_has "no_such"
t 2 ts snapshots show && err_one_line
t 2 ts snapshots rm lc </dev/null && err_one_line && err_has "--yes"
t 1 ts snapshots rm no_such --yes
t 0 ts snapshots rm lc --yes
t 1 ts snapshots show lc
t 0 ts snapshots list --pending
out_lacks "lc"
mkdir -p "$WORK/empty/none"
t 0 "$TSCTL" --socket "$SOCK" --dir "$WORK/empty/none" snapshots list
same "$OUT" "No snapshots found." "empty store"
t 0 "$TSCTL" --socket "$SOCK" --dir "$WORK/empty/none" snapshots list --json
same "$(out_compact)" "[]" "empty store json"
# a store that does not exist is no empty store: where tsctl looked and why
for cmd in "snapshots list" "snapshots list --json" "approve --all" "review --list" \
	"accept --all" "reject --all" "snapshots show x" "diff x"; do
	# shellcheck disable=SC2086
	t 1 "$TSCTL" --socket "$SOCK" --dir "$WORK/empty/gone" $cmd
	same "$OUT" "" "$cmd: stdout"
	err_has "tsctl ${cmd% *}"
	err_has ": no snapshot store at $WORK/empty/gone (given with --dir): no snapshot was recorded there"
done
t 0 env TOOLSCORE_DIR="$WORK/empty/gone" "$TSCTL" --socket "$SOCK" status
out_has "snapshot root:    $WORK/empty/gone (\$TOOLSCORE_DIR)"
out_has "store:            $WORK/empty/gone does not exist (no snapshot recorded there)"
# in a monorepo, from the repository root: the stores of its projects
mkdir -p "$WORK/mono/.git" "$WORK/mono/packages/a/.toolscore/snapshots" \
	"$WORK/mono/packages/b/tests/.toolscore/snapshots" "$WORK/mono/node_modules/x/.toolscore/snapshots"
here=$(pwd)
cd "$WORK/mono" || exit 1
t 1 "$TSCTL" --socket "$SOCK" approve --all
cd "$here" || exit 1
same "$OUT" "" "approve --all at a monorepo's root: stdout"
same "$ERR" "tsctl approve: no snapshot store at $WORK/mono/.toolscore/snapshots (none found up to the repository root $WORK/mono, which holds .git): no snapshot was recorded there
  snapshot stores below $WORK/mono:
    packages/a/.toolscore/snapshots
    packages/b/tests/.toolscore/snapshots
  run tsctl in the project of the one you mean, or give --dir PATH" "approve --all at a monorepo's root"

# --- unreadable files are reported, not fatal -------------------------------------------
printf '{"broken": ' >"$STORE/broken-00000000.json"
t 0 ts snapshots list
err_has "broken-00000000.json"

# --- a mistyped --socket: a daemon is started there, the store's daemon answers -------------
TYPO="$WORK/typo/toolscored.sock"
t 0 "$TSCTL" --socket "$TYPO" --dir "$STORE" snapshots list
out_has "$FL"
err_has "tsctl: note: no daemon answered at $TYPO, so one was started there; but the store is served by the daemon at $SOCK, which answered instead, and the one started was stopped (a mistyped --socket or TOOLSCORE_SOCKET?)"
wait_until 20 "the daemon started on the mistyped socket stopping" socket_gone "$TYPO"
# an ordinary start says nothing of the kind
t 0 "$TSCTL" --socket "$TYPO" --dir "$WORK/typo-store" check x --calls "$DATA/x1.json"
err_lacks "mistyped"
t 0 "$TSCTL" --socket "$TYPO" stop

# --- exit 3: no daemon ------------------------------------------------------------------
NOSOCK="$WORK/nodaemon/none.sock"
for cmd in "status" "stop" "snapshots list" "approve --all" "snapshots show x" \
	"check x --calls $DATA/x1.json" "record --from-trace $DATA/x1.json --name x" "review" "orphans"; do
	# shellcheck disable=SC2086
	t 3 env TOOLSCORED=/nonexistent/toolscored "$TSCTL" --socket "$NOSOCK" --dir "$STORE" $cmd && err_has "$NOSOCK"
done
t 3 env TOOLSCORED=/nonexistent/toolscored "$TSCTL" --socket "$NOSOCK" run -- true && err_has "$NOSOCK"

# --- stop ------------------------------------------------------------------------------
t 0 ts stop && out_has "stopped"
[ -S "$SOCK" ] && fail "socket still there after stop"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=""
t 3 env TOOLSCORED=/nonexistent/toolscored "$TSCTL" --socket "$SOCK" status && err_has "$SOCK"

# --- auto-start: a store command starts a daemon on the socket -------------------------
t 0 ts snapshots list
out_has "$FL"
t 0 ts status --json
AUTOPID=$(json_get pid)
same "$(json_get auto_started)/$(json_get idle_timeout_s)" "true/900.0" "an auto-started daemon's idle exit"
t 0 ts status
out_has "idle exit:        after 15m 0s"
t 0 ts stop
daemon_gone() { ! kill -0 "$AUTOPID" 2>/dev/null; }
wait_until 20 "the auto-started daemon $AUTOPID exiting after stop" daemon_gone
# one a client starts exits once no client is connected for TOOLSCORED_IDLE_TIMEOUT
t 0 env TOOLSCORED_IDLE_TIMEOUT=0.5 "$TSCTL" --socket "$SOCK" --dir "$STORE" snapshots list
wait_until 20 "the auto-started daemon exiting after 0.5 s without a client" socket_gone "$SOCK"
t 3 env TOOLSCORED_IDLE_TIMEOUT=soon "$TSCTL" --socket "$SOCK" --dir "$STORE" snapshots list
err_has "TOOLSCORED_IDLE_TIMEOUT: not a number of seconds (0 to 31536000): 'soon'"
# one started by hand stays (the variable is for auto-started ones), unless told
export TOOLSCORED_IDLE_TIMEOUT=0.5
start_daemon
unset TOOLSCORED_IDLE_TIMEOUT
t 0 ts status --json
same "$(json_get auto_started)/$(json_get idle_timeout_s)" "false/0.0" "a daemon started by hand stays"
t 0 ts status
out_has "idle exit:        never (started by hand or by systemd)"
t 0 ts stop

finish
