#!/bin/sh
# tsctl without a daemon: help and version, bad usage (exit 2 with one line on
# stderr), `snapshots path`, `eval` (table, --json keys, --min-score, errors)
# and `extract`.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

# --- help, version, unknown command / option ---------------------------------
t 0 "$TSCTL" --help && out_has "Usage: tsctl" && out_has "snapshots path"
t 0 "$TSCTL" -h && out_has "Commands:"
t 0 "$TSCTL" --version && out_has "tsctl "
for cmd in check record approve run eval extract review orphans status stop \
	"snapshots list" "snapshots show" "snapshots rm" "snapshots path" "report merge"; do
	# shellcheck disable=SC2086
	t 0 "$TSCTL" $cmd --help && out_has "Usage: tsctl $cmd" && out_has "--dir PATH"
	# shellcheck disable=SC2086
	t 0 "$TSCTL" $cmd -h && out_has "Usage: tsctl $cmd"
	# shellcheck disable=SC2086
	t 2 "$TSCTL" $cmd --no-such-flag && err_one_line && err_has "unknown option '--no-such-flag'"
done
t 0 "$TSCTL" snapshots --help && out_has "path"
t 0 "$TSCTL" help && out_has "Commands:"
t 0 "$TSCTL" help check && out_has "Usage: tsctl check"
t 0 "$TSCTL" help snapshots rm && out_has "Usage: tsctl snapshots rm"
t 0 "$TSCTL" help snapshots && out_has "path"
t 0 "$TSCTL" report --help && out_has "merge"
t 2 "$TSCTL" report && err_one_line && err_has "missing subcommand (merge, html)"
t 2 "$TSCTL" help frob && err_one_line && err_has "frob"
t 0 "$TSCTL" eval --version && out_has "tsctl "
t 2 "$TSCTL" && err_one_line && err_has "missing command"
t 2 "$TSCTL" frobnicate && err_one_line && err_has "unknown command 'frobnicate'"
t 2 "$TSCTL" snapshots && err_one_line
t 2 "$TSCTL" snapshots frob && err_one_line && err_has "unknown subcommand 'frob'"
t 2 "$TSCTL" --bogus status && err_one_line
t 2 "$TSCTL" eval && err_one_line && err_has "EXPECTED and ACTUAL"
t 2 "$TSCTL" eval a b c && err_one_line
t 2 "$TSCTL" eval --format && err_one_line && err_has "needs a value"
t 2 "$TSCTL" stop --json && err_one_line && err_has "--json is not supported"
t 2 "$TSCTL" eval --strict=yes a b && err_one_line && err_has "takes no value"

# --- snapshots path (no daemon) ------------------------------------------------
# the default root is the project's (tests/test_review_root.sh); in a
# directory outside any repository, .toolscore/snapshots under it
mkdir -p "$WORK/plain"
HERE=$(cd "$WORK/plain" && pwd -P)
t 0 sh -c 'cd "$1" && "$2" snapshots path "tests/test_agent.py::test_booking"' sh "$HERE" "$TSCTL"
same "$OUT" ".toolscore/snapshots/tests__test_agent.py__test_booking-5befce50.json" "default dir"
t 0 "$TSCTL" --dir /x/y/ snapshots path "../../evil"
same "$OUT" "/x/y/__..__evil-1361ca8c.json" "--dir before the command"
t 0 "$TSCTL" snapshots path --dir rel "tests/test_flights.py::test_books_a_flight"
same "$OUT" "rel/tests__test_flights.py__test_books_a_flight-a17e174d.json" "compat name"
t 0 env TOOLSCORE_DIR=/env/dir "$TSCTL" snapshots path no_args
same "$OUT" "/env/dir/no_args-7066a219.json" "TOOLSCORE_DIR"
t 0 env TOOLSCORE_DIR=/env/dir "$TSCTL" snapshots path --dir=/opt no_args
same "$OUT" "/opt/no_args-7066a219.json" "--dir beats TOOLSCORE_DIR"
t 0 "$TSCTL" snapshots path -- -dash
out_has "-dash-"
t 2 "$TSCTL" snapshots path && err_one_line
t 2 "$TSCTL" snapshots path a b && err_one_line
t 0 "$TSCTL" --dir .toolscore/snapshots snapshots path ""
same "$OUT" ".toolscore/snapshots/snapshot-da39a3ee.json" "the empty name is a name"

