// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "clock_ns.h"
#include "delta.h"
#include "framing.h"
#include "stream_writer.h"

/*
 * A frame's worst case beyond ZSTD_compressBound (which covers the frame
 * header only for small inputs): the largest frame header
 * (ZSTD_FRAMEHEADERSIZE_MAX, a static-linking-only name) and the checksum.
 */
#define FRAME_EXTRA (18 + 4)

/*
 * A buffer's records in runs of about SEG_BYTES: a flush the disk cannot
 * take whole writes as many leading runs as fit (keep_what_fits()), so a
 * full disk keeps all but the last few KiB of what the tracer had.
 */
#define SEGS 64
#define SEG_BYTES (STREAM_WRITER_BUF / SEGS)

struct seg {
	uint32_t off;		/* first record's offset in buf */
	uint32_t first;		/* records in buf before it */
	uint64_t low_sid;	/* lowest sid among its records */
};

struct stream_zstd {
	ZSTD_CCtx *cctx;
	size_t cap;
	uint8_t *out;
};

struct stream_writer {
	int fd;
	int err;	/* sticky: first write failure */
	bool cut;	/* a failed write could not be undone: nothing more is tried */
	size_t used;
	uint64_t pending;	/* records in buf */
	size_t seg_next;	/* where the next segment starts, at the first record from there */
	unsigned nsegs;		/* segs[kept..nsegs) of buf are not on disk */
	unsigned kept;
	struct seg segs[SEGS];
	uint64_t records;	/* records on disk */
	uint64_t written;	/* bytes on disk */
	struct stream_zstd *z;	/* NULL: raw */
	struct delta *delta;
	uint64_t *longest_write;	/* stream_writer__time_writes(), NULL = not timed */
	uint8_t buf[STREAM_WRITER_BUF];
};

struct stream_zstd *stream_zstd__new(int level)
{
	struct stream_zstd *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->cctx = ZSTD_createCCtx();
	z->cap = ZSTD_compressBound(STREAM_WRITER_BUF) + FRAME_EXTRA;
	z->out = malloc(z->cap);
	if (!z->cctx || !z->out)
		goto fail;
	/* a checksum per frame: the parser tells damage from data */
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1))) {
		stream_zstd__free(z);
		errno = EINVAL;
		return NULL;
	}
	return z;
fail:
	stream_zstd__free(z);
	errno = ENOMEM;
	return NULL;
}

void stream_zstd__free(struct stream_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	free(z->out);
	free(z);
}

