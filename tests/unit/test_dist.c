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
 * Past DIST_FEW values, a value repeated is exact only alone in its
 * bucket: 1000 shares [1000, 1003] with 1003, and p50 (1000) comes out as
 * the bucket's average, 1001, within 0.8%; alone, 1000 is exact.
 */
static void test_bucket_average(void **state)
{
	struct dist d = { .percentiles = true };
	int i;

	for (i = 0; i < 4; i++) {
		dist__add(&d, 1000);
		dist__add(&d, 1003);
	}
	assert_int_equal(dist__percentile(&d, 50), 1001);
	dist__free(&d);
	d = (struct dist){ .percentiles = true };
	for (i = 0; i < 4; i++) {
		dist__add(&d, 1000);
		dist__add(&d, 1004);
	}
	assert_int_equal(dist__percentile(&d, 50), 1000);
	dist__free(&d);
}

/* Up to DIST_FEW values, percentiles are exact, in any bucket, with no histogram. */
static void test_few_exact(void **state)
{
	struct dist d = { .percentiles = true };
	const uint64_t v[DIST_FEW] = { 1003, 83797, 1000, 1003, 1000, 1ull << 40 };
	int i;

	for (i = 0; i < DIST_FEW; i++)
		dist__add(&d, v[i]);
	assert_null(d.oct);
	assert_int_equal(dist__percentile(&d, 1), 1000);
	assert_int_equal(dist__percentile(&d, 34), 1003);
	assert_int_equal(dist__percentile(&d, 50), 1003);
	assert_int_equal(dist__percentile(&d, 67), 83797);
	assert_int_equal(dist__percentile(&d, 100), 1ull << 40);
	/* one more, and they are all in the histogram */
	dist__add(&d, 1001);
	assert_non_null(d.oct);
	assert_int_equal(d.count, DIST_FEW + 1);
	assert_int_equal(dist__percentile(&d, 100), 1ull << 40);
	assert_int_equal(dist__percentile(&d, 1), 1001);
	dist__free(&d);
	assert_null(d.oct);
}

/* dst gets the values of src as if added one by one, whichever of them is few or many. */
static void merged(int n_dst, int n_src, uint64_t step)
{
	struct dist dst = { .percentiles = true }, src = { .percentiles = true };
	struct dist all = { .percentiles = true };
	const double ps[] = { 1, 10, 50, 90, 99, 100 };
	uint64_t v;
	size_t i;
	int k;

	for (k = 0; k < n_dst; k++) {
		v = 100 + (uint64_t)k * step;
		dist__add(&dst, v);
		dist__add(&all, v);
	}
	for (k = 0; k < n_src; k++) {
		v = 50 + (uint64_t)k * step * 3;
		dist__add(&src, v);
		dist__add(&all, v);
	}
	dist__merge(&dst, &src);
	assert_int_equal(dst.count, all.count);
	assert_int_equal(dst.sum, all.sum);
	assert_int_equal(dst.min, all.min);
	assert_int_equal(dst.max, all.max);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		assert_int_equal(dist__percentile(&dst, ps[i]), dist__percentile(&all, ps[i]));
	dist__free(&dst);
	dist__free(&src);
	dist__free(&all);
}

static void test_merge(void **state)
{
	merged(2, 3, 1000);	/* few and few: still few, exact */
	merged(4, 4, 1000);	/* few and few: past DIST_FEW together */
	merged(3, 50, 7);	/* few and a histogram */
	merged(50, 3, 7);	/* a histogram and few */
	merged(40, 60, 13);	/* two histograms */
	merged(0, 2, 5);	/* into an empty one */
	merged(2, 0, 5);	/* of an empty one */
}

/* A src without percentiles turns them off in dst; a dst without them only counts. */
static void test_merge_without_percentiles(void **state)
{
	struct dist dst = { .percentiles = true }, src = { .percentiles = false };

	dist__add(&dst, 5);
	dist__add(&src, 7);
	dist__merge(&dst, &src);
	assert_int_equal(dst.count, 2);
	assert_false(dist__has_percentiles(&dst));
	dist__free(&dst);
	dst = (struct dist){ .percentiles = false };
	src = (struct dist){ .percentiles = true };
	dist__add(&src, 9);
	dist__merge(&dst, &src);
	assert_int_equal(dst.count, 1);
	assert_int_equal(dst.max, 9);
	assert_false(dist__has_percentiles(&dst));
	dist__free(&dst);
	dist__free(&src);
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
		cmocka_unit_test(test_few_exact),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_without_percentiles),
		cmocka_unit_test(test_empty_and_plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
