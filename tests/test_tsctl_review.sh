#!/bin/sh
# tsctl review driven on a real terminal (tmux send-keys / capture-pane):
# accept approves a pending snapshot, reject deletes it, skip leaves it;
# accepting a failed check saves its observed calls as the approved baseline
# without rerunning, rejecting it keeps the old one; q quits; a report
# longer than the terminal is paged. Without a terminal review lists what
# it would review and exits 2.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

start_daemon
TMUX_SOCK="$WORK/tmux.sock"
tm() { tmux -S "$TMUX_SOCK" -f /dev/null "$@"; }
stop_tmux() { tm kill-server 2>/dev/null; cleanup; }
trap stop_tmux EXIT
# A session that lives as long as the test keeps the tmux server up while
# the review sessions come and go.
tm new-session -d -s keep "sleep 600" || { echo "cannot start tmux" >&2; exit 1; }

# Wait until the pane shows $1 (a fixed string); fails after ~20 s.
wait_pane() {
	i=0
	while [ $i -lt 400 ]; do
		PANE=$(tm capture-pane -p -J -S -200 -t review 2>/dev/null)
		case "$PANE" in *"$1"*) return 0 ;; esac
		sleep 0.05
		i=$((i + 1))
	done
	fail "the review pane never showed '$1'"
	printf '%s\n' "$PANE" >&2
	return 1
}

# Start `tsctl review` in a fresh tmux session; EXIT=<code> shows at the end.
start_review() {
	tm kill-session -t review 2>/dev/null
	tm new-session -d -s review -x 160 -y 50 \
		"'$TSCTL' --socket '$SOCK' --dir '$STORE' review; echo EXIT=\$?; sleep 60"
}

# Answer the item [$1/$2] by its name: $3 is a list "name=key ...".
answer() {
	wait_pane "[$1/$2]" || return 1
	line=$(printf '%s\n' "$PANE" | grep -F "[$1/$2]" | tail -n 1)
	for pair in $3; do
		name=${pair%=*}
		key=${pair#*=}
		case "$line" in *"'$name'"*)
			tm send-keys -t review "$key"
			return 0 ;;
		esac
	done
	fail "unexpected review item: $line"
	return 1
}

# Pending snapshots p1 p2 p3; approved f1 whose last check failed.
for n in p1 p2 p3 f1 f2; do ts check "$n" --calls "$DATA/x1.json" >/dev/null || fail "check $n"; done
ts approve f1 f2 >/dev/null || fail "approve f1 f2"
ts run --no-fail-on-findings -- sh -c '"$0" check f1 --calls "$1"; "$0" check f2 --calls "$1"; exit 0' "$TSCTL" "$DATA/x2.json" >/dev/null ||
	fail "run with failing checks"

# --- no terminal: list and exit 2 ------------------------------------------------------
t 2 ts review </dev/null
out_has "p1" && out_has "p2" && out_has "p3" && out_has "f1" && out_has "f2"

# --- on a terminal ------------------------------------------------------------------------
start_review
keys="p1=a p2=r p3=s f1=a f2=r"
for i in 1 2 3 4 5; do
	answer $i 5 "$keys" || break
done
wait_pane "EXIT=0"
case "$PANE" in *"Reviewed: 2 accepted, 2 rejected, 1 skipped"*) ;; *) fail "review tally: $PANE" ;; esac
case "$PANE" in *"Expected vs Actual Tool Calls"*) ;; *) fail "review showed no drift for a failed check" ;; esac

t 0 ts snapshots show p1 --json
same "$(json_get approved)" "true" "accepted p1 is approved"
t 1 ts snapshots show p2
t 0 ts snapshots show p3 --json
same "$(json_get approved)" "false" "skipped p3 stays pending"
t 0 ts snapshots show f1 --json
same "$(json_get approved)" "true" "accepted f1 stays approved"
same "$(json_get calls.0.args.x)" "2" "accepted f1 has the observed calls"
t 0 ts check f1 --calls "$DATA/x2.json"
out_has "PASSED"
t 0 ts snapshots show f2 --json
same "$(json_get calls.0.args.x)" "1" "rejected f2 keeps its baseline"

