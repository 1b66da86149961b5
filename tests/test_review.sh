#!/bin/sh
# After a failure, without re-running a test: approve says what it did not
# change and points to accept; diff shows the kept observation; a pending
# snapshot checked with other calls warns and keeps them; review --list
# [--json] prints the queue; accept makes the observed calls the baseline,
# reject drops them (a pending snapshot is deleted); all of it across a
# daemon killed with -9 and started again; an observation whose snapshot
# changed behind the daemon's back no longer applies.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

STATE="$WORK/state"
start_daemon --state-dir "$STATE"
A="$WORK/a.json"
B="$WORK/b.json"
printf '%s\n' '[{"tool": "search", "args": {"q": "NYC"}}, {"tool": "book", "args": {"id": 1}}]' >"$A"
printf '%s\n' '[{"tool": "search", "args": {"q": "LA"}}, {"tool": "book", "args": {"id": 1}}, {"tool": "refund", "args": {"amount": 20.0}}]' >"$B"

# restart: kill -9, then a new daemon on the same socket and state directory
restart() {
	kill -9 "$DAEMON_PID"
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=""
	# the dead daemon's socket file stays; start_daemon waits for the new one
	rm -f "$SOCK"
	start_daemon --state-dir "$STATE"
}

# --- approve never claims what it did not change -------------------------------------
t 0 ts check six --calls "$A"
t 0 ts approve six && out_has "Approved 1 snapshot(s)."
t 0 ts approve six && out_has "'six' is already approved." && out_lacks "Approved"
t 1 ts check six --calls "$B" && out_has "FAILED"
t 0 ts approve six
out_has "'six' is already approved"
out_has "\`tsctl accept 'six'\`"
out_lacks "Approved 1 snapshot(s)"
t 0 ts approve six --json
same "$(json_get 0.changed)" "false" "approve --json: changed"
same "$(json_get 0.observation)" "true" "approve --json: an observation is kept"
t 0 ts snapshots show six --json
same "$(json_get source)" "tsctl" "a snapshot made by tsctl check says so"
t 1 ts approve six nosuch && err_has "no snapshot named 'nosuch'"

# --- diff ------------------------------------------------------------------------------
t 0 ts diff six && out_has "Expected vs Actual" && out_has "refund" && out_has "FAILED check"
t 0 ts diff six --json
same "$(json_get kind)" "failed" "diff --json kind"
same "$(json_get observed.2.tool)" "refund" "diff --json observed"
same "$(json_get baseline.1.tool)" "book" "diff --json baseline"
same "$(json_get result.passed)" "false" "diff --json result"
same "$(json_get observation.outcome)" "FAILED" "diff --json observation"
case "$(json_get report)" in *"Expected vs Actual"*) ;; *) fail "diff --json has no report" ;; esac
t 1 ts diff nosuch && err_has "no snapshot named 'nosuch'"
t 2 ts diff && err_one_line
t 2 ts diff a b && err_one_line

# --- pending-differs -----------------------------------------------------------------
t 0 ts check p --calls "$A" && out_has "CREATED"
t 0 ts check p --calls "$A" && out_has "PENDING" && out_lacks "differ"
t 1 ts diff p && err_has "no check observed other calls"
t 0 ts check p --calls "$B"
out_has "snapshot 'p' pending approval; the calls observed now differ from the recording - \`tsctl accept 'p'\` records them"
t 0 ts check p --calls "$B" --json
same "$(json_get outcome)" "PENDING" "pending-differs outcome"
t 0 ts snapshots show p --json
same "$(json_get calls.0.args.q)" "NYC" "the recording stays"
t 0 ts diff p && out_has "pending" && out_has "refund"

# --- the queue, with and without a terminal --------------------------------------------
t 0 ts check q --calls "$A"
t 0 ts review --list --json
same "$(json_get 0.name) $(json_get 0.kind) $(json_get 0.observation.outcome)" "p pending PENDING" "queue item 0"
same "$(json_get 1.name) $(json_get 1.kind) $(json_get 1.observation)" "q pending null" "queue item 1"
same "$(json_get 2.name) $(json_get 2.kind) $(json_get 2.observation.calls)" "six failed 3" "queue item 2"
same "$(json_get 2.calls)" "2" "queue item 2: the baseline's calls"
t 0 ts review --list && out_has "3 item(s) to review" && out_has "failed check      'six'"
t 2 ts review </dev/null && out_has "needs a terminal" && out_has "'p'"
t 2 ts review --json && err_one_line

# --- everything survives kill -9 ----------------------------------------------------
restart
t 0 ts review --list --json
same "$(json_get 0.name) $(json_get 1.name) $(json_get 2.name)" "p q six" "queue after a restart"
t 0 ts diff six --json
same "$(json_get observed.2.tool)" "refund" "the observation after a restart"

