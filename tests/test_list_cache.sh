#!/bin/sh
# The daemon's listing cache seen through tsctl: a repeated listing of an
# unchanged store comes from the cache (the daemon's debug log says so) and
# equals, byte for byte, the listing of a daemon that never listed the
# store; it sees edits in place (same size, mtime put back), additions,
# removals, files replaced by rename, files made invalid and a file
# rewritten within the same second; listings while files are being changed
# (and checks replayed on the loop thread) all succeed.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

FRESH_PID=""
trap 'if [ -n "$FRESH_PID" ]; then kill "$FRESH_PID" 2>/dev/null; wait "$FRESH_PID" 2>/dev/null; fi; [ -n "${WRITER_PID:-}" ] && kill "$WRITER_PID" 2>/dev/null; cleanup' EXIT

start_daemon --log-level debug
mkdir -p "$STORE"

# snap NAME TOOL APPROVED: write NAME's file (a new file, renamed into place).
snap() {
	p=$("$TSCTL" --dir "$STORE" snapshots path "$1")
	printf '{\n  "schema_version": 1,\n  "name": "%s",\n  "created_at": "2025-06-01T12:00:00.000000+00:00",\n  "updated_at": "2025-06-01T12:00:00.000000+00:00",\n  "toolscore_version": "0.1.0",\n  "approved": %s,\n  "source": "pytest",\n  "calls": [\n    {\n      "tool": "%s",\n      "args": {}\n    }\n  ]\n}\n' \
		"$1" "$3" "$2" >"$p.new" && mv "$p.new" "$p"
}

# in_place NAME FROM TO: replace FROM by TO (same length) in NAME's file,
# writing the same inode, and put its mtime back.
in_place() {
	p=$("$TSCTL" --dir "$STORE" snapshots path "$1")
	touch -r "$p" "$WORK/mtime"
	sed "s/$2/$3/" "$p" >"$WORK/edited"
	cat "$WORK/edited" >"$p"
	touch -r "$WORK/mtime" "$p"
}

# listing FILE: tsctl snapshots list --json of our daemon into FILE (stdout)
# and FILE.err (stderr).
listing() {
	CHECKS=$((CHECKS + 1))
	ts snapshots list --json >"$1" 2>"$1.err" || fail "snapshots list failed: $(cat "$1.err")"
}

# fresh FILE: the same listing from a daemon started for it (no cache).
fresh() {
	"$TOOLSCORED" --socket "$WORK/f.sock" --foreground --log-level warn >"$WORK/fresh.log" 2>&1 &
	FRESH_PID=$!
	wait_until 20 "a fresh daemon listening on $WORK/f.sock" socket_there "$WORK/f.sock"
	"$TSCTL" --socket "$WORK/f.sock" --dir "$STORE" snapshots list --json >"$1" 2>"$1.err" ||
		fail "snapshots list on a fresh daemon failed: $(cat "$1.err")"
	kill "$FRESH_PID"
	wait "$FRESH_PID" 2>/dev/null
	FRESH_PID=""
	rm -f "$WORK/f.sock"
}

# same_as_fresh WHAT: our last listing ($WORK/l) equals a fresh daemon's.
same_as_fresh() {
	fresh "$WORK/f"
	CHECKS=$((CHECKS + 1))
	if ! cmp -s "$WORK/l" "$WORK/f" || ! cmp -s "$WORK/l.err" "$WORK/f.err"; then
		fail "$1: the listing differs from a fresh daemon's"
		diff "$WORK/l" "$WORK/f" | head -20 >&2
		diff "$WORK/l.err" "$WORK/f.err" | head -5 >&2
	fi
}

# cache_says TEXT: the daemon's last listing log line has TEXT.
cache_says() {
	CHECKS=$((CHECKS + 1))
	line=$(grep 'files from the cache' "$WORK/daemon.log" | tail -1)
	case "$line" in *"$1"*) return 0 ;; esac
	fail "last listing: wanted '$1' in: $line"
}

# entry NAME: NAME's entry in the last listing, on one line.
entry() {
	tr -d '\n' <"$WORK/l" | sed 's/}/}\n/g' | grep "\"name\": *\"$1\""
}

for i in 00 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19; do
	case $i in *[02468]) a=true ;; *) a=false ;; esac
	snap "snap-$i" aaaa $a
done
# 600 more (a listing of 512 files or more is spread over threads); their
# file names computed here (stem, "-", 8 hex digits of SHA-1 of the name).
for i in $(seq 100 699); do
	h=$(printf 'bulk-%s' "$i" | sha1sum | cut -c1-8)
	printf '{"name": "bulk-%s", "created_at": "2025-06-01T12:00:00+00:00", "updated_at": "2025-06-01T12:00:00+00:00", "calls": [{"tool": "t"}]}\n' \
		"$i" >"$STORE/bulk-$i-$h.json"
