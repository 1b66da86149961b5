#!/bin/sh
# Black-box acceptance of tsctl and toolscored against the contract
# (docs/tsctl.1, docs/snapshots.md, docs/protocol.md), for what the other tsctl tests leave
# out: the default store relative to the current directory and created on
# the first write only, the default socket ($XDG_RUNTIME_DIR or
# /tmp/toolscore-UID) and TOOLSCORE_SOCKET/TOOLSCORE_DIR, the exact messages
# and JSON types of every check outcome, the summary line with all five
# parts, approve/list/rm details, --version and bad usage on every command,
# and `make run`'s announcement of its socket.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

EXTRA_PIDS=""
acceptance_cleanup() {
	for p in $EXTRA_PIDS; do
		kill "$p" 2>/dev/null
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$p" 2>/dev/null
	done
	for s in "$WORK/env.sock" "$WORK/xdg/toolscore/toolscored.sock"; do
		[ -S "$s" ] && "$TSCTL" --socket "$s" stop >/dev/null 2>&1
	done
	cleanup
}
trap acceptance_cleanup EXIT
chmod 700 "$WORK"

# py EXPR: evaluate a Python expression over j (the JSON in $OUT); prints it.
py() {
	printf '%s' "$OUT" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1" 2>&1
}
check_py() {
	same "$(py "$1")" "True" "$1"
}
wait_socket() { wait_until 20 "a socket at $1" socket_there "$1"; }

start_daemon
A="$WORK/a.json"
B="$WORK/b.json"
printf '[{"tool": "search", "args": {"q": "NYC"}}, {"tool": "book", "args": {"id": "FL-1"}}]\n' >"$A"
printf '[{"tool": "search", "args": {"q": "LA"}}]\n' >"$B"

# --- default store: .toolscore/snapshots under the current directory ------------
mkdir "$WORK/proj"
cd "$WORK/proj" || exit 1
tp() { "$TSCTL" --socket "$SOCK" "$@"; }
# a store that does not exist is not an empty one: where tsctl looked, and why
for cmd in "snapshots list" "snapshots list --pending --json" "approve --all" "review --list" \
	"accept --all" "orphans --run x"; do
	# shellcheck disable=SC2086
	t 1 tp $cmd
	out_lacks "No "
	err_has "no snapshot store at $(pwd -P)/.toolscore/snapshots (none found and not in a repository: under the current directory)"
done
t 1 tp snapshots show nothing
t 1 tp snapshots rm nothing --yes
t 1 tp approve nothing
t 1 env CI=1 "$TSCTL" --socket "$SOCK" check fresh --calls "$A"
[ -e .toolscore ] && fail "reading an absent root or a refused check created .toolscore"
t 0 tp check fresh --calls "$A" --json
same "$(json_get file)" "$WORK/proj/.toolscore/snapshots/fresh-$(printf fresh | sha1sum | cut -c1-8).json" \
	"the default root is .toolscore/snapshots in the current directory"
[ -f "$(json_get file)" ] || fail "the first write did not create the root"
mkdir sub
t 0 sh -c 'cd sub && "$0" --socket "$1" snapshots list --json' "$TSCTL" "$SOCK"
same "$(py '[s["name"] for s in j]')" "['fresh']" "from a subdirectory the root found walking up is used"
[ -e sub/.toolscore ] && fail "a subdirectory got a second store"
# TOOLSCORE_DIR (relative to the current directory) and --dir beating it.
t 0 env TOOLSCORE_DIR=envroot "$TSCTL" --socket "$SOCK" check e1 --calls "$A"
[ -f "envroot/e1-$(printf e1 | sha1sum | cut -c1-8).json" ] || fail "TOOLSCORE_DIR not used by check"
t 0 env TOOLSCORE_DIR=envroot "$TSCTL" --socket "$SOCK" snapshots list --json
same "$(py '[s["name"] for s in j]')" "['e1']" "TOOLSCORE_DIR used by list"
t 0 env TOOLSCORE_DIR=envroot "$TSCTL" --socket "$SOCK" --dir .toolscore/snapshots snapshots list --json
same "$(py '[s["name"] for s in j]')" "['fresh']" "--dir beats TOOLSCORE_DIR"
t 0 env TOOLSCORE_DIR= "$TSCTL" --socket "$SOCK" snapshots list --json
same "$(py '[s["name"] for s in j]')" "['fresh']" "an empty TOOLSCORE_DIR is the default"
cd "$WORK" || exit 1

