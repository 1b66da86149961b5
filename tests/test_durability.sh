#!/bin/sh
# Durability order: a write is acknowledged only once it is durable. The
# daemon runs under strace (-ff: one trace per thread, each call with its
# start time and duration) while 8 clients create snapshots at once (so that
# writes may be batched), one more records from a trace and every snapshot
# is then approved. For every reply that acknowledges a write (CREATED,
# UPDATED, an approval) and for every file it names:
#   - the temp file renamed over it was fsynced before the rename began;
#   - the rename finished before the reply was sent;
#   - a fsync of the store directory started after the rename finished and
#     finished before the reply was sent.
# And a new store root's directories: each one's parent fsynced before the
# first CREATED reply. A kill -9 test cannot see a missing fsync (the page
# cache survives a process crash); this one can.
set -u
B=${TS_BUILD_DIR:-$(pwd)/build}
DAEMON=$B/toolscored
TSCTL=$B/tsctl
LOADGEN=$B/bench/loadgen
[ -x "$LOADGEN" ] || { echo "test_durability: FAIL: $LOADGEN missing (make check builds it)" >&2; exit 1; }
command -v strace >/dev/null ||
	{ echo "test_durability: FAIL: strace is needed (scripts/deps.sh test installs it)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ts-durable.XXXXXX") || exit 1
daemon_pid=""
cleanup() {
	[ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
	echo "test_durability: FAIL: $*" >&2
	exit 1
}

export TOOLSCORE_SOCKET="$work/d.sock"
export TOOLSCORED=/bin/false
unset CI TOOLSCORE_RUN TOOLSCORE_RECORD TOOLSCORE_RECORD_UPDATE
mkdir "$work/store"
store=$(cd "$work/store" && pwd -P)
export TOOLSCORE_DIR="$store"

strace -ff -ttt -T -y -s 1000000 -o "$work/trace" \
	-e trace=fsync,fdatasync,rename,renameat,renameat2,write,writev,sendmsg,sendto \
	"$DAEMON" --socket "$TOOLSCORE_SOCKET" --foreground --log-level warn \
	>"$work/daemon.log" 2>&1 &
daemon_pid=$!
i=0
until "$TSCTL" status >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 1500 ] && fail "the daemon did not answer within 30 s under strace"
	sleep 0.02
done

printf '[{"tool": "search", "args": {"q": "durable"}}]\n' >"$work/calls.json"
out=$("$LOADGEN" --mode record --socket "$TOOLSCORE_SOCKET" --store "$store" \
	--calls "$work/calls.json" --clients 8 --count 10 --prefix dur 2>&1) ||
	fail "creating snapshots failed: $out"
"$TSCTL" record --from-trace "$work/calls.json" --name traced >/dev/null 2>"$work/err" ||
	fail "record --from-trace failed: $(cat "$work/err")"
"$TSCTL" approve --all >/dev/null 2>"$work/err" || fail "approve --all failed: $(cat "$work/err")"
"$TSCTL" stop >/dev/null 2>&1
wait "$daemon_pid"
daemon_pid=""

