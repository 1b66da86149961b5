#!/bin/sh
# Benchmarks of toolscored (make bench). Prints one table in which every
# figure stands next to a reference measured in the same run on the same
# machine, with the ratio and, where the project has one, the target.
# docs/internals/bench.md explains each measurement.
#
# Environment:
#   BUILD               build directory (default build)
#   TS_BENCH_SECONDS    duration of each throughput run (default 3)
#   TS_BENCH_SCALE      store sizes for the scale runs (default "10000 100000")
#   TS_BENCH_RECORDS    snapshots created per record run (default 4000)
#   TS_BENCH_REPEAT     replay and record runs (each paired with a reference
#                       run) whose medians are compared (default 3)
#   TS_BENCH_DIR        parent of the scratch directory (default $TMPDIR or
#                       /tmp); its file system is the one measured
#   TS_BENCH_OUT        also write the table (markdown) to this file
#   TS_BENCH_SHIM_RUNS  runs of each suite of the python and node parts, the
#                       forms alternating; the minimum is kept (default 7)
#   TS_BENCH_PYTESTS    tests per suite of the python part (default 2000)
#   TS_BENCH_NODE_N     tests per suite of the node part (default 2000)
#   TS_BENCH_ONLY       the parts to run (default "replay record scale score
#                       report html python node")
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/bench
DAEMON=$BUILD/toolscored
TSCTL=$BUILD/tsctl
SECS=${TS_BENCH_SECONDS:-3}
SCALE=${TS_BENCH_SCALE:-"10000 100000"}
RECORDS=${TS_BENCH_RECORDS:-4000}
REPEAT=${TS_BENCH_REPEAT:-3}
SHIM_RUNS=${TS_BENCH_SHIM_RUNS:-7}
ONLY=${TS_BENCH_ONLY:-replay record scale score report html python node}

for b in "$DAEMON" "$BIN/loadgen" "$BIN/echo_server" "$BIN/fsync_ref" \
	"$BIN/gen_store" "$BIN/coldstart" "$BIN/read_store" "$BIN/score_bench" "$BIN/report_bench" \
	"$BIN/html_bench"; do
	[ -x "$b" ] || { echo "bench: $b is missing (run make bench)" >&2; exit 2; }
done

work=$(mktemp -d "${TS_BENCH_DIR:-${TMPDIR:-/tmp}}/tsbench.XXXXXX") || exit 2
work=$(cd "$work" && pwd -P)
daemon_pid=""
echo_pid=""
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	[ -n "$echo_pid" ] && kill "$echo_pid" 2>/dev/null && wait "$echo_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rows=$work/rows
: >"$rows"
failures=0

# field LINE KEY: the value of KEY=... in a result line.
field() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# row LABEL MEASURED REFERENCE RATIO TARGET MET
row() {
	printf '%s|%s|%s|%s|%s|%s\n' "$1" "$2" "$3" "$4" "$5" "$6" >>"$rows"
}

# ratio A B [digits]: A/B
ratio() {
	awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.*f\n", d, a / b }'
}

# num X: X with thousands separators and no decimals.
num() {
	awk -v x="$1" 'BEGIN { s = sprintf("%.0f", x); o = ""; while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) } print s o }'
}

# yesno EXPR: "yes" when the awk expression holds.
yesno() {
	awk "BEGIN { if ($1) print \"yes\"; else print \"**no**\" }"
}

fail() {
	echo "bench: $*" >&2
	failures=$((failures + 1))
}

# start_daemon SOCKET: a daemon in the foreground, waited for until it answers.
start_daemon() {
	"$DAEMON" --socket "$1" --foreground --log-level warn >>"$work/daemon.log" 2>&1 &
	daemon_pid=$!
	i=0
	while ! "$BIN/loadgen" --mode hold --socket "$1" --clients 1 --seconds 0 >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 500 ] || ! kill -0 "$daemon_pid" 2>/dev/null; then
			fail "the daemon did not start (see below)"
			cat "$work/daemon.log" >&2
			return 1
		fi
		sleep 0.02
	done
}

