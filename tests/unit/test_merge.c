// SPDX-License-Identifier: BSD-3-Clause
/*
 * Opening trace directories and merging their streams: sid order across
 * streams, local inversions within the window, tie-breaks, and damaged
 * streams that stop alone while the others complete.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "framed_buf.h"
#include "merge.h"
#include "stream.h"
#include "trace.h"

static char dir[64];

static int setup(void **state)
{
	strcpy(dir, "/tmp/iotrace-merge-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* A record stream in memory; off[i] is where record i starts. */
struct buf {
	uint8_t *b;
	size_t len, cap;
	uint64_t off[1024];
	size_t n;
};

static void add_bytes(struct buf *b, const uint8_t *msg, size_t len)
{
	assert_true(b->n < 1024);
	b->off[b->n++] = framed_add(&b->b, &b->len, &b->cap, msg, len);
}

/* An io event; id tells the test which stream and position it came from. */
static void add_event(struct buf *b, uint64_t sid, uint64_t id)
{
	Octf__Proto__Trace__EventHeader h = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	uint8_t msg[128];
	size_t len;

	h.sid = sid;
	h.timestamp = sid * 1000;
	io.id = id;
	io.lba = sid * 8;
	io.len = 8;
	io.operation = OCTF__PROTO__TRACE__IO_TYPE__Write;
	ev.header = &h;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
	ev.io = &io;
	len = octf__proto__trace__event__get_packed_size(&ev);
	assert_true(len <= sizeof(msg));
	assert_int_equal(octf__proto__trace__event__pack(&ev, msg), len);
	add_bytes(b, msg, len);
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

static void write_zstd(const char *name, const struct buf *b)
{
	size_t cap = ZSTD_compressBound(b->len), n;
	void *z = malloc(cap);

	assert_non_null(z);
	n = ZSTD_compress(z, cap, b->b, b->len, 1);
	assert_false(ZSTD_isError(n));
	write_file(name, z, n);
	free(z);
}

static struct trace *open_trace(void)
{
	struct trace *t = trace__open(dir);

	assert_non_null(t);
	return t;
}

#define ID(stream, pos) ((uint64_t)(stream) << 32 | (pos))

/*
 * Merges the trace in dir; checks that sids never go down (strictly up if
 * strict) and returns the count. ids[] gets each event's io.id if given.
 */
static size_t merge_all(struct merge *m, int strict, uint64_t *ids, size_t max)
{
	const Octf__Proto__Trace__Event *ev;
	uint64_t last = 0;
	size_t n = 0;
	int r;

	while ((r = merge__next(m, &ev)) == 1) {
		assert_non_null(ev->header);
		if (n) {
			if (strict)
				assert_true(ev->header->sid > last);
			else
				assert_true(ev->header->sid >= last);
		}
		last = ev->header->sid;
		assert_int_equal(ev->event_type_case, OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO);
		assert_int_equal(ev->io->lba, ev->header->sid * 8);
		if (ids) {
			assert_true(n < max);
			ids[n] = ev->io->id;
		}
		n++;
	}
	assert_int_equal(r, 0);
	/* the end stays the end */
	assert_int_equal(merge__next(m, &ev), 0);
	return n;
}

static void test_interleaved(void **state)
{
	struct buf b[3] = {};
	struct merge *m;
	struct trace *t;
	uint64_t sid;
	size_t i;

	/* 3 streams taking sids round-robin, of unequal length (window is 64) */
	for (sid = 1; sid <= 600; sid++) {
		i = sid % 3;
		if (i == 2 && sid > 450)
			continue;
		add_event(&b[i], sid, ID(i, b[i].n));
	}
	write_file("octf.trace.0", b[0].b, b[0].len);
	write_file("octf.trace.1", b[1].b, b[1].len);
	write_file("octf.trace.2", b[2].b, b[2].len);
	write_file("octf.summary", "{}", 2);

	t = open_trace();
	assert_int_equal(trace__stream_count(t), 3);
	m = merge__new(t);
	assert_non_null(m);
	assert_int_equal(merge_all(m, 1, NULL, 0), b[0].n + b[1].n + b[2].n);
	assert_int_equal(merge__error_count(m), 0);
	assert_null(merge__error(m, 0));
	merge__free(m);
	trace__free(t);
	for (i = 0; i < 3; i++)
		free(b[i].b);
}

/*
 * Streams whose sids are locally out of order (an irq-time event written
 * before the one it interrupted): swaps of neighbours, and one event
 * written MERGE_WINDOW - 1 places late, the most the window absorbs.
 */
static void test_local_inversion(void **state)
{
	struct buf b[2] = {};
	uint64_t order[2][200], tmp;
	struct merge *m;
	struct trace *t;
	size_t i, k;

	/* stream 0 the odd sids, stream 1 the even ones */
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 200; i++)
			order[k][i] = 2 * i + 1 + k;
		for (i = 10 + k; i < 40; i += 5) {
			tmp = order[k][i];
			order[k][i] = order[k][i + 1];
			order[k][i + 1] = tmp;
		}
	}
	tmp = order[0][100];
	memmove(&order[0][100], &order[0][101], (MERGE_WINDOW - 1) * sizeof(tmp));
	order[0][100 + MERGE_WINDOW - 1] = tmp;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < 200; i++)
			add_event(&b[k], order[k][i], ID(k, i));
	}
	write_file("octf.trace.0", b[0].b, b[0].len);
	write_file("octf.trace.1", b[1].b, b[1].len);

	t = open_trace();
	m = merge__new(t);
	assert_non_null(m);
	assert_int_equal(merge_all(m, 1, NULL, 0), 400);
	merge__free(m);
	trace__free(t);
	free(b[0].b);
	free(b[1].b);
}

