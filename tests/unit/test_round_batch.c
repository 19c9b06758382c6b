// SPDX-License-Identifier: BSD-3-Clause
/*
 * A round's records per CPU (round_batch.h): kept whole and in order, and
 * merged by sid across CPUs with each CPU's own order kept, also where a
 * nested program put a record out of sid order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "round_batch.h"

#define MAX_SEEN 64

/* a record: its sid, then sz - 8 bytes that say which record it is */
struct seen {
	int n;
	int cpu[MAX_SEEN];
	uint64_t sid[MAX_SEEN];
	uint32_t sz[MAX_SEEN];
};

static void push(struct batch *b, uint64_t sid, uint32_t sz)
{
	uint8_t rec[64];

	assert_true(sz >= sizeof(sid) && sz <= sizeof(rec));
	memcpy(rec, &sid, sizeof(sid));
	memset(rec + sizeof(sid), (int)(sid & 0xff), sz - sizeof(sid));
	assert_int_equal(batch__push(b, rec, sz), 0);
}

static void note(void *ctx, int cpu, const void *rec, uint32_t sz)
{
	struct seen *s = ctx;
	const uint8_t *p = rec;
	uint64_t sid;
	uint32_t i;

	assert_true(s->n < MAX_SEEN);
	memcpy(&sid, rec, sizeof(sid));
	/* the whole record came back, padding not included */
	for (i = sizeof(sid); i < sz; i++)
		assert_int_equal(p[i], sid & 0xff);
	s->cpu[s->n] = cpu;
	s->sid[s->n] = sid;
	s->sz[s->n] = sz;
	s->n++;
}

static void free_batches(struct batch *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(b[i].buf);
}

static void each_keeps_order_and_bytes(void **state)
{
	struct batch b = { 0 };
	struct seen s = { 0 };

	push(&b, 9, 8);
	push(&b, 3, 13);
	push(&b, 12, 64);
	batch__each(&b, note, &s, 5);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.sid[0], 9);
	assert_int_equal(s.sid[1], 3);
	assert_int_equal(s.sid[2], 12);
	assert_int_equal(s.sz[1], 13);
	assert_int_equal(s.sz[2], 64);
	assert_int_equal(s.cpu[2], 5);
	free(b.buf);
}

static void merge_orders_by_sid(void **state)
{
	struct batch b[3] = { 0 };
	struct seen s = { 0 };
	int i;

	/* CPU 0 busy, CPU 1 quiet, CPU 2 in between */
	for (i = 0; i < 10; i++)
		push(&b[0], (uint64_t)(3 * i + 1), 8 + (uint32_t)i);
	push(&b[1], 6, 40);
	for (i = 0; i < 6; i++)
		push(&b[2], (uint64_t)(3 * i + 2), 24);
	assert_int_equal(batch__merge(b, 3, UINT64_MAX, note, &s), 0);
	assert_int_equal(s.n, 17);
	for (i = 1; i < s.n; i++)
		assert_true(s.sid[i - 1] < s.sid[i]);
	for (i = 0; i < s.n; i++) {
		int want = s.sid[i] % 3 == 0 ? 1 : s.sid[i] % 3 == 1 ? 0 : 2;

		assert_int_equal(s.cpu[i], want);
	}
	free_batches(b, 3);
}

/* CPU 0's 3 came from a program nested in an interrupt, after its 5 */
static void merge_keeps_each_cpus_order(void **state)
{
	struct batch b[2] = { 0 };
	struct seen s = { 0 };
	const uint64_t cpu0[] = { 1, 5, 3, 7 }, cpu1[] = { 2, 4, 6 };
	const uint64_t want[] = { 1, 2, 4, 5, 3, 6, 7 };
	size_t i;

	for (i = 0; i < 4; i++)
		push(&b[0], cpu0[i], 16);
	for (i = 0; i < 3; i++)
		push(&b[1], cpu1[i], 16);
	assert_int_equal(batch__merge(b, 2, UINT64_MAX, note, &s), 0);
	assert_int_equal(s.n, 7);
	for (i = 0; i < 7; i++)
		assert_int_equal(s.sid[i], want[i]);
	free_batches(b, 2);
}

