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
 * path opened for reading, or NULL with errno set: as open(2) sets it,
 * EISDIR for a directory, ENOSTR for another kind of file.
 */
FILE *regular_file__open(const char *path);

/* strerror(err), but "not a regular file" for ENOSTR; err is positive. */
const char *regular_file__strerror(int err);

#endif