# --- eval ----------------------------------------------------------------------
t 0 "$TSCTL" eval "$DATA/expected_search.json" "$DATA/openai_search.json"
out_has "score 1.0000" && out_has "grade A" && out_has "passed" && out_has "selection_accuracy"
out_lacks "$(printf '\033')"
t 0 "$TSCTL" eval "$DATA/expected_search.json" "$DATA/openai_search.json" --json
same "$(json_get score)" "0.9999999999999999" "perfect score"
same "$(json_get grade)" "A" "grade"
same "$(json_get passed)" "true" "passed"
same "$(json_get redundant_count)" "0" "redundant_count is an integer"
keys=$(out_keys)
same "$keys" "argument_f1 argument_precision argument_recall called_tools edit_distance expected_tools extra_tools grade invocation_accuracy min_score missing_tools normalized_distance passed path_efficiency redundant_count redundant_rate score selection_accuracy sequence_accuracy step_match_rate tool_correctness total_calls trajectory_accuracy" "eval --json keys"
t 0 "$TSCTL" eval --json "$DATA/abc.json" "$DATA/bac.json"
same "$(json_get score)" "0.8666666666666666" "A,B,C vs B,A,C"
same "$(json_get edit_distance)" "2.0" "edit distance"
same "$(json_get grade)" "B" "grade B"
t 1 "$TSCTL" eval --json --min-score 0.9 "$DATA/abc.json" "$DATA/bac.json"
same "$(json_get passed)" "false" "below min"
t 0 "$TSCTL" eval --min-score 0.8 "$DATA/abc.json" "$DATA/bac.json"
t 0 "$TSCTL" eval "$DATA/x1.json" "$DATA/x2.json"
out_has "failed"
# the drift report follows the metrics when the calls differ (width from
# COLUMNS, the JSON diff unless --no-json-diff); none for the same calls
out_has "Expected vs Actual Tool Calls" && out_has "  calls[0] a  args.x: 1 → 2" && out_has "@@ -2,7 +2,7 @@"
widest 100
t 0 env COLUMNS=45 "$TSCTL" eval "$DATA/x1.json" "$DATA/x2.json"
widest 45 && out_has "score 0.70 < 1.00 required  ·  selection 1.00"
t 0 "$TSCTL" eval --no-json-diff "$DATA/x1.json" "$DATA/x2.json"
out_has "Expected vs Actual Tool Calls" && out_lacks "@@"
t 0 "$TSCTL" eval "$DATA/expected_search.json" "$DATA/openai_search.json"
out_lacks "Expected vs Actual"
t 0 "$TSCTL" eval --json "$DATA/x1.json" "$DATA/x2.json"
out_lacks "Expected vs Actual"
t 0 "$TSCTL" eval --json --weights '{"selection_accuracy": 1, "argument_f1": 0, "sequence_accuracy": 0, "redundant_rate": 0}' "$DATA/x1.json" "$DATA/x2.json"
same "$(json_get score)" "1.0" "weights"
printf '{"selection_accuracy": 1, "argument_f1": 0, "sequence_accuracy": 0, "redundant_rate": 0}' >"$WORK/w.json"
t 0 "$TSCTL" eval --json --weights "@$WORK/w.json" "$DATA/x1.json" "$DATA/x2.json"
same "$(json_get score)" "1.0" "weights from a file"
t 0 "$TSCTL" eval --json "$DATA/t_int.json" "$DATA/t_float.json"
same "$(json_get argument_f1)" "1.0" "lenient 1 == 1.0"
t 1 "$TSCTL" eval --json --strict --min-score 1 "$DATA/t_int.json" "$DATA/t_float.json"
same "$(json_get argument_f1)" "0.0" "strict 1 != 1.0"
# A snapshot file as EXPECTED.
t 0 "$TSCTL" eval --json --min-score 1 "$COMPAT/tests__test_flights.py__test_books_a_flight-a17e174d.json" "$DATA/trace_flights.json"
same "$(json_get passed)" "true" "snapshot file as expected"
t 0 "$TSCTL" eval --json --format openai "$DATA/expected_search.json" "$DATA/openai_search.json"
t 0 sh -c "\"$TSCTL\" eval --json \"$DATA/expected_search.json\" - < \"$DATA/openai_search.json\""
# Errors: exit 2 and one line.
t 2 "$TSCTL" eval "$DATA/missing.json" "$DATA/x1.json" && err_one_line && err_has "missing.json" && err_has "No such file"
t 2 "$TSCTL" eval "$DATA/x1.json" "$DATA/missing.json" && err_one_line && err_has "missing.json"
t 2 "$TSCTL" eval "$DATA/x1.json" "$DATA" && err_one_line && err_has "Is a directory"
t 2 "$TSCTL" extract "$DATA" && err_one_line && err_has "Is a directory"
printf '' >"$WORK/empty.json"
t 2 "$TSCTL" extract "$WORK/empty.json" && err_one_line && err_has "empty.json"
t 2 "$TSCTL" eval "$DATA/invalid_json.json" "$DATA/x1.json" && err_one_line && err_has "invalid_json.json" && err_has "line 3" && err_has "column"
t 2 "$TSCTL" eval "$DATA/x1.json" "$DATA/invalid_json.json" && err_one_line && err_has "line 3"
t 2 "$TSCTL" eval "$DATA/x1.json" "$DATA/invalid_utf8.json" && err_one_line && err_has "invalid_utf8.json"
t 2 "$TSCTL" eval "$DATA/x1.json" "$DATA/unknown_shape.json" && err_one_line && err_has "cannot auto-detect"
t 2 "$TSCTL" eval "$DATA/not_calls.json" "$DATA/x1.json" && err_one_line && err_has "array of calls or a snapshot"
t 2 "$TSCTL" eval "$DATA/item_not_object.json" "$DATA/x1.json" && err_one_line && err_has "index 1"
t 2 "$TSCTL" eval --format nope "$DATA/x1.json" "$DATA/x1.json" && err_one_line && err_has "unknown format 'nope'"
t 2 "$TSCTL" eval --format anthropic "$DATA/x1.json" "$DATA/openai_search.json" && err_one_line && err_has "anthropic"
t 2 "$TSCTL" eval --weights '{"bogus": 1}' "$DATA/x1.json" "$DATA/x1.json" && err_one_line && err_has "bogus"
t 2 "$TSCTL" eval --weights '{"selection_accuracy": -1}' "$DATA/x1.json" "$DATA/x1.json" && err_one_line && err_has "selection_accuracy"
t 2 "$TSCTL" eval --weights '{"selection_accuracy": 0, "argument_f1": 0, "sequence_accuracy": 0, "redundant_rate": 0}' "$DATA/x1.json" "$DATA/x1.json" && err_one_line
t 2 "$TSCTL" eval --weights 'not json' "$DATA/x1.json" "$DATA/x1.json" && err_one_line && err_has "weights"
t 2 "$TSCTL" eval --weights '[1]' "$DATA/x1.json" "$DATA/x1.json" && err_one_line
t 2 "$TSCTL" eval --weights "@$WORK/none.json" "$DATA/x1.json" "$DATA/x1.json" && err_one_line
t 2 "$TSCTL" eval --min-score 1.5 "$DATA/x1.json" "$DATA/x1.json" && err_one_line && err_has "min-score"
t 2 "$TSCTL" eval --min-score abc "$DATA/x1.json" "$DATA/x1.json" && err_one_line
t 2 "$TSCTL" eval --min-score -0.1 "$DATA/x1.json" "$DATA/x1.json" && err_one_line
t 2 "$TSCTL" eval --min-score nan "$DATA/x1.json" "$DATA/x1.json" && err_one_line

