/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Files read whole by name: a trace's summary and its cgroups' names,
 * the configuration file. A FIFO in such a place would hold the open,
 * and every read after it, until a writer came; a device could be
 * endless. So only a regular file is read.
 */
#ifndef IOTRACE_REGULAR_FILE_H
#define IOTRACE_REGULAR_FILE_H

#include <stdio.h>

/*
 * A trace's files are read by others than who wrote them: root reads a
 * user's trace. A symlink there the user made could lead to a file of
 * root's the user may not read, and the trace's output would print it,
 * or to a device, whose very open can act (a watchdog). So a symlink is
 * followed only if it is the reader's own or root's; another's fails
 * with this errno.
 */
#define REGULAR_FILE_THEIR_LINK ENOLINK

/* open(path, flags), but the symlink rule above; -1 with errno set if not */
int regular_file__open_fd(const char *path, int flags);

/*
 * path opened for reading, or NULL with errno set: as open(2) sets it,
 * EISDIR for a directory, ENOSTR for another kind of file,
 * REGULAR_FILE_THEIR_LINK.
 */
FILE *regular_file__open(const char *path);

/*
 * strerror(err), but "not a regular file" for ENOSTR and what
 * REGULAR_FILE_THEIR_LINK means; err is positive.
 */
const char *regular_file__strerror(int err);

#endif