stop_daemon() {
	[ -n "$daemon_pid" ] || return 0
	kill "$daemon_pid" 2>/dev/null
	wait "$daemon_pid" 2>/dev/null
	daemon_pid=""
}

# start_echo SOCKET: the echo server (the floor of a round trip), waited for.
start_echo() {
	"$BIN/echo_server" "$1" >"$work/echo.out" &
	echo_pid=$!
	i=0
	until grep -q ready "$work/echo.out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 200 ] && { fail "echo server did not start"; return 1; }
		sleep 0.01
	done
}

stop_echo() {
	[ -n "$echo_pid" ] || return 0
	kill "$echo_pid" 2>/dev/null
	wait "$echo_pid" 2>/dev/null
	echo_pid=""
}

machine() {
	fs=$(df -T "$work" | awk 'NR == 2 { print $2 " on " $1 }')
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
	echo "machine: $(nproc) CPUs ($cpu), Linux $(uname -r), $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo), scratch file system $fs"
	echo "settings: ${SECS}s per throughput run, replay: median of $REPEAT runs, record runs of $RECORDS snapshots (median of $REPEAT), scale: $SCALE"
}

# median_run FILE: the result line of FILE (one per run) with the median
# ops_per_s.
median_run() {
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ops_per_s=/) { v = substr($i, 11) + 0 } print v "\t" $0 }' "$1" |
		sort -n | awk -F'\t' '{ l[NR] = $2 } END { print l[int((NR + 1) / 2)] }'
}

# ---- replay: check an approved 10-call snapshot vs a raw echo ------------
bench_replay() {
	store=$work/replay-store
	sock=$work/d.sock
	"$BIN/gen_store" --dir "$store" --count 1 --prefix replay --calls 10 || return 1
	# The same snapshot in a store with a 3-pattern rules file beside it
	# (docs/rules.md): read and stat'ed by every check, none matching these
	# calls, so the replay of the baseline's bytes must stay that fast.
	rules_store=$work/rules-project/snapshots
	mkdir -p "$work/rules-project"
	"$BIN/gen_store" --dir "$rules_store" --count 1 --prefix replay --calls 10 || return 1
	printf '%s\n' '{"ignore": ["*.args.request_id", "*.args.**.timestamp"], "redact": ["*.args.api_key"]}' \
		>"$work/rules-project/config.json"
	"$BIN/gen_store" --print-calls 10 >"$work/calls10.json"
	start_daemon "$sock" || return 1
	echo_sock=$work/echo.sock
	start_echo "$echo_sock" || return 1
	# A snapshot changed in the last 3 s is read again by every check (the
	# daemon's racy-timestamp rule); a baseline replayed in a test suite is
	# older than that, so the snapshot is given that age first.
	sleep 3.5
	# Each daemon run is followed at once by the echo run of the same client
	# count, so both see the same load on a shared machine; REPEAT such
	# pairs, and the median run of each side is reported (a shared VM's
	# speed drifts by tens of percent from one second to the next).
	req=""
	for n in 1 8 32; do
		: >"$work/check.runs"
		: >"$work/echo.runs"
		r=0
		while [ $r -lt "$REPEAT" ]; do
			r=$((r + 1))
			out=$("$BIN/loadgen" --mode check --socket "$sock" --store "$store" \
				--name replay_0000000 --calls "$work/calls10.json" --clients $n \
				--seconds "$SECS") || fail "replay with $n clients: errors ($out)"
			echo "$out" >>"$work/check.runs"
			[ -n "$req" ] || req=$(field "$out" req_bytes)
			[ -n "$req" ] || req=512
			out=$("$BIN/loadgen" --mode echo --socket "$echo_sock" --size "$req" \
				--clients $n --seconds "$SECS") || fail "echo with $n clients failed"
			echo "$out" >>"$work/echo.runs"
		done
		out=$(median_run "$work/check.runs")
		eval "check_$n=\"\$out\""
		out=$(median_run "$work/echo.runs")
		eval "echo_$n=\"\$out\""
	done
	# 8 clients with and without the rules file, in pairs as above.
	: >"$work/rules.runs"
	: >"$work/plain.runs"
	r=0
	while [ $r -lt "$REPEAT" ]; do
		r=$((r + 1))
		for side in rules plain; do
			dir=$store
			[ $side = rules ] && dir=$rules_store
			out=$("$BIN/loadgen" --mode check --socket "$sock" --store "$dir" \
				--name replay_0000000 --calls "$work/calls10.json" --clients 8 \
				--seconds "$SECS") || fail "replay ($side) with 8 clients: errors ($out)"
			echo "$out" >>"$work/$side.runs"
		done
	done
	rules_8=$(median_run "$work/rules.runs")
	plain_8=$(median_run "$work/plain.runs")
	stop_daemon
	stop_echo
	resp=$(field "$check_1" resp_bytes)
	for n in 1 8 32; do
		eval "c=\$check_$n; e=\$echo_$n"
		cps=$(field "$c" ops_per_s)
		eps=$(field "$e" ops_per_s)
		target=""
		met=""
		if [ $n = 8 ]; then
			target=">= 0.50"
			met=$(yesno "$(ratio "$cps" "$eps" 4) >= 0.5")
		fi
		row "replay, $n client(s): checks/s (median of $REPEAT)" "$(num "$cps")" "echo $(num "$eps")" \
			"$(ratio "$cps" "$eps")" "$target" "$met"
		cp50=$(field "$c" p50_us)
		cp99=$(field "$c" p99_us)
		ep50=$(field "$e" p50_us)
		ep99=$(field "$e" p99_us)
		target=""
		met=""
		if [ $n = 8 ]; then
			target="p99 < 1000 µs"
			met=$(yesno "$cp99 < 1000")
		fi
		row "replay, $n client(s): p50 / p99 µs" "$cp50 / $cp99" "echo $ep50 / $ep99" \
			"$(ratio "$cp50" "$ep50") / $(ratio "$cp99" "$ep99")" "$target" "$met"
	done
	row "replay: bytes per request / reply" "$req / $resp" "echo $req / $req" "" "" ""
	rcps=$(field "$rules_8" ops_per_s)
	pcps=$(field "$plain_8" ops_per_s)
	row "replay, 8 clients, 3-pattern rules file: checks/s (median of $REPEAT)" "$(num "$rcps")" \
		"no rules $(num "$pcps")" "$(ratio "$rcps" "$pcps")" ">= 0.90" \
		"$(yesno "$(ratio "$rcps" "$pcps" 4) >= 0.9")"
}