# --- every check outcome: exact messages, JSON types, exit codes ------------------
tc() { env -u CI "$TSCTL" --socket "$SOCK" --dir "$STORE" check "$@" --json; }
t 0 tc n1 --calls "$A"
check_py 'j == {"outcome": "CREATED", "name": "n1", "file": j["file"], "message": "snapshot '"'n1'"' created: " + j["file"] + " - review it, then approve with `tsctl approve '"'n1'"'`", "result": None, "report": None}'
check_py 'j["file"].startswith("/") and j["file"].endswith("/n1-'"$(printf n1 | sha1sum | cut -c1-8)"'.json")'
t 0 tc n1 --calls "$A"
check_py 'j["outcome"] == "PENDING" and j["message"] == "snapshot '"'n1'"' pending approval - run `tsctl approve '"'n1'"'` to use it as a baseline" and j["result"] is None and j["report"] is None'
t 1 env CI=1 "$TSCTL" --socket "$SOCK" --dir "$STORE" check n1 --calls "$A" --json
check_py 'j["outcome"] == "ERROR_PENDING_IN_CI" and j["message"] == "snapshot '"'n1'"' is pending approval; an unapproved snapshot cannot be used as a baseline in CI. Accept it locally with `tsctl accept '"'n1'"'` (or review everything with `tsctl review`)." and j["result"] is None and j["report"] is None'
t 1 env CI=" " "$TSCTL" --socket "$SOCK" --dir "$STORE" check n2 --calls "$A" --json
check_py 'j["outcome"] == "ERROR_MISSING_IN_CI" and j["message"] == "snapshot '"'n2'"' does not exist; snapshots cannot be created in CI. Run the test locally to record it, then accept it with `tsctl accept '"'n2'"'` (or review everything with `tsctl review`)." and j["result"] is None and j["report"] is None'
t 0 ts snapshots path n2
[ -e "$OUT" ] && fail "CI=' ' (set, non-empty) wrote a snapshot"
t 0 tc n1 --calls "$B" --update
check_py 'j["outcome"] == "UPDATED" and j["message"] == "snapshot '"'n1'"' updated (calls overwritten and approved)" and j["result"] is None and j["report"] is None'
t 0 tc n1 --calls "$B"
check_py 'j["outcome"] == "PASSED" and j["report"] is None and j["result"]["passed"] is True and j["result"]["min_score"] == 1.0'
RESULT_TYPES='all(isinstance(j["result"][k], float) for k in ["score", "invocation_accuracy", "selection_accuracy", "argument_precision", "argument_recall", "argument_f1", "edit_distance", "normalized_distance", "sequence_accuracy", "redundant_rate", "tool_correctness", "trajectory_accuracy", "step_match_rate", "path_efficiency", "min_score"]) and all(type(j["result"][k]) is int for k in ["redundant_count", "total_calls"]) and all(isinstance(j["result"][k], list) for k in ["expected_tools", "called_tools", "missing_tools", "extra_tools"]) and isinstance(j["result"]["grade"], str) and isinstance(j["result"]["passed"], bool)'
check_py "$RESULT_TYPES"
t 1 tc n1 --calls "$A"
check_py 'j["outcome"] == "FAILED" and j["result"]["passed"] is False and isinstance(j["report"], str)'
check_py "$RESULT_TYPES"
check_py 'j["result"]["extra_tools"] == ["book"] and j["result"]["total_calls"] == 2 and j["result"]["redundant_count"] == 1'
check_py '"Expected vs Actual Tool Calls" in j["report"] and "\n+ calls[1] book(" in j["report"] and "\x1b" not in j["report"]'
# TOOLSCORE_RECORD_UPDATE: anything but empty/0/false/no (trimmed, any case) is on.
t 0 env TOOLSCORE_RECORD_UPDATE=off "$TSCTL" --socket "$SOCK" --dir "$STORE" check n1 --calls "$A" --json
same "$(json_get outcome)" "UPDATED" "TOOLSCORE_RECORD_UPDATE=off is truthy"
t 1 env TOOLSCORE_RECORD_UPDATE=" No	" "$TSCTL" --socket "$SOCK" --dir "$STORE" check n1 --calls "$B" --json
same "$(json_get outcome)" "FAILED" "TOOLSCORE_RECORD_UPDATE=' No\\t' is falsy"

