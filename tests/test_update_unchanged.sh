#!/bin/sh
# --update (and TOOLSCORE_RECORD_UPDATE) writes nothing when the calls are
# already the approved ones: over 100 approved snapshots checked again with
# their own calls, no file changes a byte, its mtime, its inode or its
# directory entry, and every outcome is still UPDATED; the one whose calls
# did change is rewritten. The same for `tsctl record --update -- CMD` and a
# trace imported again with --update.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

start_daemon
N=100
mkdir -p "$WORK/calls"
i=1
while [ $i -le $N ]; do
	printf '[{"tool": "search", "args": {"q": "q%d", "n": %d, "f": 1.5}}, {"tool": "book", "args": {}}]\n' $i $i >"$WORK/calls/$i.json"
	i=$((i + 1))
done
# One worker process checks every name (what a test suite does).
check_all() {
	i=1
	while [ $i -le $N ]; do
		"$TSCTL" --socket "$SOCK" --dir "$STORE" check "n$i" --calls "$WORK/calls/$i.json" "$@" || exit 1
		i=$((i + 1))
	done
}
# name, size, mtime (ns), inode and content hash of every snapshot file
fingerprint() {
	for f in "$STORE"/*.json; do
		printf '%s %s %s\n' "$(stat -c '%n %s %Y %y %i' "$f")" "$(sha256sum <"$f" | cut -c1-64)"
	done
}

check_all >/dev/null || fail "first checks"
t 0 ts approve --all
same "$(ls "$STORE" | wc -l | tr -d ' ')" "$N" "snapshots recorded"
BEFORE=$(fingerprint)
DIR_BEFORE=$(stat -c '%Y %y' "$STORE")
sleep 1.1 # a rewrite would show in the mtime even on 1 s timestamps

# --update: UPDATED, nothing written
check_all --update >"$WORK/out1" || fail "checks with --update"
same "$(grep -c '^UPDATED' "$WORK/out1")" "$N" "every outcome is UPDATED"
same "$(grep -c "unchanged (its calls are already the approved ones)" "$WORK/out1")" "$N" "every update says unchanged"
same "$(fingerprint)" "$BEFORE" "--update with unchanged calls changes no byte, mtime or inode"

# TOOLSCORE_RECORD_UPDATE, as `tsctl record --update -- CMD` sets it for CMD
export N STORE SOCK WORK TSCTL
record_all() {
	t 0 ts record --update -- sh -c '
		i=1
		while [ $i -le $N ]; do
			"$TSCTL" --socket "$SOCK" --dir "$STORE" check "n$i" --calls "$WORK/calls/$i.json" >/dev/null || exit 1
			i=$((i + 1))
		done'
}
record_all
# counted as unchanged, not as updated
same "$(printf '%s\n' "$OUT" | grep '^toolscore: ')" "toolscore: $N unchanged" "the summary of an update run that changed nothing"
same "$(fingerprint)" "$BEFORE" "record --update with unchanged calls changes nothing"
same "$(stat -c '%Y %y' "$STORE")" "$DIR_BEFORE" "the store directory is untouched (no temp files, no renames)"

# one snapshot whose calls did change is rewritten, and only that one
printf '[{"tool": "search", "args": {"q": "other"}}]\n' >"$WORK/calls/7.json"
check_all --update >/dev/null || fail "checks with one change"
AFTER=$(fingerprint)
same "$(printf '%s\n' "$BEFORE" | grep -v '/n7-')" "$(printf '%s\n' "$AFTER" | grep -v '/n7-')" "the 99 others untouched"
[ "$(printf '%s\n' "$BEFORE" | grep '/n7-')" != "$(printf '%s\n' "$AFTER" | grep '/n7-')" ] || fail "the changed snapshot was not rewritten"
t 0 ts snapshots show n7 --json
same "$(json_get calls.0.args.q)" "other" "the changed calls are written"
# an update run with one change: 1 updated, the rest unchanged
printf '[{"tool": "search", "args": {"q": "changed"}}]\n' >"$WORK/calls/9.json"
record_all
same "$(printf '%s\n' "$OUT" | grep '^toolscore: ')" "toolscore: 1 updated, $((N - 1)) unchanged" "the summary of an update run with one change"

# an update of the same calls with int 1 where the file has 1.5: a change
printf '[{"tool": "search", "args": {"q": "q8", "n": 8, "f": 1}}, {"tool": "book", "args": {}}]\n' >"$WORK/calls/8.json"
t 0 ts check n8 --calls "$WORK/calls/8.json" --update && out_has "updated (calls overwritten and approved)"

# a pending snapshot with the same calls is approved by the update (a write)
t 0 ts check pend --calls "$WORK/calls/1.json" && out_has "CREATED"
t 0 ts check pend --calls "$WORK/calls/1.json" --update && out_has "updated (calls overwritten and approved)"
t 0 ts snapshots show pend --json
same "$(json_get approved)" "true" "an update approves a pending snapshot"

# a trace imported again with --update: unchanged, not rewritten
t 0 ts record --from-trace "$WORK/calls/2.json" --name n2 --update --json
same "$(json_get outcome)" "UPDATED" "record --update outcome"
same "$(json_get written)" "false" "record --update of the approved calls writes nothing"
same "$(fingerprint | grep '/n2-')" "$(printf '%s\n' "$BEFORE" | grep '/n2-')" "record --update leaves the file as it is"

finish
