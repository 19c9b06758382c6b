// SPDX-License-Identifier: BSD-3-Clause
/*
 * A time window's early end: when the join says no I/O submitted in the
 * window still waits (join__settled_before()), what join__finish_before()
 * hands out and counts, and when window_end__reached() lets the reading
 * stop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "join.h"
#include "join_events.h"
#include "window_end.h"

#define MAX_RECS (JOIN_QUEUE_LIMIT + 64)
#define SEC 1000000000ull

static struct io_rec *recs;
static size_t nrecs;

static void collect(void *ctx, const struct io_rec *r)
{
	assert_true(nrecs < MAX_RECS);
	recs[nrecs++] = *r;
}

static int setup(void **state)
{
	recs = calloc(MAX_RECS, sizeof(*recs));
	nrecs = 0;
	next_sid = 1;
	return recs ? 0 : -1;
}

static int teardown(void **state)
{
	free(recs);
	return 0;
}

/* times count from 0: a record's time is its ts */
static struct join *new_join(void)
{
	struct join_sink sink = { collect, NULL };
	struct join *j = join__new(0, &sink);

	assert_non_null(j);
	join__set_first_ts(j, 0);
	return j;
}

/* An I/O in the window holds the end until its completion, however late. */
static void test_waits_for_window_io(void **state)
{
	struct join *j = new_join();

	io(j, 100, 1, DEV_A, 0, 8, W);
	io(j, 2000, 2, DEV_A, 8, 8, W);
	done(j, 2100, 2, false);
	assert_false(join__settled_before(j, 1000));
	done(j, 50000, 1, false);
	assert_true(join__settled_before(j, 1000));
	assert_int_equal(join__finish_before(j, 1000), 0);
	assert_int_equal(nrecs, 2);
	assert_int_equal(recs[0].id, 1);
	assert_int_equal(recs[0].latency, 49900);
	join__free(j);
}

/*
 * What is still in flight from the window's end on is dropped, not
 * counted as never completed (join__finish() would); a record of the
 * window that completed behind it (an earlier clock on a later sid) is
 * handed out.
 */
static void test_drops_what_follows(void **state)
{
	struct join *j = new_join();

	io(j, 1500, 5, DEV_A, 0, 8, W);
	io(j, 900, 6, DEV_A, 8, 8, W);
	done(j, 950, 6, false);
	assert_int_equal(nrecs, 0);
	assert_int_equal(join__held(j), 2);
	assert_true(join__settled_before(j, 1000));
	assert_false(join__settled_before(j, 1501));
	assert_int_equal(join__finish_before(j, 1000), 0);
	assert_int_equal(nrecs, 1);
	assert_int_equal(recs[0].id, 6);
	assert_int_equal(recs[0].state, IO_COMPLETED);
	assert_int_equal(recs[0].latency, 50);
	assert_int_equal(join__counts(j)->not_completed, 0);
	join__free(j);
}

/* An I/O whose id came again is done with: it does not hold the end, and counts as before. */
static void test_reused_id_settled(void **state)
{
	struct join *j = new_join();

	io(j, 10, 7, DEV_A, 0, 8, W);
	io(j, 20, 7, DEV_A, 8, 8, W);
	done(j, 30, 7, false);
	assert_true(join__settled_before(j, 1000));
	assert_int_equal(join__finish_before(j, 1000), 0);
	assert_int_equal(nrecs, 2);
	assert_int_equal(recs[0].ts, 20);
	assert_int_equal(recs[1].ts, 10);
	assert_int_equal(recs[1].state, IO_NOT_COMPLETED);
	assert_int_equal(join__counts(j)->not_completed, 1);
	assert_int_equal(join__counts(j)->lost_by_reuse, 1);
	join__free(j);
}

/*
 * Moved to the end list by the queue limit, an I/O of the window still
 * waits (it may complete late, and does); one from after the window is
 * dropped there.
 */