# --- list --json types; approve table and --all -----------------------------------
t 0 ts snapshots list --json
check_py 'all(set(s) == {"name", "approved", "calls", "created_at", "updated_at", "source", "file"} and isinstance(s["approved"], bool) and type(s["calls"]) is int and s["file"].startswith("/") for s in j)'
check_py '[(s["name"], s["approved"], s["calls"], s["source"]) for s in j] == [("n1", True, 2, "tsctl")]'
TS_RE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\+00:00$'
same "$(json_get 0.created_at | grep -Ec "$TS_RE")" "1" "created_at is ISO-8601 UTC with microseconds"
same "$(json_get 0.updated_at | grep -Ec "$TS_RE")" "1" "updated_at is ISO-8601 UTC with microseconds"
for n in p_b p_a p_c; do tc "$n" --calls "$A" >/dev/null || fail "check $n"; done
t 1 ts approve p_a nope p_b && err_has "nope"
t 0 ts snapshots list --pending --json
same "$(py '[s["name"] for s in j]')" "['p_a', 'p_b', 'p_c']" "an unknown name approves nothing"
t 0 ts approve --all
same "$(printf '%s\n' "$OUT" | sed -n 1p | tr -s ' ')" "Name Calls Age" "approve table header"
same "$(printf '%s\n' "$OUT" | sed -n 2,4p | tr -s ' ' | tr '\n' '|')" "p_a 2 today|p_b 2 today|p_c 2 today|" "approve table rows"
same "$(printf '%s\n' "$OUT" | tail -n 1)" "Approved 3 snapshot(s)." "approve count"
t 0 ts snapshots list --pending
same "$OUT" "No snapshots found." "list --pending with nothing pending"
t 0 ts approve p_a p_b p_a
same "$OUT" "'p_a' is already approved.
'p_b' is already approved." "approve of approved snapshots says so, a repeated name once"
tc p_d --calls "$A" >/dev/null || fail "check p_d"
t 0 ts approve p_d p_d
same "$(printf '%s\n' "$OUT" | tail -n 1)" "Approved 1 snapshot(s)." "a repeated name is one snapshot"
same "$(printf '%s\n' "$OUT" | grep -c '^p_d ')" "1" "a repeated name is one row"
t 0 ts snapshots list
same "$(printf '%s\n' "$OUT" | sed -n 1p | tr -s ' ')" "Status Name Calls Updated Source" "list header"
same "$(printf '%s\n' "$OUT" | sed -n 2p | cut -d' ' -f1-3)" "✓ approved " "approved symbol"

# --- files that are not snapshots: ignored by listing, reported by status ----------
mkdir -p "$WORK/odd"
t 0 "$TSCTL" --socket "$SOCK" --dir "$WORK/odd" check good --calls "$A"
printf 'not json\n' >"$WORK/odd/junk.json"
printf '[1]\n' >"$WORK/odd/array.json"
cp "$WORK/odd/good-"*.json "$WORK/odd/renamed-00000000.json"
printf 'notes\n' >"$WORK/odd/notes.txt"
t 0 "$TSCTL" --socket "$SOCK" --dir "$WORK/odd" snapshots list --json
same "$(py '[s["name"] for s in j]')" "['good']" "only snapshots are listed"
t 0 "$TSCTL" --socket "$SOCK" --dir "$WORK/odd" status
out_has "$WORK/odd/junk.json" && out_has "$WORK/odd/array.json" && out_has "$WORK/odd/renamed-00000000.json"
out_lacks "notes.txt" && out_has "1 snapshot, 3 unreadable files"
t 0 "$TSCTL" --socket "$SOCK" --dir "$WORK/odd" status --json
check_py 'j["store_check"]["root"] == "'"$WORK/odd"'" and j["store_check"]["snapshots"] == 1 and sorted(p["file"] for p in j["store_check"]["problems"]) == ["'"$WORK/odd/array.json"'", "'"$WORK/odd/junk.json"'", "'"$WORK/odd/renamed-00000000.json"'"] and all(isinstance(p["message"], str) for p in j["store_check"]["problems"])'
t 0 "$TSCTL" --socket "$SOCK" --dir "$WORK/absent" status --json
check_py 'j["store_check"] is None'
[ -e "$WORK/absent" ] && fail "status created the root"

