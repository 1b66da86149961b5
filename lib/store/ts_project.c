/*
 * ts_project — the default snapshot root found from the start directory
 * (see ts_store.h).
 */
#include "lib/store/ts_store.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- other stores ------------------------------------------------------ */

static int add_store(ts_project_stores *out, size_t max, const char *path, ts_error *err)
{
    char **grown;

    for (size_t i = 0; i < out->n; i++) {
        if (strcmp(out->paths[i], path) == 0)
            return 0;
    }
    if (out->n >= max) {
        out->more = true;
        return 0;
    }
    grown = realloc(out->paths, (out->n + 1) * sizeof(*grown));
    if (grown == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    out->paths = grown;
    out->paths[out->n] = strdup(path);
    if (out->paths[out->n] == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    out->n++;
    return 0;
}

/* Whether dir/rel is a directory (not through a link at its end). */
static bool is_dir(const char *dir, const char *rel)
{
    char path[PATH_MAX];
    struct stat st;

    return join(dir, rel, path, sizeof(path)) && lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static size_t depth_of(const char *path)
{
    size_t n = 0;

    for (; *path != '\0'; path++)
        n += *path == '/';
    return n;
}

/* Nearest first (fewest components), then by name: the same order whatever
 * order readdir gave. */
static int nearest_first(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t dx = depth_of(x), dy = depth_of(y);

    return dx != dy ? (dx < dy ? -1 : 1) : strcmp(x, y);
}

/* A directory of the breadth-first walk, and how deep it is. */
typedef struct walk_dir {
    char *path;
    int depth;
} walk_dir;

int ts_project_stores_below(const char *dir, size_t max, ts_project_stores *out, ts_error *err)
{
    walk_dir *queue = NULL;
    size_t head = 0, tail = 0, cap = 0;
    size_t visited = 0;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    queue = malloc(sizeof(*queue));
    if (queue == NULL || (queue[0].path = strdup(dir)) == NULL) {
        free(queue);
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    }
    queue[0].depth = 0;
    cap = tail = 1;
    while (rc == 0 && head < tail) {
        walk_dir d = queue[head++];
        DIR *h;
        struct dirent *e;

        if (d.depth > 0 && is_dir(d.path, TS_PROJECT_DIR)) {
            char root[PATH_MAX];

            if (join(d.path, TS_PROJECT_DIR, root, sizeof(root)))
                rc = add_store(out, max, root, err);
        }
        h = rc == 0 && d.depth < TS_PROJECT_SEARCH_DEPTH ? opendir(d.path) : NULL;
        while (h != NULL && rc == 0 && (e = readdir(h)) != NULL) {
            char child[PATH_MAX];

            if (e->d_name[0] == '.' || strcmp(e->d_name, "node_modules") == 0)
                continue;
            if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
                continue; /* files, and symbolic links never followed */
            if (!join(d.path, e->d_name, child, sizeof(child)) || !is_dir(d.path, e->d_name) ||
                exists(child, ".git"))
                continue; /* too long, not a directory, another repository */
            if (++visited > TS_PROJECT_SEARCH_DIRS) {
                out->more = true;
                break;
            }
            if (tail == cap) {
                walk_dir *grown = realloc(queue, 2 * cap * sizeof(*grown));

                if (grown == NULL) {
                    rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
                    break;
                }
                queue = grown;
                cap *= 2;
            }
            queue[tail].path = strdup(child);
            queue[tail].depth = d.depth + 1;
            if (queue[tail].path == NULL)
                rc = ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
            else
                tail++;
        }
        if (h != NULL)
            closedir(h);
        free(d.path);
    }
    while (head < tail)
        free(queue[head++].path);
    free(queue);
    if (rc < 0)
        ts_project_stores_free(out);
    else if (out->n > 1)
        qsort(out->paths, out->n, sizeof(*out->paths), nearest_first);
    return rc;
}

int ts_project_other_stores(const char *root, size_t max, ts_project_stores *out, ts_error *err)
{
    size_t len = strlen(root), tail = strlen("/" TS_PROJECT_DIR);
    char project[PATH_MAX], dir[PATH_MAX], repo[PATH_MAX];
    ts_project_stores below = {0};
    bool in_repo = false;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (root[0] != '/' || len <= tail || len - tail >= sizeof(project) ||
        strcmp(root + len - tail, "/" TS_PROJECT_DIR) != 0)
        return 0;
    memcpy(project, root, len - tail);
    project[len - tail] = '\0';
    if (project[0] == '\0')
        snprintf(project, sizeof(project), "/");
    /* the repository: the first directory from the project up holding .git */
    snprintf(dir, sizeof(dir), "%s", project);
    for (;;) {
        if (exists(dir, ".git")) {
            in_repo = true;
            break;
        }
        if (strcmp(dir, "/") == 0)
            break;
        parent(dir);
    }
    if (!in_repo)
        return 0;
    snprintf(repo, sizeof(repo), "%s", dir);
    /* above: from the project's parent up to the repository root */
    snprintf(dir, sizeof(dir), "%s", project);
    while (rc == 0 && strcmp(dir, repo) != 0) {
        char other[PATH_MAX];

        parent(dir);
        if (is_dir(dir, TS_PROJECT_DIR) && join(dir, TS_PROJECT_DIR, other, sizeof(other)))
            rc = add_store(out, max, other, err);
    }
    /* below the project */
    if (rc == 0)
        rc = ts_project_stores_below(project, max, &below, err);
    for (size_t i = 0; rc == 0 && i < below.n; i++)
        rc = add_store(out, max, below.paths[i], err);
    if (rc == 0 && below.more)
        out->more = true;
    ts_project_stores_free(&below);
    if (rc < 0)
        ts_project_stores_free(out);
    return rc;
}

void ts_project_stores_free(ts_project_stores *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->paths[i]);
    free(s->paths);
    memset(s, 0, sizeof(*s));
}
