/*
 * ts_project — the default snapshot root found from the start directory
 * (see ts_store.h).
 */
#include "lib/store/ts_store.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dir + "/" + rel into out (dir "/" gives "/rel"); false when too long. */
static bool join(const char *dir, const char *rel, char *out, size_t outsz)
{
    int n = strcmp(dir, "/") == 0 ? snprintf(out, outsz, "/%s", rel)
                                  : snprintf(out, outsz, "%s/%s", dir, rel);

    return n >= 0 && (size_t)n < outsz;
}

/* Whether dir/rel exists (anything: a file there is chosen and refused
 * later with its own message, never silently passed over). */
static bool exists(const char *dir, const char *rel)
{
    char path[PATH_MAX];
    struct stat st;

    return join(dir, rel, path, sizeof(path)) && lstat(path, &st) == 0;
}

/* Cut dir to its parent in place ("/a/b" -> "/a", "/a" -> "/"). */
static void parent(char *dir)
{
    char *slash = strrchr(dir, '/');

    if (slash == dir)
        dir[1] = '\0';
    else if (slash != NULL)
        *slash = '\0';
}

/* start without trailing slashes, as the walk's first directory. */
static int start_dir(const char *start, char *out, size_t outsz, ts_error *err)
{
    size_t len;

    if (start == NULL) {
        if (getcwd(out, outsz) == NULL)
            return ts_error_set(err, -errno, errno == ERANGE ? TS_ERR_TOO_LARGE : TS_ERR_IO,
                                "cannot read the current directory: %s", strerror(errno));
        return 0;
    }
    if (start[0] != '/')
        return ts_error_set(err, -EINVAL, TS_ERR_INVALID_ARGUMENT,
                            "the start directory must be an absolute path, got '%s'", start);
    len = strlen(start);
    while (len > 1 && start[len - 1] == '/')
        len--;
    if (len >= outsz)
        return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE, "start directory path too long");
    memcpy(out, start, len);
    out[len] = '\0';
    return 0;
}

int ts_project_find_root(const char *start, ts_project_root *out, ts_error *err)
{
    char dir[PATH_MAX];
    const char *base = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    rc = start_dir(start, out->start, sizeof(out->start), err);
    if (rc < 0)
        return rc;
    snprintf(dir, sizeof(dir), "%s", out->start);
    for (;;) {
        if (exists(dir, TS_PROJECT_DIR)) {
            out->reason = TS_PROJECT_FOUND;
            base = dir;
            break;
        }
        if (exists(dir, ".git")) {
            out->reason = TS_PROJECT_REPOSITORY;
            base = dir;
            break;
        }
        if (strcmp(dir, "/") == 0)
            break;
        parent(dir);
    }
    if (base == NULL) {
        out->reason = TS_PROJECT_START;
        base = out->start;
    }
    snprintf(out->base, sizeof(out->base), "%s", base);
    if (!join(out->base, TS_PROJECT_DIR, out->root, sizeof(out->root)))
        return ts_error_set(err, -E2BIG, TS_ERR_TOO_LARGE, "snapshot root path too long");
    return 0;
}

const char *ts_project_describe(const ts_project_root *r, char *out, size_t outsz)
{
    switch (r->reason) {
    case TS_PROJECT_FOUND:
        if (strcmp(r->base, r->start) == 0)
            snprintf(out, outsz, "found in the current directory");
        else
            snprintf(out, outsz, "found walking up from %s", r->start);
        break;
    case TS_PROJECT_REPOSITORY:
        snprintf(out, outsz, "none found up to the repository root %s, which holds .git", r->base);
        break;
    case TS_PROJECT_START:
    default:
        snprintf(out, outsz, "none found and not in a repository: under the current directory");
        break;
    }
    return out;
}