# --- concurrency: one CREATED among 16 workers; approvals survive checks ------------
i=0
RACERS=""
while [ $i -lt 16 ]; do
	tc race --calls "$A" >"$WORK/race.$i" 2>&1 &
	RACERS="$RACERS $!"
	i=$((i + 1))
done
for p in $RACERS; do wait "$p"; done
same "$(cat "$WORK"/race.* | grep -c '"CREATED"')" "1" "exactly one CREATED among 16 workers"
same "$(cat "$WORK"/race.* | grep -c '"PENDING"')" "15" "every other worker PENDING"
for n in r1 r2 r3 r4; do tc "$n" --calls "$A" >/dev/null; done
( for k in 1 2 3 4 5 6; do for n in r1 r2 r3 r4; do tc "$n" --calls "$A" >/dev/null 2>&1; done; done ) &
CHECKER=$!
t 0 ts approve r1 r2 r3 r4
wait "$CHECKER"
t 0 ts snapshots list --json
same "$(py '[s["approved"] for s in j if s["name"] in ("r1", "r2", "r3", "r4")]')" "[True, True, True, True]" \
	"approvals survive concurrent checks"

# --- auto-start without TOOLSCORED: the daemon beside tsctl ----------------------------
# (a store of its own: one another daemon holds would send tsctl there, and
# stop the daemon it started, test_tsctl_store.sh)
t 0 env -u TOOLSCORED PATH=/usr/bin:/bin "$TSCTL" --socket "$WORK/beside.sock" --dir "$WORK/beside-store" check b1 --calls "$A" --json
t 0 "$TSCTL" --socket "$WORK/beside.sock" status --json
BESIDE_PID=$(json_get pid)
EXTRA_PIDS="$EXTRA_PIDS $BESIDE_PID"
same "$(readlink "/proc/$BESIDE_PID/exe")" "$(readlink -f "$TOOLSCORED")" "the auto-started daemon is the one beside tsctl"
t 0 "$TSCTL" --socket "$WORK/beside.sock" stop

