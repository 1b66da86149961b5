#!/bin/sh
# The commands tsctl prints after a check, pasted as a person pastes them:
# for snapshot names that hold spaces, > ; | &, quotes, $ and backquotes,
# globs ([Oslo], *), history expansion (!), a leading -, newlines, escape
# sequences, invisible Unicode and non-ASCII text, the CREATED message's
# `tsctl approve 'NAME'` and the FAILED report's `tsctl accept 'NAME'` are
# typed into an interactive bash and an interactive zsh in an empty
# directory; each must act on exactly that snapshot (approved, then the
# observed calls accepted, in each shell) and leave no file behind.
. "$(dirname "$0")/tsctl_helpers.sh"

command -v zsh >/dev/null 2>&1 || {
	echo "test_paste.sh: zsh is missing (make check installs it through scripts/deps.sh)" >&2
	exit 1
}
start_daemon
export TOOLSCORE_SOCKET="$SOCK" TOOLSCORE_DIR="$STORE" NO_COLOR=1
printf '[{"tool": "search", "args": {"q": "NYC"}}]\n' >"$WORK/a.json"
printf '[{"tool": "search", "args": {"q": "LAX"}}]\n' >"$WORK/b.json"

# calls_of NAME: the q argument of snapshot NAME's calls, and "approved" or
# "pending" ("none" when it does not exist), read by the name itself.
calls_of() {
	"$TSCTL" snapshots list --json | NAME="$1" python3 -c 'import json, os, sys
for s in json.load(sys.stdin):
    if s["name"] == os.environ["NAME"]:
        print("approved" if s["approved"] else "pending")
        break
else:
    print("none")'
}
q_of() {
	"$TSCTL" snapshots show --json -- "$1" | python3 -c 'import json, sys
print(json.load(sys.stdin)["calls"][0]["args"]["q"])'
}

count=0
# Each line: a name in printf %b's escapes (\0ooo for a byte: \0012 a
# newline, \0033 escape, \0342\0200\0256 a right-to-left override).
while IFS= read -r spec; do
	name=$(printf '%bx' "$spec")
	name=${name%x}
	count=$((count + 1))
	t 0 "$TSCTL" check --calls "$WORK/a.json" -- "$name" || continue
	line=$(printf '%s\n' "$OUT" | grep 'then approve with `tsctl approve ' | tail -1 |
		sed 's/.*then approve with `//; s/`$//')
	paste_into bash "$line"
	same "$PASTE_RC/$(calls_of "$name")" "0/approved" "bash: '$line' approves [$spec]"
	# a failure ends with the command that accepts it, pasted into bash ...
	t 1 "$TSCTL" check --calls "$WORK/b.json" -- "$name"
	line=$(paste_line "$OUT" "To accept the observed calls:")
	paste_into bash "$line"
	same "$PASTE_RC/$(q_of "$name")" "0/LAX" "bash: '$line' accepts [$spec]"
	# ... and into zsh
	t 1 "$TSCTL" check --calls "$WORK/a.json" -- "$name"
	line=$(paste_line "$OUT" "To accept the observed calls:")
	paste_into zsh "$line"
	same "$PASTE_RC/$(q_of "$name")" "0/NYC" "zsh: '$line' accepts [$spec]"
	# no other snapshot was touched or made
	t 0 "$TSCTL" snapshots list --json
	same "$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" \
		"$count" "snapshots after [$spec]"
done <<'EOF'
tests/a.py::test_weather[Oslo]
tests/agent.test.ts::booking agent > openai style
a; touch pwned
$(touch pwned)`touch pwned`$HOME
it's a "quote" \\ here
''
it's!here and !! and !-1
wild * ? [a-z] {a,b} ~ =cmd
-x --all
line one\0012line two
esc \0033[31m red \0007 bell \0177 del
bidi \0342\0200\0256 override and zero\0342\0200\0213width
Ünïcödé 東京 ✈ Oslo
%1 & | < >> 2>&1
 leading and trailing space 
EOF
finish
