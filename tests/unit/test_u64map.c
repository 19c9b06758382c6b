// SPDX-License-Identifier: BSD-3-Clause
/*
 * The in-flight map: every operation, u64map__ref()'s read-modify-write
 * among them, against a plain reference table, over random keys that
 * collide in their home slots, key 0 included, and through growth and
 * backward-shift deletion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "u64map.h"

#define KEYS 3000

static void test_against_reference(void **state)
{
	static uint64_t keys[KEYS], vals[KEYS];
	static bool present[KEYS];
	struct u64map m = { 0 };
	size_t i, n, live = 0, pos = 0, seen = 0;
	uint64_t k, v;

	srand(1);
	for (i = 0; i < KEYS; i++) {
		/* bio-like addresses: aligned, clustered; and key 0 */
		keys[i] = i ? 0xffff888000000000ull + ((uint64_t)(rand() % 50000) << 8) : 0;
		present[i] = false;
	}
	for (n = 0; n < 200000; n++) {
		size_t x = (size_t)rand() % KEYS;
		size_t y;
		int op = rand() % 5;

		/* duplicates among keys[] behave as one key: use the first index */
		for (y = 0; keys[y] != keys[x]; y++)
			;
		x = y;
		switch (op) {
		case 0: {
			uint64_t old = 0;
			int r = u64map__swap(&m, keys[x], n, &old);

			assert_int_equal(r, present[x]);
			if (present[x])
				assert_true(old == vals[x]);
			else
				live++;
			present[x] = true;
			vals[x] = n;
			break;
		}
		case 1:
			assert_int_equal(u64map__get(&m, keys[x], &v), present[x]);
			if (present[x])
				assert_true(v == vals[x]);
			break;
		case 2:
			assert_int_equal(u64map__take(&m, keys[x], &v), present[x]);
			if (present[x]) {
				assert_true(v == vals[x]);
				live--;
			}
			present[x] = false;
			break;
		case 3: {
			bool created;
			uint64_t *r = u64map__ref(&m, keys[x], &created);

			assert_non_null(r);
			assert_int_equal(created, !present[x]);
			assert_true(*r == (present[x] ? vals[x] : 0));
			*r += n;
			if (!present[x])
				live++;
			vals[x] = *r;
			present[x] = true;
			break;
		}
		default:
			assert_int_equal(u64map__del(&m, keys[x]), present[x]);
			if (present[x])
				live--;
			present[x] = false;
			break;
		}
		assert_int_equal(u64map__count(&m), live);
	}
	while (u64map__next(&m, &pos, &k, &v)) {
		for (i = 0; keys[i] != k; i++)
			;
		assert_true(present[i]);
		assert_true(vals[i] == v);
		seen++;
	}
	assert_int_equal(seen, live);
	assert_int_equal(u64map__put(&m, 5, 6), 0);
	assert_true(u64map__get(&m, 5, &v) && v == 6);
	u64map__free(&m);
	assert_false(u64map__get(&m, 5, &v));
	assert_int_equal(u64map__count(&m), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
