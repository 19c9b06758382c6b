// SPDX-License-Identifier: BSD-3-Clause
/*
 * --time-series' slots (series.h): which slot an I/O counts in, by
 * submission or completion, what a slot holds, percentiles while slots
 * are open, I/Os that come late, and the limit on slots.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "series.h"
#include "trace.pb-c.h"

#define MS 1000000ull

static struct io_rec rec(uint64_t time, int32_t op, uint32_t len, uint64_t latency, uint32_t qd)
{
	struct io_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = REC_IO;
	r.state = IO_COMPLETED;
	r.time = time;
	r.op = op;
	r.len = len;
	r.latency = latency;
	r.qd = qd;
	return r;
}

static void add(struct series *s, struct io_rec r, size_t *budget)
{
	assert_int_equal(series__add(s, &r, budget), 0);
}

#define READ OCTF__PROTO__TRACE__IO_TYPE__Read
#define WRITE OCTF__PROTO__TRACE__IO_TYPE__Write

/*
 * 100 ms slots from the first I/O's (at 250 ms: slot 2); a gap of empty
 * slots; each slot's counts, sectors, queue depth and latency by group.
 */
static void test_slots(void **state)
{
	struct series s;
	size_t budget = 100;
	const struct slot_group *g;

	series__init(&s, 100 * MS, false);
	add(&s, rec(250 * MS, READ, 8, 1000, 1), &budget);
	add(&s, rec(260 * MS, WRITE, 16, 3000, 2), &budget);
	add(&s, rec(299 * MS, WRITE, 16, 5000, 3), &budget);
	add(&s, rec(300 * MS, READ, 8, 7000, 1), &budget);
	add(&s, rec(650 * MS, READ, 8, 9000, 1), &budget);
	series__finish(&s);
	assert_int_equal(s.first, 2);
	assert_int_equal(s.n, 5);	/* slots 2 to 6 */
	assert_int_equal(budget, 95);
	g = &s.slots[0].g[GRP_WRITE];
	assert_int_equal(g->count, 2);
	assert_int_equal(g->sectors, 32);
	assert_int_equal(g->qd_sum, 5);
	assert_int_equal(g->lat_count, 2);
	assert_int_equal(g->lat_sum, 8000);
	assert_int_equal(g->lat_max, 5000);
	assert_int_equal(g->lat_p50, 3000);
	assert_int_equal(g->lat_p99, 5000);
	g = &s.slots[0].g[GRP_TOTAL];
	assert_int_equal(g->count, 3);
	assert_int_equal(g->lat_p50, 3000);
	assert_int_equal(s.slots[1].g[GRP_READ].count, 1);
	assert_int_equal(s.slots[1].g[GRP_READ].lat_p99, 7000);
	/* 400 and 500 ms: nothing */
	assert_int_equal(s.slots[2].g[GRP_TOTAL].count, 0);
	assert_int_equal(s.slots[3].g[GRP_TOTAL].count, 0);
	assert_int_equal(s.slots[4].g[GRP_TOTAL].lat_p50, 9000);
	series__free(&s);
}

/*
 * An I/O a little out of order (the slot before the latest) still counts
 * in that slot's percentiles; one older than that, and one never
 * completed handed out at the end, count in all but them.
 */
