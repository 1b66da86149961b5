/*
 * util_test — see util_test.h.
 */
#include "util_test.h"

#include <dirent.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/base/ts_base.h"
#include "lib/json/ts_json.h"
#include "lib/snapshot/ts_snapshot.h"

const char *util_source_dir(void)
{
    const char *dir = getenv("TS_SOURCE_DIR");

    return dir != NULL ? dir : ".";
}

/* The rest of the open file f (named path in messages), NUL-terminated. */
static char *read_stream(FILE *f, const char *path, size_t *len)
{
    char *data;
    long size;

    ck_assert_msg(fseek(f, 0, SEEK_END) == 0, "cannot seek in %s", path);
    size = ftell(f);
    ck_assert_msg(size >= 0, "cannot size %s", path);
    ck_assert_msg(fseek(f, 0, SEEK_SET) == 0, "cannot seek in %s", path);
    data = malloc((size_t)size + 1);
    ck_assert_ptr_nonnull(data);
    ck_assert_msg(fread(data, 1, (size_t)size, f) == (size_t)size, "cannot read %s", path);
    data[size] = '\0';
    fclose(f);
    if (len != NULL)
        *len = (size_t)size;
    return data;
}

char *util_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");

    ck_assert_msg(f != NULL, "cannot open %s", path);
    return read_stream(f, path, len);
}

char *util_read_file_if_exists(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");

    if (f == NULL)
        return NULL;
    return read_stream(f, path, len);
}

void util_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");

    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert_msg(fwrite(data, 1, len, f) == len, "cannot write %s", path);
    ck_assert_msg(fclose(f) == 0, "cannot write %s", path);
}

char *util_read_data(const char *rel, size_t *len)
{
    char path[1024];

    snprintf(path, sizeof(path), "%s/tests/data/%s", util_source_dir(), rel);
    return util_read_file(path, len);
}

struct json_object *util_json_c_parse(const char *text)
{
    enum json_tokener_error jerr;
    struct json_object *v = json_tokener_parse_verbose(text, &jerr);

    ck_assert_msg(jerr == json_tokener_success, "bad test JSON: %s", text);
    return v;
}

char *util_json_compact(const struct json_object *v)
{
    ts_buf b;
    ts_error err;

    ts_buf_init(&b, TS_BUF_UNLIMITED);
    ck_assert_msg(ts_json_write_compact(v, &b, &err) == 0, "cannot write JSON: %s", err.message);
    return ts_buf_detach(&b, NULL);
}

char *util_make_temp_dir(const char *prefix)
{
    char pattern[256];
    char real[PATH_MAX];
    char *copy;

    snprintf(pattern, sizeof(pattern), "/tmp/%s-XXXXXX", prefix);
    ck_assert_msg(mkdtemp(pattern) != NULL, "cannot make %s", pattern);
    ck_assert_msg(realpath(pattern, real) != NULL, "cannot resolve %s", pattern);
    copy = strdup(real);
    ck_assert_ptr_nonnull(copy);
    return copy;
}

int util_remove_tree(const char *path)
{
    char command[PATH_MAX + 16];

    snprintf(command, sizeof(command), "rm -rf '%s'", path);
    return system(command);
}

struct json_object *util_calls_of_letters(const char *s)
{
    struct json_object *list = json_object_new_array();

    for (; *s; s++) {
        struct json_object *c = json_object_new_object();

        json_object_object_add(c, "tool", json_object_new_string_len(s, 1));
        json_object_array_add(list, c);
    }
    return list;
}

void util_colliding_names(char *a, char *b, size_t sz)
{
    enum { SLOTS = 1 << 20 };
    uint32_t *seen = calloc(SLOTS, sizeof(*seen)); /* hash -> index + 1 */
    uint32_t *hashes = calloc(SLOTS, sizeof(*hashes));
    char prefix[101];

    ck_assert(seen != NULL && hashes != NULL);
    memset(prefix, 'x', 100);
    prefix[100] = '\0'; /* the whole stem: names differ after it */
    for (uint32_t i = 0; i < 4000000; i++) {
        char name[160];
        char hex[9];
        uint32_t h;

        snprintf(name, sizeof(name), "%s-%u", prefix, i);
        ts_name_hash8(name, strlen(name), hex);
        h = (uint32_t)strtoul(hex, NULL, 16);
        for (uint32_t slot = h & (SLOTS - 1);; slot = (slot + 1) & (SLOTS - 1)) {
            if (seen[slot] == 0) {
                seen[slot] = i + 1;
                hashes[slot] = h;
                break;
            }
            if (hashes[slot] == h) {
                snprintf(a, sz, "%s-%u", prefix, seen[slot] - 1);
                snprintf(b, sz, "%s", name);
                free(seen);
                free(hashes);
                return;
            }
        }
    }
    ck_abort_msg("no colliding pair");
}

/* glibc: every arena's chunks, mapped ones too (a test process with one
 * thread has one arena) */
size_t util_heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();

    return m.uordblks + m.hblkhd;
}

static long long monotonic_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool util_wait_for(bool (*holds)(void *arg), void *arg, int timeout_ms)
{
    long long deadline = monotonic_ms() + timeout_ms;

    while (!holds(arg)) {
        if (monotonic_ms() > deadline)
            return false;
        usleep(5000);
    }
    return true;
}

unsigned util_next_random(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 16) & 0x7fff;
}

int util_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

struct ts_snapshot *util_make_snapshot(const char *name, int n, size_t pad)
{
    struct json_object *calls = json_object_new_array();
    ts_snapshot *s = NULL;
    ts_error err;
    char *text = malloc(pad + 1);

    ck_assert_ptr_nonnull(text);
    memset(text, 'x', pad);
    text[pad] = '\0';
    for (int i = 0; i < n; i++) {
        struct json_object *call = json_object_new_object();
        struct json_object *args = json_object_new_object();

        json_object_object_add(call, "tool", json_object_new_string("t"));
        json_object_object_add(args, "i", json_object_new_int(i));
        json_object_object_add(args, "pad", json_object_new_string(text));
        json_object_object_add(call, "args", args);
        json_object_array_add(calls, call);
    }
    free(text);
    ck_assert_msg(ts_snapshot_new(name, calls, "pytest", &s, &err) == 0, "%s", err.message);
    json_object_put(calls);
    return s;
}

int util_count_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;

    ck_assert_msg(d != NULL, "cannot open %s", dir);
    for (de = readdir(d); de != NULL; de = readdir(d)) {
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            strncmp(de->d_name, prefix, strlen(prefix)) == 0)
            n++;
    }
    closedir(d);
    return n;
}
