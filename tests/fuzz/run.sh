#!/bin/sh
# make fuzz: build every libFuzzer harness (tests/fuzz/fuzz_*.c) with clang
# into build-fuzz/, compiling lib/ and proto/ sources directly, then run each
# for FUZZ_SECONDS (default 30) on a working copy of its seed corpus.
#   FUZZ_SECONDS=300 tests/fuzz/run.sh            all harnesses, 5 minutes each
#   FUZZ_HARNESSES="extract" tests/fuzz/run.sh    only fuzz_extract
#   FUZZ_JOBS=2                                   parallel fuzzing processes
#   FUZZ_KEEP_GOING=1     go on after a crash (libFuzzer -fork with
#                         -ignore_crashes) to collect every distinct one
# New inputs go to build-fuzz/corpus/<harness>/ (copy the interesting ones
# into tests/fuzz/corpus/<harness>/ so `make check` replays them); a crash
# leaves build-fuzz/crashes/<harness>-crash-* and fails the run.
set -u
cd "$(dirname "$0")/../.."
OUT=${FUZZ_BUILD:-build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-30}
JOBS=${FUZZ_JOBS:-1}
CC=${FUZZ_CC:-clang}
MAX_LEN=${FUZZ_MAX_LEN:-16384}
CFLAGS="-std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
-fno-sanitize-recover=all -D_GNU_SOURCE -DTS_FUZZ_MAIN \
-I$OUT/gen -I. -Itests/fuzz $(pkg-config --cflags json-c msgpack libmd 2>/dev/null)"
LIBS="$(pkg-config --libs json-c msgpack libmd 2>/dev/null) -lm"

mkdir -p "$OUT/obj" "$OUT/corpus" "$OUT/crashes" "$OUT/gen"
# TS_VERSION, as the Makefile writes it (mk/version.mk)
version=$(sh scripts/dist/version.sh) || exit 1
want="#define TS_VERSION \"$version\" /* written by tests/fuzz/run.sh */"
[ "$(cat "$OUT/gen/ts_version.h" 2>/dev/null)" = "$want" ] || echo "$want" >"$OUT/gen/ts_version.h"
# lib/ and proto/ once, as objects (the fuzzer runtime is linked only into
# the harness binaries; -fsanitize=fuzzer-no-link instruments the rest).
OBJCFLAGS=$(echo "$CFLAGS" | sed 's/-fsanitize=fuzzer,/-fsanitize=fuzzer-no-link,/')
objs=""
for src in $(find lib proto -name '*.c' | sort); do
	[ -f "$src" ] || continue
	obj="$OUT/obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')"
	if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$OUT/gen/ts_version.h" -nt "$obj" ] || [ -n "$(find lib proto -name '*.h' -newer "$obj" 2>/dev/null)" ]; then
		# shellcheck disable=SC2086
		$CC $OBJCFLAGS -c "$src" -o "$obj" || { echo "fuzz: cannot compile $src"; exit 1; }
	fi
	objs="$objs $obj"
done
# The HTML report's template, turned into C as the Makefile does.
tpl="$OUT/obj/ts_html_template.c"
if [ ! -f "$tpl.o" ] || [ -n "$(find lib/html scripts/embed.sh -newer "$tpl.o" 2>/dev/null)" ]; then
	sh scripts/embed.sh "$tpl" ts_html_page=lib/html/report.html \
		ts_html_style=lib/html/report.css ts_html_script=lib/html/report.js &&
		$CC $OBJCFLAGS -c "$tpl" -o "$tpl.o" || { echo "fuzz: cannot build the HTML template"; exit 1; }
fi
objs="$objs $tpl.o"

failed=""
ran=0
for harness in tests/fuzz/fuzz_*.c; do
	name=$(basename "$harness" .c)
	short=${name#fuzz_}
	if [ -n "${FUZZ_HARNESSES:-}" ]; then
		case " $FUZZ_HARNESSES " in *" $short "*) ;; *) continue ;; esac
	fi
	# shellcheck disable=SC2086
	if ! $CC $CFLAGS "$harness" $objs $LIBS -o "$OUT/$name"; then
		echo "fuzz: cannot build $name"
		failed="$failed $name(build)"
		continue
	fi
	mkdir -p "$OUT/corpus/$short"
	echo "== $name: ${SECONDS_EACH}s"
	parallel=""
	[ "$JOBS" -gt 1 ] && parallel="-fork=$JOBS"
	[ -n "${FUZZ_KEEP_GOING:-}" ] && parallel="-fork=$JOBS -ignore_crashes=1 -ignore_ooms=0 -ignore_timeouts=0"
	# shellcheck disable=SC2086
	if ! "$OUT/$name" -max_total_time="$SECONDS_EACH" -max_len="$MAX_LEN" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 $parallel \
		-artifact_prefix="$OUT/crashes/$short-" \
		"$OUT/corpus/$short" "tests/fuzz/corpus/$short" >"$OUT/$name.log" 2>&1; then
		failed="$failed $name"
		grep -E 'invariant failed|ERROR: (Address|Leak|libFuzzer)|runtime error|SUMMARY|Test unit written|crash-' "$OUT/$name.log" | sort -u | head -n 40
	else
		grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+.*DONE' "$OUT/$name.log" | tail -n 3
	fi
	ran=$((ran + 1))
done
if [ -n "${FUZZ_KEEP_GOING:-}" ] && ls "$OUT/crashes/" 2>/dev/null | grep -q .; then
	failed="$failed (crash files present)"
fi
if [ -n "$failed" ]; then
	echo "fuzz: FAILED:$failed (inputs in $OUT/crashes/)"
	exit 1
fi
echo "fuzz: $ran harness(es) ran ${SECONDS_EACH}s each, no crash"
