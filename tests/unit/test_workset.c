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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlaps),
		cmocka_unit_test(test_random_against_bitmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
