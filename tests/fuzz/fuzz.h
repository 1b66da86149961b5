/*
 * fuzz — the fuzzing entry points (tests/fuzz/fuzz_*.c).
 *
 * Each harness is one function taking arbitrary bytes. It returns 0 and
 * aborts (after printing what broke) only when a library invariant is
 * violated, so a crash, a leak or an abort is a bug. tests/fuzz/run.sh builds
 * each file with -DTS_FUZZ_MAIN into a libFuzzer binary;
 * tests/test_fuzz_corpus.c replays every seed in tests/fuzz/corpus/<harness>/
 * through the same functions in the normal test build.
 */
#ifndef TS_FUZZ_H
#define TS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* JSON parse (+ writer round trip), extraction, scoring. */
int ts_fuzz_extract(const uint8_t *data, size_t size);

/* Snapshot file parsing and the serialize/parse round trip. */
int ts_fuzz_snapshot(const uint8_t *data, size_t size);

/* Frame reader on a byte stream; msgpack value, request and reply decoding
 * with encode/decode round trips. */
int ts_fuzz_proto(const uint8_t *data, size_t size);

/* The drift report: layout, colour, determinism, small output maxima. */
int ts_fuzz_report(const uint8_t *data, size_t size);
/* Rules files: parse, merge, compare under them, redact. */
int ts_fuzz_rules(const uint8_t *data, size_t size);

/* A shard's JSON report: read, rendered (JSON fixed point, JUnit), merged. */
int ts_fuzz_runreport(const uint8_t *data, size_t size);

#endif
