/*
 * test_name — snapshot names to file names (lib/snapshot/ts_name.c).
 *
 * Expected file names are the reference tool's mapping (docs/snapshots.md),
 * including the two examples of docs/snapshots.md and the names of the reference
 * tool's files in tests/data/compat/.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/snapshot/ts_snapshot.h"
#include "util_test.h"

/* File name of s, or fail the test. */
static const char *filename_of(const char *s, size_t len)
{
    static char out[TS_FILENAME_MAX];
    ts_error err;
    int rc = ts_name_to_filename(s, len, out, sizeof(out), &err);

    ck_assert_msg(rc == 0, "name rejected: %s", err.message);
    return out;
}

static void assert_filename(const char *name, const char *expected)
{
    ck_assert_str_eq(filename_of(name, strlen(name)), expected);
}

START_TEST(spec_examples)
{
    assert_filename("tests/test_agent.py::test_booking",
                    "tests__test_agent.py__test_booking-5befce50.json");
    assert_filename("../../evil", "__..__evil-1361ca8c.json");
}
END_TEST

START_TEST(reference_files)
{
    assert_filename("floats_and_ints", "floats_and_ints-75b53452.json");
    assert_filename("no_args", "no_args-7066a219.json");
    assert_filename("tests/test_flights.py::test_books_a_flight",
                    "tests__test_flights.py__test_books_a_flight-a17e174d.json");
}
END_TEST

START_TEST(pytest_ids)
{
    assert_filename("test_x[a-b/c]", "test_x__a-b__c__-e8b13b3d.json");
    assert_filename("tests/test_a.py::TestK::test_m[param-1]",
                    "tests__test_a.py__TestK__test_m__param-1__-14e25239.json");
}
END_TEST

START_TEST(colons)
{
    /* "::" first, then the remaining single ':' */
    assert_filename("a:::b", "a____b-ce50152f.json");
    assert_filename("C:\\Windows\\..", "C____Windows__-b0980212.json");
}
END_TEST

START_TEST(every_replaced_ascii_character)
{
    assert_filename("<>|*?\"x", "____________x-1f14ef24.json");
    assert_filename("a\\b", "a__b-d0dcc0f2.json");
    assert_filename("/", "__-42099b4a.json");
}
END_TEST

START_TEST(unicode_whitespace)
{
    static const uint32_t spaces[] = {
        0x09,   0x0A,   0x0B,   0x0C,   0x0D,   0x1C,   0x1D,   0x1E,   0x1F,   0x20,
        0x85,   0xA0,   0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
        0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000};

    assert_filename("...a b\xe3\x80\x80"
                    "c\xc2\xa0"
                    "d\xe2\x80\xa8"
                    "e\xc2\x85"
                    "f...",
                    "a__b__c__d__e__f-6633373e.json");
    assert_filename("t\tn\nv\vf\fr\r\x1c\x1d\x1e\x1f"
                    "end",
                    "t__n__v__f__r__________end-fc92a49b.json");
    for (size_t i = 0; i < sizeof(spaces) / sizeof(spaces[0]); i++) {
        char name[16];
        uint32_t cp = spaces[i];
        size_t n = 0;
        const char *file;

        name[n++] = 'a';
        if (cp < 0x80) {
            name[n++] = (char)cp;
        } else if (cp < 0x800) {
            name[n++] = (char)(0xC0 | (cp >> 6));
            name[n++] = (char)(0x80 | (cp & 0x3F));
        } else {
            name[n++] = (char)(0xE0 | (cp >> 12));
            name[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            name[n++] = (char)(0x80 | (cp & 0x3F));
        }
        name[n++] = 'b';
        file = filename_of(name, n);
        ck_assert_msg(strncmp(file, "a__b-", 5) == 0, "U+%04X gave %s", (unsigned)cp, file);
    }
    /* Not whitespace for Python: the zero-width space stays. */
    assert_filename("x\xe2\x80\x8by", "x\xe2\x80\x8by-0494291b.json");
}
END_TEST

START_TEST(dots_and_traversal)
{
    assert_filename("..", "snapshot-9d891e73.json");
    assert_filename("...", "snapshot-6eae3a5b.json");
    assert_filename("./.hidden", "__.hidden-af177f15.json");
    assert_filename("a.", "a-246791dc.json");
    assert_filename(".a.", "a-613072f5.json");
}
END_TEST

/* times copies of unit into out, NUL-terminated; returns the length. */
static size_t repeat(char *out, const char *unit, int times)
{
    size_t n = 0;

    for (int i = 0; i < times; i++)
        n += (size_t)sprintf(out + n, "%s", unit);
    out[n] = '\0';
    return n;
}

START_TEST(cut_at_100_code_points)
{
    char name[1024];
    char expected[1024];
    size_t n;

    /* 150 two-byte characters: 100 kept, 200 bytes, never half of one. */
    repeat(name, "\xc3\xa9", 150);
    n = repeat(expected, "\xc3\xa9", 100);
    strcpy(expected + n, "-9758f974.json");
    assert_filename(name, expected);

    /* 99 ASCII then two 3-byte characters: the cut falls after the first. */
    memset(name, 'a', 99);
    strcpy(name + 99, "\xe2\x82\xac\xe2\x82\xac");
    memset(expected, 'a', 99);
    strcpy(expected + 99, "\xe2\x82\xac-864d7d24.json");
    assert_filename(name, expected);

    /* 101 four-byte characters. */
    repeat(name, "\xf0\x9f\x98\x80", 101);
    n = repeat(expected, "\xf0\x9f\x98\x80", 100);
    strcpy(expected + n, "-14deead9.json");
    assert_filename(name, expected);

    /* 98 ASCII then "::": its "__" fills the last two places. */
    memset(name, 'a', 98);
    strcpy(name + 98, "::x");
    memset(expected, 'a', 98);
    strcpy(expected + 98, "__-a057d3d0.json");
    assert_filename(name, expected);

    memset(name, 'a', 120);
    name[120] = '\0';
    memset(expected, 'a', 100);
    strcpy(expected + 100, "-f34c1488.json");
    assert_filename(name, expected);
}
END_TEST

START_TEST(limits_and_invalid_names)
{
    char *big = malloc(TS_NAME_MAX_BYTES + 2);
    char out[TS_FILENAME_MAX];
    ts_error err;

    memset(big, 'x', TS_NAME_MAX_BYTES + 1);
    ck_assert_int_eq(ts_name_to_filename(big, TS_NAME_MAX_BYTES, out, sizeof(out), &err), 0);
    ck_assert_int_eq(ts_name_to_filename(big, TS_NAME_MAX_BYTES + 1, out, sizeof(out), &err),
                     -E2BIG);
    ck_assert_str_eq(err.code, "too_large");
    /* 4096 replaced characters: the worst case for the stem buffer. */
    memset(big, '/', TS_NAME_MAX_BYTES);
    ck_assert_int_eq(ts_name_to_filename(big, TS_NAME_MAX_BYTES, out, sizeof(out), &err), 0);
    ck_assert_int_eq((int)strlen(out), 100 + 14);
    free(big);

    /* the empty name is a name, as the reference writes it */
    ck_assert_int_eq(ts_name_to_filename("", 0, out, sizeof(out), &err), 0);
    ck_assert_str_eq(out, "snapshot-da39a3ee.json");
    ck_assert_int_eq(ts_name_validate("", 0, NULL), 0);
    ck_assert_int_eq(ts_name_validate(NULL, 0, &err), -EINVAL);
    ck_assert_str_eq(err.code, "invalid_argument");
    ck_assert_ptr_nonnull(strstr(err.message, "missing"));
    ck_assert_int_eq(ts_name_to_filename("a\0b", 3, out, sizeof(out), &err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "NUL"));
    ck_assert_int_eq(ts_name_to_filename("a\xff", 2, out, sizeof(out), &err), -EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "UTF-8"));
    ck_assert_int_eq(ts_name_to_filename("\xed\xa0\x80", 3, out, sizeof(out), &err), -EINVAL);
    ck_assert_int_eq(ts_name_to_filename("\xc0\xaf", 2, out, sizeof(out), &err), -EINVAL);
    ck_assert_int_eq(ts_name_to_filename("\xe2\x82", 2, out, sizeof(out), &err), -EINVAL);
    ck_assert_int_eq(ts_name_to_filename("abc", 3, out, 10, &err), -ENAMETOOLONG);
    ck_assert_int_eq(ts_name_validate("ok", 2, NULL), 0);
    ck_assert_int_eq(ts_name_validate(NULL, 0, NULL), -EINVAL);
}
END_TEST

