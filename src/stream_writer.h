/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes one per-CPU trace stream (octf.trace.<cpu>): framed records
 * (framing.h) gathered in a buffer and written with large write(2)s.
 * The collector flushes every stream at least once a second, so a killed
 * collector loses at most the last second.
 */
#ifndef IOTRACE_STREAM_WRITER_H
#define IOTRACE_STREAM_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define STREAM_WRITER_BUF (1u << 20)

struct stream_writer;

/* Creates path (must not exist), mode 0600. NULL with errno set on failure. */
struct stream_writer *stream_writer__create(const char *path);

/*
 * Appends one framed record. Returns 0 or the -errno of a failed flush
 * (-ENOSPC on a full disk); after a failure the writer keeps failing and
 * what was written before stays intact.
 */
int stream_writer__append(struct stream_writer *w, const uint8_t *msg, size_t len);

int stream_writer__flush(struct stream_writer *w);

/* Bytes appended so far (written or buffered). */
uint64_t stream_writer__bytes(const struct stream_writer *w);

/*
 * Records and bytes that reached the file. After a failed flush, the
 * records of that buffer are not counted: they are not on disk.
 */
uint64_t stream_writer__records_written(const struct stream_writer *w);
uint64_t stream_writer__bytes_written(const struct stream_writer *w);

/* Flushes and closes; accepts NULL. Returns the flush's result. */
int stream_writer__close(struct stream_writer *w);

#endif