static void test_late(void **state)
{
	struct series s;
	size_t budget = 100;
	struct io_rec lost;
	const struct slot_group *g;

	series__init(&s, 100 * MS, false);
	add(&s, rec(0, WRITE, 8, 1000, 1), &budget);
	add(&s, rec(100 * MS, WRITE, 8, 2000, 1), &budget);
	add(&s, rec(99 * MS, WRITE, 8, 900000, 1), &budget);	/* slot 0, still open */
	add(&s, rec(200 * MS, WRITE, 8, 3000, 1), &budget);	/* slot 0 closes */
	add(&s, rec(50 * MS, WRITE, 8, 800000, 1), &budget);	/* slot 0, closed */
	lost = rec(150 * MS, WRITE, 8, 0, 4);
	lost.state = IO_NOT_COMPLETED;
	lost.error = true;
	add(&s, lost, &budget);
	series__finish(&s);
	g = &s.slots[0].g[GRP_WRITE];
	assert_int_equal(g->count, 3);
	assert_int_equal(g->lat_count, 3);
	assert_int_equal(g->lat_max, 900000);
	assert_int_equal(g->lat_p99, 900000);	/* the late 800 us is not in it */
	assert_int_equal(g->lat_p50, 1000);
	g = &s.slots[1].g[GRP_WRITE];
	assert_int_equal(g->count, 2);
	assert_int_equal(g->not_completed, 1);
	assert_int_equal(g->errors, 0);		/* no completion said so */
	assert_int_equal(g->lat_count, 1);
	assert_int_equal(g->qd_sum, 5);
	series__free(&s);
}

/* A jump past several slots closes both open ones; the budget bounds the slots. */
static void test_budget(void **state)
{
	struct series s;
	size_t budget = 10;
	struct io_rec r;

	series__init(&s, 100 * MS, false);
	add(&s, rec(0, READ, 8, 10, 1), &budget);
	add(&s, rec(100 * MS, READ, 8, 20, 1), &budget);
	add(&s, rec(950 * MS, READ, 8, 30, 1), &budget);
	assert_int_equal(s.slots[0].g[GRP_READ].lat_p50, 10);
	assert_int_equal(s.slots[1].g[GRP_READ].lat_p50, 20);
	assert_int_equal(budget, 0);
	r = rec(1000 * MS, READ, 8, 40, 1);
	assert_int_equal(series__add(&s, &r, &budget), -E2BIG);
	/* a damaged timestamp far away is refused, not allocated */
	budget = 1000;
	r = rec(UINT64_MAX, READ, 8, 40, 1);
	assert_int_equal(series__add(&s, &r, &budget), -E2BIG);
	assert_int_equal(s.n, 10);
	series__finish(&s);
	assert_int_equal(s.slots[9].g[GRP_READ].lat_p50, 30);
	/* records that are not I/Os are not counted */
	r.kind = REC_FS_EVENT;
	assert_int_equal(series__add(&s, &r, &budget), 0);
	series__free(&s);
}

/*
 * By completion: an I/O counts in the slot of time + latency, one never
 * completed in none; a slot stays open (percentiles) until an I/O is
 * submitted two slots past it, however far ahead completions reach.
 */
