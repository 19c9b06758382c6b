// SPDX-License-Identifier: BSD-3-Clause
/*
 * LRU stack distances: hand-worked sequences, then long random ones
 * (through many renumberings, with blocks forgotten) against an LRU
 * stack kept as a plain list, the textbook way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "reuse.h"
#include "xorshift.h"

static uint64_t access_one(struct reuse *r, uint64_t block)
{
	uint64_t d = 99;

	assert_int_equal(reuse__access(r, block, &d), 0);
	return d;
}

static void test_hand(void **state)
{
	struct reuse r;

	memset(&r, 0, sizeof(r));
	/* a b c a a c b d a: cold, cold, cold, 3, 1, 2, 3, cold, 4 */
	assert_int_equal(access_one(&r, 10), 0);
	assert_int_equal(access_one(&r, 11), 0);
	assert_int_equal(access_one(&r, 12), 0);
	assert_int_equal(access_one(&r, 10), 3);
	assert_int_equal(access_one(&r, 10), 1);
	assert_int_equal(access_one(&r, 12), 2);
	assert_int_equal(access_one(&r, 11), 3);
	assert_int_equal(access_one(&r, 13), 0);
	assert_int_equal(access_one(&r, 10), 4);
	/* block 0 is a block like any */
	assert_int_equal(access_one(&r, 0), 0);
	assert_int_equal(access_one(&r, 0), 1);
	/*
	 * forgotten: a hole in its place. Stack 0 10 13 11 12; 12 leaves:
	 * 0 10 13 11 _; 11 comes up: 11 0 10 13 _ (distance 4, the hole
	 * below stays); 12 again: cold, it fills the hole: 12 11 0 10 13
	 */
	assert_int_equal(reuse__forget(&r, 12), 0);
	assert_int_equal(reuse__forget(&r, 12), 0);
	assert_int_equal(reuse__depth(&r), 5);
	assert_int_equal(access_one(&r, 11), 4);
	assert_int_equal(reuse__depth(&r), 5);
	assert_int_equal(access_one(&r, 12), 0);
	assert_int_equal(reuse__depth(&r), 5);
	assert_int_equal(access_one(&r, 13), 5);
	/*
	 * 13 12 11 0 10; 12 leaves: 13 _ 11 0 10; 0 comes up, 13 down into
	 * the hole, 0's place the hole: 0 13 11 _ 10; 10 comes up: 10 0 13 11 _
	 */
	assert_int_equal(reuse__forget(&r, 12), 0);
	assert_int_equal(access_one(&r, 0), 4);
	assert_int_equal(reuse__depth(&r), 5);
	assert_int_equal(access_one(&r, 10), 5);
	assert_int_equal(access_one(&r, 11), 4);
	assert_int_equal(access_one(&r, 12), 0);
	assert_int_equal(reuse__depth(&r), 5);
	reuse__free(&r);
	assert_int_equal(access_one(&r, 10), 0);
	reuse__free(&r);
}

/* An LRU cache as the textbook has it: its blocks, most recent first. */
struct cache {
	uint64_t b[64];
	size_t n, size;
};

static bool cache_access(struct cache *c, uint64_t block)
{
	size_t i;
	bool hit;

	for (i = 0; i < c->n && c->b[i] != block; i++)
		;
	hit = i < c->n;
	if (!hit && c->n < c->size)
		c->n++;
	else if (!hit)
		i = c->n - 1; /* the least recent goes */
	memmove(c->b + 1, c->b, i * sizeof(*c->b));
	c->b[0] = block;
	return hit;
}

/* A discard: the blocks leave, their slots are free. */
static void cache_forget(struct cache *c, uint64_t first, uint64_t last)
{
	size_t i, k = 0;

	for (i = 0; i < c->n; i++)
		if (c->b[i] < first || c->b[i] > last)
			c->b[k++] = c->b[i];
	c->n = k;
}

/*
 * Random accesses, and discards, against LRU caches of 1 to 64 blocks:
 * an access hits in each exactly when its distance is at most its size.
 */
static void test_random(void **state)
{
	static const uint64_t spans[] = { 8, 48, 300, 3000 };
	static const size_t sizes[] = { 1, 2, 3, 7, 16, 40, 64 };
	struct cache c[sizeof(sizes) / sizeof(sizes[0])];
	uint64_t seed = 42, d, first, last, far;
	struct reuse r;
	size_t k, i, m;

	for (k = 0; k < sizeof(spans) / sizeof(spans[0]); k++) {
		memset(&r, 0, sizeof(r));
		memset(c, 0, sizeof(c));
		for (m = 0; m < sizeof(sizes) / sizeof(sizes[0]); m++)
			c[m].size = sizes[m];
		far = 0;
		for (i = 0; i < 60000; i++) {
			uint64_t x = xorshift64(&seed), block = x % spans[k];

			/* one in 200 a discard: of 4 blocks, or of nearly all there are */
			if ((x >> 20) % 200 == 0) {
				bool all = (x >> 40) % 8 == 0;

				first = all ? 1 : block;
				last = all ? UINT64_MAX - 1 : block + 3;
				assert_int_equal(reuse__forget_range(&r, first, last), 0);
				for (m = 0; m < sizeof(sizes) / sizeof(sizes[0]); m++)
					cache_forget(&c[m], first, last);
				continue;
			}
			assert_int_equal(reuse__access(&r, block, &d), 0);
			far = d > far ? d : far;
			for (m = 0; m < sizeof(sizes) / sizeof(sizes[0]); m++)
				if (cache_access(&c[m], block) != (d && d <= sizes[m]))
					fail_msg("span %llu, access %zu of block %llu: distance %llu, "
						 "but a cache of %zu %s", (unsigned long long)spans[k], i,
						 (unsigned long long)block, (unsigned long long)d, sizes[m],
						 d && d <= sizes[m] ? "missed" : "hit");
		}
		/* the distances reached past the caches, through many renumberings */
		assert_true(far > 64 || spans[k] < 64);
		assert_true(r.cap <= 2 * reuse__depth(&r) + 1024);
		reuse__free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
