// SPDX-License-Identifier: BSD-3-Clause
/*
 * The windowed sid merge (reader.c): order across streams and windows,
 * inversions within and beyond the window, equal sids, gaps and sids near
 * UINT64_MAX, damage, type filtering, and the same sequence with one
 * thread or two. A helper thread reads ahead only for compressed streams,
 * so the tests of two threads write their streams as zstd frames.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <dirent.h>
#include <zstd.h>

#include "framed_buf.h"
#include "reader.h"
#include "trace.h"

static char dir[64];

static int setup(void **state)
{
	strcpy(dir, "/tmp/iotrace-reader-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

struct buf {
	uint8_t *b;
	size_t len, cap, n;
	uint64_t off[64];	/* where the first records start */
};

static void add_bytes(struct buf *b, const uint8_t *msg, size_t len)
{
	size_t at = framed_add(&b->b, &b->len, &b->cap, msg, len);

	if (b->n < 64)
		b->off[b->n] = at;
	b->n++;
}

static void add_packed(struct buf *b, const Octf__Proto__Trace__Event *ev)
{
	uint8_t msg[256];
	size_t len = octf__proto__trace__event__get_packed_size(ev);

	assert_true(len <= sizeof(msg));
	assert_int_equal(octf__proto__trace__event__pack(ev, msg), len);
	add_bytes(b, msg, len);
}

/* An io event whose id tells the test where it was written. */
static void add_io(struct buf *b, uint64_t sid, uint64_t id)
{
	Octf__Proto__Trace__EventHeader h = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;

	h.sid = sid;
	h.timestamp = sid * 10;
	io.id = id;
	io.lba = sid;
	io.len = 8;
	ev.header = &h;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
	ev.io = &io;
	add_packed(b, &ev);
}

static void add_completion(struct buf *b, uint64_t sid, uint64_t ref)
{
	Octf__Proto__Trace__EventHeader h = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIoCompletion c = OCTF__PROTO__TRACE__EVENT_IO_COMPLETION__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;

	h.sid = sid;
	c.refid = ref;
	ev.header = &h;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION;
	ev.iocompletion = &c;
	add_packed(b, &ev);
}

static void write_file(const char *name, const void *data, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Stream i as octf.trace.<i>, or its first len bytes as one zstd frame in octf.trace.<i>.zst */
static void write_stream(const struct buf *b, size_t i, size_t len, bool zstd)
{
	char name[32];
	size_t cap = ZSTD_compressBound(len), zlen;
	void *z;

	if (!zstd) {
		snprintf(name, sizeof(name), "octf.trace.%zu", i);
		write_file(name, b->b, len);
		return;
	}
	z = malloc(cap);
	assert_non_null(z);
	zlen = ZSTD_compress(z, cap, b->b, len, 1);
	assert_false(ZSTD_isError(zlen));
	snprintf(name, sizeof(name), "octf.trace.%zu.zst", i);
	write_file(name, z, zlen);
	free(z);
}

static void write_streams_as(struct buf *b, size_t n, bool zstd)
{
	size_t i;

	for (i = 0; i < n; i++) {
		write_stream(&b[i], i, b[i].len, zstd);
		free(b[i].b);
		b[i].b = NULL;
		b[i].cap = 0;
	}
}

static void write_streams(struct buf *b, size_t n)
{
	write_streams_as(b, n, false);
}

/* the threads of this process */
static size_t thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * thread_count() once it is want, or after 2 s: pthread_join() returns
 * when the thread's exit clears its id, a moment before the kernel takes
 * it out of /proc/self/task.
 */
static size_t thread_count_settled(size_t want)
{
	const struct timespec ms = { 0, 1000000 };
	size_t n = thread_count();
	int i;

	for (i = 0; i < 2000 && n != want; i++) {
		nanosleep(&ms, NULL);
		n = thread_count();
	}
	return n;
}

struct seen {
	uint64_t sid, id;
	uint32_t stream;
	uint64_t pos;
	enum event_type type;
};

/* Reads the whole trace; returns the events (caller frees) and their count. */
static struct seen *read_all(unsigned int types, unsigned int threads, size_t *n,
			     struct reader **keep)
{
	const struct event *ev;
	struct seen *s = NULL;
	size_t cap = 0;
	struct reader *r;
	struct trace *t;
	int ret;

	t = trace__open(dir);
	assert_non_null(t);
	r = reader__new(t, types, threads);
	assert_non_null(r);
	*n = 0;
	while ((ret = reader__next(r, &ev)) == 1) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			s = realloc(s, cap * sizeof(*s));
			assert_non_null(s);
		}
		s[*n].sid = ev->sid;
		s[*n].id = ev->type == EV_IO ? ev->io.id : ev->cpl.ref;
		s[*n].stream = ev->stream;
		s[*n].pos = ev->pos;
		s[*n].type = ev->type;
		(*n)++;
	}
	assert_int_equal(ret, 0);
	/* the end stays the end */
	assert_int_equal(reader__next(r, &ev), 0);
	if (keep) {
		*keep = r;
	} else {
		reader__free(r);
	}
	trace__free(t);
	return s;
}

