// SPDX-License-Identifier: BSD-3-Clause
/*
 * Each CPU's ring for --buffer: kernel CPU lists, the online CPUs'
 * share, and the smallest ring for CPUs offline at the start (against
 * lists written to files, as /sys/devices/system/cpu/online).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ring_plan.h"

#define MIB (1ull << 20)

static char online_file[PATH_MAX];

static int setup(void **state)
{
	char dir[] = "/tmp/iotrace-ring-plan-XXXXXX";

	if (!mkdtemp(dir))
		return -1;
	snprintf(online_file, sizeof(online_file), "%s/online", dir);
	return 0;
}

static int teardown(void **state)
{
	char dir[PATH_MAX];

	unlink(online_file);
	snprintf(dir, sizeof(dir), "%s", online_file);
	*strrchr(dir, '/') = '\0';
	return rmdir(dir);
}

static void write_online(const char *text)
{
	FILE *f = fopen(online_file, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_parse_lists(void **state)
{
	bool on[16];

	assert_int_equal(ring_plan__parse_cpus("0-1\n", on, 16), 2);
	assert_true(on[0] && on[1] && !on[2]);
	assert_int_equal(ring_plan__parse_cpus("0-3,8,10-11\n", on, 16), 7);
	assert_true(on[3] && !on[4] && !on[7] && on[8] && !on[9] && on[10] && on[11] && !on[12]);
	assert_int_equal(ring_plan__parse_cpus("5", on, 16), 1);
	assert_true(!on[0] && on[5]);
	/* a CPU named twice is counted once */
	assert_int_equal(ring_plan__parse_cpus("1,0-2", on, 16), 3);
	/* CPUs past the possible ones have no ring: not counted */
	assert_int_equal(ring_plan__parse_cpus("2-20\n", on, 16), 14);
	assert_true(on[15] && !on[1]);
}

static void test_parse_rejects(void **state)
{
	static const char *const bad[] = {
		"", "\n", "-1", "0-", "3-1", "0,", "0-1,,2", "a", "0 1", "0-1\nx", "99999999999999999999999",
	};
	bool on[4];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("list '%s'\n", bad[i]);
		assert_int_equal(ring_plan__parse_cpus(bad[i], on, 4), -EINVAL);
	}
}

/* the share is the online CPUs' part of --buffer, rounded down to a power of two */
static void test_share_of_online(void **state)
{
	struct ring_plan p;

	write_online("0-1\n");
	assert_int_equal(ring_plan__init(&p, 100, 2, online_file), 0);
	assert_int_equal(p.nonline, 2);
	assert_int_equal(p.share, 32 * MIB);	/* 50 MiB rounded down */
	assert_int_equal(ring_plan__bytes(&p, 0), 32 * MIB);
	assert_int_equal(ring_plan__bytes(&p, 1), 32 * MIB);
	ring_plan__free(&p);

	write_online("0-15\n");
	assert_int_equal(ring_plan__init(&p, 64, 16, online_file), 0);
	assert_int_equal(p.share, 4 * MIB);	/* exactly a power of two: kept */
	ring_plan__free(&p);

	/* never below the smallest ring */
	write_online("0-127\n");
	assert_int_equal(ring_plan__init(&p, 1, 128, online_file), 0);
	assert_int_equal(p.share, RING_MIN_BYTES);
	ring_plan__free(&p);
}

/*
 * A VM with 2 of 64 possible CPUs online: the two share --buffer, the
 * other 62 get the smallest ring, so the whole stays near what was asked.
 */
static void test_offline_cpus_get_the_least(void **state)
{
	struct ring_plan p;
	uint64_t total = 0;
	int cpu;

	write_online("0,5\n");
	assert_int_equal(ring_plan__init(&p, 100, 64, online_file), 0);
	assert_int_equal(p.nonline, 2);
	for (cpu = 0; cpu < 64; cpu++) {
		uint64_t want = cpu == 0 || cpu == 5 ? 32 * MIB : RING_MIN_BYTES;

		assert_int_equal(ring_plan__bytes(&p, cpu), want);
		total += ring_plan__bytes(&p, cpu);
	}
	assert_true(total <= 100 * MIB);
	ring_plan__free(&p);
}

/* without a readable list every CPU counts as online, sharing --buffer among all */
static void test_no_list_shares_among_all(void **state)
{
	struct ring_plan p;
	int cpu;

	assert_int_equal(ring_plan__init(&p, 100, 4, "/nonexistent/cpu/online"), 0);
	assert_int_equal(p.nonline, 4);
	assert_int_equal(p.share, 16 * MIB);	/* 25 MiB rounded down */
	for (cpu = 0; cpu < 4; cpu++)
		assert_int_equal(ring_plan__bytes(&p, cpu), 16 * MIB);
	ring_plan__free(&p);

	write_online("garbage\n");
	assert_int_equal(ring_plan__init(&p, 100, 4, online_file), 0);
	assert_int_equal(p.nonline, 4);
	assert_int_equal(p.share, 16 * MIB);
	ring_plan__free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_lists),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_share_of_online),
		cmocka_unit_test(test_offline_cpus_get_the_least),
		cmocka_unit_test(test_no_list_shares_among_all),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