START_TEST(hash8)
{
    char h[9];

    ts_name_hash8("abc", 3, h);
    ck_assert_str_eq(h, "a9993e36");
    ts_name_hash8("", 0, h);
    ck_assert_str_eq(h, "da39a3ee");
}
END_TEST

/* Random valid names: the file name always stays a plain file in the root. */
START_TEST(random_names_stay_in_root)
{
    static const char *const pieces[] = {"/",
                                         "..",
                                         ".",
                                         ":",
                                         "::",
                                         "\\",
                                         "a",
                                         "\xc3\xa9",
                                         " ",
                                         "\xe3\x80\x80",
                                         "[",
                                         "]",
                                         "\xf0\x9f\x98\x80",
                                         "\n",
                                         "*",
                                         "?",
                                         "\"",
                                         "<",
                                         ">",
                                         "|"};
    unsigned seed = 12345;

    for (int round = 0; round < 2000; round++) {
        char name[256];
        size_t n = 0;
        int count = (int)(rand_r(&seed) % 40) + 1;
        const char *file;
        size_t flen;
        int cps = 0;

        for (int i = 0; i < count; i++) {
            const char *p = pieces[rand_r(&seed) % (sizeof(pieces) / sizeof(pieces[0]))];

            memcpy(name + n, p, strlen(p));
            n += strlen(p);
        }
        file = filename_of(name, n);
        flen = strlen(file);
        ck_assert_ptr_null(strchr(file, '/'));
        ck_assert_int_ne(file[0], '.');
        ck_assert_int_gt((int)flen, 14);
        ck_assert_str_eq(file + flen - 5, ".json");
        ck_assert_int_eq(file[flen - 14], '-');
        for (size_t i = 0; i < flen - 14; i++)
            cps += ((unsigned char)file[i] & 0xC0) != 0x80;
        ck_assert_int_le(cps, 100);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("name");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, spec_examples);
    tcase_add_test(tc, reference_files);
    tcase_add_test(tc, pytest_ids);
    tcase_add_test(tc, colons);
    tcase_add_test(tc, every_replaced_ascii_character);
    tcase_add_test(tc, unicode_whitespace);
    tcase_add_test(tc, dots_and_traversal);
    tcase_add_test(tc, cut_at_100_code_points);
    tcase_add_test(tc, limits_and_invalid_names);
    tcase_add_test(tc, hash8);
    tcase_add_test(tc, random_names_stay_in_root);
    suite_add_tcase(s, tc);
    return util_run_suite(s);
}