# --- extract ---------------------------------------------------------------------
t 0 "$TSCTL" extract "$DATA/openai_search.json"
same "$(out_compact)" \
	'[{"tool": "search", "args": {"q": "test"}}]' "extract openai"
t 0 "$TSCTL" extract "$DATA/anthropic.json" --format anthropic
same "$(out_compact)" \
	'[{"tool": "search", "args": {"q": "x"}}]' "extract anthropic"
t 0 "$TSCTL" extract --format langchain "$DATA/langchain_steps.json"
same "$(out_compact)" \
	'[{"tool": "search", "args": {"q": "x"}}, {"tool": "lookup", "args": {"id": 7}}]' "extract langchain"
t 0 "$TSCTL" extract "$DATA/trace_no_args.json"
out_has '"tool": "ping"'
t 0 sh -c "\"$TSCTL\" extract - < \"$DATA/openai_search.json\""
out_has '"search"'
t 2 "$TSCTL" extract && err_one_line
t 2 "$TSCTL" extract "$DATA/missing.json" && err_one_line && err_has "No such file"
t 2 "$TSCTL" extract "$DATA/invalid_json.json" && err_one_line && err_has "line 3"
t 2 "$TSCTL" extract "$DATA/unknown_shape.json" && err_one_line && err_has "cannot auto-detect"
t 2 "$TSCTL" extract --format bogus "$DATA/openai_search.json" && err_one_line && err_has "unknown format"
t 2 "$TSCTL" extract --format gemini "$DATA/openai_search.json" && err_one_line && err_has "gemini"
t 2 "$TSCTL" extract --format langchain - </dev/null && err_one_line
# the TypeScript SDKs' shapes (tests/data/extract, test_extract_js and
# test_extract_langgraph hold the rules), detected from the file
XDATA="$TS_SOURCE_DIR/tests/data/extract"
for f in langgraph_js_thread_state langgraph_js_stream_subgraphs openai_agents_js_history_no_calls \
	vercel_ai_v6_on_finish vercel_ai_v6_on_finish_text; do
	t 0 "$TSCTL" extract "$XDATA/$f.json"
	same "$(out_compact)" "$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' \
		"$XDATA/$f.expected.json")" "extract $f"