static void test_by_completion(void **state)
{
	struct series s;
	size_t budget = 100;
	struct io_rec lost, r;
	const struct slot_group *g;

	(void)state;
	series__init(&s, 100 * MS, true);
	add(&s, rec(0, WRITE, 8, 250 * MS, 3), &budget);	/* done at 250 ms: slot 2 */
	add(&s, rec(50 * MS, WRITE, 8, 10 * MS, 1), &budget);	/* slot 0 */
	add(&s, rec(120 * MS, READ, 16, 5 * MS, 2), &budget);	/* slot 1 */
	lost = rec(150 * MS, READ, 8, 0, 4);
	lost.state = IO_NOT_COMPLETED;
	add(&s, lost, &budget);					/* no slot */
	add(&s, rec(210 * MS, WRITE, 8, 100 * MS, 1), &budget);	/* slot 3; slot 0 is done */
	assert_int_equal(s.done, 1);
	assert_int_equal(s.slots[0].g[GRP_WRITE].lat_p50, 10 * MS);
	add(&s, rec(230 * MS, WRITE, 8, 30 * MS, 1), &budget);	/* slot 2, still open */
	add(&s, rec(400 * MS, WRITE, 8, 1 * MS, 1), &budget);	/* slot 4: 0 to 2 are done */
	assert_int_equal(s.done, 3);
	assert_int_equal(s.slots[2].g[GRP_WRITE].lat_p50, 30 * MS);
	assert_int_equal(s.slots[2].g[GRP_WRITE].lat_p99, 250 * MS);
	add(&s, rec(60 * MS, WRITE, 8, 20 * MS, 1), &budget);	/* slot 0, done: late */
	add(&s, rec(450 * MS, WRITE, 8, 5000 * MS, 1), &budget);	/* slot 54 */
	series__finish(&s);
	assert_int_equal(s.first, 0);
	assert_int_equal(s.n, 55);
	assert_int_equal(budget, 45);
	g = &s.slots[0].g[GRP_WRITE];
	assert_int_equal(g->count, 2);
	assert_int_equal(g->lat_count, 2);
	assert_int_equal(g->lat_sum, 30 * MS);
	assert_int_equal(g->lat_p99, 10 * MS);	/* the late 20 ms is not in it */
	g = &s.slots[1].g[GRP_READ];
	assert_int_equal(g->count, 1);
	assert_int_equal(g->sectors, 16);
	assert_int_equal(g->qd_sum, 2);
	assert_int_equal(g->not_completed, 0);
	assert_int_equal(s.slots[1].g[GRP_TOTAL].count, 1);
	assert_int_equal(s.slots[2].g[GRP_TOTAL].count, 2);
	assert_int_equal(s.slots[2].g[GRP_TOTAL].qd_sum, 4);
	assert_int_equal(s.slots[3].g[GRP_WRITE].lat_p50, 100 * MS);
	assert_int_equal(s.slots[4].g[GRP_WRITE].count, 1);
	assert_int_equal(s.slots[30].g[GRP_TOTAL].count, 0);
	assert_int_equal(s.slots[54].g[GRP_WRITE].lat_p50, 5000 * MS);
	/* no distribution is left once finished */
	for (size_t k = 0; k < s.n; k++)
		assert_null(s.slots[k].lat);
	/* a damaged latency past the end of time is refused, not allocated */
	r = rec(500 * MS, WRITE, 8, UINT64_MAX, 1);
	assert_int_equal(series__add(&s, &r, &budget), -E2BIG);
	assert_int_equal(s.n, 55);
	series__free(&s);
}

/*
 * By completion the series begins at the first completion's slot, not at
 * the first submission's; a device whose I/Os never completed has none.
 */
static void test_by_completion_start(void **state)
{
	struct series s;
	size_t budget = 100;
	struct io_rec lost;

	(void)state;
	series__init(&s, 100 * MS, true);
	add(&s, rec(50 * MS, WRITE, 8, 1000 * MS, 1), &budget);	/* done at 1050 ms: slot 10 */
	add(&s, rec(60 * MS, WRITE, 8, 2600 * MS, 2), &budget);	/* slot 26 */
	series__finish(&s);
	assert_true(s.any);
	assert_int_equal(s.first, 10);
	assert_int_equal(s.n, 17);
	assert_int_equal(s.slots[0].g[GRP_TOTAL].count, 1);
	assert_int_equal(s.slots[16].g[GRP_TOTAL].count, 1);
	assert_int_equal(s.slots[1].g[GRP_TOTAL].count, 0);
	series__free(&s);

	series__init(&s, 100 * MS, true);
	lost = rec(50 * MS, WRITE, 8, 0, 1);
	lost.state = IO_NOT_COMPLETED;
	add(&s, lost, &budget);
	series__finish(&s);
	assert_false(s.any);
	assert_int_equal(s.n, 0);
	series__free(&s);

	/* by submission the first I/O's slot is the first */
	series__init(&s, 100 * MS, false);
	add(&s, rec(50 * MS, WRITE, 8, 1000 * MS, 1), &budget);
	series__finish(&s);
	assert_int_equal(s.first, 0);
	assert_int_equal(s.n, 1);
	series__free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_late),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_by_completion),
		cmocka_unit_test(test_by_completion_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