/* Equal sids: lower stream index first, then earlier position. */
static void test_ties(void **state)
{
	struct buf b[2] = {};
	uint64_t ids[16];
	struct merge *m;
	struct trace *t;

	add_event(&b[0], 5, ID(0, 0));
	add_event(&b[0], 5, ID(0, 1));
	add_event(&b[0], 7, ID(0, 2));
	add_event(&b[1], 5, ID(1, 0));
	add_event(&b[1], 6, ID(1, 1));
	add_event(&b[1], 7, ID(1, 2));
	write_file("octf.trace.0", b[0].b, b[0].len);
	write_file("octf.trace.1", b[1].b, b[1].len);

	t = open_trace();
	m = merge__new(t);
	assert_non_null(m);
	assert_int_equal(merge_all(m, 0, ids, 16), 6);
	assert_true(ids[0] == ID(0, 0));
	assert_true(ids[1] == ID(0, 1));
	assert_true(ids[2] == ID(1, 0));
	assert_true(ids[3] == ID(1, 1));
	assert_true(ids[4] == ID(0, 2));
	assert_true(ids[5] == ID(1, 2));
	merge__free(m);
	trace__free(t);
	free(b[0].b);
	free(b[1].b);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/*
 * Stream 1 is cut in the middle of its record 5 and stream 2's record 3
 * does not decode: each is recorded once, with its file and offset; the
 * events before the damage and all of stream 0 come out in order.
 */
static void test_damaged(void **state)
{
	/* a header field claiming 5 bytes where there is 1 */
	const uint8_t undecodable[] = { 0x0a, 0x05, 0x08 };
	const struct merge_error *e;
	struct buf b[3] = {};
	uint64_t sid;
	struct merge *m;
	struct trace *t;
	size_t i;

	for (sid = 1; sid <= 300; sid++) {
		i = sid % 3;
		if (i == 2 && b[2].n == 3)
			add_bytes(&b[2], undecodable, sizeof(undecodable));
		add_event(&b[i], sid, ID(i, b[i].n));
	}
	write_file("octf.trace.0", b[0].b, b[0].len);
	write_file("octf.trace.1", b[1].b, b[1].off[5] + 4);
	write_file("octf.trace.2", b[2].b, b[2].len);

	t = open_trace();
	m = merge__new(t);
	assert_non_null(m);
	assert_int_equal(merge_all(m, 1, NULL, 0), b[0].n + 5 + 3);
	assert_int_equal(merge__error_count(m), 2);
	for (i = 0; i < 2; i++) {
		e = merge__error(m, i);
		assert_non_null(e);
		if (ends_with(e->path, "/octf.trace.1")) {
			assert_int_equal(e->err, -ENODATA);
			assert_int_equal(e->offset, b[1].off[5]);
		} else {
			assert_true(ends_with(e->path, "/octf.trace.2"));
			assert_int_equal(e->err, -EPROTO);
			assert_int_equal(e->offset, b[2].off[3]);
		}
	}
	assert_null(merge__error(m, 2));
	merge__free(m);
	trace__free(t);
	for (i = 0; i < 3; i++)
		free(b[i].b);
}

/* A zstd stream, an empty stream and a raw one merge the same way. */
static void test_mixed_streams(void **state)
{
	struct buf b[2] = {};
	struct merge *m;
	struct trace *t;
	uint64_t sid;

	for (sid = 1; sid <= 500; sid++)
		add_event(&b[sid % 2], sid, sid);
	write_zstd("octf.trace.0.zst", &b[0]);
	write_file("octf.trace.1", NULL, 0);
	write_file("octf.trace.2", b[1].b, b[1].len);

	t = open_trace();
	assert_int_equal(trace__stream_count(t), 3);
	m = merge__new(t);
	assert_non_null(m);
	assert_int_equal(merge_all(m, 1, NULL, 0), 500);
	assert_int_equal(merge__error_count(m), 0);
	merge__free(m);
	trace__free(t);
	free(b[0].b);
	free(b[1].b);
}

/* An event without a header (only a field of a later version) sorts first, not dropped. */
static void test_no_header(void **state)
{
	/* field 15, varint 1 */
	static const uint8_t later[] = { 0x78, 0x01 };
	const Octf__Proto__Trace__Event *ev;
	struct buf b = {};
	struct merge *m;
	struct trace *t;

	add_event(&b, 1, 1);
	add_bytes(&b, later, sizeof(later));
	write_file("octf.trace.0", b.b, b.len);

	t = open_trace();
	m = merge__new(t);
	assert_non_null(m);
	assert_int_equal(merge__next(m, &ev), 1);
	assert_null(ev->header);
	assert_int_equal(merge__next(m, &ev), 1);
	assert_int_equal(ev->header->sid, 1);
	assert_int_equal(merge__next(m, &ev), 0);
	merge__free(m);
	trace__free(t);
	free(b.b);
}

static void test_trace_open_errors(void **state)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/none", dir);
	errno = 0;
	assert_null(trace__open(path));
	assert_int_equal(errno, ENOENT);

	write_file("file", "x", 1);
	snprintf(path, sizeof(path), "%s/file", dir);
	errno = 0;
	assert_null(trace__open(path));
	assert_int_equal(errno, ENOTDIR);

	/* names that are not streams do not make a trace */
	write_file("octf.trace.x", "", 0);
	write_file("octf.trace.3.tmp", "", 0);
	write_file("octf.trace.", "", 0);
	write_file("octf.trace.-1", "", 0);
	errno = 0;
	assert_null(trace__open(dir));
	assert_int_equal(errno, EMEDIUMTYPE);
	trace__free(NULL);
	merge__free(NULL);
}

