#!/bin/sh
# Two names whose file names collide (file names keep 32 bits of the name's
# SHA-1, as the reference tool's do; a pair is found by brute force in a
# third of a second): no operation removes, replaces or reads one name's
# file for the other. check, check --update, record --from-trace --update,
# approve, accept, rm and save (the method behind the Python API's
# SnapshotStore.save) of the other name are each refused with "collision",
# the message naming both names; the file keeps its bytes throughout; once the first
# snapshot is removed under its own name, the other gets the file.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"
export TOOLSCORE_SOCKET="$SOCK" TOOLSCORE_DIR="$STORE"
# Two names with one stem (the first 100 characters) whose SHA-1s begin
# with the same 8 hex digits.
python3 - "$WORK" <<'PY' || { fail "no colliding pair found"; exit 1; }
import hashlib, sys
prefix = "collide-" + "x" * 92
seen = {}
for i in range(2000000):
    name = "%s-%d" % (prefix, i)
    h = hashlib.sha1(name.encode()).hexdigest()[:8]
    if h in seen:
        open(sys.argv[1] + "/a", "w").write(seen[h])
        open(sys.argv[1] + "/b", "w").write(name)
        break
    seen[h] = name
else:
    sys.exit(1)
PY
A=$(cat "$WORK/a")
Bn=$(cat "$WORK/b")
fa=$("$TSCTL" snapshots path "$A")
fb=$("$TSCTL" snapshots path "$Bn")
[ "$fa" = "$fb" ] || fail "the pair does not collide: $fa, $fb"
echo "test_collision: '$A' and '$Bn' both map to $(basename "$fa")"

start_daemon
export TOOLSCORED=/bin/false # a daemon that died is not started again behind the test
printf '[{"tool": "search", "args": {"q": "a"}}]\n' >"$WORK/a.json"
printf '[{"tool": "book", "args": {"id": 2}}]\n' >"$WORK/b.json"
"$TSCTL" check "$A" --calls "$WORK/a.json" >/dev/null 2>&1 || fail "creating '$A'"
"$TSCTL" approve "$A" >/dev/null 2>&1 || fail "approving '$A'"
cp "$fa" "$WORK/a.before"

# refused WHAT COMMAND...: the command fails with a collision naming both
# names, and the file of A keeps its bytes
refused() {
	what=$1
	shift
	if "$@" >"$WORK/out" 2>&1; then
		fail "$what succeeded: $(cat "$WORK/out")"
	fi
	grep -q "collide" "$WORK/out" && grep -qF "'$A'" "$WORK/out" && grep -qF "'$Bn'" "$WORK/out" ||
		fail "$what: not reported as a collision of both names: $(cat "$WORK/out")"
	cmp -s "$fa" "$WORK/a.before" || fail "$what changed the file of '$A'"
	echo "test_collision: $what: $(head -c 400 "$WORK/out")"
}
refused "check" "$TSCTL" check "$Bn" --calls "$WORK/b.json"
refused "check --update" "$TSCTL" check "$Bn" --calls "$WORK/b.json" --update
refused "record --update" "$TSCTL" record --from-trace "$WORK/b.json" --name "$Bn" --format calls --update
refused "approve" "$TSCTL" approve "$Bn"
refused "accept" "$TSCTL" accept "$Bn"
refused "rm" "$TSCTL" snapshots rm --yes "$Bn"
refused "show" "$TSCTL" snapshots show "$Bn"
# save: a whole snapshot sent (SnapshotStore.save), by a raw client
params=$(python3 -c 'import json, sys; print(json.dumps({"store": sys.argv[1], "snapshot": {"name": sys.argv[2], "calls": [{"tool": "book", "args": {}}], "source": "pytest"}}))' \
	"$(cd "$TOOLSCORE_DIR" && pwd -P)" "$Bn")
refused "save" sh -c 'python3 "$1" call "$2" save "$3" | tee /dev/stderr | grep -q "code=collision" && exit 1' sh \
	"${TS_SOURCE_DIR:-.}/tests/memory_client.py" "$TOOLSCORE_SOCKET" "$params"

# under its own name the file goes, and then the other name may have it
"$TSCTL" snapshots rm --yes "$A" >"$WORK/out" 2>&1 || fail "rm '$A': $(cat "$WORK/out")"
"$TSCTL" check "$Bn" --calls "$WORK/b.json" >"$WORK/out" 2>&1 || fail "check '$Bn' once free: $(cat "$WORK/out")"
grep -q CREATED "$WORK/out" || fail "check '$Bn' once free: $(cat "$WORK/out")"

[ "$FAILURES" = 0 ] || exit 1
echo "test_collision: ok"
