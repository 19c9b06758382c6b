// SPDX-License-Identifier: BSD-3-Clause
/* Number parsing for --time, --size, --buffer, --from, --to; the options as the summary keeps them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"

static void test_parse_u64(void **state)
{
	unsigned long long v = 0;

	assert_int_equal(cli_parse_u64("1", 1, 10, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(cli_parse_u64("4294967295", 1, 4294967295ull, &v), 0);
	assert_int_equal(v, 4294967295ull);
	assert_int_equal(cli_parse_u64("0", 1, 10, &v), -ERANGE);
	assert_int_equal(cli_parse_u64("11", 1, 10, &v), -ERANGE);
	assert_int_equal(cli_parse_u64("99999999999999999999999", 1, ~0ull, &v), -ERANGE);
	assert_int_equal(cli_parse_u64("-5", 1, 10, &v), -EINVAL);
	assert_int_equal(cli_parse_u64(" 5", 1, 10, &v), -EINVAL);
	assert_int_equal(cli_parse_u64("5s", 1, 10, &v), -EINVAL);
	assert_int_equal(cli_parse_u64("", 1, 10, &v), -EINVAL);
	assert_int_equal(cli_parse_u64("abc", 1, 10, &v), -EINVAL);
	assert_int_equal(cli_parse_u64(NULL, 1, 10, &v), -EINVAL);
	assert_int_equal(v, 4294967295ull);
}

static void test_parse_seconds(void **state)
{
	unsigned long long ns = 7;

	assert_int_equal(cli_parse_seconds("12", 100, &ns), 0);
	assert_int_equal(ns, 12000000000ull);
	assert_int_equal(cli_parse_seconds("0.5", 100, &ns), 0);
	assert_int_equal(ns, 500000000ull);
	assert_int_equal(cli_parse_seconds("3.000000001", 100, &ns), 0);
	assert_int_equal(ns, 3000000001ull);
	assert_int_equal(cli_parse_seconds("0", 100, &ns), 0);
	assert_int_equal(ns, 0);
	assert_int_equal(cli_parse_seconds("100", 100, &ns), 0);
	assert_int_equal(ns, 100000000000ull);
	assert_int_equal(cli_parse_seconds("100.1", 100, &ns), -ERANGE);
	assert_int_equal(cli_parse_seconds("101", 100, &ns), -ERANGE);
	assert_int_equal(cli_parse_seconds("99999999999999999999999999", 100, &ns), -ERANGE);
	assert_int_equal(cli_parse_seconds("1.", 100, &ns), -EINVAL);
	assert_int_equal(cli_parse_seconds(".5", 100, &ns), -EINVAL);
	/* digits past the ns: a reason of their own, unless not digits at all */
	assert_int_equal(cli_parse_seconds("1.0000000001", 100, &ns), -EDOM);
	assert_int_equal(cli_parse_seconds("1.00000000x1", 100, &ns), -EINVAL);
	assert_int_equal(cli_parse_seconds("1.5s", 100, &ns), -EINVAL);
	assert_int_equal(cli_parse_seconds("1.2.3", 100, &ns), -EINVAL);
	assert_int_equal(cli_parse_seconds("-1", 100, &ns), -EINVAL);
	assert_int_equal(cli_parse_seconds("1e3", 100, &ns), -EINVAL);
	assert_int_equal(cli_parse_seconds("", 100, &ns), -EINVAL);
	assert_int_equal(cli_parse_seconds(NULL, 100, &ns), -EINVAL);
	assert_int_equal(ns, 100000000000ull);
}

/* cli_parse_duration() refuses s with err, saying why */
static void duration_refused(const char *s, int err, const char *why)
{
	unsigned long long ns = 7;
	const char *got = NULL;

	assert_int_equal(cli_parse_duration(s, &ns, &got), err);
	assert_int_equal(ns, 7);
	assert_non_null(got);
	assert_string_equal(got, why);
}

