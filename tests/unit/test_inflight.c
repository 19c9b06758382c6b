// SPDX-License-Identifier: BSD-3-Clause
/*
 * The I/Os a stopping tracer waits for (inflight.c): an io or split child
 * is in flight from its submission to its completion whatever order the
 * collector reads the two in, ids are reused, an I/O begun before the
 * trace is never waited for, and an I/O older than the patience is given
 * up on; the longest latency, which sets the patience, is not taken from
 * a submission that lost its completion and a reuse of its id.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "inflight.h"

#define MS 1000000ull

static void note(struct inflight *f, uint32_t type, uint64_t id, uint64_t ts)
{
	struct iotrace_event e = { .type = type, .id = id, .ts = ts };

	inflight__note(f, &e);
}

/* waiting with a patience nothing exceeds */
static size_t open_ios(const struct inflight *f)
{
	return inflight__waiting(f, 0, UINT64_MAX / 2);
}

static void test_in_order(void **state)
{
	struct inflight f = { 0 };

	(void)state;
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 100 * MS);
	note(&f, IOTRACE_EV_SPLIT, 0x2000, 101 * MS);
	note(&f, IOTRACE_EV_RQ_QUEUE, 0x3000, 102 * MS);
	assert_int_equal(open_ios(&f), 3);
	note(&f, IOTRACE_EV_COMPLETE, 0x2000, 104 * MS);
	note(&f, IOTRACE_EV_RQ_COMPLETE, 0x3000, 105 * MS);
	assert_int_equal(open_ios(&f), 1);
	/* dispatches, names and calls do not count */
	note(&f, IOTRACE_EV_ISSUE, 0x4000, 106 * MS);
	note(&f, IOTRACE_EV_VFS, 0x5000, 106 * MS);
	assert_int_equal(open_ios(&f), 1);
	note(&f, IOTRACE_EV_COMPLETE, 0x1000, 130 * MS);
	assert_int_equal(open_ios(&f), 0);
	assert_int_equal(inflight__longest(&f), 30 * MS);
	inflight__free(&f);
}

/* one CPU's records read before another's: completions first */
static void test_completion_read_first(void **state)
{
	struct inflight f = { 0 };

	(void)state;
	note(&f, IOTRACE_EV_COMPLETE, 0x1000, 110 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 100 * MS);
	assert_int_equal(open_ios(&f), 0);
	inflight__free(&f);
}

/*
 * An id reused while the CPUs' records come apart: submissions s1 s2 on
 * one CPU, completions c1 on another, read c1 first, then s1 s2. s2 is in
 * flight, whatever paired with what.
 */
static void test_reused_out_of_order(void **state)
{
	struct inflight f = { 0 };

	(void)state;
	note(&f, IOTRACE_EV_COMPLETE, 0x1000, 20 * MS);	/* c1 */
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 10 * MS);	/* s1 */
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 30 * MS);	/* s2 */
	assert_int_equal(open_ios(&f), 1);
	note(&f, IOTRACE_EV_COMPLETE, 0x1000, 40 * MS);	/* c2 */
	assert_int_equal(open_ios(&f), 0);

	/* both completions read before both submissions: all done */
	note(&f, IOTRACE_EV_COMPLETE, 0x2000, 20 * MS);
	note(&f, IOTRACE_EV_COMPLETE, 0x2000, 40 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x2000, 10 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x2000, 30 * MS);
	assert_int_equal(open_ios(&f), 0);

	/* s3 s4 read before c3: s4 is still in flight after c3 */
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 50 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 70 * MS);
	note(&f, IOTRACE_EV_COMPLETE, 0x1000, 60 * MS);
	assert_int_equal(open_ios(&f), 1);
	inflight__free(&f);
}

/* completions of I/Os begun before the trace are waited for by nobody */
static void test_begun_before(void **state)
{
	struct inflight f = { 0 };

	(void)state;
	note(&f, IOTRACE_EV_COMPLETE, 0x7000, 5 * MS);
	note(&f, IOTRACE_EV_COMPLETE, 0x8000, 6 * MS);
	assert_int_equal(open_ios(&f), 0);
	note(&f, IOTRACE_EV_QUEUE, 0x7000, 9 * MS);
	assert_int_equal(open_ios(&f), 1);
	inflight__free(&f);
}

/* a submission lost its completion: a newer one of its id replaces it */
static void test_lost_completion(void **state)
{
	struct inflight f = { 0 };

	(void)state;
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 10 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 20 * MS);
	assert_int_equal(open_ios(&f), 1);
	note(&f, IOTRACE_EV_COMPLETE, 0x1000, 25 * MS);
	assert_int_equal(open_ios(&f), 0);
	inflight__free(&f);
}

static void test_patience(void **state)
{
	struct inflight f = { 0 };
	uint64_t max = 5000 * MS;

	(void)state;
	/* nothing completed yet: the least patience */
	assert_int_equal(inflight__patience(&f, max), 100 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 1000 * MS);
	note(&f, IOTRACE_EV_COMPLETE, 0x1000, 1010 * MS);
	assert_int_equal(inflight__patience(&f, max), 100 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x2000, 1000 * MS);
	note(&f, IOTRACE_EV_COMPLETE, 0x2000, 1300 * MS);
	assert_int_equal(inflight__patience(&f, max), 1200 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x3000, 1000 * MS);
	note(&f, IOTRACE_EV_COMPLETE, 0x3000, 4000 * MS);
	assert_int_equal(inflight__patience(&f, max), max);

	/* at 5 s, with 1.2 s of patience: the I/O of 3.9 s waits, that of 3.7 s does not */
	note(&f, IOTRACE_EV_QUEUE, 0x4000, 3900 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x5000, 3700 * MS);
	assert_int_equal(inflight__waiting(&f, 5000 * MS, 1200 * MS), 1);
	assert_int_equal(inflight__waiting(&f, 5000 * MS, 1400 * MS), 2);
	inflight__free(&f);
}

