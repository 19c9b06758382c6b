// SPDX-License-Identifier: BSD-3-Clause
/*
 * Distributions: min, max, average, and percentiles by count (nearest
 * rank), exact below 128 and where a bucket's values are all the same,
 * within 0.8% otherwise.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "dist.h"

/* 1..100: p50 is 50, p90 90, p99 99, p99.9 and p99.99 100 */
static void test_small_exact(void **state)
{
	struct dist d = { .percentiles = true };
	uint64_t v;

	for (v = 100; v >= 1; v--)
		dist__add(&d, v);
	assert_int_equal(d.count, 100);
	assert_int_equal(d.min, 1);
	assert_int_equal(d.max, 100);
	assert_true(fabs(dist__avg(&d) - 50.5) < 1e-9);
	assert_int_equal(dist__percentile(&d, 50), 50);
	assert_int_equal(dist__percentile(&d, 90), 90);
	assert_int_equal(dist__percentile(&d, 99), 99);
	assert_int_equal(dist__percentile(&d, 99.9), 100);
	assert_int_equal(dist__percentile(&d, 99.99), 100);
	dist__free(&d);
}

/*
 * By count, not by value: 990 I/Os at 1 us and 10 at 10 ms. OCTF's
 * value-weighted p90 would be near 10 ms; 90% of I/Os took 1 us.
 */
static void test_by_count(void **state)
{
	struct dist d = { .percentiles = true };
	int i;

	for (i = 0; i < 990; i++)
		dist__add(&d, 1000);
	for (i = 0; i < 10; i++)
		dist__add(&d, 10000000);
	assert_int_equal(dist__percentile(&d, 50), 1000);
	assert_int_equal(dist__percentile(&d, 99), 1000);
	assert_int_equal(dist__percentile(&d, 99.9), 10000000);
	dist__free(&d);
}

/* Large values: one value in a bucket is exact, two within the bucket. */
static void test_large(void **state)
{
	struct dist d = { .percentiles = true };
	uint64_t v = 83797, p;

	dist__add(&d, 1ull << 40);
	assert_true(dist__percentile(&d, 50) == 1ull << 40);
	dist__free(&d);
	d = (struct dist){ .percentiles = true };
	dist__add(&d, v);
	dist__add(&d, v + 1);
	dist__add(&d, UINT64_MAX);
	p = dist__percentile(&d, 50);
	assert_true(p == v || p == v + 1);
	assert_true(dist__percentile(&d, 10) == v);
	assert_true(dist__percentile(&d, 100) <= UINT64_MAX);
	dist__free(&d);
}

/*
 * A value repeated is exact only alone in its bucket: 1000 twice shares
 * [1000, 1003] with 1003, and p50 (1000) comes out as the bucket's
 * average, 1001, within 0.8%; alone, 1000 is exact.
 */
static void test_bucket_average(void **state)
{
	struct dist d = { .percentiles = true };

	dist__add(&d, 1000);
	dist__add(&d, 1000);
	dist__add(&d, 1003);
	dist__add(&d, 1003);
	assert_int_equal(dist__percentile(&d, 50), 1001);
	dist__free(&d);
	d = (struct dist){ .percentiles = true };
	dist__add(&d, 1000);
	dist__add(&d, 1000);
	dist__add(&d, 1004);
	dist__add(&d, 1004);
	assert_int_equal(dist__percentile(&d, 50), 1000);
	dist__free(&d);
}

static void test_empty_and_plain(void **state)
{
	struct dist d = { .percentiles = false };

	assert_int_equal(dist__percentile(&d, 50), 0);
	assert_false(dist__has_percentiles(&d));
	dist__add(&d, 5);
	dist__add(&d, 7);
	assert_false(dist__has_percentiles(&d));
	assert_int_equal(d.sum, 12);
	dist__free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_exact),
		cmocka_unit_test(test_by_count),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_bucket_average),
		cmocka_unit_test(test_empty_and_plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
