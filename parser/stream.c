// SPDX-License-Identifier: BSD-3-Clause
/*
 * Reading one stream file. Records are assembled in one buffer (buf)
 * holding a window of the record byte stream: raw files are read straight
 * into it, zstd files are decompressed into it. The buffer starts at
 * STREAM_BUF_SIZE and only grows when a single record does not fit, so it
 * never exceeds FRAMING_VARINT_MAX + FRAMING_RECORD_MAX.
 *
 * Buffers are allocated on the first read, not at open: a trace may have
 * hundreds of streams opened together before any is read.
 *
 * A raw file that can be mapped is read in place instead (read() copies
 * every byte once more, a tenth of a --statistics run). The pages behind
 * the reader are given back now and then, so resident memory stays
 * bounded by the window, not the file, as with the buffer. A file cut
 * shorter while mapped would raise SIGBUS: trace files only grow.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "delta.h"
#include "framing.h"
#include "regular_file.h"
#include "stream.h"

/*
 * One buffer per stream, and a trace has a stream per CPU read in turns:
 * small buffers stay in cache and cost few page faults (128 KiB made
 * reading the 72-stream upstream sample half again as slow).
 */
#define STREAM_BUF_SIZE (32u << 10)

/* a mapped file's pages more than this far behind the reader are dropped */
#define MAP_KEEP (128u << 10)

/*
 * A mapped file's pages are put in the page table this much at a time,
 * ahead of the reader. On an Intel VM, faulting in the upstream sample's
 * 8.7 MB took 2.9-4.7 ms (each page about 1 us to map, 16 to a fault),
 * populating it in runs like this 2.1-3.2 ms; a --statistics run takes
 * 15 ms of CPU.
 */
#define MAP_AHEAD (128u << 10)

/*
 * Until the reader leaves the first page, it faults in alone: a first
 * record is often read by itself, before the reading proper (split.c's
 * first_sid(), which would otherwise map 128 KiB of every stream before
 * the halves can start). madvise() takes whole pages, of the kernel's size.
 */
static size_t page_size(void)
{
	return (size_t)getpagesize();
}

static const uint8_t zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

struct stream {
	char *path;
	int fd;
	bool started;		/* format detected, buffers allocated */
	bool file_eof;
	int err;		/* sticky: once set, every call returns it */

	uint8_t *buf;		/* record bytes buf[pos..end) not yet consumed */
	size_t cap, pos, end;
	uint64_t buf_off;	/* record stream offset of buf[0] */
	uint64_t offset;	/* see stream__offset() */

	/* raw files read in place: buf is the mapping, cap its length */
	bool mapped;
	/* stream__use_map(): the mapping is the caller's, kept whole */
	bool borrowed;
	const uint8_t *lent;
	size_t lent_len;
	size_t dropped;		/* [0, dropped) given back to the kernel */
	size_t ahead;		/* [pos, ahead) in the page table: map_ahead() */

	/* zstd files only */
	ZSTD_DStream *zds;
	uint8_t *in;
	size_t in_cap;
	ZSTD_inBuffer zin;
	size_t zhint;		/* last ZSTD_decompressStream result: 0 = frame complete */
	/* the frames hold delta records (delta.h), not OCTF framing */
	struct delta *delta;
	struct delta_split *split;	/* the last record's fields */
	uint8_t *rebuilt;		/* its message, if asked for (DELTA_MSG_MAX) */

	/* stream__mark(): UINT64_MAX for none; what was found there */
	uint64_t mark;
	int mark_met;
	bool reached;		/* offset is where a record, the end or an error was found */

	/* stream__skip() stopped at this record: the next stream__next() returns it */
	bool held;
	const uint8_t *held_msg;
	size_t held_len;
};

/* A stream of path with no file open yet; NULL with errno set. */
static struct stream *stream_new(const char *path)
{
	struct stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->fd = -1;
	s->mark = UINT64_MAX;
	s->path = strdup(path);
	if (!s->path) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

struct stream *stream__open(const char *path)
{
	struct stream *s = stream_new(path);
	int err;

