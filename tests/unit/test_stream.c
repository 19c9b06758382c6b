// SPDX-License-Identifier: BSD-3-Clause
/*
 * Stream files: records read back raw and from zstd frames, offsets,
 * passing over records (stream__skip), mappings lent by the caller and
 * how a mapped file enters the page table,
 * and every kind of damage (truncated tail, bad length, cut zstd) ending in
 * the documented error, never in a hang or a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "delta.h"
#include "framing.h"
#include "stream.h"

static char dir[64];	/* short: paths below it fit PATH_MAX */

/* A record stream built in memory, with where each record starts. */
struct rec_stream {
	uint8_t *b;
	size_t len;
	size_t nrec;
	uint64_t off[16];	/* of the varint */
	size_t pay[16];		/* of the payload */
	size_t rlen[16];
};

static int setup(void **state)
{
	strcpy(dir, "/tmp/iotrace-stream-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* Record i of the test stream: len bytes of a pattern depending on i. */
static void fill_payload(uint8_t *p, size_t len, size_t i)
{
	size_t k;

	for (k = 0; k < len; k++)
		p[k] = (uint8_t)(i * 31 + k * 7);
}

static void add_record(struct rec_stream *rs, size_t len)
{
	uint8_t v[FRAMING_VARINT_MAX];
	size_t n = framing__put_varint(v, len);

	assert_true(rs->nrec < 16);
	rs->b = realloc(rs->b, rs->len + n + len);
	assert_non_null(rs->b);
	rs->off[rs->nrec] = rs->len;
	rs->pay[rs->nrec] = rs->len + n;
	rs->rlen[rs->nrec] = len;
	memcpy(rs->b + rs->len, v, n);
	fill_payload(rs->b + rs->len + n, len, rs->nrec);
	rs->len += n + len;
	rs->nrec++;
}

/*
 * Lengths chosen to cross the reader's buffer edges: one- and two-byte
 * varints, and one record larger than the initial buffer.
 */
static void make_stream(struct rec_stream *rs)
{
	memset(rs, 0, sizeof(*rs));
	add_record(rs, 12);
	add_record(rs, 2);
	add_record(rs, 127);
	add_record(rs, 128);
	add_record(rs, 300 * 1024);
	add_record(rs, 1);
	add_record(rs, 5000);
	add_record(rs, 60);
}

static char *write_file(const char *name, const void *data, size_t len)
{
	static char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* The stream as two zstd frames, split at byte split of the record stream. */
static size_t first_frame_len;

static uint8_t *zstd_two_frames(const uint8_t *b, size_t len, size_t split, size_t *zlen)
{
	size_t cap = ZSTD_compressBound(split) + ZSTD_compressBound(len - split);
	uint8_t *z = malloc(cap);
	size_t a, c;

	assert_non_null(z);
	a = ZSTD_compress(z, cap, b, split, 3);
	assert_false(ZSTD_isError(a));
	c = ZSTD_compress(z + a, cap - a, b + split, len - split, 3);
	assert_false(ZSTD_isError(c));
	*zlen = a + c;
	first_frame_len = a;
	return z;
}

/* Reads the records of s from record k on and checks them against rs, then the end. */
static void expect_rest(struct stream *s, const struct rec_stream *rs, size_t k)
{
	const uint8_t *msg;
	size_t i, len;

	for (i = k; i < rs->nrec; i++) {
		assert_int_equal(stream__next(s, &msg, &len), 1);
		assert_int_equal(len, rs->rlen[i]);
		assert_int_equal(stream__offset(s), rs->off[i]);
		assert_memory_equal(msg, rs->b + rs->pay[i], len);
	}
	assert_int_equal(stream__next(s, &msg, &len), 0);
	assert_int_equal(stream__offset(s), rs->len);
}

/* Reads all records of path and checks them against rs. */
static void expect_records(const char *path, const struct rec_stream *rs)
{
	struct stream *s = stream__open(path);
	const uint8_t *msg;
	size_t len;

	assert_non_null(s);
	assert_string_equal(stream__path(s), path);
	expect_rest(s, rs, 0);
	/* the end stays the end */
	assert_int_equal(stream__next(s, &msg, &len), 0);
	stream__free(s);
}

static void test_raw_records(void **state)
{
	struct rec_stream rs;

	make_stream(&rs);
	expect_records(write_file("octf.trace.0", rs.b, rs.len), &rs);
	free(rs.b);
}

/*
 * Another user's file is read, not mapped: cut short by its owner while
 * mapped, a read past its end would be a SIGBUS. Only root can make a
 * file of another user's; run as another user, the own file's half runs.
 */
static void test_map_owner(void **state)
{
	struct rec_stream rs;
	struct stream *s;
	const uint8_t *m;
	const char *path;
	size_t len;

	make_stream(&rs);
	path = write_file("octf.trace.5", rs.b, rs.len);

	s = stream__open(path);
	assert_non_null(s);
	m = stream__map_file(s, &len);
	assert_non_null(m);
	assert_int_equal(len, rs.len);
	munmap((void *)m, len);
	stream__free(s);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		s = stream__open(path);
		assert_non_null(s);
		assert_null(stream__map_file(s, &len));
		stream__free(s);
		/* and its records read the same */
		expect_records(path, &rs);
	}
	free(rs.b);
}

static void test_empty_file(void **state)
{
	const char *path = write_file("octf.trace.1", NULL, 0);
	struct stream *s = stream__open(path);
	const uint8_t *msg;
	size_t len;

	assert_non_null(s);
	assert_int_equal(stream__next(s, &msg, &len), 0);
	assert_int_equal(stream__offset(s), 0);
	stream__free(s);
}

static void test_open_missing(void **state)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/nope", dir);
	errno = 0;
	assert_null(stream__open(path));
	assert_int_equal(errno, ENOENT);
	stream__free(NULL);
}

/* Reads until an error; checks the count of good records before it. */
static void expect_error(const char *path, size_t good, int err, uint64_t offset)
{
	struct stream *s = stream__open(path);
	const uint8_t *msg;
	size_t i, len;

	assert_non_null(s);
	for (i = 0; i < good; i++)
		assert_int_equal(stream__next(s, &msg, &len), 1);
	assert_int_equal(stream__next(s, &msg, &len), err);
	assert_int_equal(stream__offset(s), offset);
	/* sticky */
	assert_int_equal(stream__next(s, &msg, &len), err);
	assert_int_equal(stream__offset(s), offset);
	stream__free(s);
}

static void test_truncated_tail(void **state)
{
	struct rec_stream rs;

	make_stream(&rs);
	/* cut in the middle of record 6 (5000 bytes) */
	expect_error(write_file("cut", rs.b, rs.off[6] + 100), 6, -ENODATA, rs.off[6]);
	/* cut inside the big record's three-byte varint */
	expect_error(write_file("cut", rs.b, rs.off[4] + 1), 4, -ENODATA, rs.off[4]);
	/* cut right after a varint */
	expect_error(write_file("cut", rs.b, rs.off[3] + 2), 3, -ENODATA, rs.off[3]);
	free(rs.b);
}

static void test_garbage_length(void **state)
{
	uint8_t b[64];
	size_t n = 0;

	/* one good record, then a length above FRAMING_RECORD_MAX */
	b[n++] = 2;
	b[n++] = 0x08;
	b[n++] = 0x01;
	n += framing__put_varint(b + n, FRAMING_RECORD_MAX + 1);
	memset(b + n, 0, 8);
	n += 8;
	expect_error(write_file("bad", b, n), 1, -EBADMSG, 3);

	/* a length that is no varint at all: eleven continuation bytes */
	memset(b, 0xff, 11);
	expect_error(write_file("bad", b, 11), 0, -EBADMSG, 0);

	/*
	 * zeros after a good record, as a crash can leave at a file's end:
	 * length 0, an event with no header, which no writer frames
	 */
	b[0] = 2;
	b[1] = 0x08;
	b[2] = 0x01;
	n = 3;
	memset(b + n, 0, 40);
	expect_error(write_file("bad", b, n + 40), 1, -EBADMSG, 3);
	/* the same in the middle, before a good record */
	b[n + 40] = 2;
	b[n + 41] = 0x08;
	b[n + 42] = 0x01;
	expect_error(write_file("bad", b, n + 43), 1, -EBADMSG, 3);
}

/* A FIFO in a trace file's place is not read (that would wait for a writer for ever) */
static void test_not_regular(void **state)
{
	const uint8_t *msg;
	char path[PATH_MAX];
	struct stream *s;
	size_t len;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	s = stream__open(path);
	assert_non_null(s);
	assert_int_equal(stream__next(s, &msg, &len), -ENOSTR);
	assert_int_equal(stream__offset(s), 0);
	stream__free(s);
	unlink(path);
	s = stream__open("/dev/zero");
	assert_non_null(s);
	assert_int_equal(stream__next(s, &msg, &len), -ENOSTR);
	stream__free(s);
}

static void test_record_max(void **state)
{
	size_t n, len = FRAMING_RECORD_MAX;
	uint8_t *b = calloc(1, len + FRAMING_VARINT_MAX);
	struct stream *s;
	const uint8_t *msg;
	const char *path;

	assert_non_null(b);
	n = framing__put_varint(b, len);
	path = write_file("max", b, n + len);
	s = stream__open(path);
	assert_non_null(s);
	assert_int_equal(stream__next(s, &msg, &len), 1);
	assert_int_equal(len, FRAMING_RECORD_MAX);
	assert_int_equal(stream__next(s, &msg, &len), 0);
	stream__free(s);
	free(b);
}

static void test_zstd_records(void **state)
{
	struct rec_stream rs;
	size_t zlen, split;
	uint8_t *z;

	make_stream(&rs);
	/* frames split between records, then inside one: the record stream is what counts */
	split = rs.off[3];
	z = zstd_two_frames(rs.b, rs.len, split, &zlen);
	expect_records(write_file("octf.trace.2.zst", z, zlen), &rs);
	free(z);
	split = rs.off[4] + 1000;
	z = zstd_two_frames(rs.b, rs.len, split, &zlen);
	expect_records(write_file("octf.trace.2.zst", z, zlen), &rs);
	free(z);
	free(rs.b);
}

/* The format is found from the content, not from the name. */
static void test_zstd_by_magic(void **state)
{
	struct rec_stream rs;
	size_t zlen;
	uint8_t *z;

	make_stream(&rs);
	z = zstd_two_frames(rs.b, rs.len, rs.off[1], &zlen);
	expect_records(write_file("octf.trace.3", z, zlen), &rs);
	free(z);
	free(rs.b);
}

/*
 * A zstd file cut anywhere gives the records before the cut, in order and
 * intact, then -ENODATA (or -EBADMSG); never a hang, never extra records.
 * Only a cut exactly between the frames leaves a valid, shorter file.
 */
static void test_zstd_cut_anywhere(void **state)
{
	struct rec_stream rs;
	size_t zlen, cut;
	uint8_t *z;

	memset(&rs, 0, sizeof(rs));
	for (cut = 0; cut < 12; cut++)
		add_record(&rs, 40 + cut * 13);
	z = zstd_two_frames(rs.b, rs.len, rs.off[5], &zlen);

	for (cut = 1; cut < zlen; cut++) {
		struct stream *s = stream__open(write_file("cut.zst", z, cut));
		const uint8_t *msg;
		size_t got = 0, len;
		int r;

		assert_non_null(s);
		while ((r = stream__next(s, &msg, &len)) == 1) {
			assert_true(got < rs.nrec);
			assert_int_equal(len, rs.rlen[got]);
			assert_memory_equal(msg, rs.b + rs.pay[got], len);
			got++;
		}
		assert_true(got < rs.nrec);
		if (cut == first_frame_len) {
			assert_int_equal(r, 0);
			assert_int_equal(got, 5);
			stream__free(s);
			continue;
		}
		assert_true(r == -ENODATA || r == -EBADMSG);
		if (r == -ENODATA)
			assert_int_equal(stream__offset(s), rs.off[got]);
		stream__free(s);
	}
	free(z);
	free(rs.b);
}

static void test_zstd_garbage(void **state)
{
	const uint8_t magic_only[] = { 0x28, 0xb5, 0x2f, 0xfd };
	uint8_t bad[64];
	struct stream *s;
	const uint8_t *msg;
	size_t len;

	expect_error(write_file("m.zst", magic_only, sizeof(magic_only)), 0, -ENODATA, 0);

	/* the magic, then a frame header no decoder accepts (reserved bit set) */
	memset(bad, 0xff, sizeof(bad));
	memcpy(bad, magic_only, sizeof(magic_only));
	bad[4] = 0x08;
	s = stream__open(write_file("g.zst", bad, sizeof(bad)));
	assert_non_null(s);
	assert_int_equal(stream__next(s, &msg, &len), -EBADMSG);
	stream__free(s);
}

/*
 * A file named .zst whose data is not zstd is said to be so, not read as
 * raw records (which would call it damaged at byte 0), whether read or
 * lent; empty, it is empty; cut inside the magic, cut; raw data under
 * another name is raw.
 */
static void test_zstd_named_not_zstd(void **state)
{
	const uint8_t half_magic[] = { 0x28, 0xb5 };
	struct rec_stream rs;
	struct stream *s;
	const uint8_t *msg;
	const char *path;
	size_t len;

	make_stream(&rs);
	path = write_file("octf.trace.4.zst", rs.b, rs.len);
	expect_error(path, 0, -EILSEQ, 0);
	s = stream__open(path);
	assert_non_null(s);
	stream__use_map(s, rs.b, rs.len);
	assert_null(stream__lent_bytes(s, &len));
	assert_int_equal(stream__next(s, &msg, &len), -EILSEQ);
	assert_int_equal(stream__offset(s), 0);
	assert_false(stream__compressed(s));
	stream__free(s);
	expect_error(write_file("octf.trace.4.zst", "x", 1), 0, -EILSEQ, 0);
	expect_error(write_file("octf.trace.4.zst", half_magic, sizeof(half_magic)), 0,
		     -ENODATA, 0);
	s = stream__open(write_file("octf.trace.4.zst", NULL, 0));
	assert_non_null(s);
	assert_int_equal(stream__next(s, &msg, &len), 0);
	stream__free(s);
	expect_records(write_file("octf.trace.4.zstd", rs.b, rs.len), &rs);
	free(rs.b);
}

/* ---- delta records (what the collector writes with compression) ---- */

/* OCTF messages, their delta records, and where each record starts */
struct delta_stream {
	uint8_t *msgs;
	size_t moff[64];
	uint8_t *enc;
	size_t len;
	uint64_t off[64];
	size_t n;
};

static size_t put_field(uint8_t *b, uint32_t field, uint64_t v)
{
	size_t n = framing__put_varint(b, (uint64_t)field << 3);

	return n + framing__put_varint(b + n, v);
}

/* The version of the delta format make_delta_stream() and delta_file() write */
static unsigned delta_version = DELTA_VERSION;

/*
 * Events as the collector writes them (header, then an io or completion
 * body), one message too large to be anything but verbatim, and enough
 * of them to need the buffer refilled more than once.
 */
static void make_delta_stream(struct delta_stream *ds)
{
	struct delta *d = delta__new_version(delta_version);
	uint8_t body[64], hdr[32];
	size_t i, mlen = 0, cap = 0;

	assert_non_null(d);
	memset(ds, 0, sizeof(*ds));
	ds->n = 40;
	for (i = 0; i < ds->n; i++)
		cap += i == 17 ? 300 * 1024 + 64 : 64;
	ds->msgs = malloc(cap);
	ds->enc = malloc(DELTA_ENCODED_MAX(300 * 1024 + 64) + 40 * DELTA_ENCODED_MAX(64));
	assert_non_null(ds->msgs);
	assert_non_null(ds->enc);
	for (i = 0; i < ds->n; i++) {
		uint8_t *m = ds->msgs + mlen;
		size_t h = 0, b = 0, n = 0;

		h += put_field(hdr + h, 1, 1 + 2 * i);
		h += put_field(hdr + h, 2, 1000000 + 1234 * i);
		if (i % 2 == 0) {
			b += put_field(body + b, 1, 8 * (i * 7919 % 1000 + 1));
			b += put_field(body + b, 2, 8);
			b += put_field(body + b, 9, 0xffff888100000000ull + i % 5 * 0x100);
		} else {
			/* the range of the io before it, mostly */
			b += put_field(body + b, 1, 8 * ((i - (i % 5 == 0)) * 7919 % 1000 + 1));
			b += put_field(body + b, 2, 8);
			b += put_field(body + b, 5, 0xffff888100000000ull + (i - 1) % 5 * 0x100);
		}
		if (i == 17) {
			/* not a valid message: stored verbatim */
			memset(m, 0xee, 300 * 1024);
			n = 300 * 1024;
		} else {
			m[n++] = 0x0a;
			m[n++] = (uint8_t)h;
			memcpy(m + n, hdr, h);
			n += h;
			m[n++] = i % 2 ? 0x2a : 0x12;
			m[n++] = (uint8_t)b;
			memcpy(m + n, body, b);
			n += b;
		}
		ds->moff[i] = mlen;
		mlen += n;
		ds->moff[i + 1] = mlen;
		ds->off[i] = ds->len;
		ds->len += delta__encode(d, m, n, ds->enc + ds->len);
	}
	ds->off[ds->n] = ds->len;
	delta__free(d);
}

/* The header, then the records as two zstd frames split before record split */
static uint8_t *delta_file(const struct delta_stream *ds, size_t split, size_t *flen)
{
	size_t zlen;
	uint8_t *z = zstd_two_frames(ds->enc, ds->len, ds->off[split], &zlen);
	uint8_t *f = malloc(DELTA_STREAM_HEADER_LEN + zlen);

	assert_non_null(f);
	memcpy(f, DELTA_STREAM_HEADER, DELTA_STREAM_HEADER_LEN);
	f[DELTA_STREAM_HEADER_LEN - 1] = (uint8_t)('0' + delta_version);
	memcpy(f + DELTA_STREAM_HEADER_LEN, z, zlen);
	free(z);
	*flen = DELTA_STREAM_HEADER_LEN + zlen;
	return f;
}

/* ds made, in a file (*f, two frames) opened as a stream */
static struct stream *open_delta_stream(struct delta_stream *ds, uint8_t **f)
{
	struct stream *s;
	size_t flen;

	make_delta_stream(ds);
	*f = delta_file(ds, 9, &flen);
	/* detected from the content, whatever the name */
	s = stream__open(write_file("octf.trace.0", *f, flen));
	assert_non_null(s);
	return s;
}

/* The stream gives back the messages, offsets in the decompressed records */
static void test_delta_records(void **state)
{
	struct delta_stream ds;
	const uint8_t *msg;
	struct stream *s;
	size_t i, len;
	uint8_t *f;

	s = open_delta_stream(&ds, &f);
	for (i = 0; i < ds.n; i++) {
		assert_int_equal(stream__next(s, &msg, &len), 1);
		assert_int_equal(len, ds.moff[i + 1] - ds.moff[i]);
		assert_memory_equal(msg, ds.msgs + ds.moff[i], len);
		assert_int_equal(stream__offset(s), ds.off[i]);
	}
	assert_int_equal(stream__next(s, &msg, &len), 0);
	assert_int_equal(stream__offset(s), ds.len);
	assert_int_equal(stream__next(s, &msg, &len), 0);
	stream__free(s);
	free(f);
	free(ds.msgs);
	free(ds.enc);
}

/*
 * The same records as fields (stream__next_rec()), mixed with
 * stream__next(): the messages they make are those written, offsets alike;
 * the verbatim one comes as its message.
 */
static void test_delta_as_fields(void **state)
{
	struct delta_stream ds;
	struct stream_rec rec;
	size_t i, fields = 0;
	struct stream *s;
	uint8_t *f;

	s = open_delta_stream(&ds, &f);
	for (i = 0; i < ds.n; i++) {
		if (i % 7 == 3) {
			assert_int_equal(stream__next(s, &rec.msg, &rec.len), 1);
			rec.split = NULL;
		} else {
			assert_int_equal(stream__next_rec(s, &rec), 1);
		}
		if (rec.split) {
			fields++;
			assert_int_equal(rec.split->sid, 1 + 2 * i);
			assert_null(rec.msg);
			stream__rec_msg(s, &rec);
		}
		if (i == 17)
			assert_null(rec.split);
		assert_int_equal(rec.len, ds.moff[i + 1] - ds.moff[i]);
		assert_memory_equal(rec.msg, ds.msgs + ds.moff[i], rec.len);
		assert_int_equal(stream__offset(s), ds.off[i]);
	}
	/* all but the first (which starts the stream), the verbatim one and the stream__next() ones */
	assert_int_equal(fields, ds.n - 2 - ds.n / 7);
	assert_int_equal(stream__next_rec(s, &rec), 0);
	assert_int_equal(stream__offset(s), ds.len);
	stream__free(s);
	free(f);
	free(ds.msgs);
	free(ds.enc);
}

/* A trace of an older iotrace: test_delta_records() on version 1 records */
static int use_version_1(void **state)
{
	(void)state;
	delta_version = 1;
	return 0;
}

static int use_current_version(void **state)
{
	(void)state;
	delta_version = DELTA_VERSION;
	return 0;
}

/* A stream of a later version of the format is refused, not misread */
static void test_delta_newer_version(void **state)
{
	uint8_t h[DELTA_STREAM_HEADER_LEN];
	const uint8_t *msg;
	struct stream *s;
	size_t len;

	memcpy(h, DELTA_STREAM_HEADER, sizeof(h));
	h[sizeof(h) - 1] = (uint8_t)('1' + DELTA_VERSION);
	s = stream__open(write_file("n.zst", h, sizeof(h)));
	assert_non_null(s);
	assert_int_equal(stream__next(s, &msg, &len), -EPROTONOSUPPORT);
	stream__free(s);
}

/* A stream whose CPU saw nothing: the header alone is a clean, empty stream */
static void test_delta_header_only(void **state)
{
	struct stream *s = stream__open(write_file("h.zst", DELTA_STREAM_HEADER,
						   DELTA_STREAM_HEADER_LEN));
	const uint8_t *msg;
	size_t len;

	assert_non_null(s);
	assert_int_equal(stream__next(s, &msg, &len), 0);
	stream__free(s);
}

/*
 * Cut anywhere (a collector killed in the middle of a write): the messages
 * before the cut, intact, then -ENODATA at the first missing record (or
 * -EBADMSG); a cut between frames or right after the header is a clean end.
 */
static void test_delta_cut_anywhere(void **state)
{
	struct delta_stream ds;
	size_t flen, cut;
	uint8_t *f;

	make_delta_stream(&ds);
	f = delta_file(&ds, 25, &flen);
	for (cut = 1; cut < flen; cut++) {
		struct stream *s = stream__open(write_file("cut.zst", f, cut));
		const uint8_t *msg;
		size_t got = 0, len;
		int r;

		assert_non_null(s);
		while ((r = stream__next(s, &msg, &len)) == 1) {
			assert_true(got < ds.n);
			assert_int_equal(len, ds.moff[got + 1] - ds.moff[got]);
			assert_memory_equal(msg, ds.msgs + ds.moff[got], len);
			got++;
		}
		if (cut == DELTA_STREAM_HEADER_LEN || cut == DELTA_STREAM_HEADER_LEN + first_frame_len) {
			assert_int_equal(r, 0);
			assert_int_equal(got, cut == DELTA_STREAM_HEADER_LEN ? 0 : 25);
		} else {
			assert_true(got < 25 || cut > DELTA_STREAM_HEADER_LEN + first_frame_len);
			assert_true(r == -ENODATA || r == -EBADMSG);
			if (r == -ENODATA && cut > DELTA_STREAM_HEADER_LEN)
				assert_int_equal(stream__offset(s), ds.off[got]);
		}
		stream__free(s);
	}
	free(f);
	free(ds.msgs);
	free(ds.enc);
}

/* Records that are not valid delta records: damage at the record's offset */
static void test_delta_bad_record(void **state)
{
	struct delta_stream ds;
	size_t flen;
	uint8_t *f;

	make_delta_stream(&ds);
	/* record 3 says it is of a type the stream never introduced */
	ds.enc[ds.off[3]] = 0x0f;
	f = delta_file(&ds, 1, &flen);
	expect_error(write_file("bad.zst", f, flen), 3, -EBADMSG, ds.off[3]);
	free(f);
	/* a damaged frame: its checksum fails, the frame before stays */
	ds.enc[ds.off[3]] = 0x01;
	f = delta_file(&ds, 20, &flen);
	f[DELTA_STREAM_HEADER_LEN + first_frame_len + 20] ^= 0x55;
	{
		struct stream *s = stream__open(write_file("bad.zst", f, flen));
		const uint8_t *msg;
		size_t got = 0, len;
		int r;

		assert_non_null(s);
		while ((r = stream__next(s, &msg, &len)) == 1)
			got++;
		assert_int_equal(r, -EBADMSG);
		assert_true(got >= 20 && got < ds.n);
		stream__free(s);
	}
	free(f);
	free(ds.msgs);
	free(ds.enc);
}

/* Another program's skippable frame before zstd frames: plain framed records */
static void test_foreign_skippable(void **state)
{
	static const uint8_t skip[] = { 0x50, 0x2a, 0x4d, 0x18, 0x03, 0, 0, 0, 'a', 'b', 'c' };
	struct rec_stream rs;
	size_t zlen;
	uint8_t *z, *f;

	make_stream(&rs);
	z = zstd_two_frames(rs.b, rs.len, rs.off[2], &zlen);
	f = malloc(sizeof(skip) + zlen);
	assert_non_null(f);
	memcpy(f, skip, sizeof(skip));
	memcpy(f + sizeof(skip), z, zlen);
	expect_records(write_file("s.zst", f, sizeof(skip) + zlen), &rs);
	free(f);
	free(z);
	free(rs.b);
}

/* stream__skip(): passes over the first *ctx records */
static bool skip_first(const uint8_t *msg, size_t len, void *ctx)
{
	size_t *left = ctx;

	(void)msg;
	(void)len;
	if (!*left)
		return false;
	(*left)--;
	return true;
}

/* Skips k records of path, then reads the rest: they are rs's from k on. */
static void expect_after_skip(const char *path, const struct rec_stream *rs, size_t k)
{
	struct stream *s = stream__open(path);
	size_t left = k;

	assert_non_null(s);
	assert_int_equal(stream__skip(s, skip_first, &left), k < rs->nrec ? 1 : 0);
	/* a record held stays held: nothing more is passed over */
	left = 1;
	if (k < rs->nrec)
		assert_int_equal(stream__skip(s, skip_first, &left), 1);
	expect_rest(s, rs, k);
	stream__free(s);
}

static void test_skip(void **state)
{
	struct rec_stream rs;
	struct stream *s;
	const uint8_t *msg;
	size_t k, zlen, len, left;
	uint8_t *z;
	const char *path;

	make_stream(&rs);
	path = write_file("skip", rs.b, rs.len);
	for (k = 0; k <= rs.nrec; k++)
		expect_after_skip(path, &rs, k);
	z = zstd_two_frames(rs.b, rs.len, rs.off[5], &zlen);
	path = write_file("skip.zst", z, zlen);
	for (k = 0; k <= rs.nrec; k++)
		expect_after_skip(path, &rs, k);
	free(z);

	/* damage among the records passed over: the error, then again */
	path = write_file("skip-cut", rs.b, rs.off[6] + 100);
	s = stream__open(path);
	assert_non_null(s);
	left = SIZE_MAX;
	assert_int_equal(stream__skip(s, skip_first, &left), -ENODATA);
	assert_int_equal(stream__offset(s), rs.off[6]);
	assert_int_equal(stream__next(s, &msg, &len), -ENODATA);
	stream__free(s);
	free(rs.b);
}

/*
 * A lent mapping is what the stream reads, it stays the lender's (mapped
 * after the stream is freed), and a compressed file ignores it.
 */
static void test_lent_map(void **state)
{
	struct rec_stream rs, other;
	struct stream *s;
	const uint8_t *msg;
	size_t zlen, len;
	uint8_t *z, *m;
	const char *path;

	make_stream(&rs);
	memset(&other, 0, sizeof(other));
	add_record(&other, 3);
	add_record(&other, 200);
	m = mmap(NULL, rs.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	memcpy(m, rs.b, rs.len);

	/* the file holds other records: those of the lent bytes come out */
	path = write_file("lent", other.b, other.len);
	s = stream__open(path);
	assert_non_null(s);
	stream__use_map(s, m, rs.len);
	expect_rest(s, &rs, 0);
	assert_int_equal(stream__rewind(s), 0);
	expect_rest(s, &rs, 0);
	stream__free(s);
	assert_memory_equal(m, rs.b, rs.len);

	/* cut short: the same error as a file cut there */
	s = stream__open(path);
	assert_non_null(s);
	stream__use_map(s, m, rs.off[6] + 100);
	for (len = 0; len < 6; len++)
		assert_int_equal(stream__next(s, &msg, &zlen), 1);
	assert_int_equal(stream__next(s, &msg, &zlen), -ENODATA);
	assert_int_equal(stream__offset(s), rs.off[6]);
	stream__free(s);

	/* lent after the first read: too late, the file is read */
	s = stream__open(path);
	assert_non_null(s);
	assert_int_equal(stream__next(s, &msg, &len), 1);
	stream__use_map(s, m, rs.len);
	assert_int_equal(stream__rewind(s), 0);
	expect_rest(s, &other, 0);
	stream__free(s);

	/* a zstd file with its own bytes lent: decompressed as usual */
	z = zstd_two_frames(rs.b, rs.len, rs.off[2], &zlen);
	path = write_file("lent.zst", z, zlen);
	s = stream__open(path);
	assert_non_null(s);
	stream__use_map(s, z, zlen);
	expect_rest(s, &rs, 0);
	stream__free(s);
	free(z);
	munmap(m, rs.len);
	free(other.b);
	free(rs.b);
}

/*
 * A stream lent m[0..mlen) and marked at mark: not met through reads
 * records, then (one more read: a record, the end or the damage) after.
 */
static void expect_mark(const uint8_t *m, size_t mlen, const char *path, uint64_t mark,
			size_t reads, int after)
{
	struct stream *s = stream__open(path);
	const uint8_t *msg;
	size_t i, len;

	assert_non_null(s);
	stream__use_map(s, m, mlen);
	stream__mark(s, mark);
	for (i = 0; i < reads; i++) {
		assert_int_equal(stream__mark_met(s), 0);
		assert_int_equal(stream__next(s, &msg, &len), 1);
	}
	assert_int_equal(stream__mark_met(s), 0);
	(void)stream__next(s, &msg, &len);
	assert_int_equal(stream__mark_met(s), after);
	stream__free(s);
}

/*
 * A lent map is where the stream can seek to (and no other), a record
 * or its end; a mark tells whether a record started where it was put.
 */
static void test_seek_and_mark(void **state)
{
	struct rec_stream rs;
	struct stream *s;
	const uint8_t *msg;
	size_t zlen, len;
	uint8_t *z, *m;
	const char *path;

	make_stream(&rs);
	m = mmap(NULL, rs.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	memcpy(m, rs.b, rs.len);
	path = write_file("seek", rs.b, rs.len);

	/* before the first read: the stream starts there */
	s = stream__open(path);
	assert_non_null(s);
	stream__use_map(s, m, rs.len);
	assert_int_equal(stream__seek(s, m, rs.off[5]), 0);
	assert_true(stream__lent_bytes(s, &len) == m);
	assert_int_equal(len, rs.len);
	expect_rest(s, &rs, 5);
	assert_int_equal(stream__seek(s, m, rs.off[2]), 0);
	expect_rest(s, &rs, 2);
	assert_int_equal(stream__seek(s, m, rs.len), 0);
	expect_rest(s, &rs, rs.nrec);
	assert_int_equal(stream__seek(s, m, rs.len + 1), -ENOTSUP);
	/* another map: not what the stream reads */
	assert_int_equal(stream__seek(s, rs.b, rs.off[2]), -ENOTSUP);
	stream__free(s);

	/* not lent: read from the start, in the stream's own mapping */
	s = stream__open(path);
	assert_non_null(s);
	assert_int_equal(stream__seek(s, m, rs.off[5]), -ENOTSUP);
	assert_null(stream__lent_bytes(s, &len));
	expect_rest(s, &rs, 0);
	stream__free(s);

	/* a zstd file lent its bytes: decompressed from the start */
	z = zstd_two_frames(rs.b, rs.len, rs.off[2], &zlen);
	path = write_file("seek.zst", z, zlen);
	s = stream__open(path);
	assert_non_null(s);
	stream__use_map(s, z, zlen);
	assert_int_equal(stream__seek(s, z, 3), -ENOTSUP);
	assert_null(stream__lent_bytes(s, &len));
	expect_rest(s, &rs, 0);
	stream__free(s);
	free(z);

	path = write_file("mark", rs.b, rs.len);
	/* met at record 3, not before */
	expect_mark(m, rs.len, path, rs.off[3], 3, 1);
	/* a byte into record 3: passed over by record 4 */
	expect_mark(m, rs.len, path, rs.off[3] + 1, 4, -1);
	/* at the first record and at the clean end */
	expect_mark(m, rs.len, path, 0, 0, 1);
	expect_mark(m, rs.len, path, rs.len, rs.nrec, 1);
	/* at the damage: the stream ends inside record 6 */
	expect_mark(m, rs.off[6] + 100, path, rs.off[6], 6, 1);
	expect_mark(m, rs.off[6] + 100, path, rs.off[5] + 1, 6, -1);

	/*
	 * a record with a one-byte length (the third: past the first read,
	 * which starts the stream) lacking its last byte: truncated, lent or
	 * mapped
	 */
	assert_true(rs.rlen[2] < 0x80 && rs.pay[2] == rs.off[2] + 1);
	for (len = 0; len < 2; len++) {
		size_t cut = rs.pay[2] + rs.rlen[2] - 1;

		/* the file whole, the lent map cut; then the file cut */
		s = stream__open(write_file("short", rs.b, len ? cut : rs.len));
		assert_non_null(s);
		if (!len)
			stream__use_map(s, m, cut);
		assert_int_equal(stream__next(s, &msg, &zlen), 1);
		assert_int_equal(stream__next(s, &msg, &zlen), 1);
		assert_int_equal(stream__next(s, &msg, &zlen), -ENODATA);
		assert_int_equal(stream__offset(s), rs.off[2]);
		stream__free(s);
	}
	path = write_file("mark", rs.b, rs.len);

	/* a mark where the stream stands: met; behind it: passed over */
	s = stream__open(path);
	assert_non_null(s);
	stream__use_map(s, m, rs.len);
	stream__mark(s, 0);
	assert_int_equal(stream__mark_met(s), 0);
	for (len = 0; len < 3; len++)
		assert_int_equal(stream__next(s, &msg, &zlen), 1);
	assert_int_equal(stream__mark_met(s), 1);
	stream__mark(s, rs.off[2]);
	assert_int_equal(stream__mark_met(s), 1);
	stream__mark(s, rs.off[1]);
	assert_int_equal(stream__mark_met(s), -1);
	/* after a rewind nothing is met yet */
	assert_int_equal(stream__rewind(s), 0);
	stream__mark(s, 0);
	assert_int_equal(stream__mark_met(s), 0);
	assert_int_equal(stream__next(s, &msg, &zlen), 1);
	assert_int_equal(stream__mark_met(s), 1);
	stream__free(s);

	/* a mark after a seek past it: passed over */
	s = stream__open(path);
	assert_non_null(s);
	stream__use_map(s, m, rs.len);
	assert_int_equal(stream__seek(s, m, rs.off[5]), 0);
	stream__mark(s, rs.off[3]);
	assert_int_equal(stream__next(s, &msg, &len), 1);
	assert_int_equal(stream__mark_met(s), -1);
	stream__free(s);

	munmap(m, rs.len);
	free(rs.b);
}

/* Whether the page holding p is in this process's page table (/proc/self/pagemap, bit 63). */
static bool page_mapped(const void *p)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t e = 0;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &e, sizeof(e),
			       (off_t)((uintptr_t)p / (uintptr_t)getpagesize() * sizeof(e))),
			 sizeof(e));
	close(fd);
	return e >> 63;
}