# --- control characters in a name never reach the terminal raw from a table --------
ESC=$(printf '\033')
CTRL_NAME=$(printf 'ctl%s[31mred\tx' "$ESC")
tc "$CTRL_NAME" --calls "$A" >/dev/null
t 0 ts snapshots list --pending
out_lacks "$ESC" && out_has 'ctl\x1b[31mred\tx'
same "$(printf '%s\n' "$OUT" | wc -l)" "3" "one line per pending snapshot (ctl..., race) after the header"
t 0 ts approve "$CTRL_NAME"
out_lacks "$ESC" && out_has 'ctl\x1b[31mred\tx'
t 0 ts snapshots list --json
same "$(py '[s["name"] for s in j if s["name"].startswith("ctl")] == ["ctl\x1b[31mred\tx"]')" "True" "--json keeps the name as it is"

# --- 16 tsctl processes auto-starting at once end with one daemon --------------------
# (a store of their own: one another daemon holds sends them there)
mkdir -m 700 "$WORK/many"
mkdir "$WORK/many-store"
STARTERS=""
i=0
while [ $i -lt 16 ]; do
	"$TSCTL" --socket "$WORK/many/d.sock" --dir "$WORK/many-store" snapshots list --json >"$WORK/many/out.$i" 2>&1 &
	STARTERS="$STARTERS $!"
	i=$((i + 1))
done
STARTER_FAILS=0
for p in $STARTERS; do wait "$p" || STARTER_FAILS=$((STARTER_FAILS + 1)); done
same "$STARTER_FAILS" "0" "every one of 16 auto-starting tsctl succeeded"
t 0 "$TSCTL" --socket "$WORK/many/d.sock" status --json
MANY_PID=$(json_get pid)
EXTRA_PIDS="$EXTRA_PIDS $MANY_PID"
# A daemon that lost the race may still be on its way out: wait for it.
one_daemon() { [ "$(pgrep -f -- "--socket $WORK/many/d.sock" | wc -l)" -le 1 ]; }
wait_until 20 "the daemons that lost the race exiting" one_daemon
same "$(pgrep -f -- "--socket $WORK/many/d.sock" | wc -l)" "1" "one daemon on the socket"
t 0 "$TSCTL" --socket "$WORK/many/d.sock" stop

# --- the summary line: all five parts, in order, across workers -------------------
for n in s_pend s_pass1 s_pass2 s_fail; do tc "$n" --calls "$A" >/dev/null; done
ts approve s_pass1 s_pass2 s_fail >/dev/null || fail "approve for the summary"
cat >"$WORK/worker.sh" <<'EOF'
case $1 in
1) "$TSCTL" check s_new1 --calls "$A"; "$TSCTL" check s_pend --calls "$A" ;;
2) "$TSCTL" check s_new2 --calls "$A"; "$TSCTL" check s_pass1 --calls "$A" ;;
3) "$TSCTL" check s_pass2 --calls "$A"; "$TSCTL" check s_fail --calls "$B" ;;
4) "$TSCTL" check s_upd --calls "$A" --update; "$TSCTL" check s_pend --calls "$A" ;;
esac >/dev/null
exit 0
EOF
export TSCTL A B WORK
# The workers exit 0, but one check FAILED: the run exits 1 all the same.
t 1 ts run -- sh -c 'for w in 1 2 3 4; do sh "$WORK/worker.sh" $w & done; wait'
same "$OUT" "toolscore: 2 snapshots created (pending approval), 1 updated, 2 pending, 2 passed, 1 failed" "summary line"
err_has "the command passed, but the run has FAILED checks"
t 0 ts run -- sh -c '"$TSCTL" check s_new3 --calls "$A" >/dev/null; "$TSCTL" check s_pass1 --calls "$A" >/dev/null'
same "$OUT" "toolscore: 1 snapshot created (pending approval), 1 passed" "summary line, singular"
t 0 ts run -- sh -c '"$TSCTL" check s_pass1 --calls "$A" --json >/dev/null; exit 0'
same "$OUT" "toolscore: 1 passed" "summary line, one part"
t 5 ts record -- sh -c '"$TSCTL" check s_pend --calls "$A" >/dev/null; exit 5'
same "$(printf '%s\n' "$OUT" | tail -n 1)" "toolscore: 1 pending" "record prints the summary line last"

# --- record --from-trace: pending when new, --update of a missing name -------------
t 0 ts record --from-trace "$A" --name tr_new --json
t 0 ts snapshots show tr_new --json
check_py 'j["approved"] is False and j["source"] == "trace" and len(j["calls"]) == 2'
t 0 ts record --from-trace "$B" --name tr_upd --update
t 0 ts snapshots show tr_upd --json
check_py 'j["approved"] is True and j["source"] == "trace" and j["calls"] == [{"tool": "search", "args": {"q": "LA"}}]'
t 1 ts record --from-trace "$A" --name tr_upd && err_has "tr_upd"
t 0 ts snapshots show tr_upd --json
check_py 'j["calls"] == [{"tool": "search", "args": {"q": "LA"}}]'
t 2 ts record --from-trace "$A" --name x --update -- true && err_one_line
t 2 ts record --update && err_one_line
t 2 ts record --name x -- true && err_one_line

# --- rm deletes a snapshot whose file no longer parses (a bad merge) ----------------
tc broken --calls "$A" >/dev/null
t 0 ts snapshots path broken
BROKEN=$OUT
printf '{"name": "broken", "calls": [\n<<<<<<< HEAD\n' >"$BROKEN"
t 2 ts snapshots show broken && err_has "$BROKEN"
t 0 ts snapshots rm broken --yes
out_has "Deleted snapshot 'broken'" && err_has "$BROKEN"
[ -e "$BROKEN" ] && fail "rm left the unreadable snapshot file $BROKEN"
t 1 ts snapshots rm broken --yes

