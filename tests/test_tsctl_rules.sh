#!/bin/sh
# Comparison rules from the command line (docs/rules.md): `tsctl eval
# --rules FILE` (notes after the score line, "rules" in --json, bad files
# refused with file, line and column), `tsctl rules check [FILE]` (what
# each pattern matches in the store, snapshots still holding a value to
# redact, exit codes).
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

R="$WORK/rules"
mkdir -p "$R"
cat >"$R/expected.json" <<'EOF'
[{"tool": "search", "args": {"q": "weather in Paris", "request_id": "r-1"}},
 {"tool": "log_event", "args": {"m": "start"}},
 {"tool": "book", "args": {"id": 3, "at": "2025-01-01T10:00:00Z"}}]
EOF
cat >"$R/actual.json" <<'EOF'
[{"tool": "book", "args": {"id": 3, "at": "2025-06-30T18:12:44Z"}},
 {"tool": "search", "args": {"q": "weather in Paris today", "request_id": "r-2"}}]
EOF
cat >"$R/rules.json" <<'EOF'
{
  "ignore": ["*.args.request_id"],
  "order": "unordered",
  "match": {"search.args.q": {"regex": "^weather in "},
            "book.args.at": {"type": true}},
  "tools": {"log_event": {"ignore": true}}
}
EOF

# --- eval --rules ----------------------------------------------------------------
t 1 "$TSCTL" eval "$R/expected.json" "$R/actual.json" --min-score 0.9 && out_has "failed"
t 0 "$TSCTL" eval "$R/expected.json" "$R/actual.json" --rules "$R/rules.json" --min-score 1
out_has "score 1.0000  grade A  passed"
out_has "ignored by rules: 1 call of log_event (1 in the baseline, 0 observed)"
out_has "ignored by rules: 1 value at *.args.request_id"
out_has "relaxed by rules: 1 value at search.args.q (regex)"
out_has "relaxed by rules: 1 value at book.args.at (type)"
out_has "order by rules: unordered (2 calls compared out of order)"
t 0 "$TSCTL" eval "$R/expected.json" "$R/actual.json" --rules "$R/rules.json" --json
same "$(json_get score)" "0.9999999999999999" "score under rules"
same "$(json_get rules.order)" "unordered" "rules.order"
same "$(json_get rules.ignored.0.pattern)" "*.args.request_id" "rules.ignored"
same "$(json_get rules.tools.0.expected)" "1" "rules.tools"
same "$(json_get rules.matched.1.matcher)" "type" "rules.matched"
# without rules the JSON has no "rules" key (byte for byte as before)
t 0 "$TSCTL" eval "$DATA/expected_search.json" "$DATA/openai_search.json" --json
out_lacks '"rules"'
# an empty rules object changes nothing
printf '{}' >"$R/empty.json"
t 0 "$TSCTL" eval "$DATA/expected_search.json" "$DATA/openai_search.json" --json
plain=$OUT
t 0 "$TSCTL" eval "$DATA/expected_search.json" "$DATA/openai_search.json" --json --rules "$R/empty.json"
same "$OUT" "$plain" "empty rules"
# rules from standard input
t 0 sh -c "\"$TSCTL\" eval \"$R/expected.json\" \"$R/actual.json\" --rules - <\"$R/rules.json\""
out_has "passed"

# --- bad rules files: one line, file, line and column, the key or pattern --------
bad() { # bad NAME CONTENT WANTED...
	name=$1
	printf '%s' "$2" >"$R/$name"
	shift 2
	t 2 "$TSCTL" eval "$R/expected.json" "$R/actual.json" --rules "$R/$name" && err_one_line &&
		err_has "$R/$name: line "
	for w in "$@"; do err_has "$w"; done
}
bad syntax.json '{"ignore": [' "line 1, column 13"
bad unknown.json '{
  "ignore": [],
  "ordr": "unordered"
}' "line 3, column 3" "unknown key 'ordr'" "known: ignore, redact, order, match, tools"
bad pattern.json '{"redact": ["*.args.ok", "*.args.**x"]}' "line 1, column 26" "redact[1]" \
	"pattern '*.args.**x', column 10"
bad regex.json '{"match": {"search.args.q": {"regex": "[unclosed"}}}' \
	"invalid regular expression '[unclosed'"
bad tolerance.json '{"match": {"*.args.t": {"approx": -1}}}' "approx must be a number >= 0"
bad order.json '{"order": "sorted"}' "one of strict, unordered, superset, subset"
bad dup.json '{"ignore": ["*.args.a"], "ignore": ["*.args.b"]}' "duplicate key 'ignore'"
t 2 "$TSCTL" eval "$R/expected.json" "$R/actual.json" --rules "$R/missing.json" && err_one_line &&
	err_has "cannot read $R/missing.json"

# --- rules check -------------------------------------------------------------------
P="$WORK/proj"
mkdir -p "$P/.toolscore/snapshots"
cd "$P" || exit 1
t 0 "$TSCTL" rules check && out_has ".toolscore/config.json: no rules file, so no rules apply"
snap() { # snap NAME APPROVED CALLS
	f=$("$TSCTL" snapshots path "$1")
	cat >"$f" <<EOF
{"schema_version": 1, "name": "$1", "created_at": "2025-06-01T12:00:00.000001+00:00",
 "updated_at": "2025-06-01T12:00:00.000001+00:00", "toolscore_version": "1.8.1",
 "approved": $2, "source": "pytest", "calls": $3}
EOF
}
snap flow_a true '[{"tool": "search", "args": {"q": "x", "request_id": "1", "api_key": "sk-live"}}, {"tool": "log_event"}]'
snap flow_b true '[{"tool": "search", "args": {"q": "y", "request_id": "2", "api_key": "[redacted]"}}]'
snap flow_c false '[{"tool": "book", "args": {"id": 1}}]'
cat >.toolscore/config.json <<'EOF'
{"ignore": ["*.args.request_id", "*.args.nothing"],
 "redact": ["*.args.api_key"],
 "match": {"search.args.q": {"type": true}},
 "tools": {"log_event": {"ignore": true}}}
