// SPDX-License-Identifier: BSD-3-Clause
/* --access-pattern's judgement of one I/O: sequential (the stream table), aligned. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pattern.h"

static void test_one_stream(void **state)
{
	struct pattern_streams s = { 0 };

	(void)state;
	/* the first I/O begins a stream, at LBA 0 too */
	assert_false(pattern__sequential(&s, 0, 8));
	assert_true(pattern__sequential(&s, 8, 8));
	assert_true(pattern__sequential(&s, 16, 1));
	/* a gap, an overlap, the same range again: none continues it */
	assert_false(pattern__sequential(&s, 100, 8));
	assert_false(pattern__sequential(&s, 10, 8));
	assert_false(pattern__sequential(&s, 100, 8));
	/* the first stream is still there */
	assert_true(pattern__sequential(&s, 17, 8));
}

static void test_interleaved(void **state)
{
	struct pattern_streams s = { 0 };
	unsigned int i, k, seq = 0;

	(void)state;
	/* four files written side by side, 64 KiB at a time */
	for (i = 0; i < 10; i++)
		for (k = 0; k < 4; k++)
			seq += pattern__sequential(&s, 100000 * k + 128 * i, 128);
	assert_int_equal(seq, 40 - 4);
}

static void test_least_recent_gives_way(void **state)
{
	struct pattern_streams s = { 0 };
	unsigned int i;

	(void)state;
	/* stream A, then as many one-off I/Os as the table holds but one */
	assert_false(pattern__sequential(&s, 0, 8));
	for (i = 1; i < PATTERN_STREAMS; i++)
		assert_false(pattern__sequential(&s, 1000 * i, 8));
	/* A goes on: the one-off begun first is now the least recent */
	assert_true(pattern__sequential(&s, 8, 8));
	assert_false(pattern__sequential(&s, 500000, 8));
	assert_false(pattern__sequential(&s, 1008, 8));
	assert_true(pattern__sequential(&s, 16, 8));
	/* a full table of new streams pushes A out */
	for (i = 0; i < PATTERN_STREAMS; i++)
		assert_false(pattern__sequential(&s, 900000 + 1000 * i, 8));
	assert_false(pattern__sequential(&s, 24, 8));
}

static unsigned int streams(const struct pattern_streams *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < PATTERN_STREAMS; i++)
		n += s->end[i] != 0;
	return n;
}

static void test_same_range(void **state)
{
	struct pattern_streams s = { 0 };

	(void)state;
	/* the same block again is no second stream, and no sequential I/O */
	assert_false(pattern__sequential(&s, 0, 8));
	assert_false(pattern__sequential(&s, 0, 8));
	assert_int_equal(streams(&s), 1);
	assert_true(pattern__sequential(&s, 8, 8));
	assert_false(pattern__sequential(&s, 8, 8));
	assert_true(pattern__sequential(&s, 16, 8));
	assert_int_equal(streams(&s), 1);
	/* a stream that runs into another's end: the two go on as one */
	assert_false(pattern__sequential(&s, 50, 8));
	assert_false(pattern__sequential(&s, 42, 8));
	assert_int_equal(streams(&s), 3);
	assert_true(pattern__sequential(&s, 50, 8));
	assert_int_equal(streams(&s), 2);
	assert_true(pattern__sequential(&s, 58, 8));
	assert_false(pattern__sequential(&s, 58, 8));
}

static void test_edges(void **state)
{
	struct pattern_streams s = { 0 };

	(void)state;
	/* an empty I/O continues nothing and begins nothing */
	assert_false(pattern__sequential(&s, 8, 0));
	assert_false(pattern__sequential(&s, 8, 8));
	assert_false(pattern__sequential(&s, 16, 0));
	assert_true(pattern__sequential(&s, 16, 8));
	/* a range past the last sector (a crafted trace) is kept out */
	assert_false(pattern__sequential(&s, UINT64_MAX - 3, 8));
	assert_false(pattern__sequential(&s, 4, 8));
	/* one ending at the last sector still counts */
	assert_false(pattern__sequential(&s, UINT64_MAX - 16, 8));
	assert_true(pattern__sequential(&s, UINT64_MAX - 8, 8));
}

static void test_aligned(void **state)
{
	(void)state;
	assert_true(pattern__aligned(0, 8));
	assert_true(pattern__aligned(2048, 256));
	assert_false(pattern__aligned(1, 8));
	assert_false(pattern__aligned(8, 1));
	assert_false(pattern__aligned(8, 12));
	assert_false(pattern__aligned(4, 4));
	/* a flush-like empty range at 0 is aligned: nothing sticks out */
	assert_true(pattern__aligned(0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_stream),
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_least_recent_gives_way),
		cmocka_unit_test(test_same_range),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_aligned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
