/*
 * test_error — the error convention (lib/base/ts_base.h): codes, messages,
 * prefixes, truncation, and messages that stay on one line whatever text
 * the caller formats into them.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"
#include "util_test.h"

START_TEST(test_set_fills_code_and_message)
{
    ts_error err;

    ck_assert_int_eq(ts_error_set(&err, -ENOENT, TS_ERR_NOT_FOUND, "no snapshot named '%s'", "a"),
                     -ENOENT);
    ck_assert_str_eq(err.code, "not_found");
    ck_assert_str_eq(err.message, "no snapshot named 'a'");
    ck_assert_int_eq(ts_error_set(NULL, -EIO, TS_ERR_IO, "ignored"), -EIO);
    ts_error_set(&err, -EINVAL, NULL, "x");
    ck_assert_str_eq(err.code, TS_ERR_INTERNAL);
    ts_error_clear(&err);
    ck_assert_str_eq(err.code, "");
    ck_assert_str_eq(err.message, "");
}
END_TEST

START_TEST(test_prefix)
{
    ts_error err;

    ts_error_set(&err, -EINVAL, TS_ERR_INVALID_JSON, "line 2, column 5: unexpected end");
    ck_assert_int_eq(ts_error_prefix(&err, -EINVAL, "%s", "trace.json"), -EINVAL);
    ck_assert_str_eq(err.message, "trace.json: line 2, column 5: unexpected end");
    ck_assert_str_eq(err.code, TS_ERR_INVALID_JSON);
}
END_TEST

START_TEST(test_long_message_is_cut)
{
    char big[3 * TS_ERROR_MESSAGE_MAX];
    ts_error err;

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    ts_error_set(&err, -EINVAL, TS_ERR_LIMIT, "%s", big);
    ck_assert_uint_eq(strlen(err.message), TS_ERROR_MESSAGE_MAX - 1);
    ts_error_prefix(&err, -EINVAL, "%s", big);
    ck_assert_uint_eq(strlen(err.message), TS_ERROR_MESSAGE_MAX - 1);
}
END_TEST

START_TEST(test_message_stays_one_line)
{
    ts_error err;

    /* a peer-supplied key or a snapshot name may hold any control byte */
    ts_error_set(&err, -EINVAL, "bad_request", "unknown request key \"%s\"", "i\nd\r\t\x1b\x7f");
    ck_assert_str_eq(err.message, "unknown request key \"i?d????\"");
    ts_error_prefix(&err, -EINVAL, "%s", "a\nb");
    ck_assert_str_eq(err.message, "a?b: unknown request key \"i?d????\"");
    /* non-ASCII text is kept as it is */
    ts_error_set(&err, -ENOENT, TS_ERR_NOT_FOUND, "no snapshot named '%s'", "日本 ✓");
    ck_assert_str_eq(err.message, "no snapshot named '日本 ✓'");
}
END_TEST

static Suite *error_suite(void)
{
    Suite *s = suite_create("error");
    TCase *tc = tcase_create("error");

    tcase_add_test(tc, test_set_fills_code_and_message);
    tcase_add_test(tc, test_prefix);
    tcase_add_test(tc, test_long_message_is_cut);
    tcase_add_test(tc, test_message_stays_one_line);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(error_suite());
}
