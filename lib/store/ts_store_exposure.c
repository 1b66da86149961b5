/*
 * ts_store_exposure — whether other users can write a store's directory
 * (see ts_store.h). A directory another user can write lets that user plant
 * or replace snapshots (a baseline that passes a malicious call), whatever
 * modes our own files have; the daemon logs it and `tsctl status` shows it
 * (docs/security.md).
 */
#include "lib/store/ts_store.h"
#include "ts_store_internal.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* True when group gid is the private group of user uid: named like the
 * user, with no other member listed (Debian's user private groups). */
static bool private_group(gid_t gid, uid_t uid)
{
    struct group gr;
    struct group *g = NULL;
    struct passwd pw;
    struct passwd *p = NULL;
    char gbuf[4096];
    char pbuf[1024];

    if (getgrgid_r(gid, &gr, gbuf, sizeof(gbuf), &g) != 0 || g == NULL)
        return false;
    if (getpwuid_r(uid, &pw, pbuf, sizeof(pbuf), &p) != 0 || p == NULL)
        return false;
    if (strcmp(g->gr_name, p->pw_name) != 0)
        return false;
    for (char **m = g->gr_mem; m != NULL && *m != NULL; m++)
        if (strcmp(*m, p->pw_name) != 0)
            return false;
    return true;
}

static void user_name(uid_t uid, char *out, size_t outsz)
{
    struct passwd pw;
    struct passwd *p = NULL;
    char buf[1024];

    if (getpwuid_r(uid, &pw, buf, sizeof(buf), &p) == 0 && p != NULL)
        snprintf(out, outsz, "uid %lu (%s)", (unsigned long)uid, p->pw_name);
    else
        snprintf(out, outsz, "uid %lu", (unsigned long)uid);
}

int ts_store_exposure_of(const char *dir, const struct stat *st, char *why, size_t whysz)
{
    char owner[160];
    unsigned mode = (unsigned)(st->st_mode & 07777);

    if (st->st_uid != geteuid() && st->st_uid != 0) {
        user_name(st->st_uid, owner, sizeof(owner));
        snprintf(why, whysz, "%s is owned by %s (mode %04o)", dir, owner, mode);
        return 1;
    }
    if ((st->st_mode & S_IWOTH) != 0) {
        snprintf(why, whysz, "%s is writable by every user (mode %04o)", dir, mode);
        return 1;
    }
    if ((st->st_mode & S_IWGRP) != 0 && !private_group(st->st_gid, st->st_uid)) {
        struct group gr;
        struct group *g = NULL;
        char buf[4096];

        if (getgrgid_r(st->st_gid, &gr, buf, sizeof(buf), &g) == 0 && g != NULL)
            snprintf(why, whysz, "%s is writable by the group %s (mode %04o)", dir, g->gr_name,
                     mode);
        else
            snprintf(why, whysz, "%s is writable by the group %lu (mode %04o)", dir,
                     (unsigned long)st->st_gid, mode);
        return 1;
    }
    return 0;
}

int ts_store_exposure(ts_store *store, char *why, size_t whysz, ts_error *err)
{
    char parent[PATH_MAX];
    const char *root = ts_store_root(store);
    const char *slash = strrchr(root, '/');
    struct stat st;
    int fd = -1;
    int rc = ts_store__dir(store, false, &fd, err);

    if (rc != 0)
        return rc > 0 ? 0 : rc; /* no root yet: nothing to expose */
    if (fstat(fd, &st) < 0) {
        rc = ts_store__sys_error(err, -errno, root, "cannot stat the snapshot root");
        ts_store__dir_release(store, fd);
        return rc;
    }
    ts_store__dir_release(store, fd);
    if (ts_store_exposure_of(root, &st, why, whysz) == 1)
        return 1;
    /* <project>/.toolscore/snapshots: whoever can write .toolscore can
     * swap the whole snapshot directory */
    if (slash != NULL && slash > root && (size_t)(slash - root) < sizeof(parent)) {
        memcpy(parent, root, (size_t)(slash - root));
        parent[slash - root] = '\0';
        slash = strrchr(parent, '/');
        if (slash != NULL && strcmp(slash + 1, ".toolscore") == 0 && stat(parent, &st) == 0 &&
            ts_store_exposure_of(parent, &st, why, whysz) == 1)
            return 1;
    }
    return 0;
}