# --- rm on a terminal: an empty answer and EOF decline; Y confirms -------------------
if command -v script >/dev/null 2>&1; then
	# rm_tty KEYS: tsctl snapshots rm on a terminal, KEYS typed once the
	# question shows; the terminal's output in $OUT.
	prompt_shown() { grep -qF '[y/N]' "$WORK/tty.out"; }
	rm_tty() {
		tc rmx --calls "$A" >/dev/null
		: >"$WORK/tty.out"
		(wait_until 20 "the question of rm on a terminal" prompt_shown && printf "$1") |
			timeout 30 script -qec "'$TSCTL' --socket '$SOCK' --dir '$STORE' snapshots rm rmx; echo EXIT=\$?" /dev/null >"$WORK/tty.out"
		OUT=$(tr -d '\r' <"$WORK/tty.out")
	}
	rm_tty '\n'
	out_has "[y/N]" && out_has "Aborted." && out_has "EXIT=0"
	rm_tty '\004'
	out_has "Aborted." && out_has "EXIT=0"
	rm_tty 'Y\n'
	out_lacks "Aborted." && out_has "EXIT=0"
	t 1 ts snapshots show rmx
	# --json on a terminal carries no colour codes.
	OUT=$(script -qec "'$TSCTL' --socket '$SOCK' --dir '$STORE' check s_fail --calls '$B' --json" /dev/null | tr -d '\r')
	out_has '"FAILED"' && out_lacks "$(printf '\033')"
else
	fail "script (util-linux) is not installed"
fi

# --- --version everywhere; bad usage is exit 2 with one line ---------------------
# tn: tsctl that can neither reach nor start a daemon (never the default socket).
tn() { env TOOLSCORED=/nonexistent/toolscored "$TSCTL" --socket "$WORK/none/x.sock" "$@"; }
for cmd in check record approve run eval extract review orphans status stop \
	"snapshots list" "snapshots show" "snapshots rm" "snapshots path"; do
	# shellcheck disable=SC2086
	t 0 "$TSCTL" $cmd --version && same "$OUT" "$(cd "$WORK" && "$TSCTL" --version)" "$cmd --version"
done
for cmd in run stop review "snapshots rm" "snapshots path"; do
	# shellcheck disable=SC2086
	t 2 tn --json $cmd && err_one_line && err_has "--json"
done
t 0 ts --json snapshots list
same "$(py 'type(j) is list')" "True" "a leading --json is honoured"
t 2 tn --socket= status && err_one_line && err_has "socket"
t 2 tn status --socket= && err_one_line && err_has "socket"
t 2 tn --socket= snapshots list && err_one_line && err_has "socket"
t 2 tn --dir= snapshots list && err_one_line
printf 'x\n' >"$WORK/plainfile"
for cmd in "snapshots list" "approve --all" "snapshots show x" "check x --calls $A" "record --from-trace $A --name x" "run -- true"; do
	# shellcheck disable=SC2086
	t 2 "$TSCTL" --socket "$SOCK" --dir "$WORK/plainfile" $cmd && err_one_line && err_has "not a directory"
done
t 2 sh -c '"$0" eval - - <"$1"' "$TSCTL" "$A" && err_one_line && err_has "only one of EXPECTED and ACTUAL"
t 2 ts check a --calls "$A" extra && err_one_line
t 2 ts check a --calls && err_one_line
t 2 ts approve --all --all x && err_one_line
t 2 ts snapshots list --pending=yes && err_one_line
t 2 ts orphans --delete && err_one_line
t 2 ts run --junit && err_one_line
t 2 ts snapshots rm && err_one_line
t 2 ts snapshots show a b && err_one_line
t 2 ts status extra && err_one_line
t 2 ts stop extra && err_one_line
t 2 "$TSCTL" -x && err_one_line

