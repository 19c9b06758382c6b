// SPDX-License-Identifier: BSD-3-Clause
/*
 * decimal.h against snprintf: every number below ten million, the
 * powers of ten and their neighbours, the edges of 32 and 64 bits (where
 * decimal_u64() changes from 64-bit to 32-bit divisions), and a million
 * pseudo-random ones of every length.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "decimal.h"
#include "xorshift.h"

static void check(uint64_t v)
{
	char want[32], back[4 + DECIMAL_MAX], *start;
	int n = snprintf(want, sizeof(want), "%" PRIu64, v);

	memset(back, '#', sizeof(back));
	start = decimal_u64(back + sizeof(back), v);
	if (back + sizeof(back) - start != n || memcmp(start, want, (size_t)n) ||
	    memcmp(back, "####", 4)) {
		print_error("decimal_u64(%s) gave \"%.*s\"\n", want,
			    (int)(back + sizeof(back) - start), start);
		fail();
	}
	if ((int)decimal_len(v) != n) {
		print_error("decimal_len(%s) = %u\n", want, decimal_len(v));
		fail();
	}
}

static void test_small(void **state)
{
	uint64_t v;

	for (v = 0; v < 10000000; v++)
		check(v);
}

static void test_edges(void **state)
{
	uint64_t p = 1;
	int i;

	for (i = 0; i < 20; i++, p *= 10) {
		check(p - 1);
		check(p);
		check(p + 1);
	}
	check(UINT32_MAX - 1);
	check(UINT32_MAX);
	check((uint64_t)UINT32_MAX + 1);
	check(UINT64_MAX - 1);
	check(UINT64_MAX);
	check(99999999);
	check(100000000);
	check(9999999999999999ull);
	check(10000000000000000ull);
}

static void test_random(void **state)
{
	uint64_t s = 0x2545f4914f6cdd1dull;
	int i;

	/* every length: the random bits cut to 1..64 */
	for (i = 0; i < 1000000; i++) {
		uint64_t v = xorshift64(&s);

		check(v >> (i % 64));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
