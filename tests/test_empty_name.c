/*
 * test_empty_name — the empty name is a snapshot name (docs/snapshots.md,
 * "Store and file names"): it maps to snapshot-da39a3ee.json, as the
 * reference writes it, and every store operation takes it: save, load,
 * list (both listings, no problem reported), approve, remove.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/ts_base.h"
#include "lib/snapshot/ts_snapshot.h"
#include "lib/store/ts_store.h"
#include "util_test.h"

#define EMPTY_FILE "snapshot-da39a3ee.json"

START_TEST(empty_name_file_and_bytes)
{
    char file[TS_FILENAME_MAX];
    ts_snapshot *s = util_make_snapshot("", 1, 1), *back = NULL;
    ts_error err;
    ts_buf out;

    ck_assert_int_eq(ts_name_to_filename("", 0, file, sizeof(file), &err), 0);
    ck_assert_str_eq(file, EMPTY_FILE);
    ts_buf_init(&out, TS_BUF_UNLIMITED);
    ck_assert_int_eq(ts_snapshot_serialize(s, &out, &err), 0);
    ck_assert_ptr_nonnull(strstr(out.data, "\n  \"name\": \"\",\n"));
    ck_assert_msg(ts_snapshot_parse(out.data, out.len, EMPTY_FILE, &back, &err) == 0, "%s",
                  err.message);
    ck_assert_str_eq(back->name, "");
    ts_buf_free(&out);
    ts_snapshot_free(back);
    ts_snapshot_free(s);
}
END_TEST

START_TEST(empty_name_through_the_store)
{
    char *root = util_make_temp_dir("empty-name");
    char path[4096];
    ts_snapshot *s = util_make_snapshot("", 2, 1), *back = NULL;
    ts_store *store = NULL;
    ts_store_listing listing;
    ts_store_summaries sums;
    ts_error err;

    ck_assert_int_eq(ts_store_open(root, &store, &err), 0);
    ck_assert_msg(ts_store_save(store, s, 0, &err) == 0, "%s", err.message);
    snprintf(path, sizeof(path), "%s/" EMPTY_FILE, root);
    ck_assert_int_eq(util_count_entries(root, ""), 1);
    free(util_read_file(path, NULL));
    ck_assert_int_eq(ts_store_load(store, "", &back, NULL, &err), 0);
    ck_assert_str_eq(back->name, "");
    ck_assert(!back->approved);
    ts_snapshot_free(back);

    ck_assert_int_eq(ts_store_list(store, &listing, &err), 0);
    ck_assert_uint_eq(listing.count, 1);
    ck_assert_uint_eq(listing.problem_count, 0);
    ck_assert_str_eq(listing.items[0]->name, "");
    ck_assert_str_eq(listing.files[0], EMPTY_FILE);
    ts_store_listing_free(&listing);
    ck_assert_int_eq(ts_store_list_summaries(store, &sums, &err), 0);
    ck_assert_uint_eq(sums.count, 1);
    ck_assert_uint_eq(sums.problem_count, 0);
    ck_assert_str_eq(sums.items[0].name, "");
    ck_assert_uint_eq(sums.items[0].calls, 2);
    ts_store_summaries_free(&sums);

    ck_assert_int_eq(ts_store_approve(store, "", &err), 0);
    ck_assert_int_eq(ts_store_load(store, "", &back, NULL, &err), 0);
    ck_assert(back->approved);
    ts_snapshot_free(back);
    ck_assert_int_eq(ts_store_remove(store, "", 0, &err), 0);
    ck_assert_int_eq(ts_store_load(store, "", &back, NULL, &err), -ENOENT);
    ck_assert_int_eq(util_count_entries(root, ""), 0);

    ts_store_close(store);
    ts_snapshot_free(s);
    util_remove_tree(root);
    free(root);
}
END_TEST

static Suite *empty_name_suite(void)
{
    Suite *s = suite_create("empty_name");
    TCase *tc = tcase_create("empty_name");

    tcase_add_test(tc, empty_name_file_and_bytes);
    tcase_add_test(tc, empty_name_through_the_store);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return util_run_suite(empty_name_suite());
}