static void test_parse_duration(void **state)
{
	static const char generic[] = "a time with its unit, such as 500us, 10ms or 1.5s";
	static const char too_large[] = "a time of at most 18446744073s";
	static const char finer[] = "a time in whole nanoseconds, such as 1.5us (1500ns)";
	static const char no_unit[] = "a unit after the number, ns, us, ms or s (a bare number could be any)";
	static const char bad_unit[] = "a unit after the number, ns, us, ms or s, such as 10ms";
	static const char space[] = "the number and its unit with no space, such as 10ms";
	static const char negative[] = "a time of 0 or more, such as 500us, 10ms or 1.5s";
	unsigned long long ns = 7;

	assert_int_equal(cli_parse_duration("500us", &ns, NULL), 0);
	assert_int_equal(ns, 500000ull);
	assert_int_equal(cli_parse_duration("1.5ms", &ns, NULL), 0);
	assert_int_equal(ns, 1500000ull);
	assert_int_equal(cli_parse_duration("2s", &ns, NULL), 0);
	assert_int_equal(ns, 2000000000ull);
	assert_int_equal(cli_parse_duration("0.000000001s", &ns, NULL), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(cli_parse_duration("0ns", &ns, NULL), 0);
	assert_int_equal(ns, 0);
	/* ns count past the 4 s that 32 bits hold */
	assert_int_equal(cli_parse_duration("5000000000ns", &ns, NULL), 0);
	assert_int_equal(ns, 5000000000ull);
	assert_int_equal(cli_parse_duration("18446744073s", &ns, NULL), 0);
	assert_int_equal(ns, 18446744073000000000ull);
	/* the same most in any unit: not 18446744073 of it (20 s in ns are 2 * 10^10) */
	assert_int_equal(cli_parse_duration("18446744073000ms", &ns, NULL), 0);
	assert_int_equal(ns, 18446744073000000000ull);
	assert_int_equal(cli_parse_duration("20000000000ns", &ns, NULL), 0);
	assert_int_equal(ns, 20000000000ull);
	assert_int_equal(cli_parse_duration("18446744073000000000ns", &ns, NULL), 0);
	assert_int_equal(ns, 18446744073000000000ull);
	/* digits past the ns, if zeros, are the same time */
	assert_int_equal(cli_parse_duration("1.0ns", &ns, NULL), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(cli_parse_duration("0.0000000010s", &ns, NULL), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(cli_parse_duration("0.001500ms", &ns, NULL), 0);
	assert_int_equal(ns, 1500);
	/* too large: the most is said */
	duration_refused("18446744074s", -ERANGE, too_large);
	duration_refused("18446744073001ms", -ERANGE, too_large);
	duration_refused("99999999999999999999s", -ERANGE, too_large);
	duration_refused("18446744073.000000001s", -ERANGE, too_large);
	duration_refused("18446744073000000001ns", -ERANGE, too_large);
	duration_refused("18446744073709551616ns", -ERANGE, too_large);
	duration_refused("99999999999999999999999999999999999ns", -ERANGE, too_large);
	/* a bare number: which unit? */
	duration_refused("10", -EINVAL, no_unit);
	/* below a ns */
	duration_refused("1.5ns", -EDOM, finer);
	duration_refused("0.0000000001s", -EDOM, finer);
	duration_refused("10 ms", -EINVAL, space);
	duration_refused(" 10ms", -EINVAL, space);
	duration_refused("10ms ", -EINVAL, space);
	duration_refused("10MS", -EINVAL, bad_unit);
	duration_refused("10m", -EINVAL, bad_unit);
	duration_refused("1e400ms", -EINVAL,
			 "a decimal number with no exponent, and its unit, such as 0.5ms");
	duration_refused("1e-3s", -EINVAL,
			 "a decimal number with no exponent, and its unit, such as 0.5ms");
	duration_refused("ms", -EINVAL, "a number before the unit, such as 10ms");
	duration_refused("-1ms", -EINVAL, negative);
	duration_refused("-0.5s", -EINVAL, negative);
	duration_refused("1.ms", -EINVAL, generic);
	duration_refused(".5ms", -EINVAL, generic);
	duration_refused("1.2.3ms", -EINVAL, generic);
	duration_refused("", -EINVAL, generic);
	duration_refused("abc", -EINVAL, generic);
	duration_refused(NULL, -EINVAL, generic);
}

static void test_append_option(void **state)
{
	char buf[64] = "";

	assert_true(cli_append_option(buf, sizeof(buf), "--vfs", NULL));
	assert_true(cli_append_option(buf, sizeof(buf), "--pids", "12,13"));
	assert_string_equal(buf, "--vfs --pids 12,13");
	/* a value a shell would split or expand is quoted, a quote in it too */
	buf[0] = '\0';
	assert_true(cli_append_option(buf, sizeof(buf), "--paths", "/data/*.log"));
	assert_true(cli_append_option(buf, sizeof(buf), "--comm", "it's"));
	assert_true(cli_append_option(buf, sizeof(buf), "--paths", ""));
	assert_string_equal(buf, "--paths '/data/*.log' --comm 'it'\\''s' --paths ''");
}

/* An option that does not fit is left out whole, and "..." says so. */
static void test_append_option_full(void **state)
{
	char buf[24] = "";

	assert_true(cli_append_option(buf, sizeof(buf), "--time", "60"));
	assert_false(cli_append_option(buf, sizeof(buf), "--paths", "/a/long/path/*"));
	assert_string_equal(buf, "--time 60 ...");
	/* exactly full: 23 characters and the NUL */
	memset(buf, 0, sizeof(buf));
	assert_true(cli_append_option(buf, sizeof(buf), "--paths", "/0123456789abcd"));
	assert_int_equal(strlen(buf), 23);
	assert_false(cli_append_option(buf, sizeof(buf), "--vfs", NULL));
	assert_int_equal(strlen(buf), 23);
	assert_string_equal(buf, "--paths /0123456789abcd");
}

/* cli_next_word() reads back what cli_append_option() wrote */
static void test_next_word(void **state)
{
	static const struct {
		const char *name, *value;
	} opts[] = { { "--vfs", NULL }, { "--paths", "/data/*.log" }, { "--comm", "it's" },
		     { "--paths", "" }, { "--cgroup", "a b'c" } };
	char buf[256] = "", w[64], small[4];
	const char *p = buf;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(opts) / sizeof(*opts); i++)
		assert_true(cli_append_option(buf, sizeof(buf), opts[i].name, opts[i].value));
	assert_string_equal(buf, "--vfs --paths '/data/*.log' --comm 'it'\\''s' --paths '' "
				 "--cgroup 'a b'\\''c'");
	for (i = 0; i < sizeof(opts) / sizeof(*opts); i++) {
		assert_true(cli_next_word(&p, w, sizeof(w)));
		assert_string_equal(w, opts[i].name);
		if (!opts[i].value)
			continue;
		assert_true(cli_next_word(&p, w, sizeof(w)));
		assert_string_equal(w, opts[i].value);
	}
	assert_false(cli_next_word(&p, w, sizeof(w)));
	/* blanks around, and a word cut to fit */
	p = "  --time   600  ";
	assert_true(cli_next_word(&p, small, sizeof(small)));
	assert_string_equal(small, "--t");
	assert_true(cli_next_word(&p, small, sizeof(small)));
	assert_string_equal(small, "600");
	assert_false(cli_next_word(&p, small, sizeof(small)));
	p = "";
	assert_false(cli_next_word(&p, w, sizeof(w)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_seconds),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_append_option),
		cmocka_unit_test(test_append_option_full),
		cmocka_unit_test(test_next_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
