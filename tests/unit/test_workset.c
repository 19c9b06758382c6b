// SPDX-License-Identifier: BSD-3-Clause
/* Workset: distinct sectors touched, against a bitmap, through many merges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "workset.h"

static void test_overlaps(void **state)
{
	struct workset w = { 0 };

	workset__add(&w, 0, 8);
	workset__add(&w, 8, 8);		/* continues */
	workset__add(&w, 4, 8);		/* inside */
	workset__add(&w, 100, 0);	/* empty: nothing */
	workset__add(&w, 200, 10);
	workset__add(&w, 195, 10);	/* overlaps the front */
	assert_int_equal(workset__sectors(&w), 16 + 15);
	workset__add(&w, 0, 300);	/* covers all */
	assert_int_equal(workset__sectors(&w), 300);
	workset__free(&w);
}

static void test_random_against_bitmap(void **state)
{
	static uint8_t bits[1 << 17];
	struct workset w = { 0 };
	uint64_t want = 0, i;
	int n;

	memset(bits, 0, sizeof(bits));
	srand(3);
	for (n = 0; n < 30000; n++) {
		uint64_t lba = (uint64_t)rand() % ((1 << 17) - 300), len = (uint64_t)rand() % 256;

		workset__add(&w, lba, len);
		for (i = lba; i < lba + len; i++)
			bits[i] = 1;
		if (n % 7000 == 0) {
			uint64_t got = workset__sectors(&w), sum = 0;

			for (i = 0; i < sizeof(bits); i++)
				sum += bits[i];
			assert_true(got == sum);
		}
	}
	for (i = 0; i < sizeof(bits); i++)
		want += bits[i];
	assert_true(workset__sectors(&w) == want);
	workset__free(&w);
}

static int by_start(const void *a, const void *b)
{
	const struct ws_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sectors in the union of r[0..n), the plain way: sorted by qsort(), then one sweep. */
static uint64_t union_sectors(struct ws_range *r, size_t n)
{
	uint64_t total = 0, end = 0;
	size_t i;

	qsort(r, n, sizeof(*r), by_start);
	for (i = 0; i < n; i++) {
		uint64_t from = r[i].start > end ? r[i].start : end;

		if (r[i].end > from)
			total += r[i].end - from;
		if (r[i].end > end)
			end = r[i].end;
	}
	return total;
}

/*
 * LBAs of a large device, whose starts differ in some bytes and agree in
 * others (the sort skips those), in every byte, and the last sectors of
 * the address space: the union against a plain sort and sweep.
 */
static void test_large_lbas(void **state)
{
	static const uint64_t spread[] = { 0xff00ffull, 0xffffffffffull, UINT64_MAX };
	static struct ws_range all[20000];
	size_t s, n;

	srand(11);
	for (s = 0; s < sizeof(spread) / sizeof(spread[0]); s++) {
		struct workset w = { 0 };
		uint64_t base = s < 2 ? 0x123400000000ull : 0;

		for (n = 0; n < sizeof(all) / sizeof(all[0]); n++) {
			uint64_t r = (uint64_t)rand() << 40 ^ (uint64_t)rand() << 20 ^ (uint64_t)rand();
			uint64_t lba = base + (r & spread[s]), len = 1 + (uint64_t)rand() % 64;

			if (lba + len < lba)
				lba = UINT64_MAX - len;
			workset__add(&w, lba, len);
			all[n] = (struct ws_range){ lba, lba + len };
		}
		assert_true(workset__sectors(&w) == union_sectors(all, n));
		for (n = 1; n < w.nmerged; n++)
			assert_true(w.merged[n].start > w.merged[n - 1].end);
		workset__free(&w);
	}
}

/*
 * The top of the address space: a range that reaches sector 2^64 - 1
 * counts it, and one past it is cut there, not wrapped (a write of 8 at
 * 2^64 - 4 touches 4 sectors); merged worksets keep it.
 */
static void test_top_sector(void **state)
{
	struct workset w = { 0 }, v = { 0 };

	workset__add(&w, UINT64_MAX - 3, 8);
	assert_true(workset__sectors(&w) == 4);
	workset__add(&w, UINT64_MAX - 3, 8);
	workset__add(&w, UINT64_MAX - 1, 100);
	workset__add(&w, UINT64_MAX, 1);
	assert_true(workset__sectors(&w) == 4);
	workset__free(&w);

	workset__add(&w, UINT64_MAX - 3, 3);	/* up to, not including, the last */
	assert_true(workset__sectors(&w) == 3);
	workset__add(&w, UINT64_MAX - 3, 4);	/* ends exactly at 2^64 */
	assert_true(workset__sectors(&w) == 4);
	workset__free(&w);

	workset__add(&w, UINT64_MAX, 5);
	workset__add(&v, UINT64_MAX - 10, 5);
	workset__merge(&v, &w);
	assert_true(workset__sectors(&v) == 6);
	workset__free(&v);
	workset__free(&w);

	/* all 2^64 sectors: one more than 64 bits count */
	workset__add(&w, 0, UINT64_MAX);
	workset__add(&w, 1, UINT64_MAX);
	assert_true(workset__sectors(&w) == UINT64_MAX);
	workset__free(&w);
}

/*
 * Worksets merged (as a split run's halves and the totals are), each
 * settled or not, sorted ranges or still buffered: the union, against a
 * bitmap; the merged ranges stay sorted, disjoint and apart.
 */
static void test_merge_settled(void **state)
{
	static uint8_t bits[1 << 16];
	uint64_t want = 0, i;
	int round, n, k;

	srand(5);
	for (round = 0; round < 8; round++) {
		struct workset w[3] = { { 0 } };

		memset(bits, 0, sizeof(bits));
		for (k = 0; k < 3; k++) {
			for (n = 0; n < 5000 + 1000 * round; n++) {
				uint64_t lba = (uint64_t)rand() % ((1 << 16) - 300);
				uint64_t len = (uint64_t)rand() % 64;

				workset__add(&w[k], lba, len);
				for (i = lba; i < lba + len; i++)
					bits[i] = 1;
			}
			if ((round >> k) & 1)
				workset__settle(&w[k]);
		}
		workset__merge(&w[0], &w[1]);
		workset__merge(&w[2], &w[0]);
		for (want = 0, i = 0; i < sizeof(bits); i++)
			want += bits[i];
		assert_true(workset__sectors(&w[2]) == want);
		assert_int_equal(w[2].nbuf, 0);
		for (i = 1; i < w[2].nmerged; i++)
			assert_true(w[2].merged[i].start > w[2].merged[i - 1].end);
		for (k = 0; k < 3; k++)
			workset__free(&w[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlaps),
		cmocka_unit_test(test_random_against_bitmap),
		cmocka_unit_test(test_large_lbas),
		cmocka_unit_test(test_top_sector),
		cmocka_unit_test(test_merge_settled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
