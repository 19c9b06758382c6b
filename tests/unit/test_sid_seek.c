// SPDX-License-Identifier: BSD-3-Clause
/*
 * sid_seek.h: in streams of records sorted by sid (short and long
 * records, lengths of one and two bytes), the offset found is the first
 * record with that sid or more, for every sid; the ends (all below, the
 * first above, an empty buffer, bytes that are no records, records
 * inside records); a record it cannot read where the walk ends; and
 * out-of-order records that only
 * move the answer to a place the readers' check accepts or refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "framed_buf.h"
#include "sid_seek.h"
#include "trace.pb-c.h"

struct buf {
	uint8_t *b;
	size_t len, cap;
	uint64_t *off;	/* each record's offset */
	size_t n;
};

/* an io record with a comm of comm_len bytes: lengths from 20 to 300 bytes */
static void add(struct buf *b, uint64_t sid, size_t comm_len)
{
	Octf__Proto__Trace__EventHeader h = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	char comm[320];
	uint8_t msg[400];
	size_t len;

	memset(comm, 'c', comm_len);
	comm[comm_len] = '\0';
	h.sid = sid;
	h.timestamp = sid * 1000 + 123456789;
	io.id = sid * 7;
	io.lba = sid * 8;
	io.len = 8;
	io.comm = comm;
	ev.header = &h;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
	ev.io = &io;
	len = octf__proto__trace__event__get_packed_size(&ev);
	assert_true(len <= sizeof(msg));
	octf__proto__trace__event__pack(&ev, msg);
	b->off = realloc(b->off, (b->n + 1) * sizeof(*b->off));
	assert_non_null(b->off);
	b->off[b->n++] = framed_add(&b->b, &b->len, &b->cap, msg, len);
}

static void buf_free(struct buf *b)
{
	free(b->b);
	free(b->off);
	memset(b, 0, sizeof(*b));
}

/* n records, sid i * step + 1 for record i, some long */
static void make(struct buf *b, size_t n, uint64_t step)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < n; i++)
		add(b, i * step + 1, i % 17 == 3 ? 250 : i % 5);
}

static void test_every_sid(void **state)
{
	struct buf b;
	uint64_t sid;
	size_t i;

	(void)state;
	make(&b, 3000, 3);
	for (sid = 2; sid <= 3 * 3000 + 5; sid++) {
		/* the first record with sid or more */
		i = (size_t)((sid - 1 + 2) / 3);
		assert_int_equal(sid_seek__offset(b.b, b.len, sid), i < b.n ? b.off[i] : b.len);
	}
	/* the first record has it: nothing to pass over */
	assert_int_equal(sid_seek__offset(b.b, b.len, 1), 0);
	assert_int_equal(sid_seek__offset(b.b, b.len, 0), 0);
	assert_int_equal(sid_seek__offset(b.b, 0, 100), 0);
	buf_free(&b);
}

/* Bytes that are no records, at the start or in the middle. */
static void test_garbage(void **state)
{
	struct buf b;
	size_t i, mid;

	(void)state;
	make(&b, 2000, 1);
	/* no way in: 0, read from the start */
	{
		uint8_t junk[64];

		memset(junk, 0xff, sizeof(junk));
		assert_int_equal(sid_seek__offset(junk, sizeof(junk), 5), 0);
	}
	/*
	 * a damaged middle: the answer is a record start or the damaged
	 * record, never inside another record
	 */
	mid = b.n / 2;
	memset(b.b + b.off[mid], 0xff, b.off[mid + 3] - b.off[mid]);
	for (i = 10; i < b.n; i += 7) {
		uint64_t off = sid_seek__offset(b.b, b.len, i + 1);
		size_t k;

		for (k = 0; k < b.n && b.off[k] != off; k++)
			;
		assert_true(k < b.n || off == b.len);
		if (i < mid)
			assert_int_equal(off, b.off[i]);
		if (i > mid + 3 + SEEK_SYNC_RECORDS)
			assert_true(off <= b.off[i]);
	}
	buf_free(&b);
}

/*
 * Records whose comm holds what looks like a framed record with sid 1: a
 * way in taken from one such record alone would start the walk inside a
 * record. A chain of them is needed, and the answers stay exact. (One
 * that ends where its record does chains on with the real ones: it is a
 * record out of order, see below.)
 */
static void test_fake_record_inside(void **state)
{
	/* length 8: header {sid 1, timestamp 1}, no NUL byte */
	static const char fake[] = "\x08\x0a\x06\x08\x01\x10\x01\x18\x01";
	Octf__Proto__Trace__EventHeader h = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	struct buf b;
	uint8_t msg[128];
	uint64_t sid;
	size_t i, len;

	(void)state;
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 3000; i++) {
		h.sid = i + 1;
		io.comm = (char *)fake;
		/* fields after it: the fake one does not end where a record does */
		io.direct = 1;
		io.vfscallid = 5;
		ev.header = &h;
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
		ev.io = &io;
		len = octf__proto__trace__event__pack(&ev, msg);
		b.off = realloc(b.off, (b.n + 1) * sizeof(*b.off));
		assert_non_null(b.off);
		b.off[b.n++] = framed_add(&b.b, &b.len, &b.cap, msg, len);
	}
	for (sid = 2; sid <= 3000; sid++)
		assert_int_equal(sid_seek__offset(b.b, b.len, sid), b.off[sid - 1]);
	buf_free(&b);
}

/*
 * A record far out of order: the bisection may pass over it; the answer
 * is still a record start, and no record before it is above the sid
 * unless it is that one.
 */
static void test_out_of_order(void **state)
{
	struct buf b;
	uint64_t sid, off;
	size_t i, k;

	(void)state;
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 2000; i++)
		add(&b, i == 300 ? 1500 : i + 1, i % 7);
	for (sid = 2; sid < 2100; sid += 13) {
		off = sid_seek__offset(b.b, b.len, sid);
		for (k = 0; k < b.n && b.off[k] != off; k++)
			;
		assert_true(k < b.n || off == b.len);
		for (i = 0; i < k; i++)
			assert_true(i == 300 || i + 1 < sid);
	}
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_sid),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_fake_record_inside),
		cmocka_unit_test(test_out_of_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