/* Writes all of buf; 0 or -errno. */
static int write_all(int fd, const uint8_t *buf, size_t len, size_t *done)
{
	ssize_t n;

	*done = 0;
	while (*done < len) {
		n = write(fd, buf + *done, len - *done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		*done += (size_t)n;
	}
	return 0;
}

/* write_all(), timed when asked: a disk that holds up the writes holds up the rings' reader */
static int timed_write(struct stream_writer *w, const uint8_t *buf, size_t len, size_t *done)
{
	uint64_t t;
	int err;

	if (!w->longest_write)
		return write_all(w->fd, buf, len, done);
	t = clock_ns(CLOCK_MONOTONIC);
	err = write_all(w->fd, buf, len, done);
	t = clock_ns(CLOCK_MONOTONIC) - t;
	if (t > *w->longest_write)
		*w->longest_write = t;
	return err;
}

void stream_writer__time_writes(struct stream_writer *w, uint64_t *longest)
{
	w->longest_write = longest;
}

/* An empty buffer: after a flush that wrote it, or a new writer's */
static void reset(struct stream_writer *w)
{
	w->used = 0;
	w->pending = 0;
	w->seg_next = 0;
	w->nsegs = 0;
	w->kept = 0;
}

struct stream_writer *stream_writer__create(const char *path, struct stream_zstd *z)
{
	struct stream_writer *w = malloc(sizeof(*w));
	size_t done;
	int err;

	if (!w)
		return NULL;
	w->fd = -1;
	w->delta = NULL;
	w->longest_write = NULL;
	if (z) {
		w->delta = delta__new();
		if (!w->delta) {
			err = ENOMEM;
			goto fail;
		}
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		err = errno;
		goto fail;
	}
	w->err = 0;
	w->cut = false;
	reset(w);
	w->records = 0;
	w->written = 0;
	w->z = z;
	if (z) {
		err = -write_all(w->fd, (const uint8_t *)DELTA_STREAM_HEADER, DELTA_STREAM_HEADER_LEN,
				 &done);
		if (err) {
			/* a file without its header would be read as plain zstd */
			unlink(path);
			goto fail;
		}
		w->written = DELTA_STREAM_HEADER_LEN;
	}
	return w;
fail:
	if (w->fd >= 0)
		close(w->fd);
	delta__free(w->delta);
	free(w);
	errno = err;
	return NULL;
}

/*
 * Writes buf[from, to) as it goes to the file (compressed: one whole
 * frame); 0 or -errno. A failure leaves the file as it was (a cut record
 * or frame would be reported as damage by every later reader), or if it
 * cannot, sets w->cut.
 */
static int write_out(struct stream_writer *w, size_t from, size_t to)
{
	const uint8_t *data = w->buf + from;
	size_t len = to - from, done;
	int err;

	if (w->z) {
		len = ZSTD_compress2(w->z->cctx, w->z->out, w->z->cap, data, len);
		if (ZSTD_isError(len))
			return -EIO;
		data = w->z->out;
	}
	err = timed_write(w, data, len, &done);
	if (err) {
		/*
		 * The reader also copes with a cut tail, so the error stays
		 * the write's. The offset goes back too, or a smaller retry
		 * would leave a hole.
		 */
		if (done && (ftruncate(w->fd, (off_t)w->written) ||
			     lseek(w->fd, (off_t)w->written, SEEK_SET) < 0))
			w->cut = true;
		return err;
	}
	w->written += len;
	return 0;
}

/* A write that failed for want of room, which a smaller one may find */
static bool no_room(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EFBIG;
}

static size_t seg_end(const struct stream_writer *w, unsigned i)
{
	return i + 1 < w->nsegs ? w->segs[i + 1].off : w->used;
}

/* The records of segments [i, nsegs) */
static uint64_t records_from(const struct stream_writer *w, unsigned i)
{
	return i < w->nsegs ? w->pending - w->segs[i].first : 0;
}

/*
 * After a write of the whole buffer found no room: writes the longest
 * run of leading segments that fits, halving what it tries, then what
 * fits of the rest (a raw write that failed midway says little of the
 * room left, and a frame's size is only known once compressed). 0 if
 * every segment found room after all, else the write's error.
 */
static int keep_what_fits(struct stream_writer *w, int err)
{
	unsigned n = w->nsegs / 2;
	int e;

	while (n && w->kept < w->nsegs && !w->cut) {
		if (n > w->nsegs - w->kept)
			n = w->nsegs - w->kept;
		e = write_out(w, w->segs[w->kept].off, seg_end(w, w->kept + n - 1));
		if (e && !no_room(e))
			return err;
		if (e) {
			n /= 2;
			continue;
		}
		w->records += records_from(w, w->kept) - records_from(w, w->kept + n);
		w->kept += n;
	}
	if (w->kept < w->nsegs)
		return err;
	reset(w);
	return 0;
}

int stream_writer__flush(struct stream_writer *w)
{
	int err;

	if (w->err)
		return w->err;
	if (!w->used)
		return 0;
	err = write_out(w, 0, w->used);
	if (err && no_room(err) && !w->cut)
		err = keep_what_fits(w, err);
	if (err) {
		w->err = err;
		return err;
	}
	/* (after keep_what_fits() found room for all, nothing is pending) */
	w->records += w->pending;
	reset(w);
	return 0;
}

/* Room for a record of a len-byte message */
static size_t room(const struct stream_writer *w, size_t len)
{
	return w->z ? DELTA_ENCODED_MAX(len) : FRAMING_VARINT_MAX + len;
}

/* Room in the buffer for a record of a len-byte message: 0 or the flush's error */
static int make_room(struct stream_writer *w, size_t len)
{
	if (w->err)
		return w->err;
	if (w->used + room(w, len) > sizeof(w->buf))
		return stream_writer__flush(w);
	return 0;
}

/* Counts a record of the given sid that starts at w->used */
static void count(struct stream_writer *w, uint64_t sid)
{
	struct seg *g;

	/* the buffer is flushed before SEGS * SEG_BYTES: at most SEGS segments */
	if (w->used >= w->seg_next) {
		g = &w->segs[w->nsegs++];
		g->off = (uint32_t)w->used;
		g->first = (uint32_t)w->pending;
		g->low_sid = sid;
		w->seg_next = w->nsegs * SEG_BYTES;
	} else if (sid < w->segs[w->nsegs - 1].low_sid) {
		w->segs[w->nsegs - 1].low_sid = sid;
	}
	w->pending++;
}

int stream_writer__append(struct stream_writer *w, const uint8_t *msg, size_t len, uint64_t sid)
{
	int err = make_room(w, len);

	if (err)
		return err;
	count(w, sid);
	if (w->z) {
		w->used += delta__encode(w->delta, msg, len, w->buf + w->used);
	} else {
		w->used += framing__put_varint(w->buf + w->used, len);
		memcpy(w->buf + w->used, msg, len);
		w->used += len;
	}
	return 0;
}

int stream_writer__append_fields(struct stream_writer *w, const struct delta_split *s,
				 size_t max_len, uint64_t sid)
{
	int err = make_room(w, max_len);

	if (err)
		return err;
	count(w, sid);
	if (w->z) {
		w->used += delta__encode_fields(w->delta, s, w->buf + w->used);
	} else {
		w->used += framing__put_varint(w->buf + w->used, delta__split_len(s));
		w->used += delta__split_msg(s, w->buf + w->used);
	}
	return 0;
}

static uint64_t buffered_bound(const struct stream_writer *w, size_t used)
{
	if (!w->z || !used)
		return used;
	return ZSTD_compressBound(used) + FRAME_EXTRA;
}

uint64_t stream_writer__size_bound(const struct stream_writer *w)
{
	/* after a partial keep, only the segments not written are still to come */
	size_t from = w->kept < w->nsegs ? w->segs[w->kept].off : 0;

	return w->written + buffered_bound(w, w->used - from);
}

uint64_t stream_writer__append_bound(const struct stream_writer *w, size_t len)
{
	size_t r = room(w, len);

	/* a full buffer is flushed first: the record then starts a new frame */
	if (w->used + r > sizeof(w->buf))
		return buffered_bound(w, r);
	return buffered_bound(w, w->used + r) - buffered_bound(w, w->used);
}

uint64_t stream_writer__records_written(const struct stream_writer *w)
{
	return w->records;
}

uint64_t stream_writer__bytes_written(const struct stream_writer *w)
{
	return w->written;
}

uint64_t stream_writer__unwritten(const struct stream_writer *w)
{
	return records_from(w, w->kept);
}

uint64_t stream_writer__unwritten_sid(const struct stream_writer *w)
{
	uint64_t low = UINT64_MAX;
	unsigned i;

	for (i = w->kept; i < w->nsegs; i++)
		if (w->segs[i].low_sid < low)
			low = w->segs[i].low_sid;
	return low;
}

int stream_writer__error(const struct stream_writer *w)
{
	return w->err;
}

int stream_writer__close(struct stream_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = stream_writer__flush(w);
	if (close(w->fd) && !err)
		err = -errno;
	delta__free(w->delta);
	free(w);
	return err;
}