/* ids completed 1 s ago are forgotten, ids in flight a minute ago too */
static void test_forgets_completed(void **state)
{
	struct inflight f = { 0 };
	uint64_t i, ts = 0;

	(void)state;
	note(&f, IOTRACE_EV_QUEUE, 0xdead000, 1);
	for (i = 0; i < 200000; i++) {
		ts += MS / 4;
		note(&f, IOTRACE_EV_QUEUE, 0x10000 + i * 64, ts);
		note(&f, IOTRACE_EV_COMPLETE, 0x10000 + i * 64, ts + 1000);
	}
	/* 50 s of distinct ids, 4,000 a second; about the last 1 s of them are kept */
	assert_true(u64map__count(&f.ids) < 13000);
	assert_true(u64map__count(&f.ids) >= 4000);
	assert_int_equal(open_ios(&f), 1);
	for (; i < 260000; i++) {
		ts += MS / 4;
		note(&f, IOTRACE_EV_QUEUE, 0x10000 + i * 64, ts);
		note(&f, IOTRACE_EV_COMPLETE, 0x10000 + i * 64, ts + 1000);
	}
	/* 65 s in: the submission that never completed is given up */
	assert_int_equal(open_ios(&f), 0);
	inflight__free(&f);
}

/* the other ids' I/Os, 1 ms each, from..to, one a millisecond */
static void traffic(struct inflight *f, uint64_t from, uint64_t to)
{
	uint64_t t;

	for (t = from; t < to; t += MS) {
		note(f, IOTRACE_EV_QUEUE, 0x900000 + t / MS % 64 * 64, t);
		note(f, IOTRACE_EV_COMPLETE, 0x900000 + t / MS % 64 * 64, t + MS);
	}
}

/*
 * s0 lost its completion; 5 s later its id comes again, and that I/O's
 * completion c1 is read before its submission s1 (another CPU's ring
 * read first). c1 - s0 is no latency.
 */
static void test_reuse_after_lost(void **state)
{
	struct inflight f = { 0 };
	uint64_t max = 5000 * MS;

	(void)state;
	traffic(&f, 0, 10 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 10 * MS);		/* s0 */
	traffic(&f, 10 * MS, 5000 * MS);
	note(&f, IOTRACE_EV_COMPLETE, 0x1000, 5012 * MS);	/* c1 */
	/* until s1 is read, c1 - s0 may be a latency: a stop now waits */
	assert_int_equal(inflight__longest(&f), 5002 * MS);
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 5008 * MS);		/* s1 */
	assert_int_equal(inflight__longest(&f), 4 * MS);
	assert_int_equal(inflight__patience(&f, max), 100 * MS);
	traffic(&f, 5012 * MS, 7000 * MS);
	assert_int_equal(inflight__longest(&f), 4 * MS);
	assert_int_equal(f.n_cand, 0);
	assert_int_equal(open_ios(&f), 0);
	inflight__free(&f);
}

/* a long latency no late submission disproves is kept, once its time is past */
static void test_slow_io_confirmed(void **state)
{
	struct inflight f = { 0 };
	uint64_t max = 5000 * MS, i;

	(void)state;
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 100 * MS);
	note(&f, IOTRACE_EV_COMPLETE, 0x1000, 900 * MS);
	assert_int_equal(f.max_latency, 0);
	assert_int_equal(inflight__patience(&f, max), 3200 * MS);
	traffic(&f, 900 * MS, 2500 * MS);
	assert_int_equal(f.max_latency, 800 * MS);
	assert_int_equal(f.n_cand, 0);
	/* a reused id's pairing later: shorter than the maximum, no candidate */
	note(&f, IOTRACE_EV_QUEUE, 0x1000, 2600 * MS);
	note(&f, IOTRACE_EV_COMPLETE, 0x1000, 2700 * MS);
	assert_int_equal(f.n_cand, 0);

	/* more candidates than kept: the longest stays */
	for (i = 0; i < 3 * INFLIGHT_CANDIDATES; i++) {
		note(&f, IOTRACE_EV_QUEUE, 0x5000 + i * 64, 2800 * MS);
		note(&f, IOTRACE_EV_COMPLETE, 0x5000 + i * 64, 3700 * MS + i * MS);
	}
	assert_int_equal(f.n_cand, INFLIGHT_CANDIDATES);
	assert_int_equal(inflight__longest(&f), 900 * MS + (3 * INFLIGHT_CANDIDATES - 1) * MS);
	traffic(&f, 3700 * MS, 5000 * MS);
	assert_int_equal(f.max_latency, 900 * MS + (3 * INFLIGHT_CANDIDATES - 1) * MS);
	assert_int_equal(f.n_cand, 0);
	inflight__free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_completion_read_first),
		cmocka_unit_test(test_reused_out_of_order),
		cmocka_unit_test(test_begun_before),
		cmocka_unit_test(test_lost_completion),
		cmocka_unit_test(test_patience),
		cmocka_unit_test(test_forgets_completed),
		cmocka_unit_test(test_reuse_after_lost),
		cmocka_unit_test(test_slow_io_confirmed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