done
t 0 "$TSCTL" extract --format langgraph "$XDATA/langgraph_js_stream_subgraphs.json"
out_has '"search_hotels"'
printf '%s' '[[["a:1"], "messages", [{"type": "AIMessageChunk", "tool_call_chunks": [{"name": "f"}]}, {}]]]' >"$WORK/modes.json"
t 2 "$TSCTL" extract --format langgraph "$WORK/modes.json" && err_one_line &&
	err_has "message at index 0 is a [namespace, mode, chunk] tuple"
printf '%s' '[[["a:1"], [{"type": "AIMessageChunk", "id": "m", "tool_call_chunks": [{"name": "f", "args": 5, "index": 0}]}, {}]]]' >"$WORK/frag.json"
t 2 "$TSCTL" extract "$WORK/frag.json" && err_one_line && err_has "tool_call_chunks[0].args is a number"

# --- the man page renders and covers every command; bash completion ----------------
if command -v man >/dev/null 2>&1; then
	t 0 env MANWIDTH=100 man -l "$TS_SOURCE_DIR/docs/tsctl.1"
	for word in "tsctl check" "tsctl record" "tsctl approve" "tsctl snapshots list" \
		"tsctl snapshots show" "tsctl snapshots rm" "tsctl snapshots path" "tsctl run" \
		"tsctl eval" "tsctl extract" "tsctl review" "tsctl orphans" "tsctl status" \
		"tsctl stop" "tsctl report merge" "--from-reports" "--no-fail-on-findings" \
		"EXIT STATUS" "TOOLSCORE_TEST" "NO_COLOR"; do
		out_has "$word"
	done
	t 0 sh -c "man --warnings -l '$TS_SOURCE_DIR/docs/tsctl.1' 2>&1 >/dev/null"
	same "$OUT" "" "man page warnings"
else
	fail "man is not installed (scripts/deps.sh test installs man-db)"
fi
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tsctl; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$TS_SOURCE_DIR/client/tsctl/tsctl.bash-completion" "$@"
}
t 0 complete_words tsctl sn && same "$OUT" "snapshots" "complete a command"
t 0 complete_words tsctl snapshots "" && out_has "list" && out_has "path"
t 0 complete_words tsctl report "" && same "$(echo $OUT)" "merge html" "complete report"
t 0 complete_words tsctl check x --for && same "$OUT" "--format" "complete an option"
t 0 complete_words tsctl eval --format open && out_has "openai-responses"

finish