# ---- record: distinct new snapshots, durable, vs one fsync writer ---------
# record_once N DIR: one daemon run of N clients creating RECORDS snapshots
# in the new directory DIR.
record_once() {
	store=$2
	start_daemon "$work/d.sock" || return 1
	out=$("$BIN/loadgen" --mode record --socket "$work/d.sock" --store "$store" \
		--calls "$work/calls10.json" --clients "$1" --count $((RECORDS / $1)) --prefix rec) ||
		fail "record with $1 clients: errors ($out)"
	stop_daemon
	files=$(find "$store" -name 'rec_*.json' | wc -l)
	[ "$files" = $((RECORDS / $1 * $1)) ] ||
		fail "record with $1 clients: $files files, expected $((RECORDS / $1 * $1))"
	echo "$out"
}

# The disk's fsync latency drifts (other work on the machine): each daemon
# run is paired with reference runs just before it, REPEAT times, and the
# medians are compared. Every run writes into a directory of its own and
# nothing is deleted before the whole benchmark ends: on ext4 without a
# journal, creating a file right after many were deleted near it costs
# several times more CPU (the allocator skips recently deleted inodes), so
# deleting one run's files would slow the run after it.
bench_record() {
	"$BIN/gen_store" --print-calls 10 >"$work/calls10.json"
	mkdir -p "$work/record"
	for n in 1 8 32; do
		: >"$work/ref.runs"
		: >"$work/par.runs"
		: >"$work/rec.runs"
		r=0
		while [ $r -lt "$REPEAT" ]; do
			r=$((r + 1))
			"$BIN/fsync_ref" --dir "$work/record/ref-$n-$r" --count "$RECORDS" --calls 10 \
				>>"$work/ref.runs" || { fail "fsync reference failed"; return 1; }
			if [ $n -gt 1 ]; then
				"$BIN/fsync_ref" --dir "$work/record/par-$n-$r" --count "$RECORDS" --calls 10 \
					--threads $n >>"$work/par.runs" ||
					{ fail "fsync reference ($n threads) failed"; return 1; }
			fi
			record_once $n "$work/record/daemon-$n-$r" >>"$work/rec.runs" || return 1
		done
		ref=$(median_run "$work/ref.runs")
		out=$(median_run "$work/rec.runs")
		rps=$(field "$ref" ops_per_s)
		sps=$(field "$out" ops_per_s)
		target=""
		met=""
		if [ $n = 8 ]; then
			target=">= 3.00"
			met=$(yesno "$(ratio "$sps" "$rps" 4) >= 3")
		fi
		row "record, $n client(s): snapshots/s (median of $REPEAT)" "$(num "$sps")" \
			"fsync writer $(num "$rps")" "$(ratio "$sps" "$rps")" "$target" "$met"
		row "record, $n client(s): p50 / p99 µs" "$(field "$out" p50_us) / $(field "$out" p99_us)" \
			"fsync writer $(field "$ref" p50_us) / $(field "$ref" p99_us)" "" "" ""
		if [ $n -gt 1 ]; then
			par=$(median_run "$work/par.runs")
			pps=$(field "$par" ops_per_s)
			row "record: $n fsync writers at once, no daemon (the limit for $n clients)" \
				"$(num "$pps")" "fsync writer $(num "$rps")" "$(ratio "$pps" "$rps")" "" ""
		fi
	done
}

