// SPDX-License-Identifier: BSD-3-Clause
/* When the collector reads the mount table again after a change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "mount_gate.h"

#define MS 1000000ull

/* The first change is looked at at once; no change, no look, whatever the time. */
static void test_first_change(void **state)
{
	struct mount_gate g = {};

	assert_false(mount_gate__due(&g, 5 * MS));
	assert_int_equal(mount_gate__timeout_ms(&g, 5 * MS, 100), 100);
	g.changed = true;
	assert_true(mount_gate__due(&g, 5 * MS));
	assert_int_equal(mount_gate__timeout_ms(&g, 5 * MS, 100), 0);
}

/*
 * A look of 2 ms at 10 ms: the next is due 42 ms later (2 + 20 x 2);
 * a change before waits, with the poll's timeout shortened to end then,
 * and is looked at once due: the last change of a storm is not lost.
 */
static void test_storm(void **state)
{
	struct mount_gate g = { .changed = true };

	mount_gate__looked(&g, 10 * MS, 2 * MS);
	assert_false(g.changed);
	assert_false(mount_gate__due(&g, 11 * MS));
	g.changed = true;
	assert_false(mount_gate__due(&g, 20 * MS));
	assert_false(mount_gate__due(&g, 52 * MS - 1));
	assert_int_equal(mount_gate__timeout_ms(&g, 20 * MS, 100), 32);
	/* rounded up: woken a fraction early, the wait would spin */
	assert_int_equal(mount_gate__timeout_ms(&g, 20 * MS + 1, 100), 32);
	assert_int_equal(mount_gate__timeout_ms(&g, 20 * MS, 10), 10);
	assert_true(mount_gate__due(&g, 52 * MS));
	assert_int_equal(mount_gate__timeout_ms(&g, 60 * MS, 100), 0);
	/* so at most 1 / 21 of the time goes to looks */
	mount_gate__looked(&g, 60 * MS, 2 * MS);
	g.changed = true;
	assert_false(mount_gate__due(&g, 102 * MS - 1));
	assert_true(mount_gate__due(&g, 102 * MS));
}

/* A slow look (a huge table, a loaded host) waits a second at most. */
static void test_gap_cap(void **state)
{
	struct mount_gate g = { .changed = true };

	mount_gate__looked(&g, 0, 200 * MS);
	g.changed = true;
	assert_false(mount_gate__due(&g, 1200 * MS - 1));
	assert_true(mount_gate__due(&g, 1200 * MS));
	/* a look that took no time: the next change is followed at once */
	mount_gate__looked(&g, 2000 * MS, 0);
	g.changed = true;
	assert_true(mount_gate__due(&g, 2000 * MS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_change),
		cmocka_unit_test(test_storm),
		cmocka_unit_test(test_gap_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