# --- q quits and changes nothing ---------------------------------------------------------
start_review
wait_pane "[1/" && tm send-keys -t review q
wait_pane "EXIT=0"
t 0 ts snapshots show p3 --json
same "$(json_get approved)" "false" "q leaves p3 pending"

# --- a long report is paged; the item is decided after it ---------------------------
LONG_A="$WORK/long_a.json"
LONG_B="$WORK/long_b.json"
python3 -c 'import json,sys; json.dump([{"tool": "t%d" % i, "args": {"i": i}} for i in range(40)], open(sys.argv[1], "w"))' "$LONG_A"
python3 -c 'import json,sys; json.dump([{"tool": "t%d" % i, "args": {"i": -i}} for i in range(40)], open(sys.argv[1], "w"))' "$LONG_B"
ts check long --calls "$LONG_A" >/dev/null
ts approve long >/dev/null
ts check long --calls "$LONG_B" >/dev/null
ts review --list >/dev/null
tm kill-session -t review 2>/dev/null
tm new-session -d -s review -x 120 -y 20 \
	"PAGER= '$TSCTL' --socket '$SOCK' --dir '$STORE' review; echo EXIT=\$?; sleep 60"
# the queue: long (failed), p3 (pending); long comes first
# 20 rows: 18 lines a screen
wait_pane "-- more (18 of " && tm send-keys -t review " "
wait_pane "-- more (36 of " && tm send-keys -t review q
wait_pane "more lines skipped"
wait_pane "[a]ccept" && tm send-keys -t review a
wait_pane "Accepted: 'long' has the observed calls" && tm send-keys -t review q
wait_pane "EXIT=0"
t 0 ts snapshots show long --json
same "$(json_get calls.3.args.i)" "-3" "accepted through the pager's item"
t 0 ts review --list
out_lacks "'long'"

# --- colours: on a terminal only, never with NO_COLOR --------------------------------
run_in_pane() {
	tm kill-session -t review 2>/dev/null
	tm new-session -d -s review -x 160 -y 50 "$1; echo EXIT=\$?; sleep 60"
	wait_pane "EXIT="
	PANE_E=$(tm capture-pane -e -p -J -S -200 -t review)
}
ESC=$(printf '\033')
run_in_pane "'$TSCTL' --socket '$SOCK' --dir '$STORE' check f2 --calls '$DATA/x2.json'"
case "$PANE_E" in *"$ESC["*) ;; *) fail "no colour on a terminal: $PANE_E" ;; esac
case "$PANE" in *"EXIT=1"*) ;; *) fail "failed check on a terminal did not exit 1" ;; esac
run_in_pane "NO_COLOR=1 '$TSCTL' --socket '$SOCK' --dir '$STORE' check f2 --calls '$DATA/x2.json'"
case "$PANE_E" in *"Expected vs Actual"*) ;; *) fail "no report on a terminal: $PANE_E" ;; esac
case "$PANE_E" in *"$ESC["[0-9]*) fail "NO_COLOR=1 still coloured: $PANE_E" ;; esac
run_in_pane "NO_COLOR= '$TSCTL' --socket '$SOCK' --dir '$STORE' snapshots list"
case "$PANE_E" in *"$ESC["*) ;; *) fail "empty NO_COLOR turned colours off" ;; esac
t 1 ts check f2 --calls "$DATA/x2.json"
out_lacks "$ESC["

# --- rm on a terminal: y/N ---------------------------------------------------------------
tm kill-session -t review 2>/dev/null
tm new-session -d -s review -x 160 -y 50 "'$TSCTL' --socket '$SOCK' --dir '$STORE' snapshots rm p3; echo EXIT=\$?; sleep 60"
wait_pane "[y/N]" && tm send-keys -t review n Enter
wait_pane "EXIT=0"
case "$PANE" in *"Aborted."*) ;; *) fail "declining rm did not print Aborted.: $PANE" ;; esac
t 0 ts snapshots show p3
tm kill-session -t review 2>/dev/null
tm new-session -d -s review -x 160 -y 50 "'$TSCTL' --socket '$SOCK' --dir '$STORE' snapshots rm p3; echo EXIT=\$?; sleep 60"
wait_pane "[y/N]" && tm send-keys -t review y Enter
wait_pane "EXIT=0"
t 1 ts snapshots show p3

finish