# ---- scale: stores of 10k and 100k snapshots ------------------------------
coldstart() { # STORE COUNT [SETTLE_MS]
	"$BIN/coldstart" --daemon "$DAEMON" --socket "$work/c.sock" --store "$1" \
		--name gen_0000000 --calls "$work/calls10.json" --expect "$2" --log "$work/daemon.log" \
		${3:+--settle-ms "$3"}
}

bench_scale() {
	"$BIN/gen_store" --print-calls 10 >"$work/calls10.json"
	small=$work/store-1
	"$BIN/gen_store" --dir "$small" --count 1 || return 1
	base=$(coldstart "$small" 1) || { fail "cold start on a 1-snapshot store failed"; return 1; }
	for n in $SCALE; do
		store=$work/store-$n
		"$BIN/gen_store" --dir "$store" --count "$n" || return 1
		raw=$("$BIN/read_store" "$store")
		# 4 s: past the daemon's racy-timestamp margin (3 s) for the files
		# gen_store wrote just before, so the last listing is all cached.
		out=$(coldstart "$store" "$n" 4000 2>"$work/coldstart.err") ||
			{ fail "cold start on $n snapshots failed: $(cat "$work/coldstart.err")"; continue; }
		label=$(awk -v n="$n" 'BEGIN { if (n % 1000 == 0) print n / 1000 "k"; else print n }')
		first=$(field "$out" first_ms)
		target=""
		met=""
		if [ "$n" = 100000 ]; then
			target="< 1000 ms"
			met=$(yesno "$first < 1000")
		fi
		row "scale $label: first answer after start, ms" "$first" \
			"1-snapshot store $(field "$base" first_ms)" "$(ratio "$first" "$(field "$base" first_ms)" 1)" \
			"$target" "$met"
		list=$(field "$out" list_ms)
		target=""
		met=""
		if [ "$n" = 100000 ]; then
			target="< 2000 ms"
			met=$(yesno "$list < 2000 && $(field "$out" list_ok) == 1")
		fi
		measured="$list / $(field "$out" list2_ms) / $(field "$out" list_cached_ms)"
		if [ "$(field "$out" list_ok)" != 1 ]; then
			measured="failed ($(field "$out" list_error)) after $list"
			fail "listing $n snapshots through the daemon: $(head -1 "$work/coldstart.err")"
		fi
		row "scale $label: list through the daemon, ms (first / again / cached)" \
			"$measured" "raw read of all files $(field "$raw" ms)" \
			"$(ratio "$list" "$(field "$raw" ms)" 1)" "$target" "$met"
		rss=$(field "$out" rss_kb)
		brss=$(field "$base" rss_kb)
		per=$(awk -v a="$rss" -v b="$brss" -v n="$n" 'BEGIN { printf "%.0f", (a - b) * 1024 / n }')
		disk=$(awk -v b="$(field "$raw" bytes)" -v n="$n" 'BEGIN { printf "%.0f", b / n }')
		row "scale $label: daemon memory per snapshot, bytes" "$per (RSS $(num "$rss") KiB)" \
			"file size $disk" "$(ratio "$per" "$disk")" "" ""
		# tsctl snapshots list --json: what a user waits for (a fresh daemon).
		if [ ! -x "$TSCTL" ]; then
			fail "$TSCTL is missing: no tsctl row"
			rm -rf "$store"
			continue
		fi
		start_daemon "$work/d.sock" || continue
		t0=$(date +%s%N)
		ok=1
		TOOLSCORE_SOCKET="$work/d.sock" TOOLSCORE_DIR="$store" TOOLSCORED=/bin/false \
			"$TSCTL" snapshots list --json >"$work/list.json" 2>"$work/tsctl.err" || ok=0
		t1=$(date +%s%N)
		stop_daemon
		listed=$(grep -o '"file"' "$work/list.json" | wc -l)
		[ "$listed" = "$n" ] || ok=0
		tl=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
		measured=$tl
		if [ $ok = 0 ]; then
			measured="failed after $tl"
			fail "tsctl snapshots list --json on $n snapshots listed $listed: $(head -1 "$work/tsctl.err")"
		fi
		met=""
		[ "$n" = 100000 ] && met=$(yesno "$tl < 2000 && $ok == 1")
		row "scale $label: tsctl snapshots list --json, ms" "$measured" \
			"raw read of all files $(field "$raw" ms)" "$(ratio "$tl" "$(field "$raw" ms)" 1)" \
			"$([ "$n" = 100000 ] && echo "< 2000 ms")" "$met"
		rm -rf "$store"
	done
}

