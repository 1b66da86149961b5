/*
 * ts_fd — writing to a file descriptor whole (see ts_base.h).
 */
#include "lib/base/ts_base.h"

#include <errno.h>
#include <unistd.h>

int ts_fd_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;

    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}