/*
 * Whether a fault maps only its own 64 KiB (fault-around) of a file at
 * path: the premise of test_map_ahead()'s pages not mapped. tmpfs without
 * huge pages (the default) keeps a file in 4 KiB folios.
 */
static bool faults_map_64k(const char *path, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const volatile uint8_t *m;
	bool ok;

	assert_true(fd >= 0);
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	(void)m[0];
	ok = page_mapped((const void *)m) && !page_mapped((const void *)(m + (64 << 10)));
	munmap((void *)m, len);
	close(fd);
	return ok;
}

/*
 * A file read in place enters the page table a run of pages ahead of the
 * reader, but not while the reader is in its first page: a first record
 * is often read by itself.
 */
static void test_map_ahead(void **state)
{
	enum { REC = 100, NREC = 4000, LEN = NREC * (REC + 1) };
	char path[] = "/dev/shm/iotrace-test-stream-XXXXXX";
	uint8_t *b = malloc(LEN);
	const uint8_t *msg, *base;
	struct stream *s;
	size_t i, len;
	bool ok;
	int fd;

	assert_non_null(b);
	for (i = 0; i < NREC; i++) {
		b[i * (REC + 1)] = REC;
		fill_payload(b + i * (REC + 1) + 1, REC, i);
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, LEN), LEN);
	close(fd);
	ok = faults_map_64k(path, LEN);
	s = stream__open(path);
	/* gone, whatever fails below: the stream reads its open file */
	unlink(path);
	if (!ok)
		fail_msg("a page fault maps more than 64 KiB of a tmpfs file here: "
			 "no telling what map_ahead() did");
	assert_non_null(s);
	assert_int_equal(stream__next(s, &msg, &len), 1);
	base = msg - 1;
	assert_true(page_mapped(base));
	assert_false(page_mapped(base + (96 << 10)));

	/* out of the first page: the next 128 KiB at once, no more */
	for (i = 1; (size_t)(msg - base) < (size_t)getpagesize() + REC; i++) {
		assert_int_equal(stream__next(s, &msg, &len), 1);
		assert_memory_equal(msg, b + i * (REC + 1) + 1, REC);
	}
	assert_true(page_mapped(base + (96 << 10)));
	assert_true(page_mapped(base + (128 << 10)));
	assert_false(page_mapped(base + ((128 + 96) << 10)));

	/* and on to the end, the records as written */
	for (; i < NREC; i++) {
		assert_int_equal(stream__next(s, &msg, &len), 1);
		assert_memory_equal(msg, b + i * (REC + 1) + 1, REC);
	}
	assert_int_equal(stream__next(s, &msg, &len), 0);
	stream__free(s);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_records),
		cmocka_unit_test(test_delta_as_fields),
		cmocka_unit_test(test_seek_and_mark),
		cmocka_unit_test(test_map_owner),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_open_missing),
		cmocka_unit_test(test_truncated_tail),
		cmocka_unit_test(test_garbage_length),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_record_max),
		cmocka_unit_test(test_zstd_records),
		cmocka_unit_test(test_zstd_by_magic),
		cmocka_unit_test(test_zstd_cut_anywhere),
		cmocka_unit_test(test_zstd_garbage),
		cmocka_unit_test(test_zstd_named_not_zstd),
		cmocka_unit_test(test_delta_records),
		cmocka_unit_test_setup_teardown(test_delta_records, use_version_1,
						use_current_version),
		cmocka_unit_test(test_delta_newer_version),
		cmocka_unit_test(test_delta_header_only),
		cmocka_unit_test(test_delta_cut_anywhere),
		cmocka_unit_test(test_delta_bad_record),
		cmocka_unit_test(test_foreign_skippable),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_lent_map),
		cmocka_unit_test(test_map_ahead),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