# ---- scoring in-process ---------------------------------------------------
bench_score() {
	out=$("$BIN/score_bench" --checks 10000 --large-calls 1000 --large-repeat 10) ||
		{ fail "score_bench failed"; return 1; }
	small=$(printf '%s\n' "$out" | grep '^mode=score_small')
	large=$(printf '%s\n' "$out" | grep '^mode=score_large')
	sps=$(field "$small" ops_per_s)
	cps=$(field "${check_1:-}" ops_per_s)
	row "score a 10-call list: checks/s, socket (1 client) vs in-process" "$(num "$cps")" \
		"in-process $(num "$sps")" "$(ratio "$cps" "$sps" 3)" "" ""
	ms=$(field "$large" ms_per_eval)
	ref=$(field "$large" ref_ms)
	row "score two 1,000-call lists, ms" "$ms" "100 x 10-call lists $ref" "$(ratio "$ms" "$ref" 1)" "" ""
	unordered=$(printf '%s\n' "$out" | grep '^mode=score_unordered')
	ums=$(field "$unordered" ms_per_eval)
	sms=$(field "$unordered" strict_ms)
	row "score two 1,000-call lists, order unordered (10 tools x 100), ms" "$ums" \
		"strict order $sms" "$(ratio "$ums" "$sms" 1)" "< 50 ms" "$(yesno "$ums < 50")"
}

# ---- the drift report in-process -----------------------------------------
bench_report() {
	out=$("$BIN/report_bench" --calls 1000 --changes 10 --repeat 200) ||
		{ fail "report_bench failed"; return 1; }
	ms=$(field "$out" ms_per_report)
	row "drift report of two 1,000-call lists, 10 changes (with the JSON diff), ms" "$ms" \
		"scoring the same lists $(field "$out" score_ms)" "$(ratio "$ms" "$(field "$out" score_ms)" 1)" \
		"< 5 ms" "$(yesno "$ms < 5")"
	row "drift report, same lists: against writing both as pretty JSON, ms" "$ms" \
		"pretty JSON of both $(field "$out" write_ms)" "$(ratio "$ms" "$(field "$out" write_ms)" 1)" "" ""
}