static void assert_increasing(const struct seen *s, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		assert_true(s[i].sid > s[i - 1].sid);
}

#define ID(stream, pos) ((uint64_t)(stream) << 32 | (pos))

/* 3 streams taking sids round-robin over several windows, of unequal length */
static void test_interleaved(void **state)
{
	struct buf b[3] = {};
	unsigned int th;
	uint64_t sid;
	struct seen *s;
	size_t n, want = 0, i;

	for (sid = 1; sid <= 5 * READER_WINDOW; sid++) {
		i = sid % 3;
		if (i == 2 && sid > 3 * READER_WINDOW)
			continue;
		add_io(&b[i], sid, ID(i, b[i].n));
		want++;
	}
	write_streams_as(b, 3, true);
	for (th = 1; th <= 2; th++) {
		s = read_all(EV_ALL, th, &n, NULL);
		assert_int_equal(n, want);
		assert_increasing(s, n);
		free(s);
	}
}

/*
 * Local inversions: neighbours swapped, one event written READER_WINDOW
 * / 2 - 2 sids late (absorbed), one far beyond the window (delivered as
 * soon as it is read, out of order, not lost).
 */
static void test_inversions(void **state)
{
	const size_t per = 3 * READER_WINDOW;
	uint64_t *order[2], tmp;
	struct buf b[2] = {};
	size_t k, i, n, back = 0, shift;
	struct seen *s;

	for (k = 0; k < 2; k++) {
		order[k] = malloc(per * sizeof(uint64_t));
		assert_non_null(order[k]);
		for (i = 0; i < per; i++)
			order[k][i] = 2 * i + 1 + k;
		for (i = 10 + k; i < 40; i += 5) {
			tmp = order[k][i];
			order[k][i] = order[k][i + 1];
			order[k][i + 1] = tmp;
		}
	}
	/* stream 0: one event moved (READER_WINDOW / 2 - 2) sids later */
	shift = READER_WINDOW / 4 - 1;
	tmp = order[0][100];
	memmove(&order[0][100], &order[0][101], shift * sizeof(tmp));
	order[0][100 + shift] = tmp;
	/* stream 1: one event moved 4 windows later */
	shift = 2 * READER_WINDOW;
	tmp = order[1][200];
	memmove(&order[1][200], &order[1][201], shift * sizeof(tmp));
	order[1][200 + shift] = tmp;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < per; i++)
			add_io(&b[k], order[k][i], ID(k, i));
		free(order[k]);
	}
	write_streams(b, 2);

	s = read_all(EV_ALL, 1, &n, NULL);
	assert_int_equal(n, 2 * per);
	for (i = 1; i < n; i++) {
		if (s[i].sid < s[i - 1].sid) {
			back++;
			assert_int_equal(s[i].sid, 2 * 200 + 2);
		}
	}
	assert_int_equal(back, 1);
	free(s);
}

/*
 * Equal sids come out one after the other: by stream, then in stream
 * order, with one thread or two.
 */
static void test_duplicates(void **state)
{
	struct buf b[2] = {};
	unsigned int th;
	struct seen *s;
	size_t n;

	add_io(&b[0], 5, ID(0, 0));
	add_io(&b[0], 5, ID(0, 1));
	add_io(&b[0], 7, ID(0, 2));
	add_io(&b[1], 5, ID(1, 0));
	add_io(&b[1], 6, ID(1, 1));
	add_io(&b[1], 7, ID(1, 2));
	write_streams_as(b, 2, true);
	for (th = 1; th <= 2; th++) {
		s = read_all(EV_ALL, th, &n, NULL);
		assert_int_equal(n, 6);
		assert_true(s[0].id == ID(0, 0));
		assert_true(s[1].id == ID(0, 1));
		assert_true(s[2].id == ID(1, 0));
		assert_true(s[3].id == ID(1, 1));
		assert_true(s[4].id == ID(0, 2));
		assert_true(s[5].id == ID(1, 2));
		assert_int_equal(s[1].stream, 0);
		assert_int_equal(s[1].pos, 1);
		free(s);
	}
}

