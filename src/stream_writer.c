// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framing.h"
#include "stream_writer.h"

struct stream_writer {
	int fd;
	int err;	/* sticky: first write failure */
	size_t used;
	uint64_t bytes;		/* appended, written or buffered */
	uint64_t pending;	/* records in buf */
	uint64_t records;	/* records on disk */
	uint64_t written;	/* bytes on disk */
	uint8_t buf[STREAM_WRITER_BUF];
};

struct stream_writer *stream_writer__create(const char *path)
{
	struct stream_writer *w = malloc(sizeof(*w));
	int err;

	if (!w)
		return NULL;
	w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		err = errno;
		free(w);
		errno = err;
		return NULL;
	}
	w->err = 0;
	w->used = 0;
	w->bytes = 0;
	w->pending = 0;
	w->records = 0;
	w->written = 0;
	return w;
}

int stream_writer__flush(struct stream_writer *w)
{
	size_t off = 0;
	ssize_t n;

	if (w->err)
		return w->err;
	while (off < w->used) {
		n = write(w->fd, w->buf + off, w->used - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/*
			 * Keep the file at a record boundary: a partial write
			 * (disk full) would leave half a record that every
			 * later reader reports as damage.
			 */
			w->err = n < 0 ? -errno : -ENOSPC;
			/* best effort: the reader also copes with a cut tail */
			if (off)
				(void)!ftruncate(w->fd, lseek(w->fd, 0, SEEK_CUR) - (off_t)off);
			return w->err;
		}
		off += (size_t)n;
	}
	w->written += w->used;
	w->records += w->pending;
	w->used = 0;
	w->pending = 0;
	return 0;
}

int stream_writer__append(struct stream_writer *w, const uint8_t *msg, size_t len)
{
	size_t hdr;
	int err;

	if (w->err)
		return w->err;
	if (w->used + FRAMING_VARINT_MAX + len > sizeof(w->buf)) {
		err = stream_writer__flush(w);
		if (err)
			return err;
	}
	hdr = framing__put_varint(w->buf + w->used, len);
	memcpy(w->buf + w->used + hdr, msg, len);
	w->used += hdr + len;
	w->bytes += hdr + len;
	w->pending++;
	return 0;
}

uint64_t stream_writer__bytes(const struct stream_writer *w)
{
	return w->bytes;
}

uint64_t stream_writer__records_written(const struct stream_writer *w)
{
	return w->records;
}

uint64_t stream_writer__bytes_written(const struct stream_writer *w)
{
	return w->written;
}

int stream_writer__close(struct stream_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = stream_writer__flush(w);
	if (close(w->fd) && !err)
		err = -errno;
	free(w);
	return err;
}