# ---- the HTML report: 10,000 checks, 1,000 FAILED, in headless Chromium ----
bench_html() {
	mkdir -p "$work/html"
	out=$("$BIN/html_bench" --checks 10000 --failed 1000 --out "$work/html") ||
		{ fail "html_bench failed"; return 1; }
	mb=$(awk -v b="$(field "$out" html_bytes)" 'BEGIN { printf "%.2f", b / 1048576 }')
	jmb=$(awk -v b="$(field "$out" json_bytes)" 'BEGIN { printf "%.2f", b / 1048576 }')
	row "HTML report of 10,000 checks (1,000 FAILED), MB" "$mb" "its JSON report $jmb MB" \
		"$(ratio "$mb" "$jmb")" "< 10 MB" "$(yesno "$mb < 10")"
	row "HTML report rendered in C, ms" "$(field "$out" html_ms)" \
		"the JSON report $(field "$out" json_ms) ms" \
		"$(ratio "$(field "$out" html_ms)" "$(field "$out" json_ms)")" "" ""
	bout=$(/usr/bin/python3 tests/bench/html_bench.py "$work/html" --repeat "$REPEAT") ||
		{ fail "html: the browser part failed: $bout"; return 1; }
	first=$(field "$bout" first_ms)
	filt=$(field "$bout" filter_ms)
	row "HTML report, first render in headless Chromium, ms" "$first" \
		"the same rows as static HTML $(field "$bout" static_first_ms) ms" \
		"$(ratio "$first" "$(field "$bout" static_first_ms)")" "< 1000 ms" "$(yesno "$first < 1000")"
	row "HTML report, a filter change, ms" "$filt" \
		"hiding static rows $(field "$bout" static_filter_ms) ms" \
		"$(ratio "$filt" "$(field "$bout" static_filter_ms)")" "< 1000 ms" "$(yesno "$filt < 1000")"
}

# ---- the pytest plugin: N replay tests vs the floor, a no-op and syrupy ----
# tests/bench/pytest_bench.py runs the forms alternating, SHIM_RUNS times
# each, and keeps each one's minimum; the cost per check is a suite's test
# loop less the no-op suite's, divided by N.
SYRUPY=syrupy==4.9.1

# bench_venv: an interpreter with syrupy (pinned, from PyPI, in a venv under
# BUILD over Debian's python3 and its site packages), or nothing when PyPI
# cannot be reached.
bench_venv() {
	venv=$(cd "$BUILD" && pwd)/bench-venv
	if ! "$venv/bin/python" -c "import syrupy, importlib.metadata as m, sys
sys.exit(m.version('syrupy') != '${SYRUPY#*==}')" 2>/dev/null; then
		rm -rf "$venv"
		/usr/bin/python3 -m venv --system-site-packages "$venv" >/dev/null 2>&1 &&
			"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
				--timeout 20 --retries 1 "$SYRUPY" >"$work/venv.log" 2>&1 ||
			{ rm -rf "$venv"; return 1; }
	fi
	echo "$venv/bin/python"
}