# --- exit 3 names the socket and the reason ---------------------------------------------
t 3 env TOOLSCORED=/nonexistent/toolscored "$TSCTL" --socket "$WORK/none/x.sock" --dir "$STORE" snapshots list
err_one_line && err_has "$WORK/none/x.sock" && err_has "No such file or directory"
same "$OUT" "" "nothing on stdout when the daemon is unreachable"
t 3 env TOOLSCORED=/nonexistent/toolscored "$TSCTL" --socket "$WORK/none/x.sock" status --json
same "$OUT" "" "status --json without a daemon prints nothing"

# A socket directory the daemon refuses (open to others): exit 3 at once, with why.
mkdir -m 777 "$WORK/open"
chmod 777 "$WORK/open"
START_NS=$(date +%s%N)
t 3 "$TSCTL" --socket "$WORK/open/x.sock" --dir "$STORE" snapshots list
ELAPSED_MS=$((($(date +%s%N) - START_NS) / 1000000))
err_one_line && err_has "$WORK/open/x.sock" && err_has "0777"
[ "$ELAPSED_MS" -lt 2000 ] || fail "a refused socket directory took $ELAPSED_MS ms to report"
[ -e "$WORK/open/x.sock" ] && fail "a daemon started in a refused directory"

# --- TOOLSCORE_SOCKET: auto-start there; --socket beats it -------------------------------
t 0 env TOOLSCORE_SOCKET="$WORK/env.sock" "$TSCTL" --dir "$WORK/env-store" check e1 --calls "$A"
out_has "CREATED"
t 0 env TOOLSCORE_SOCKET="$WORK/env.sock" "$TSCTL" status --json
check_py 'j["socket"] == "'"$WORK/env.sock"'" and type(j["pid"]) is int and isinstance(j["version"], str) and all(type(j[k]) is int for k in ["stores_open", "requests_served", "runs_open"])'
t 0 env TOOLSCORE_SOCKET="$WORK/env.sock" "$TSCTL" --socket "$SOCK" status --json
same "$(json_get pid)" "$DAEMON_PID" "--socket beats TOOLSCORE_SOCKET"
t 0 env TOOLSCORE_SOCKET="$WORK/env.sock" "$TSCTL" stop

# --- default socket: $XDG_RUNTIME_DIR/toolscore, else /tmp/toolscore-UID ------------------
mkdir -m 700 "$WORK/xdg"
XSOCK="$WORK/xdg/toolscore/toolscored.sock"
env -u TOOLSCORE_SOCKET XDG_RUNTIME_DIR="$WORK/xdg" "$TOOLSCORED" --foreground --log-level error >"$WORK/xdg.out" 2>&1 &
EXTRA_PIDS="$EXTRA_PIDS $!"
wait_socket "$XSOCK"
# (the socket is bound a moment before the line is written: wait for the line)
announced() { [ -s "$WORK/xdg.out" ]; }
wait_until 20 "--foreground announcing the socket" announced
same "$(cat "$WORK/xdg.out")" "toolscored: listening on $XSOCK" "--foreground announces the socket"
same "$(stat -c %a "$WORK/xdg/toolscore")" "700" "socket directory mode"
same "$(stat -c %a "$XSOCK")" "600" "socket mode"
t 0 env XDG_RUNTIME_DIR="$WORK/xdg" "$TSCTL" status --json
same "$(json_get socket)" "$XSOCK" "tsctl finds the daemon at the XDG default"
t 0 env XDG_RUNTIME_DIR="$WORK/xdg" "$TSCTL" stop
UIDN=$(id -u)
# Without XDG_RUNTIME_DIR (unset or empty): /tmp/toolscore-UID. `status` never
# starts a daemon; whether one runs there or not, the path it names is that.
for xdg in unset empty; do
	if [ $xdg = unset ]; then
		env -u XDG_RUNTIME_DIR TOOLSCORED=/nonexistent "$TSCTL" status >"$WORK/out" 2>&1
	else
		env XDG_RUNTIME_DIR= TOOLSCORED=/nonexistent "$TSCTL" status >"$WORK/out" 2>&1
	fi
	OUT=$(cat "$WORK/out")
	out_has "/tmp/toolscore-$UIDN/toolscored.sock"
done

finish
