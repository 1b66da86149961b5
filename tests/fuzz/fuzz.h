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

#endif