bench_python() {
	py=/usr/bin/python3
	n=${TS_BENCH_PYTESTS:-2000}
	if ! "$py" -c 'import pytest, xdist' 2>/dev/null || ! ls "$BUILD"/python/toolscored/_native*.so >/dev/null 2>&1; then
		fail "python: needs $py with pytest and xdist, and the built package ($BUILD/python)"
		return 1
	fi
	syrupy_py=$(bench_venv) || syrupy_py=""
	start_daemon "$work/py.sock" || return 1
	start_echo "$work/py-echo.sock" || { stop_daemon; return 1; }
	out=$("$py" tests/bench/pytest_bench.py --build "$(cd "$BUILD" && pwd)" --socket "$work/py.sock" \
		--echo "$work/py-echo.sock" --calls tests/bench/calls10.json --tests "$n" \
		--repeat "$SHIM_RUNS" --workers "0 2 8" --syrupy-python "$syrupy_py" --work "$work")
	rc=$?
	stop_daemon
	stop_echo
	[ $rc = 0 ] || { fail "python: $out"; return 1; }
	printf '%s\n' "$out" | while read -r line; do
		w=$(field "$line" workers)
		noop=$(field "$line" noop_s)
		plugin=$(field "$line" plugin_s)
		per=$(awk -v a="$plugin" -v z="$noop" -v n="$n" 'BEGIN { printf "%.1f", (a - z) * 1e6 / n }')
		if [ "$w" = 0 ]; then
			floor=$(awk -v a="$(field "$line" floor_s)" -v z="$noop" -v n="$n" 'BEGIN { printf "%.1f", (a - z) * 1e6 / n }')
			row "pytest -n 0, the Python floor: json.dumps + one raw socket round trip to the echo server, µs per check over a no-op ($n tests, min of $SHIM_RUNS)" \
				"$floor" "no-op suite $noop s" "" "" ""
			row "pytest -n 0, toolscored's fixture (replay), µs per check over a no-op" "$per" \
				"floor $floor" "$(ratio "$per" "$floor")" "<= 1.25" "$(yesno "$(ratio "$per" "$floor" 4) <= 1.25")"
			sy=$(field "$line" syrupy_s)
			if [ -n "$sy" ]; then
				syper=$(awk -v a="$sy" -v z="$noop" -v n="$n" 'BEGIN { printf "%.1f", (a - z) * 1e6 / n }')
				row "pytest -n 0, ${SYRUPY%==*} ${SYRUPY#*==} (assert snapshot == calls), µs per check over a no-op" \
					"$syper" "floor $floor" "$(ratio "$syper" "$floor")" "" ""
			else
				row "pytest -n 0, ${SYRUPY%==*}" "not measured (PyPI not reachable)" "" "" "" ""
			fi
		else
			target=""
			met=""
			if [ "$w" = 2 ]; then
				target="<= 1.10"
				met=$(yesno "$(ratio "$plugin" "$noop" 4) <= 1.10")
			fi
			row "pytest -n $w, toolscored's fixture: the suite's wall time, s (per check $per µs)" \
				"$plugin" "no-op suite $noop s" "$(ratio "$plugin" "$noop")" "$target" "$met"
		fi
	done
}