	if (!s)
		return NULL;
	/* not blocking: a FIFO in the trace's place would wait for a writer for ever */
	s->fd = regular_file__open_fd(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (s->fd < 0) {
		err = errno;
		stream__free(s);
		errno = err;
		return NULL;
	}
	return s;
}

/* Reads up to len bytes; returns bytes read (0 at end of file) or -errno. */
static ssize_t read_full(int fd, uint8_t *dst, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, dst + got, len - got);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/*
 * The regular file fd of st, mapped whole; NULL if not (empty, no address
 * space, another user's). A file cut short while mapped makes a read of
 * a page past its new end a SIGBUS: its owner could crash root's reading
 * of a trace of theirs so. Files of the reader's own or of root's (the
 * tracer's) are read in place; another user's are read (--statistics on
 * the upstream sample: 12.5 ms instead of 7.5).
 */
static const uint8_t *map_fd(int fd, const struct stat *st, size_t *len)
{
	void *m;

	if (!S_ISREG(st->st_mode) || st->st_size <= 0 || (uint64_t)st->st_size > SIZE_MAX ||
	    (st->st_uid != geteuid() && st->st_uid != 0))
		return NULL;
	m = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	*len = (size_t)st->st_size;
	return m;
}

const uint8_t *stream__map_file(const struct stream *s, size_t *len)
{
	struct stat st;

	return fstat(s->fd, &st) ? NULL : map_fd(s->fd, &st, len);
}

/*
 * Reads a raw file (st: its stat) in place if it can be mapped; else (an
 * empty file, no address space) it is read into the buffer.
 */
static void map_raw(struct stream *s, const struct stat *st)
{
	const uint8_t *m;
	size_t len;

	m = map_fd(s->fd, st, &len);
	if (!m)
		return;
	free(s->buf);
	s->buf = (uint8_t *)m;
	s->cap = s->end = len;
	s->pos = 0;
	s->ahead = page_size();
	s->mapped = true;
	s->file_eof = true;
}

/*
 * Whether b[0..n) (1 <= n <= 4) starts the magic of a zstd skippable
 * frame (0x184D2A5?: ours marks delta records); with n 4, whether it is one.
 */
static bool skippable_prefix(const uint8_t *b, size_t n)
{
	return (b[0] & 0xf0) == 0x50 && !memcmp(b + 1, "\x2a\x4d\x18", n - 1);
}

/* The same for a zstd frame's magic or a skippable frame's. */
static bool zstd_magic_prefix(const uint8_t *b, size_t n)
{
	return !memcmp(b, zstd_magic, n) || skippable_prefix(b, n);
}

/* Whether path's name ends in .zst: its writer meant it for zstd */
static bool named_zst(const char *path)
{
	size_t n = strlen(path);

	return n >= 4 && !strcmp(path + n - 4, ".zst");
}

/*
 * Whether a file s whose first bytes are b[0..n) (n < 4: all it has) is
 * raw: data that starts as no zstd frame (nor a skippable one, our
 * delta stream header) does. The data decides, not the name, but for
 * data of another kind in a file named .zst, which its writer meant for
 * zstd: read as records, it would pass for a raw file that is damaged
 * ("truncated record at byte 0"). Then it is -EILSEQ, or -ENODATA if
 * the file ends inside a magic (cut, or still being written). An
 * empty file is empty, whatever its name. Returns 1 for raw, 0 for
 * compressed, or the error.
 */
static int raw_format(const struct stream *s, const uint8_t *b, size_t n)
{
	if (n >= sizeof(zstd_magic) && zstd_magic_prefix(b, sizeof(zstd_magic)))
		return 0;
	if (!n || !named_zst(s->path))
		return 1;
	if (n < sizeof(zstd_magic) && zstd_magic_prefix(b, n))
		return -ENODATA;
	return -EILSEQ;
}

/* Whether the lent map holds a raw file, which is read in place. */
static bool lent_raw(const struct stream *s)
{
	return s->lent && raw_format(s, s->lent,
				     s->lent_len < sizeof(zstd_magic) ? s->lent_len
				     : sizeof(zstd_magic)) == 1;
}

/* Reads a raw file in the caller's mapping; false for a compressed one. */
static bool use_lent(struct stream *s)
{
	if (!lent_raw(s))
		return false;
	s->buf = (uint8_t *)s->lent;
	s->cap = s->end = s->lent_len;
	s->ahead = page_size();
	s->mapped = s->borrowed = true;
	s->file_eof = true;
	s->started = true;
	return true;
}

void stream__use_map(struct stream *s, const uint8_t *map, size_t len)
{
	if (s->started)
		return;
	s->lent = map;
	s->lent_len = len;
}

/* MADV_POPULATE_READ came with Linux 5.14: before, the pages fault in as they did */
static void map_ahead(struct stream *s)
{
	size_t from = s->pos & ~(page_size() - 1);
	size_t len = s->end - from < MAP_AHEAD ? s->end - from : MAP_AHEAD;

	(void)madvise(s->buf + from, len, MADV_POPULATE_READ);
	s->ahead = from + len;
}

/* Gives back the pages well behind pos. */
static void drop_behind(struct stream *s)
{
	size_t upto = (s->pos - MAP_KEEP) & ~(size_t)(MAP_KEEP - 1);

	if (upto > s->dropped) {
		madvise(s->buf + s->dropped, upto - s->dropped, MADV_DONTNEED);
		s->dropped = upto;
	}
}

/*
 * Allocates the record buffer and detects the format from the first bytes;
 * for zstd, those bytes become the decompressor's first input.
 */
static int stream_start(struct stream *s)
{
	struct stat st;
	bool skippable;
	int version;
	ssize_t r;

	if (s->lent && use_lent(s))
		return 0;
	if (fstat(s->fd, &st))
		return -errno;
	/* a directory fails its first read (EISDIR); a FIFO or a device could be endless */
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return -ENOSTR;
	s->cap = STREAM_BUF_SIZE;
	s->buf = malloc(s->cap);
	if (!s->buf)
		return -ENOMEM;
	r = read_full(s->fd, s->buf, sizeof(zstd_magic));
	if (r < 0)
		return (int)r;
	if ((size_t)r < sizeof(zstd_magic))
		s->file_eof = true;
	skippable = (size_t)r == sizeof(zstd_magic) && skippable_prefix(s->buf, (size_t)r);
	if (skippable) {
		ssize_t more = read_full(s->fd, s->buf + r, DELTA_STREAM_HEADER_LEN - (size_t)r);

		if (more < 0)
			return (int)more;
		r += more;
		version = (size_t)r == DELTA_STREAM_HEADER_LEN ? delta__header_version(s->buf) : 0;
		if (version > DELTA_VERSION)
			return -EPROTONOSUPPORT;
		if (version) {
			s->delta = delta__new_version((unsigned)version);
			s->split = malloc(sizeof(*s->split));
			s->rebuilt = malloc(DELTA_MSG_MAX);
			if (!s->delta || !s->split || !s->rebuilt)
				return -ENOMEM;
			/* the frames start after it */
			r = 0;
		}
	}
	if (!skippable) {
		int raw = raw_format(s, s->buf, (size_t)r);

		if (raw < 0)
			return raw;
		if (raw) {
			s->end = (size_t)r;
			s->started = true;
			map_raw(s, &st);
			return 0;
		}
	}

	s->zds = ZSTD_createDStream();
	if (!s->zds)
		return -ENOMEM;
	s->in_cap = ZSTD_DStreamInSize();
	s->in = malloc(s->in_cap);
	if (!s->in)
		return -ENOMEM;
	memcpy(s->in, s->buf, (size_t)r);
	s->zin.src = s->in;
	s->zin.size = (size_t)r;
	s->zin.pos = 0;
	/* inside a frame, unless at the start of the first one */
	s->zhint = r ? 1 : 0;
	s->started = true;
	return 0;
}

/*
 * Appends decompressed bytes to buf[end..cap) (there is room: callers
 * compact first). Returns bytes added, 0 at a clean end (after a complete
 * frame), -ENODATA if the file ends inside a frame, -EBADMSG on bad data.
 */
static ssize_t fill_zstd(struct stream *s)
{
	for (;;) {
		ZSTD_outBuffer out = { s->buf + s->end, s->cap - s->end, 0 };
		size_t ret;

		if (s->zin.pos == s->zin.size && !s->file_eof) {
			ssize_t r = read_full(s->fd, s->in, s->in_cap);

			if (r < 0)
				return r;
			if (r == 0)
				s->file_eof = true;
			s->zin.size = (size_t)r;
			s->zin.pos = 0;
		}
		/* a decoder fed nothing after a complete frame would wait for the next */
		if (s->file_eof && s->zin.pos == s->zin.size && !s->zhint)
			return 0;
		ret = ZSTD_decompressStream(s->zds, &out, &s->zin);
		if (ZSTD_isError(ret))
			return -EBADMSG;
		s->zhint = ret;
		s->end += out.pos;
		if (out.pos)
			return (ssize_t)out.pos;
		/*
		 * No output although there was room: the decoder needs input.
		 * With none left, a complete last frame is a clean end.
		 */
		if (s->file_eof && s->zin.pos == s->zin.size)
			return s->zhint ? -ENODATA : 0;
	}
}

static ssize_t fill(struct stream *s)
{
	ssize_t r;

	if (s->zds)
		return fill_zstd(s);
	if (s->file_eof)
		return 0;
	r = read_full(s->fd, s->buf + s->end, s->cap - s->end);
	if (r < 0)
		return r;
	if (r == 0)
		s->file_eof = true;
	s->end += (size_t)r;
	return r;
}

/* Makes room for need bytes from pos: moves them to the front, grows buf. */
static int make_room(struct stream *s, size_t need)
{
	if (s->pos) {
		memmove(s->buf, s->buf + s->pos, s->end - s->pos);
		s->buf_off += s->pos;
		s->end -= s->pos;
		s->pos = 0;
	}
	if (need > s->cap) {
		uint8_t *nb = realloc(s->buf, need);

		if (!nb)
			return -ENOMEM;
		s->buf = nb;
		s->cap = need;
	}
	return 0;
}

/* Where the record stream is now: a record, an error or the end starts at off. */
static inline void at_offset(struct stream *s, uint64_t off)
{
	s->offset = off;
	s->reached = true;
	if (off >= s->mark) {
		s->mark_met = off == s->mark ? 1 : -1;
		s->mark = UINT64_MAX;
	}
}

static int fail(struct stream *s, int err)
{
	s->err = err;
	at_offset(s, s->buf_off + s->pos);
	return err;
}

struct stream *stream__failed(const char *path, int err)
{
	struct stream *s = stream_new(path);