# One event per line: KIND START END NAME [NAME2]
#   fsync-file: the fsynced temp file; fsync-dir: the store; rename: temp
#   file -> target; ack: a reply acknowledging a write of target.
awk -v store="$store" '
function dur(line) { match(line, /<[0-9.]+>$/); return substr(line, RSTART + 1, RLENGTH - 2) + 0 }
{
	start = $1 + 0
	end = start + dur($0)
	if ($2 ~ /^(fsync|fdatasync)\(/) {
		if (!match($2, /<[^>]*>/)) next
		path = substr($2, RSTART + 1, RLENGTH - 2)
		if (path == store) print "fsync-dir", start, end, path
		else if (path ~ /\.tmp$/) { n = split(path, p, "/"); print "fsync-file", start, end, p[n] }
	} else if ($2 ~ /^rename/) {
		n = 0
		line = $0
		while (match(line, /"[^"]*"/)) { q[++n] = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) }
		if (n >= 2) print "rename", start, end, q[1], q[n]
	} else if ($2 ~ /^(write|writev|sendmsg|sendto)\([0-9]+<socket:/) {
		if ($0 !~ /CREATED|UPDATED|approved\\(2[23][0-7]|334)/) next
		line = $0
		while (match(line, /[A-Za-z0-9_]+-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]\.json/)) {
			print "ack", start, start, substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
		}
	}
}' "$work"/trace.* >"$work/events" || fail "cannot read the trace"

acks=$(grep -c '^ack ' "$work/events")
[ "$acks" -ge 162 ] || fail "only $acks acknowledged writes in the trace (81 snapshots created, 81 approved)"
awk '
$1 == "fsync-file" { if (!($4 in synced) || $3 < synced[$4]) synced[$4] = $3 }
$1 == "fsync-dir" { nd++; ds[nd] = $2; de[nd] = $3 }
$1 == "rename" { nr++; rs[nr] = $2; re[nr] = $3; rsrc[nr] = $4; rdst[nr] = $5 }
$1 == "ack" { na++; at[na] = $2; af[na] = $4 }
END {
	bad = 0
	for (a = 1; a <= na; a++) {
		best = 0
		for (r = 1; r <= nr; r++)
			if (rdst[r] == af[a] && re[r] <= at[a] && (best == 0 || re[r] > re[best])) best = r
		if (best == 0) { printf "%s: acknowledged with no rename before the reply\n", af[a]; bad++; continue }
		if (!(rsrc[best] in synced) || synced[rsrc[best]] > rs[best]) {
			printf "%s: temp file %s not fsynced before the rename\n", af[a], rsrc[best]; bad++
		}
		ok = 0
		for (d = 1; d <= nd; d++) if (ds[d] >= re[best] && de[d] <= at[a]) { ok = 1; break }
		if (!ok) { printf "%s: no directory fsync between the rename and the reply\n", af[a]; bad++ }
	}
	printf "checked %d acknowledged writes against %d renames, %d directory fsyncs\n", na, nr, nd
	exit bad > 0
}' "$work/events" >"$work/verdict"
rc=$?
tail -1 "$work/verdict" | sed 's/^/test_durability: /'
[ $rc = 0 ] || { head -10 "$work/verdict" >&2; fail "a write was acknowledged before it was durable"; }

# A new store root: every directory made for it (the project's directories,
# .toolscore, the root) has its parent fsynced after it was made and before
# the CREATED reply, so the snapshot's path survives a power loss too.
fresh="$work/fresh/a/b/.toolscore/snapshots"
strace -ff -ttt -T -y -s 100000 -o "$work/trace2" -e trace=mkdir,mkdirat,fsync,write,writev,sendmsg,sendto \
	"$DAEMON" --socket "$TOOLSCORE_SOCKET" --foreground --log-level warn \
	>"$work/daemon.log" 2>&1 &
daemon_pid=$!
i=0
until "$TSCTL" status >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 1500 ] && fail "the daemon did not answer within 30 s under strace"
	sleep 0.02
done
"$TSCTL" --dir "$fresh" check first --calls "$work/calls.json" >"$work/out" 2>&1 ||
	fail "the first check of a new root: $(cat "$work/out")"
grep -q CREATED "$work/out" || fail "the first check of a new root: $(cat "$work/out")"
"$TSCTL" stop >/dev/null 2>&1
wait "$daemon_pid"
daemon_pid=""
awk -v fresh="$work/fresh" '
function dur(line) { match(line, /<[0-9.]+>$/); return substr(line, RSTART + 1, RLENGTH - 2) + 0 }
{
	start = $1 + 0
	end = start + dur($0)
	if ($2 ~ /^mkdir\("/ && $0 ~ / = 0 </) {
		match($0, /"[^"]*"/)
		path = substr($0, RSTART + 1, RLENGTH - 2)
		if (index(path, fresh) == 1) print "mkdir", start, end, path
	} else if ($2 ~ /^fsync\(/ && match($2, /<[^>]*>/)) {
		print "fsync", start, end, substr($2, RSTART + 1, RLENGTH - 2)
	} else if ($2 ~ /^(write|writev|sendmsg|sendto)\([0-9]+<socket:/ && $0 ~ /CREATED/) {
		print "ack", start, start, "-"
	}
}' "$work"/trace2.* | sort -n -k2 >"$work/events2"
awk '
$1 == "mkdir" { nm++; ms[nm] = $3; mp[nm] = $4 }
$1 == "fsync" { nf++; fs[nf] = $2; fe[nf] = $3; fp[nf] = $4 }
$1 == "ack" && !acked { acked = 1; at = $2 }
END {
	if (!acked) { print "no CREATED reply in the trace"; exit 1 }
	bad = 0
	for (m = 1; m <= nm; m++) {
		parent = mp[m]; sub(/\/[^\/]*$/, "", parent); if (parent == "") parent = "/"
		ok = 0
		for (f = 1; f <= nf; f++) if (fp[f] == parent && fs[f] >= ms[m] && fe[f] <= at) ok = 1
		if (!ok) { printf "%s made, but %s not fsynced before the reply\n", mp[m], parent; bad++ }
	}
	printf "checked %d new directories of a new root\n", nm
	exit bad > 0 || nm < 4
}' "$work/events2" >"$work/verdict2"
rc=$?
tail -1 "$work/verdict2" | sed 's/^/test_durability: /'
[ $rc = 0 ] || { cat "$work/verdict2" >&2; fail "a new root's directory was not durable before the reply"; }
echo "test_durability: ok"
exit 0
