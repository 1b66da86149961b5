/*
 * rulescache — the project's rules file, cached by stamp (see snapshots_internal.h).
 */
#include "snapshots_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/check/ts_check.h"

static int64_t realtime_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int tsd_rulescache_init(tsd_rulescache *cache, const char *root)
{
    size_t n = strlen(root) + sizeof(TS_RULES_CONFIG_NAME) + 2;

    memset(cache, 0, sizeof(*cache));
    cache->path = malloc(n);
    if (cache->path == NULL)
        return -ENOMEM;
    if (ts_rules_config_path(root, cache->path, n) < 0) {
        free(cache->path);
        cache->path = NULL;
        return -ENAMETOOLONG;
    }
    return 0;
}

void tsd_rulescache_free(tsd_rulescache *cache)
{
    ts_rules_unref(cache->rules);
    free(cache->path);
    memset(cache, 0, sizeof(*cache));
}

/* The stamp of the file now (exists false when there is none). */
static int stamp_now(const char *path, ts_file_stamp *stamp, ts_error *err)
{
    struct stat st;

    memset(stamp, 0, sizeof(*stamp));
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return ts_error_set(err, -EINVAL, TS_ERR_INVALID_RULES,
                                "%s: the rules file is not a regular file", path);
        ts_file_stamp_from_stat(&st, stamp);
        return 0;
    }
    if (errno == ENOENT || errno == ENOTDIR)
        return 0;
    return ts_error_set(err, -errno, TS_ERR_IO, "cannot read the rules file %s: %s", path,
                        strerror(errno));
}

/* Read and compile the file into the cache's entry. */
static void load(tsd_rulescache *cache)
{
    char *text = malloc(TS_RULES_FILE_MAX + 1);
    size_t len = 0;
    int fd = -1;

    ts_rules_unref(cache->rules);
    cache->rules = NULL;
    cache->rc = 0;
    ts_error_clear(&cache->err);
    if (text != NULL)
        fd = open(cache->path, O_RDONLY | O_CLOEXEC);
    if (text == NULL) {
        cache->rc = ts_error_set(&cache->err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    } else if (fd < 0) {
        cache->rc = ts_error_set(&cache->err, -errno, TS_ERR_IO,
                                 "cannot read the rules file %s: %s", cache->path, strerror(errno));
    } else {
        for (;;) {
            ssize_t n = read(fd, text + len, TS_RULES_FILE_MAX + 1 - len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                cache->rc =
                    ts_error_set(&cache->err, -errno, TS_ERR_IO,
                                 "cannot read the rules file %s: %s", cache->path, strerror(errno));
                break;
            }
            if (n == 0 || (len += (size_t)n) > TS_RULES_FILE_MAX)
                break;
        }
        close(fd);
    }
    if (cache->rc == 0) /* an oversized file is refused by the parser */
        cache->rc = ts_rules_parse(text, len, cache->path, &cache->rules, &cache->err);
    if (cache->rc == 0 && ts_rules_empty(cache->rules)) {
        ts_rules_unref(cache->rules);
        cache->rules = NULL;
    }
    free(text);
}

int tsd_rulescache_get(tsd_rulescache *cache, ts_rules **out, ts_error *err)
{
    ts_file_stamp now;
    int64_t read_ns;
    int rc;

    *out = NULL;
    if (cache->path == NULL)
        return 0;
    rc = stamp_now(cache->path, &now, err);
    if (rc < 0)
        return rc;
    if (!cache->held || !ts_file_stamp_equal(&now, &cache->stamp) ||
        (now.exists &&
         !ts_check_stamp_trusted(now.mtime_ns, now.ctime_ns, cache->read_ns, TS_CHECK_RACY_NS))) {
        read_ns = realtime_ns();
        if (now.exists) {
            load(cache);
        } else {
            ts_rules_unref(cache->rules);
            cache->rules = NULL;
            cache->rc = 0;
        }
        cache->stamp = now;
        cache->read_ns = read_ns;
        cache->held = true;
    }
    if (cache->rc < 0) {
        if (err != NULL)
            *err = cache->err;
        return cache->rc;
    }
    *out = ts_rules_ref(cache->rules);
    return 0;
}
