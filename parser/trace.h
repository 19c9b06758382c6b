/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An opened trace directory: its summary path and its streams
 * (octf.trace.<n>, octf.trace.<n>.zst), ordered by <n>.
 */
#ifndef IOTRACE_TRACE_H
#define IOTRACE_TRACE_H

#include <stddef.h>

struct stream;
struct trace;

/*
 * Opens the trace in directory dir. Returns NULL with errno set:
 * ENOENT if dir does not exist, ENOTDIR if it is not a directory,
 * EMEDIUMTYPE if it holds neither octf.summary nor any octf.trace.* file
 * (not a trace), or a stream's open error (trace__open_failed_file()).
 * A stream whose name leads to no file (ELOOP, ENOENT: a symlink loop, a
 * dangling symlink) does not fail it: that stream's reads return the
 * error, as damage at byte 0 (stream__failed()).
 */
struct trace *trace__open(const char *dir);

/*
 * After trace__open() failed in this thread on one of the streams: its
 * file name (octf.trace.3), for the error message; "" otherwise.
 */
const char *trace__open_failed_file(void);

size_t trace__stream_count(const struct trace *t);
struct stream *trace__stream(const struct trace *t, size_t i);
const char *trace__dir(const struct trace *t);

/* Accepts NULL. */
void trace__free(struct trace *t);

#endif