/* Gaps of any size, sids at the very top, an event without a header (sid 0). */
static void test_sparse_sids(void **state)
{
	static const uint64_t sids[] = { 3, 1000000, 2000000000000ull, UINT64_MAX - 5,
					 UINT64_MAX };
	struct buf b[2] = {};
	struct seen *s;
	size_t i, n;

	/* an event without a header: an io with no fields */
	add_bytes(&b[1], (const uint8_t[]){ 0x12, 0x00 }, 2);
	for (i = 0; i < 5; i++)
		add_io(&b[i % 2], sids[i], i);
	write_streams(b, 2);
	s = read_all(EV_ALL, 1, &n, NULL);
	assert_int_equal(n, 6);
	assert_int_equal(s[0].sid, 0);
	assert_int_equal(s[0].type, EV_IO);
	for (i = 0; i < 5; i++)
		assert_true(s[i + 1].sid == sids[i]);
	free(s);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/*
 * A stream cut inside a record, one with a record that does not decode:
 * each recorded once with its file and offset, in stream order; the
 * damaged streams' events up to their damage come out, and every event
 * of the good stream, in order, to its end: as with a stream missing,
 * the join keeps what lost events would pair wrongly apart. Raw and
 * compressed, with one thread and two.
 */
static void test_damaged(void **state)
{
	/* a header field claiming 5 bytes where there is 1 */
	const uint8_t undecodable[] = { 0x0a, 0x05, 0x08 };
	const char *suffix[2] = { "", ".zst" };
	struct buf b[3] = {};
	const struct event *ev;
	char path[32];
	uint64_t sid, cut;
	unsigned int th, z;
	struct reader *r;
	struct trace *t;
	size_t i, n;
	int ret;

	for (sid = 1; sid <= 300; sid++) {
		i = sid % 3;
		if (i == 2 && b[2].n == 3)
			add_bytes(&b[2], undecodable, sizeof(undecodable));
		add_io(&b[i], sid, ID(i, b[i].n));
	}
	cut = b[1].off[5] + 4;
	for (z = 0; z < 2; z++) {
		assert_int_equal(teardown(state), 0);
		assert_int_equal(setup(state), 0);
		write_stream(&b[0], 0, b[0].len, z);
		write_stream(&b[1], 1, cut, z);
		write_stream(&b[2], 2, b[2].len, z);
		for (th = 1; th <= 2; th++) {
			t = trace__open(dir);
			assert_non_null(t);
			r = reader__new(t, EV_ALL, th);
			assert_non_null(r);
			n = 0;
			sid = 0;
			while ((ret = reader__next(r, &ev)) == 1) {
				/* stream 1 stops after sid 13, stream 2 after 2, 5 and 8 */
				assert_true(ev->sid % 3 != 1 || ev->sid <= 13);
				assert_true(ev->sid % 3 != 2 || ev->sid <= 8);
				assert_true(ev->sid > sid);
				sid = ev->sid;
				n++;
			}
			assert_int_equal(ret, 0);
			/* stream 0's 100, 5 of stream 1, 3 of stream 2 */
			assert_int_equal(n, 100 + 5 + 3);
			assert_int_equal(sid, 300);
			assert_false(reader__cut(r, &sid));
			/* and stream 2's record that does not decode: framed, it was read */
			assert_int_equal(reader__records(r), 100 + 5 + 3 + 1);
			assert_int_equal(reader__error_count(r), 2);
			snprintf(path, sizeof(path), "/octf.trace.1%s", suffix[z]);
			assert_true(ends_with(reader__error(r, 0)->path, path));
			assert_int_equal(reader__error(r, 0)->err, -ENODATA);
			assert_int_equal(reader__error(r, 0)->offset, b[1].off[5]);
			snprintf(path, sizeof(path), "/octf.trace.2%s", suffix[z]);
			assert_true(ends_with(reader__error(r, 1)->path, path));
			assert_int_equal(reader__error(r, 1)->err, -EPROTO);
			assert_int_equal(reader__error(r, 1)->offset, b[2].off[3]);
			assert_null(reader__error(r, 2));
			reader__free(r);
			trace__free(t);
		}
	}
	for (i = 0; i < 3; i++)
		free(b[i].b);
}

/*
 * Types not asked for are not returned and not decoded: a body that does
 * not decode inside one goes unnoticed, but is found when asked for.
 */
static void test_type_filter(void **state)
{
	/* an io whose body claims 5 bytes where there is 1 */
	const uint8_t bad_io[] = { 0x0a, 0x02, 0x08, 0x02, 0x12, 0x03, 0x0a, 0x05, 0x08 };
	struct buf b[1] = {};
	struct reader *r;
	struct seen *s;
	size_t n;

	add_io(&b[0], 1, 1);
	add_bytes(&b[0], bad_io, sizeof(bad_io));
	add_completion(&b[0], 3, 1);
	write_streams(b, 1);

	s = read_all(EV_BIT(EV_COMPLETION), 1, &n, &r);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].type, EV_COMPLETION);
	assert_int_equal(reader__error_count(r), 0);
	reader__free(r);
	free(s);

	s = read_all(EV_ALL, 1, &n, &r);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].type, EV_IO);
	assert_int_equal(reader__error_count(r), 1);
	assert_int_equal(reader__error(r, 0)->err, -EPROTO);
	reader__free(r);
	free(s);
}