EOF
t 1 "$TSCTL" rules check
out_has ".toolscore/config.json: valid; order strict"
out_has ".toolscore/snapshots: 3 snapshots"
out_has "*.args.request_id"
out_has "2 values in 2 snapshots"
out_has "no match"
out_has "1 value in 1 snapshot"
out_has "1 call in 1 snapshot"
out_has "1 snapshot still holds a value a redact rule would hide"
out_has "flow_a (.toolscore/snapshots/flow_a-"
out_lacks "flow_b ("
t 1 "$TSCTL" rules check --json
same "$(json_get snapshots)" "3" "rules check --json snapshots"
same "$(json_get patterns.0.values)" "2" "request_id values"
same "$(json_get patterns.2.kind)" "redact" "third pattern kind"
same "$(json_get redactable.0.name)" "flow_a" "redactable"
# once the value is redacted, the check passes
snap flow_a true '[{"tool": "search", "args": {"q": "x", "request_id": "1", "api_key": "[redacted]"}}]'
t 0 "$TSCTL" rules check && out_lacks "still hold"
# a given file; a custom --dir reads config.json in the root's parent
t 0 "$TSCTL" rules check "$R/rules.json" && out_has "$R/rules.json: valid; order unordered"
mkdir -p "$P/custom/snaps"
t 0 "$TSCTL" --dir custom/snaps rules check && out_has "custom/config.json: no rules file"
printf '{"ignore": ["*.x"]}' >"$P/custom/config.json"
t 2 "$TSCTL" --dir custom/snaps rules check && err_one_line &&
	err_has "custom/config.json: line 1, column 13: ignore[0]: pattern '*.x', column 3"
t 2 "$TSCTL" rules check a b && err_one_line
t 2 "$TSCTL" rules && err_one_line && err_has "missing subcommand (check, suggest)"
t 0 "$TSCTL" rules --help && out_has "check"
t 0 "$TSCTL" rules check --help && out_has "Usage: tsctl rules check"
cd / || exit 1

# --- tsctl check --rules, through a daemon ------------------------------------------
start_daemon
P2="$WORK/proj2"
mkdir -p "$P2/.toolscore"
cd "$P2" || exit 1
tc() { "$TSCTL" --socket "$SOCK" "$@"; }
t 0 tc check flow --calls "$R/expected.json" && out_has "CREATED"
t 0 tc approve flow
t 1 tc check flow --calls "$R/actual.json" && out_has "FAILED"
out_lacks "by rules"
t 0 tc check flow --calls "$R/actual.json" --rules "$R/rules.json" && out_has "PASSED"
t 0 tc check flow --calls "$R/actual.json" --rules "$R/rules.json" --json
same "$(json_get rules.order)" "unordered" "check --json rules"
same "$(json_get rules.tools.0.tool)" "log_event" "check --json rules.tools"
# without rules, --json has exactly the keys it always had
t 1 tc check flow --calls "$R/actual.json" --json
same "$(out_keys)" "file message name outcome report result" "keys without rules"
# the project file, and --rules merged over it
printf '{"tools": {"log_event": {"ignore": true}}, "ignore": ["*.args.request_id"]}' \
	>.toolscore/config.json
t 1 tc check flow --calls "$R/actual.json"
out_has "ignored by rules: 1 call of log_event (1 in the baseline, 0 observed)"
printf '{"order": "unordered", "match": {"search.args.q": {"regex": "^weather"}, "book.args.at": {"type": true}}}' \
	>"$R/more.json"
t 0 tc check flow --calls "$R/actual.json" --rules "$R/more.json" && out_has "PASSED"
# a bad --rules file is refused before the daemon is asked
t 2 tc check flow --calls "$R/actual.json" --rules "$R/unknown.json" && err_one_line &&
	err_has "$R/unknown.json: line 3, column 3: unknown key 'ordr'"
# a malformed project file: every check of the store fails, naming it
printf '{"ignore": ["*.args.request_id"],\n "redact": ["*.args..k"]}' >.toolscore/config.json
t 2 tc check flow --calls "$R/actual.json" && err_one_line &&
	err_has "$P2/.toolscore/config.json: line 2, column 13: redact[0]: pattern '*.args..k', column 8"
t 2 tc check other --calls "$R/actual.json" && err_has "config.json: line 2"
cd "$WORK" || exit 1
t 0 tc --dir "$WORK/elsewhere/snaps" check other --calls "$R/actual.json" && out_has "CREATED"
cd "$P2" || exit 1
# redact: the snapshot file never holds the secret
printf '{"redact": ["*.args.api_key"]}' >.toolscore/config.json
printf '[{"tool": "login", "args": {"user": "u", "api_key": "sk-live-123"}}]' >"$R/secret.json"
t 0 tc check login --calls "$R/secret.json" && out_has "CREATED"
t 0 grep -c '"api_key": "\[redacted\]"' "$(tc snapshots path login)"
t 1 grep -c 'sk-live-123' "$(tc snapshots path login)"
t 0 tc rules check && out_lacks "still hold"
cd / || exit 1

finish