static void test_end_list(void **state)
{
	struct join *j = new_join();
	uint64_t i, n = JOIN_QUEUE_LIMIT + 10;

	io(j, 10, 0x5000000, DEV_A, 0, 8, W);
	io(j, 1200, 0x6000000, DEV_A, 8, 8, W);
	for (i = 1; i <= n; i++) {
		io(j, 2000 + i, i, DEV_A, 16 + i * 8, 8, W);
		done(j, 2001 + i, i, false);
	}
	/* both went to the end list; the ring is empty */
	assert_int_equal(join__held(j), 2);
	assert_false(join__settled_before(j, 1000));
	assert_true(join__settled_before(j, 10));
	done(j, 3000 + n, 0x5000000, false);
	assert_true(join__settled_before(j, 1000));
	assert_false(join__settled_before(j, 1201));
	assert_int_equal(join__finish_before(j, 1000), 0);
	assert_int_equal(nrecs, n + 1);
	assert_int_equal(recs[n].id, 0x5000000);
	assert_int_equal(recs[n].state, IO_COMPLETED);
	assert_int_equal(recs[n].latency, 2990 + n);
	assert_int_equal(join__counts(j)->not_completed, 0);
	join__free(j);
}

/*
 * The reading stops at the first look past the grace that finds the
 * window settled; after a look that did not, the next comes as many
 * events later as the join held records.
 */
static void test_reached(void **state)
{
	struct join *j = new_join();
	struct window_end w;
	struct event ev = { .type = EV_IO };

	window_end__init(&w, 1 * SEC);
	io(j, SEC / 2, 1, DEV_A, 0, 8, W);
	ev.ts = SEC / 2;
	assert_false(window_end__reached(&w, j, &ev));
	/* past the window, within the grace: no look */
	io(j, 5 * SEC, 2, DEV_A, 8, 8, W);
	done(j, 5 * SEC + 1, 2, false);
	ev.ts = 5 * SEC + 1;
	assert_false(window_end__reached(&w, j, &ev));
	/* past the grace: I/O 1 still waits, with 2 and 3 behind it */
	io(j, 12 * SEC, 3, DEV_A, 16, 8, W);
	ev.ts = 12 * SEC;
	assert_false(window_end__reached(&w, j, &ev));
	assert_int_equal(w.countdown, 3);
	done(j, 12 * SEC + 5, 3, false);
	ev.ts = 12 * SEC + 5;
	assert_false(window_end__reached(&w, j, &ev));
	done(j, 13 * SEC, 1, false);
	ev.ts = 13 * SEC;
	assert_false(window_end__reached(&w, j, &ev));
	io(j, 14 * SEC, 4, DEV_A, 24, 8, W);
	ev.ts = 14 * SEC;
	assert_false(window_end__reached(&w, j, &ev));
	assert_false(w.stopped);
	io(j, 15 * SEC, 5, DEV_A, 32, 8, W);
	ev.ts = 15 * SEC;
	assert_true(window_end__reached(&w, j, &ev));
	assert_true(w.stopped);
	assert_int_equal(w.stopped_at, 15 * SEC);
	assert_int_equal(join__finish_before(j, w.to), 0);
	assert_int_equal(nrecs, 3);
	assert_int_equal(recs[0].latency, 13 * SEC - SEC / 2);
	join__free(j);
}

/* No end (no --to, or --devices): never stops; nor before the first event's time. */
static void test_no_end(void **state)
{
	struct join *j = new_join();
	struct window_end w;
	struct event ev = { .type = EV_IO, .ts = UINT64_MAX };

	window_end__init(&w, UINT64_MAX);
	assert_false(window_end__reached(&w, j, &ev));
	window_end__init(&w, UINT64_MAX - 1);
	assert_int_equal(w.until, UINT64_MAX);
	assert_false(window_end__reached(&w, j, &ev));
	join__set_first_ts(j, 100 * SEC);
	window_end__init(&w, 0);
	ev.ts = 50 * SEC;
	assert_false(window_end__reached(&w, j, &ev));
	ev.ts = 111 * SEC;
	assert_true(window_end__reached(&w, j, &ev));
	assert_int_equal(w.stopped_at, 11 * SEC);
	join__free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_waits_for_window_io, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drops_what_follows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reused_id_settled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_end, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