done
sleep 4 # past the cache's 3 s racy margin

# --- the first listing reads, the second comes from the cache ---------------
listing "$WORK/l"
cache_says "0 files from the cache, 620 read; cache 620 summaries"
cp "$WORK/l" "$WORK/first"
listing "$WORK/l"
cache_says "620 files from the cache, 0 read"
CHECKS=$((CHECKS + 1))
cmp -s "$WORK/l" "$WORK/first" || fail "second listing differs from the first"
same_as_fresh "unchanged store"
[ "$(grep -c '"file"' "$WORK/l")" = 620 ] || fail "620 snapshots expected: $(head -c 500 "$WORK/l")"

# --- an edit in place: same inode, same size, old mtime ---------------------
in_place snap-05 '"approved": false' '"approved": true '
listing "$WORK/l"
cache_says "619 files from the cache, 1 read"
CHECKS=$((CHECKS + 1))
entry snap-05 | grep -q '"approved": *true' || fail "edit of snap-05 not seen: $(entry snap-05)"
same_as_fresh "edit in place"

# --- additions, removals, a rewrite by rename --------------------------------
snap snap-new bbbb false
rm "$("$TSCTL" --dir "$STORE" snapshots path snap-07)"
snap snap-08 cccc false
listing "$WORK/l"
CHECKS=$((CHECKS + 1))
entry snap-new >/dev/null || fail "added snap-new not listed"
CHECKS=$((CHECKS + 1))
entry snap-07 >/dev/null && fail "removed snap-07 still listed"
CHECKS=$((CHECKS + 1))
entry snap-08 | grep -q '"approved": *false' || fail "rewrite of snap-08 not seen"
cache_says "617 files from the cache, 3 read" # snap-05, changed a moment ago, is read again
same_as_fresh "additions and removals"

# --- a file made invalid, and valid again ------------------------------------
in_place snap-10 '"calls"' '"callz"'
listing "$WORK/l"
CHECKS=$((CHECKS + 1))
entry snap-10 >/dev/null && fail "invalid snap-10 still listed"
CHECKS=$((CHECKS + 1))
grep -q 'calls' "$WORK/l.err" || fail "invalid snap-10 not reported: $(cat "$WORK/l.err")"
same_as_fresh "file made invalid"
listing "$WORK/l"
CHECKS=$((CHECKS + 1))
grep -q 'calls' "$WORK/l.err" || fail "invalid snap-10 no longer reported on a second listing"
in_place snap-10 '"callz"' '"calls"'
listing "$WORK/l"
CHECKS=$((CHECKS + 1))
entry snap-10 >/dev/null || fail "snap-10 made valid again is not listed"
same_as_fresh "file made valid again"

# --- a file rewritten within the same second (racy stamp) -------------------
snap racy aaaa true
listing "$WORK/l"
in_place racy '"approved": true,' '"approved":false,'
listing "$WORK/l"
CHECKS=$((CHECKS + 1))
entry racy | grep -q '"approved": *false' || fail "racy rewrite not seen: $(entry racy)"
same_as_fresh "racy rewrite"

# --- listings while files change and checks are replayed ---------------------
printf '[{"tool": "aaaa", "args": {}}]' >"$WORK/calls.json"
(
	n=0
	while [ ! -f "$WORK/stop" ]; do
		n=$((n + 1))
		case $((n % 4)) in
		0) snap "busy-$((n % 7))" aaaa true ;;
		1) rm -f "$("$TSCTL" --dir "$STORE" snapshots path "busy-$((n % 5))")" "$STORE"/bulk-$((100 + n % 600))-*.json ;;
		2) printf '{"broken' >"$("$TSCTL" --dir "$STORE" snapshots path "busy-$((n % 3))")" ;;
		3) ts check snap-00 --calls "$WORK/calls.json" >/dev/null 2>&1 ;;
		esac
	done
) &
WRITER_PID=$!
for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
	listing "$WORK/busy"
	CHECKS=$((CHECKS + 1))
	grep -q '"name": *"snap-00"' "$WORK/busy" || fail "listing $k while files change lacks snap-00"
done
touch "$WORK/stop"
wait "$WRITER_PID"
WRITER_PID=""
CHECKS=$((CHECKS + 1))
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died"
listing "$WORK/l"
same_as_fresh "after changes during listings"

finish