/*
 * Many streams with inversions and duplicates: one thread and two give
 * the same sequence, whichever thread read what.
 */
static void test_threads_same(void **state)
{
	struct buf b[9] = {};
	struct seen *s1, *s2;
	size_t n1, n2, i;
	uint64_t sid;

	srand(7);
	for (sid = 1; sid <= 40000; sid++) {
		size_t k = (size_t)rand() % 9;

		add_io(&b[k], sid, ID(k, b[k].n));
		if (rand() % 97 == 0)
			add_io(&b[(k + 1) % 9], sid, ID((k + 1) % 9, b[(k + 1) % 9].n));
		if (rand() % 89 == 0)
			add_io(&b[k], sid > 300 ? sid - 300 : sid, ID(k, b[k].n));
	}
	write_streams_as(b, 9, true);
	s1 = read_all(EV_ALL, 1, &n1, NULL);
	s2 = read_all(EV_ALL, 2, &n2, NULL);
	assert_int_equal(n1, n2);
	for (i = 0; i < n1; i++) {
		assert_true(s1[i].sid == s2[i].sid);
		assert_true(s1[i].id == s2[i].id);
		assert_int_equal(s1[i].stream, s2[i].stream);
		assert_true(s1[i].pos == s2[i].pos);
	}
	free(s1);
	free(s2);
}

/* Freed in the middle, with a fill running on the helper thread. */
static void test_free_early(void **state)
{
	struct buf b[4] = {};
	const struct event *ev;
	struct reader *r;
	struct trace *t;
	uint64_t sid;

	for (sid = 1; sid <= 4 * READER_WINDOW; sid++)
		add_io(&b[sid % 4], sid, sid);
	write_streams_as(b, 4, true);
	t = trace__open(dir);
	assert_non_null(t);
	r = reader__new(t, EV_ALL, 2);
	assert_non_null(r);
	assert_int_equal(reader__next(r, &ev), 1);
	assert_int_equal(ev->sid, 1);
	reader__free(r);
	reader__free(NULL);
	trace__free(t);
}

/*
 * Two threads allowed: a helper starts with the first read when a stream
 * is compressed, and not for raw streams, which one thread reads faster.
 */
static void test_helper_when_compressed(void **state)
{
	const struct event *ev;
	struct buf b[2] = {};
	unsigned int z;
	struct reader *r;
	struct trace *t;
	size_t before;
	uint64_t sid;

	for (z = 0; z < 2; z++) {
		assert_int_equal(teardown(state), 0);
		assert_int_equal(setup(state), 0);
		memset(b, 0, sizeof(b));
		for (sid = 1; sid <= 1000; sid++)
			add_io(&b[sid % 2], sid, sid);
		write_streams_as(b, 2, z);
		t = trace__open(dir);
		assert_non_null(t);
		before = thread_count();
		r = reader__new(t, EV_ALL, 2);
		assert_non_null(r);
		assert_int_equal(thread_count(), before);
		assert_int_equal(reader__next(r, &ev), 1);
		assert_int_equal(thread_count(), before + z);
		reader__free(r);
		assert_int_equal(thread_count_settled(before), before);
		trace__free(t);
	}
}

/* A trace with no streams, and one with empty streams. */
static void test_empty(void **state)
{
	struct buf b[2] = {};
	struct seen *s;
	size_t n;

	write_file("octf.summary", "{}", 2);
	s = read_all(EV_ALL, 2, &n, NULL);
	assert_int_equal(n, 0);
	free(s);
	write_streams(b, 2);
	s = read_all(EV_ALL, 2, &n, NULL);
	assert_int_equal(n, 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_interleaved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inversions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sparse_sids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_type_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_same, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_early, setup, teardown),
		cmocka_unit_test_setup_teardown(test_helper_when_compressed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