# --- accept ------------------------------------------------------------------------------
t 2 ts accept && err_one_line
t 2 ts accept six --all && err_one_line
t 2 ts accept six --run r1 && err_one_line
t 1 ts accept six nosuch && err_has "no snapshot named 'nosuch'"
t 0 ts snapshots show six --json
same "$(json_get calls.0.args.q)" "NYC" "a refused accept changes nothing"
t 0 ts accept six
out_has "Accepted 'six'"
out_has "refund"
out_has "Accepted 1 snapshot(s)."
t 0 ts snapshots show six --json
same "$(json_get approved) $(json_get calls.0.args.q) $(json_get calls.2.tool)" "true LA refund" "accepted six"
t 0 ts check six --calls "$B" && out_has "PASSED"
t 1 ts diff six && err_has "no observation is kept for 'six'"
t 0 ts accept six && out_has "nothing to accept" && out_has "Accepted 0 snapshot(s)."
# a pending snapshot with an observation: the observed calls, approved
t 0 ts accept p --json
same "$(json_get 0.action) $(json_get 0.outcome) $(json_get 0.calls) $(json_get 0.previous_calls)" "accepted PENDING 3 2" "accept p"
t 0 ts snapshots show p --json
same "$(json_get approved) $(json_get calls.0.args.q)" "true LA" "accepted p"

# --- reject --------------------------------------------------------------------------------
t 1 ts check six --calls "$A"
restart
t 0 ts reject six && out_has "Rejected 'six': the observed calls were dropped; its approved baseline stays."
t 0 ts snapshots show six --json
same "$(json_get calls.0.args.q)" "LA" "reject keeps the baseline"
t 1 ts diff six
t 0 ts reject q && out_has "Rejected 'q': the pending snapshot was deleted."
t 1 ts snapshots show q
t 0 ts reject six && out_has "nothing to reject"
t 1 ts reject nosuch && err_has "no snapshot named 'nosuch'"

# --- accept --all / reject --all ----------------------------------------------------------
t 0 ts check n1 --calls "$A"
t 1 ts check six --calls "$A"
t 0 ts accept --all
out_has "Approved 'n1' as recorded (2 call(s))."
out_has "Accepted 'six'"
out_has "Accepted 2 snapshot(s)."
t 0 ts review --list && out_has "Nothing to review"
t 0 ts accept --all && out_has "Nothing to accept"
t 0 ts check n2 --calls "$A"
t 1 ts check six --calls "$B"
t 0 ts reject --all --json
same "$(json_get 0.name) $(json_get 0.deleted) $(json_get 1.name) $(json_get 1.dropped)" "n2 true six true" "reject --all"
t 1 ts snapshots show n2
t 0 ts snapshots show six --json
same "$(json_get calls.0.args.q)" "NYC" "reject --all keeps baselines"

# --- with a run: only that run's observations ------------------------------------------------
t 1 ts run -- sh -c '"$0" --socket "$1" --dir "$2" check six --calls "$3"; exit 0' "$TSCTL" "$SOCK" "$STORE" "$B"
RUN=$(ts review --list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["observation"]["run"])')
case "$RUN" in "" | None) fail "the run's observation names no run" ;; esac
t 0 ts review --list --json --run "$RUN"
same "$(json_get 0.name)" "six" "review --run"
t 1 ts review --list --run nosuchrun
t 0 ts accept --all --run "$RUN" && out_has "Accepted 'six'"

# --- superseded: the snapshot changed behind the daemon's back -------------------------------
t 1 ts check six --calls "$A"
FILE=$(ts snapshots path six)
python3 - "$FILE" <<'EOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["calls"][0]["args"]["q"] = "SFO"
open(p, "w").write(json.dumps(d, indent=2, ensure_ascii=False) + "\n")
EOF
t 1 ts accept six && out_has "no longer applies"
t 0 ts snapshots show six --json
same "$(json_get calls.0.args.q)" "SFO" "a superseded observation writes nothing"
t 0 ts review --list && out_lacks "six"
# and through review and diff
t 1 ts check six --calls "$A"
python3 - "$FILE" <<'EOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["calls"][0]["args"]["q"] = "BOS"
open(p, "w").write(json.dumps(d, indent=2, ensure_ascii=False) + "\n")
EOF
t 1 ts diff six && err_has "no longer applies"
t 1 ts diff six && err_has "no observation is kept"

# --- rm takes the observation with it ---------------------------------------------------------
t 1 ts check six --calls "$A"
t 0 ts snapshots rm six --yes
t 0 ts check six --calls "$A" && out_has "CREATED"
t 1 ts diff six && err_has "no check observed other calls"

# --- a hostile observation file is dropped, not trusted -----------------------------------------
t 0 ts approve six
t 1 ts check six --calls "$B"
OBS=$(ls "$STATE"/stores/*/observations/six-*.json)
printf '{"observation": 1, "name": "six", "calls": "not a list"}' >"$OBS"
t 1 ts diff six && err_has "no longer applies"
[ -e "$OBS" ] && fail "the unreadable observation was not dropped"
t 0 ts review --list && out_lacks "six"

# the state files are the daemon's user's only
case "$(stat -c %a "$STATE")" in 700) ;; *) fail "state directory mode $(stat -c %a "$STATE")" ;; esac

finish
