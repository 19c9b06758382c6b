/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes one per-CPU trace stream, in one of two forms:
 *
 *  - raw (octf.trace.<cpu>): OCTF's framed records (framing.h), what
 *    Open-CAS writes and reads;
 *  - compressed (octf.trace.<cpu>.zst): delta records (delta.h) after the
 *    delta stream header, one zstd frame per flush.
 *
 * Records are gathered in a buffer and written with large write(2)s. The
 * collector flushes every stream at least once a second, so a killed
 * collector loses at most the last second. A compressed stream ends every
 * frame at each flush: the file always holds whole frames, whatever stops
 * the collector, except a kill in the middle of a write(2).
 */
#ifndef IOTRACE_STREAM_WRITER_H
#define IOTRACE_STREAM_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define STREAM_WRITER_BUF (1u << 20)

/* zstd levels --compress-level accepts (higher ones need --ultra memory) */
#define STREAM_ZSTD_LEVEL_MIN 1
#define STREAM_ZSTD_LEVEL_MAX 19
#define STREAM_ZSTD_LEVEL_DEFAULT 1

struct stream_writer;

/*
 * The compressor that compressed streams share: the collector flushes one
 * stream at a time, so one zstd context and output buffer serve them all.
 * NULL (errno set) on failure. Must outlive its streams.
 */
struct stream_zstd;
struct stream_zstd *stream_zstd__new(int level);
void stream_zstd__free(struct stream_zstd *z);

/*
 * Creates path (must not exist), mode 0600: a raw stream if z is NULL,
 * else a compressed one (its header is written at once). NULL with errno
 * set on failure.
 */
struct stream_writer *stream_writer__create(const char *path, struct stream_zstd *z);

/*
 * Appends one OCTF message, the event of the given sid. Returns 0 or the
 * -errno of a failed flush (-ENOSPC on a full disk); after a failure the
 * writer keeps failing and what was written before stays intact. A flush
 * that finds too little room (full disk, quota, file size limit) first
 * writes what fits of its buffer, in whole runs of records of about
 * 16 KiB (compressed: each run or group of runs a frame of its own).
 */
int stream_writer__append(struct stream_writer *w, const uint8_t *msg, size_t len, uint64_t sid);

struct delta_split;

/*
 * stream_writer__append() of the message whose fields s holds (delta.h),
 * of at most max_len bytes (at most DELTA_MSG_MAX): a compressed stream
 * codes the fields without the message.
 */
int stream_writer__append_fields(struct stream_writer *w, const struct delta_split *s,
				 size_t max_len, uint64_t sid);

int stream_writer__flush(struct stream_writer *w);

/*
 * The most the file can hold once what is buffered is flushed: its size
 * on disk plus the worst case of what is buffered and not yet written
 * (for a raw stream, exactly the bytes appended).
 */
uint64_t stream_writer__size_bound(const struct stream_writer *w);

/* The most stream_writer__size_bound can grow by appending a len-byte message. */
uint64_t stream_writer__append_bound(const struct stream_writer *w, size_t len);

/*
 * Records and bytes that reached the file. After a failed flush, the
 * records of that buffer it could not write are not counted: they are
 * not on disk.
 */
uint64_t stream_writer__records_written(const struct stream_writer *w);
uint64_t stream_writer__bytes_written(const struct stream_writer *w);

/*
 * Records appended that are not in the file: after a failed flush
 * (error: its -errno, else 0) they never reach it. _sid: the lowest sid
 * among them (UINT64_MAX: none), where the file stops holding every
 * event the stream was given.
 */
uint64_t stream_writer__unwritten(const struct stream_writer *w);
uint64_t stream_writer__unwritten_sid(const struct stream_writer *w);
int stream_writer__error(const struct stream_writer *w);

/* Flushes and closes; accepts NULL. Returns the flush's result. */
int stream_writer__close(struct stream_writer *w);

/* From now on, *longest is at least the time in ns each write(2) of a flush took */
void stream_writer__time_writes(struct stream_writer *w, uint64_t *longest);

#endif