/* links in a stream's place, made in dir: name -> target */
static void link_file(const char *name, const char *target)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(symlink(target, path), 0);
}

/*
 * A stream name that leads to no file (a symlink loop, on itself or
 * through another, or a dangling symlink) is that stream's damage at
 * byte 0: the trace opens and the other streams are read whole.
 */
static void test_links_to_nothing(void **state)
{
	struct buf b = {};
	struct merge *m;
	struct trace *t;
	uint64_t sid;
	size_t i, loops = 0, dangling = 0;

	for (sid = 1; sid <= 100; sid++)
		add_event(&b, sid, sid);
	write_file("octf.trace.0", b.b, b.len);
	link_file("octf.trace.1", "octf.trace.1");
	link_file("octf.trace.2", "octf.trace.3");
	link_file("octf.trace.3", "octf.trace.2");
	link_file("octf.trace.4.zst", "no-such-file");

	t = open_trace();
	assert_int_equal(trace__stream_count(t), 5);
	m = merge__new(t);
	assert_non_null(m);
	assert_int_equal(merge_all(m, 1, NULL, 0), 100);
	assert_int_equal(merge__error_count(m), 4);
	for (i = 0; i < 4; i++) {
		const struct merge_error *e = merge__error(m, i);

		assert_int_equal(e->offset, 0);
		if (ends_with(e->path, "/octf.trace.4.zst")) {
			assert_int_equal(e->err, -ENOENT);
			dangling++;
		} else {
			assert_int_equal(e->err, -ELOOP);
			loops++;
		}
	}
	assert_int_equal(loops, 3);
	assert_int_equal(dangling, 1);
	merge__free(m);
	trace__free(t);
	free(b.b);
}

/* A summary alone is a trace with nothing in it. */
static void test_summary_only(void **state)
{
	const Octf__Proto__Trace__Event *ev;
	struct merge *m;
	struct trace *t;

	write_file("octf.summary", "{}", 2);
	t = open_trace();
	assert_int_equal(trace__stream_count(t), 0);
	assert_null(trace__stream(t, 0));
	assert_string_equal(trace__dir(t), dir);
	m = merge__new(t);
	assert_non_null(m);
	assert_int_equal(merge__next(m, &ev), 0);
	merge__free(m);
	trace__free(t);
}

/* Streams come in numeric order of <n>, not in name order. */
static void test_stream_order(void **state)
{
	static const char *const names[] = { "octf.trace.10", "octf.trace.2", "octf.trace.1.zst",
					     "octf.trace.0" };
	static const char *const sorted[] = { "/octf.trace.0", "/octf.trace.1.zst",
					      "/octf.trace.2", "/octf.trace.10" };
	struct trace *t;
	size_t i;

	for (i = 0; i < 4; i++)
		write_file(names[i], NULL, 0);
	t = open_trace();
	assert_int_equal(trace__stream_count(t), 4);
	for (i = 0; i < 4; i++)
		assert_true(ends_with(stream__path(trace__stream(t, i)), sorted[i]));
	trace__free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_interleaved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_inversion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ties, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mixed_streams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_open_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_to_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_order, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
