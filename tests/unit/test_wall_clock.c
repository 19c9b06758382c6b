// SPDX-License-Identifier: BSD-3-Clause
/* Wall-clock times as --from and --to take them, and the summary's origin. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "wall_clock.h"

#define S 1000000000LL
/* 2026-11-30T10:00:00Z */
#define NOV30 1796032800LL

static int64_t parsed(const char *text, int64_t ref_ns)
{
	int64_t ns = -1;

	assert_int_equal(wall_clock__parse(text, ref_ns, &ns), 0);
	return ns;
}

static void zone(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static void test_utc(void **state)
{
	(void)state;
	zone("UTC");
	assert_int_equal(parsed("2026-11-30T10:00:00Z", 0), NOV30 * S);
	assert_int_equal(parsed("2026-11-30 10:00:00.5Z", 0), NOV30 * S + S / 2);
	assert_int_equal(parsed("2026-11-30T10:00Z", 0), NOV30 * S);
	assert_int_equal(parsed("2026-11-30T10:00:00.123456789Z", 0), NOV30 * S + 123456789);
	/* a time of day: on the date of the reference */
	assert_int_equal(parsed("10:00:01Z", (NOV30 + 3600) * S), (NOV30 + 1) * S);
	assert_int_equal(parsed("00:00Z", NOV30 * S), (NOV30 - 10 * 3600) * S);
	/* February 29 of a leap year */
	assert_int_equal(parsed("2028-02-29T00:00:00Z", 0), 1835395200LL * S);
	assert_true(wall_clock__looks_like("10:00"));
	assert_false(wall_clock__looks_like("12.5"));
}

static void test_local(void **state)
{
	(void)state;
	/* one hour east of UTC, summer time from the last Sunday of March */
	zone("CET-1CEST,M3.5.0,M10.5.0/3");
	assert_int_equal(parsed("2026-11-30T11:00:00", 0), NOV30 * S);
	assert_int_equal(parsed("11:00:00.25", NOV30 * S), NOV30 * S + S / 4);
	/* in summer, two hours */
	assert_int_equal(parsed("2026-07-01T12:00:00", 0), 1782900000LL * S);
	/* the reference's local date, not its UTC one: 23:30 UTC is already the 1st */
	assert_int_equal(parsed("00:45", (NOV30 + 13 * 3600 + 1800) * S),
			 (NOV30 + 13 * 3600 + 2700) * S);
	zone("UTC");
}

static void test_refused(void **state)
{
	int64_t ns = 7;
	static const char *const bad[] = {
		"", "10", "1:00", "10:0", "10:00:0", "24:00", "10:60", "10:00:60", "10:00:00.",
		"10:00:00.1234567890", "10:00:00Z ", "10:00:00z", "2026-11-30", "2026-11-30X10:00",
		"2026-13-01T10:00", "2026-02-29T10:00", "2026-04-31T10:00", "2026-11-00T10:00",
		"26-11-30T10:00", "2026-11-30T10:00:00+01:00", "-10:00",
		/* the hour summer time skips */
		"2026-03-29T02:30",
	};
	size_t i;

	(void)state;
	zone("CET-1CEST,M3.5.0,M10.5.0/3");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (wall_clock__parse(bad[i], NOV30 * S, &ns) != -EINVAL)
			fail_msg("'%s' was not refused", bad[i]);
	}
	assert_int_equal(ns, 7);
	zone("UTC");
	assert_int_equal(wall_clock__parse("1969-12-31T23:59:59Z", 0, &ns), -ERANGE);
	assert_int_equal(wall_clock__parse("2263-01-01T00:00:00Z", 0, &ns), -ERANGE);
}

static void test_format(void **state)
{
	struct wall_fmt utc, local;

	(void)state;
	zone("CET-1CEST,M3.5.0,M10.5.0/3");
	wall_fmt__init(&utc, false);
	wall_fmt__init(&local, true);
	/* all nine digits for machines, so that the texts sort */
	assert_string_equal(wall_fmt(&utc, NOV30 * S), "2026-11-30T10:00:00.000000000Z");
	assert_string_equal(wall_fmt(&utc, NOV30 * S + 1500), "2026-11-30T10:00:00.000001500Z");
	/* the same second again, and the next: the kept text is not reused wrongly */
	assert_string_equal(wall_fmt(&utc, NOV30 * S + 999999999),
			    "2026-11-30T10:00:00.999999999Z");
	assert_string_equal(wall_fmt(&utc, (NOV30 + 1) * S), "2026-11-30T10:00:01.000000000Z");
	/* local time of day to the microsecond, for people; summer time too */
	assert_string_equal(wall_fmt(&local, NOV30 * S + 1500), "11:00:00.000001");
	assert_string_equal(wall_fmt(&local, 1782900000LL * S + 250000000), "12:00:00.250000");
	/* before the epoch */
	assert_string_equal(wall_fmt(&utc, -1), "1969-12-31T23:59:59.999999999Z");
	zone("UTC");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utc),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
