#!/bin/sh
# The default snapshot root (no --dir, no TOOLSCORE_DIR) from nested
# directories: the nearest .toolscore/snapshots walking up to the repository
# root (the first directory holding .git), else the repository root's, else
# the current directory's outside a repository; `tsctl status` says which
# and why. `cd sub && tsctl check` never makes a second store in sub/.
. "${TS_SOURCE_DIR:-.}/tests/tsctl_helpers.sh"

start_daemon
A="$WORK/a.json"
printf '[{"tool": "a", "args": {"x": 1}}]\n' >"$A"
BASE=$(cd "$WORK" && pwd -P)
REPO="$BASE/repo"
mkdir -p "$REPO/.git" "$REPO/src/pkg/deep" "$BASE/plain/x/y"
# tsctl in directory $1 without --dir
in_dir() {
	d=$1
	shift
	t "$WANT" sh -c 'cd "$1" && shift && exec "$@"' sh "$d" "$TSCTL" --socket "$SOCK" "$@"
}
file_of() { printf '%s/%s-%s.json' "$1" "$2" "$(printf '%s' "$2" | sha1sum | cut -c1-8)"; }

# --- in a repository without a root: the repository root's ---------------------------
WANT=0 in_dir "$REPO/src/pkg/deep" check one --calls "$A" && out_has "CREATED"
[ -f "$(file_of "$REPO/.toolscore/snapshots" one)" ] || fail "not created under the repository root"
[ -e "$REPO/src/pkg/deep/.toolscore" ] && fail "a nested directory got a store"
WANT=0 in_dir "$REPO/src" status
out_has "snapshot root:    $REPO/.toolscore/snapshots (found walking up from $REPO/src)"
WANT=0 in_dir "$REPO" status && out_has "(found in the current directory)"
WANT=0 in_dir "$REPO/src/pkg" approve one && out_has "Approved 1 snapshot(s)."
WANT=0 in_dir "$REPO/src/pkg/deep" check one --calls "$A" && out_has "PASSED"
WANT=0 in_dir "$REPO/src/pkg" snapshots path one
same "$OUT" "$(file_of "$REPO/.toolscore/snapshots" one)" "snapshots path from a subdirectory"

# --- a nearer root wins ---------------------------------------------------------------
mkdir -p "$REPO/src/.toolscore/snapshots"
WANT=0 in_dir "$REPO/src/pkg/deep" status
out_has "snapshot root:    $REPO/src/.toolscore/snapshots (found walking up from $REPO/src/pkg/deep)"
WANT=0 in_dir "$REPO/src/pkg/deep" status --json
same "$(json_get root.path)" "$REPO/src/.toolscore/snapshots" "status --json root.path"
same "$(json_get root.why)" "found walking up from $REPO/src/pkg/deep" "status --json root.why"

# --- a fresh repository: none found, its root named --------------------------------------
mkdir -p "$BASE/repo2/.git" "$BASE/repo2/a/b"
WANT=0 in_dir "$BASE/repo2/a/b" status
out_has "snapshot root:    $BASE/repo2/.toolscore/snapshots (none found up to the repository root $BASE/repo2, which holds .git)"
# a worktree or submodule: .git is a file, and the walk stops there
mkdir -p "$REPO/vendor/mod/lib"
printf 'gitdir: ../../.git/modules/mod\n' >"$REPO/vendor/mod/.git"
WANT=0 in_dir "$REPO/vendor/mod/lib" status
out_has "snapshot root:    $REPO/vendor/mod/.toolscore/snapshots (none found up to the repository root $REPO/vendor/mod"

# --- outside a repository: the current directory -------------------------------------
WANT=0 in_dir "$BASE/plain/x/y" status
out_has "snapshot root:    $BASE/plain/x/y/.toolscore/snapshots (none found and not in a repository: under the current directory)"
WANT=0 in_dir "$BASE/plain/x/y" check two --calls "$A" && out_has "CREATED"
[ -f "$(file_of "$BASE/plain/x/y/.toolscore/snapshots" two)" ] || fail "not created under the current directory"
# and from below it, that root is found
mkdir -p "$BASE/plain/x/y/z"
WANT=0 in_dir "$BASE/plain/x/y/z" check two --calls "$A" && out_has "PENDING"
[ -e "$BASE/plain/x/y/z/.toolscore" ] && fail "a subdirectory got a second store"

# --- --dir and TOOLSCORE_DIR win ----------------------------------------------------------
WANT=0 in_dir "$REPO/src" --dir "$BASE/given" status && out_has "snapshot root:    $BASE/given (given with --dir)"
t 0 sh -c 'cd "$1" && TOOLSCORE_DIR="$2" exec "$3" --socket "$4" status' sh "$REPO/src" "$BASE/env" "$TSCTL" "$SOCK"
out_has "snapshot root:    $BASE/env (\$TOOLSCORE_DIR)"
t 0 sh -c 'cd "$1" && TOOLSCORE_DIR= exec "$2" --socket "$3" status' sh "$REPO/src" "$TSCTL" "$SOCK"
out_has "(found in the current directory)"

# --- tsctl run exports the root it found, so every worker uses it ---------------------------
WANT=0 in_dir "$REPO/src/pkg" run -- sh -c 'cd deep && printf "%s\n" "$TOOLSCORE_DIR"'
out_has "$REPO/src/.toolscore/snapshots"

finish
