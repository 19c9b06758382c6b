/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One per-CPU (or per-queue) trace stream file: a sequence of framed
 * records (see framing.h), either raw or as a series of zstd frames, or
 * delta records (delta.h) in zstd frames, which are turned back into the
 * OCTF messages they were made of. The format is detected from the first
 * bytes (zstd magic 28 b5 2f fd; the delta stream header), not from the
 * file name, which only tells a file named .zst whose data is not zstd
 * (-EILSEQ). Reading is streaming with a bounded buffer.
 */
#ifndef IOTRACE_STREAM_H
#define IOTRACE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stream;

/* Opens path for reading. Returns NULL with errno set on failure. */
struct stream *stream__open(const char *path);

/*
 * A stream for path that could not be opened (err, a negative errno):
 * every read returns err, found at offset 0, as damage there is. NULL
 * with errno set if out of memory.
 */
struct stream *stream__failed(const char *path, int err);

/*
 * Returns the next record's protobuf bytes in *msg / *len (valid until the
 * next call).
 *   1        a record was returned
 *   0        clean end of stream
 *  -EBADMSG  corrupted framing (bad varint, length 0 or above FRAMING_RECORD_MAX,
 *            bad zstd frame or checksum, invalid delta record)
 *  -ENODATA  the stream ends inside a record or zstd frame (truncated tail)
 *  -ENOSTR   the file is not a regular file (a FIFO, a device), not read
 *  -EILSEQ   the file is named .zst, but its data is not zstd (nor empty)
 *  -errno    read error
 * After an error, further calls return the same error.
 */
int stream__next(struct stream *s, const uint8_t **msg, size_t *len);

/*
 * A record as stream__next_rec() gives it: its message msg[0..len) or,
 * from a stream of delta records, its fields (split, and msg NULL), which
 * spares the reader parsing a message rebuilt for it. Valid until the
 * next call.
 */
struct delta_split;
struct stream_rec {
	const uint8_t *msg;
	size_t len;
	const struct delta_split *split;
};

/* stream__next() that gives delta records as their fields: the same records, results, errors */
int stream__next_rec(struct stream *s, struct stream_rec *rec);

/* The message of rec, built from its fields if it has none (stream__next() gives that one) */
void stream__rec_msg(struct stream *s, struct stream_rec *rec);

/*
 * Passes over the records for which skip(msg, len, ctx) is true, in one
 * call instead of one stream__next() each (a split run's upper half
 * passes over the lower half's records). Returns 1 when it stopped at a
 * record, which the next stream__next() returns; else what
 * stream__next() returned (0 at the end, an error), which it returns
 * again.
 */
typedef bool (*stream_skip_fn)(const uint8_t *msg, size_t len, void *ctx);
int stream__skip(struct stream *s, stream_skip_fn skip, void *ctx);

/*
 * Byte offset in the record stream (decompressed offset for zstd files,
 * offset among the delta records for those) of the record last returned,
 * or of the place where the error was found.
 */
uint64_t stream__offset(const struct stream *s);

/*
 * Back to the first record, for a raw file read in place (after a first
 * stream__next()); -ENOTSUP for any other stream, or after an error.
 */
int stream__rewind(struct stream *s);

/*
 * s's whole file mapped read only, its length in *len; NULL if it is not
 * a regular, non-empty file or does not map. The caller unmaps it.
 */
const uint8_t *stream__map_file(const struct stream *s, size_t *len);

/*
 * Has s read its file through map (the whole file, len bytes) if the file
 * is raw: a mapping made once for streams of the same file in several
 * threads (shared_maps.h). s neither gives its pages back nor unmaps it:
 * it must outlive s. Before the first read; a compressed file is read
 * as usual.
 */
void stream__use_map(struct stream *s, const uint8_t *map, size_t len);

/*
 * The bytes of the map lent to s (stream__use_map()) if s reads them in
 * place (a raw file), even after an error; else NULL.
 */
const uint8_t *stream__lent_bytes(const struct stream *s, size_t *len);

/*
 * Goes on at byte off (up to its length) of map, if s reads map in place
 * (lent by stream__use_map(), the file raw), starting s if it has not
 * read yet; else -ENOTSUP and s is as it was (or the error that starting
 * it met). The caller believes a record starts there (sid_seek.h).
 */
int stream__seek(struct stream *s, const uint8_t *map, uint64_t off);

/*
 * Watches for byte off of the record stream: stream__mark_met() tells
 * whether a record started there (or an error or the clean end was found
 * there), once the stream is read up to it or past it; a stream already
 * there (the record it returned last) has met it. To check an offset
 * another reader took from sid_seek.h. One mark at a time.
 *   1   met exactly    0  not read up to it yet    -1  passed over it
 */
void stream__mark(struct stream *s, uint64_t off);
int stream__mark_met(const struct stream *s);

/* Whether s is a zstd file (known once it has been read from) */
bool stream__compressed(const struct stream *s);

const char *stream__path(const struct stream *s);

/* Accepts NULL. */
void stream__free(struct stream *s);

#endif