# ---- the Node package: Vitest and Jest suites vs the floor and a no-op ------
# Each suite is one test file of N tests, run alone in one worker (Vitest's
# single fork, Jest's --runInBand), the files alternating, SHIM_RUNS times
# each; a suite's time is from before its first test to after its last
# (tests/node/bench/times.cjs), the minimum kept. The cost per check is a
# suite's time less the no-op suite's, divided by N.
bench_node() {
	n=${TS_BENCH_NODE_N:-2000}
	command -v node >/dev/null 2>&1 || { fail "node is missing"; return 1; }
	scripts/node_deps.sh || { fail "npm ci failed"; return 1; }
	start_daemon "$work/node.sock" || return 1
	start_echo "$work/node-echo.sock" || { stop_daemon; return 1; }
	mkdir -p "$work/node-snaps"
	top=$(pwd)
	# node_suite RUNNER FILE [ARGS]: one suite, its time appended to
	# $work/RUNNER.times.
	node_suite() {
		runner=$1
		file=$2
		shift 2
		if [ "$runner" = vitest ]; then
			set -- ./node_modules/.bin/vitest run --config bench/vitest.config.js "bench/$file" "$@"
		else
			set -- ./node_modules/.bin/jest --config bench/jest.config.js --runInBand "bench/$file" "$@"
		fi
		(cd "tests/node/$runner-project" && env -u CI -u TOOLSCORE_RUN -u TOOLSCORE_RECORD_UPDATE \
			TOOLSCORE_SOCKET="$work/node.sock" TOOLSCORE_DIR="$work/node-store" \
			TOOLSCORED=/bin/false TS_BENCH_NODE_N="$n" TS_BENCH_ECHO="$work/node-echo.sock" \
			TS_BENCH_SNAPDIR="$work/node-snaps" TS_BENCH_CALLS="$top/tests/bench/calls10.json" \
			TS_BENCH_TIMES="$work/$runner.times" "$@") >"$work/node-suite.log" 2>&1 ||
			{ fail "node: $runner $file $* failed: $(tail -n 20 "$work/node-suite.log")"; return 1; }
	}
	vitest_forms="noop floor snapshot matcher api"
	jest_forms="noop floor snapshot matcher"
	ok=1
	# Record: ours (N snapshots both runners' suites replay, as the daemon's
	# cache holds them all) approved and left to age past the daemon's
	# racy-timestamp margin (3 s), and each runner's own; then one warm run
	# of each suite.
	node_suite vitest matcher.test.js || ok=0
	node_suite vitest snapshot.test.js -u || ok=0
	node_suite jest snapshot.test.js -u || ok=0
	"$TSCTL" --socket "$work/node.sock" --dir "$work/node-store" approve --all >/dev/null ||
		{ fail "node: approve failed"; ok=0; }
	sleep 3.5
	for f in $vitest_forms; do node_suite vitest $f.test.js || ok=0; done
	for f in $jest_forms; do node_suite jest $f.test.js || ok=0; done
	: >"$work/vitest.times"
	: >"$work/jest.times"
	r=0
	while [ $ok = 1 ] && [ $r -lt "$SHIM_RUNS" ]; do
		r=$((r + 1))
		for f in $vitest_forms; do node_suite vitest $f.test.js || ok=0; done
		for f in $jest_forms; do node_suite jest $f.test.js || ok=0; done
	done
	stop_daemon
	stop_echo
	[ $ok = 1 ] || return 1
	for runner in vitest jest; do
		version=$(node -p "require('./tests/node/$runner-project/node_modules/$runner/package.json').version")
		label=$(awk -v r="$runner" 'BEGIN { print toupper(substr(r, 1, 1)) substr(r, 2) }')
		best() { awk -v f="$1" '$1 == f && (m == "" || $2 < m) { m = $2 } END { print m }' "$work/$runner.times"; }
		noop=$(best noop)
		per() { awk -v a="$(best "$1")" -v z="$noop" -v n="$n" 'BEGIN { printf "%.1f", (a - z) * 1000 / n }'; }
		floor=$(per floor)
		row "$label $version, one worker, the Node floor: JSON.stringify + one raw socket round trip + await, µs per check over a no-op ($n tests, min of $SHIM_RUNS)" \
			"$floor" "no-op suite $(awk -v z="$noop" 'BEGIN { printf "%.0f", z }') ms" "" "" ""
		v=$(per snapshot)
		row "$label: expect(calls).toMatchSnapshot() ($label's own), µs per check over a no-op" "$v" \
			"floor $floor" "$(ratio "$v" "$floor")" "" ""
		m=$(per matcher)
		target=""
		met=""
		if [ $runner = vitest ]; then
			target="<= 1.5"
			met=$(yesno "$(ratio "$m" "$floor" 4) <= 1.5")
		fi
		row "$label: await expect(calls).toMatchToolSnapshot(), µs per check over a no-op" "$m" \
			"floor $floor" "$(ratio "$m" "$floor")" "$target" "$met"
		if [ $runner = vitest ]; then
			a=$(per api)
			row "$label: await toolSnapshot(calls), µs per check over a no-op" "$a" \
				"floor $floor" "$(ratio "$a" "$floor")" "" ""
		fi
	done
}

machine
for part in $ONLY; do
	case "$part" in
	replay | record | scale | score | report | html | python | node) ;;
	*) echo "bench: unknown part '$part' (replay, record, scale, score, report, html, python, node)" >&2; exit 2 ;;
	esac
	echo "running $part benchmarks..." >&2
	"bench_$part" || fail "$part benchmark stopped"
done

table() {
	echo "| Benchmark | Measured | Reference (same run) | Ratio | Target | Met |"
	echo "|---|---|---|---|---|---|"
	awk -F'|' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$rows"
}
echo
table
[ -n "${TS_BENCH_OUT:-}" ] && { machine; echo; table; } >"$TS_BENCH_OUT"
if [ "$failures" -gt 0 ]; then
	echo "bench: $failures problem(s), see above" >&2
	exit 1
fi
exit 0
