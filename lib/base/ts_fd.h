/*
 * ts_fd — writing to a file descriptor whole: the one write loop the
 * store's temp files, the state directory's files and the daemon's run
 * records share (a short write continues, EINTR retries).
 */
#ifndef TS_FD_H
#define TS_FD_H

#include <stddef.h>

/*
 * write(2) all of data[0..len) to fd, at its offset (at the end with
 * O_APPEND). 0, or -errno of the write that failed (part may be written).
 */
int ts_fd_write_all(int fd, const void *data, size_t len);

#endif