/*
 * Up to a sid: the rest stays, each CPU's from its first record past it,
 * and comes first in the next merge, before the records pushed since.
 */
static void merge_up_to(void **state)
{
	const uint64_t cpu0[] = { 1, 3, 5, 9, 11 }, cpu1[] = { 2, 8, 4, 6 };
	const uint64_t want[] = { 8, 4, 6, 9, 10, 11, 13 };
	const int want_cpu[] = { 1, 1, 1, 0, 2, 0, 0 };
	struct batch b[3] = { 0 };
	struct seen s = { 0 };
	uint64_t newest;
	int i;

	/* CPU 0 read up to 11, CPU 1 up to 6 (nested: 4 after 8), CPU 2 nothing */
	for (i = 0; i < 5; i++)
		push(&b[0], cpu0[i], 16);
	for (i = 0; i < 4; i++)
		push(&b[1], cpu1[i], 24);
	assert_true(batch__newest(&b[0], &newest));
	assert_int_equal(newest, 11);
	assert_true(batch__newest(&b[1], &newest));
	assert_int_equal(newest, 6);
	assert_false(batch__newest(&b[2], &newest));
	assert_int_equal(batch__merge(b, 3, 6, note, &s), 2);
	/* 1 2 3 5; CPU 1's 8 is past 6, and its 4 and 6 wait behind it */
	assert_int_equal(s.n, 4);
	assert_int_equal(s.sid[0], 1);
	assert_int_equal(s.sid[1], 2);
	assert_int_equal(s.sid[2], 3);
	assert_int_equal(s.sid[3], 5);
	assert_int_equal(s.cpu[3], 0);
	/* what is left is not new */
	assert_false(batch__newest(&b[0], &newest));
	assert_false(batch__newest(&b[1], &newest));
	push(&b[0], 13, 8);
	push(&b[2], 10, 8);
	assert_true(batch__newest(&b[0], &newest));
	assert_int_equal(newest, 13);
	s.n = 0;
	assert_int_equal(batch__merge(b, 3, UINT64_MAX, note, &s), 0);
	assert_int_equal(s.n, 7);
	for (i = 0; i < 7; i++) {
		assert_int_equal(s.sid[i], want[i]);
		assert_int_equal(s.cpu[i], want_cpu[i]);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(b[i].used, 0);
	free_batches(b, 3);
}

static void merge_of_nothing(void **state)
{
	struct batch b[4] = { 0 };
	struct seen s = { 0 };

	assert_int_equal(batch__merge(b, 4, UINT64_MAX, note, &s), 0);
	assert_int_equal(batch__merge(b, 0, UINT64_MAX, note, &s), 0);
	assert_int_equal(s.n, 0);
	/* only the last CPU has records */
	push(&b[3], 42, 8);
	assert_int_equal(batch__merge(b, 4, UINT64_MAX, note, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.cpu[0], 3);
	free_batches(b, 4);
}

static void clear_keeps_memory(void **state)
{
	struct batch b[2] = { 0 };
	struct seen s = { 0 };
	uint8_t *buf;
	size_t cap;
	int i;

	/* past the first allocation (64 KiB), so the batch grew */
	for (i = 0; i < 2000; i++)
		push(&b[0], (uint64_t)i, 64);
	push(&b[1], 7, 8);
	buf = b[0].buf;
	cap = b[0].cap;
	assert_true(cap >= 2000 * 72);
	batch__clear(b, 2);
	assert_int_equal(b[0].used, 0);
	assert_int_equal(b[1].used, 0);
	assert_ptr_equal(b[0].buf, buf);
	assert_int_equal(b[0].cap, cap);
	assert_int_equal(batch__merge(b, 2, UINT64_MAX, note, &s), 0);
	assert_int_equal(s.n, 0);
	push(&b[1], 8, 8);
	assert_int_equal(batch__merge(b, 2, UINT64_MAX, note, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.sid[0], 8);
	free_batches(b, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_keeps_order_and_bytes),
		cmocka_unit_test(merge_orders_by_sid),
		cmocka_unit_test(merge_keeps_each_cpus_order),
		cmocka_unit_test(merge_up_to),
		cmocka_unit_test(merge_of_nothing),
		cmocka_unit_test(clear_keeps_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