	if (s)
		fail(s, err);
	return s;
}

/*
 * stream__next_rec() for delta records: the decoder gives each as its
 * fields (or, stored verbatim, as its message). It takes a record only
 * when it has all of it, so a cut record is asked again with more bytes.
 */
static int next_delta(struct stream *s, struct stream_rec *rec)
{
	for (;;) {
		size_t avail = s->end - s->pos, used, need;
		ssize_t r;
		int err;

		err = delta__decode_split(s->delta, s->buf + s->pos, avail, s->split, &rec->msg,
					  &rec->len, &used);
		if (err < 0)
			return fail(s, err);
		if (err > 0) {
			rec->split = NULL;
			if (err == DELTA_FIELDS) {
				rec->split = s->split;
				rec->msg = NULL;
				rec->len = 0;
			}
			at_offset(s, s->buf_off + s->pos);
			s->pos += used;
			return 1;
		}
		/* more bytes; a full buffer doubles (the decoder bounds records) */
		need = avail < s->cap ? avail + 1 : s->cap * 2;
		if (need > DELTA_RECORD_MAX)
			need = DELTA_RECORD_MAX;
		err = make_room(s, need);
		if (err)
			return fail(s, err);
		r = fill(s);
		if (r < 0)
			return fail(s, (int)r);
		if (r == 0) {
			if (s->end == s->pos) {
				at_offset(s, s->buf_off + s->pos);
				return 0;
			}
			return fail(s, -ENODATA);
		}
	}
}

void stream__rec_msg(struct stream *s, struct stream_rec *rec)
{
	if (rec->split) {
		rec->len = delta__split_msg(rec->split, s->rebuilt);
		rec->msg = s->rebuilt;
	}
}

static inline int next_record(struct stream *s, const uint8_t **msg, size_t *len)
{
	int err;

	if (s->err)
		return s->err;
	if (!s->started) {
		err = stream_start(s);
		if (err)
			return fail(s, err);
	}
	if (s->delta) {
		struct stream_rec rec;

		err = next_delta(s, &rec);
		if (err == 1) {
			stream__rec_msg(s, &rec);
			*msg = rec.msg;
			*len = rec.len;
		}
		return err;
	}

	for (;;) {
		size_t avail, used = 0, need;
		uint64_t rlen = 0;
		ssize_t r;

		if (s->mapped && s->pos < s->end && s->pos >= s->ahead)
			map_ahead(s);
		avail = s->end - s->pos;

		/* most records are shorter than 128 bytes: a one-byte length, no call */
		if (avail && s->buf[s->pos] < 0x80) {
			rlen = s->buf[s->pos];
			used = 1;
			err = 1;
		} else {
			err = framing__get_varint(s->buf + s->pos, avail, &rlen, &used);
		}
		if (err < 0)
			return fail(s, err);
		if (err == 1) {
			/*
			 * no writer frames an empty event (it has no header);
			 * zeros are what a crash can leave of a file's end
			 */
			if (!rlen || rlen > FRAMING_RECORD_MAX)
				return fail(s, -EBADMSG);
			need = used + (size_t)rlen;
			if (avail >= need) {
				*msg = s->buf + s->pos + used;
				*len = (size_t)rlen;
				at_offset(s, s->buf_off + s->pos);
				s->pos += need;
				if (s->mapped && !s->borrowed && s->pos - s->dropped >= 2 * MAP_KEEP)
					drop_behind(s);
				return 1;
			}
		} else {
			/* varint incomplete: FRAMING_VARINT_MAX bytes always decide it */
			need = FRAMING_VARINT_MAX;
		}
		/* the whole file is at hand: what is missing is not there */
		if (s->mapped) {
			if (!avail) {
				at_offset(s, s->buf_off + s->pos);
				return 0;
			}
			return fail(s, -ENODATA);
		}

		err = make_room(s, need);
		if (err)
			return fail(s, err);
		r = fill(s);
		if (r < 0)
			return fail(s, (int)r);
		if (r == 0) {
			if (s->end == s->pos) {
				at_offset(s, s->buf_off + s->pos);
				return 0;
			}
			return fail(s, -ENODATA);
		}
	}
}

int stream__next(struct stream *s, const uint8_t **msg, size_t *len)
{
	if (s->held) {
		s->held = false;
		*msg = s->held_msg;
		*len = s->held_len;
		return 1;
	}
	/*
	 * A file read in place whose next record is there whole, its length
	 * one byte (most records): taken here, without a call (a twentieth of
	 * a split run's instructions). The offset is the position: buf is the
	 * whole file.
	 */
	if (s->mapped && !s->err && s->pos < s->end) {
		size_t pos = s->pos, rlen;

		if (pos >= s->ahead)
			map_ahead(s);
		rlen = s->buf[pos];

		if (rlen && rlen < 0x80 && rlen < s->end - pos) {
			*msg = s->buf + pos + 1;
			*len = rlen;
			at_offset(s, pos);
			s->pos = pos + 1 + rlen;
			if (!s->borrowed && s->pos - s->dropped >= 2 * MAP_KEEP)
				drop_behind(s);
			return 1;
		}
	}
	return next_record(s, msg, len);
}

int stream__next_rec(struct stream *s, struct stream_rec *rec)
{
	/* held records are messages, and the first record starts the stream */
	if (s->delta && !s->held && !s->err)
		return next_delta(s, rec);
	rec->split = NULL;
	return stream__next(s, &rec->msg, &rec->len);
}

int stream__skip(struct stream *s, stream_skip_fn skip, void *ctx)
{
	const uint8_t *msg;
	size_t len;
	int ret;

	if (s->held)
		return 1;
	while ((ret = next_record(s, &msg, &len)) == 1) {
		if (!skip(msg, len, ctx)) {
			/* still valid: nothing moves the buffer before the next call */
			s->held = true;
			s->held_msg = msg;
			s->held_len = len;
			return 1;
		}
	}
	return ret;
}

int stream__rewind(struct stream *s)
{
	if (!s->mapped || s->err)
		return -ENOTSUP;
	s->held = false;
	s->pos = 0;
	s->ahead = 0;
	s->offset = 0;
	s->reached = false;
	return 0;
}

const uint8_t *stream__lent_bytes(const struct stream *s, size_t *len)
{
	if (!(s->started ? s->borrowed : lent_raw(s)))
		return NULL;
	*len = s->lent_len;
	return s->lent;
}

int stream__seek(struct stream *s, const uint8_t *map, uint64_t off)
{
	int err;

	if (!s->started && !s->err) {
		err = stream_start(s);
		if (err)
			return fail(s, err);
	}
	if (!s->borrowed || s->buf != map || s->err || off > s->end)
		return s->err ? s->err : -ENOTSUP;
	s->held = false;
	s->pos = (size_t)off;
	s->ahead = 0;
	s->offset = off;
	s->reached = false;
	return 0;
}

void stream__mark(struct stream *s, uint64_t off)
{
	s->mark = UINT64_MAX;
	s->mark_met = 0;
	if (s->reached && s->offset >= off)
		s->mark_met = s->offset == off ? 1 : -1;
	else
		s->mark = off;
}

int stream__mark_met(const struct stream *s)
{
	return s->mark_met;
}

uint64_t stream__offset(const struct stream *s)
{
	return s->offset;
}

bool stream__compressed(const struct stream *s)
{
	return s->zds != NULL;
}

const char *stream__path(const struct stream *s)
{
	return s->path;
}

void stream__free(struct stream *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	ZSTD_freeDStream(s->zds);
	delta__free(s->delta);
	free(s->split);
	free(s->rebuilt);
	free(s->in);
	if (s->mapped && !s->borrowed)
		munmap(s->buf, s->cap);
	else if (!s->borrowed)
		free(s->buf);
	free(s->path);
	free(s);
}
