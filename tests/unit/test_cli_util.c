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

static void test_parse_duration(void **state)
{
	unsigned long long ns = 7;

	assert_int_equal(cli_parse_duration("500us", &ns), 0);
	assert_int_equal(ns, 500000ull);
	assert_int_equal(cli_parse_duration("1.5ms", &ns), 0);
	assert_int_equal(ns, 1500000ull);
	assert_int_equal(cli_parse_duration("2s", &ns), 0);
	assert_int_equal(ns, 2000000000ull);
	assert_int_equal(cli_parse_duration("0.000000001s", &ns), 0);
	assert_int_equal(ns, 1);
	assert_int_equal(cli_parse_duration("0ns", &ns), 0);
	assert_int_equal(ns, 0);
	/* ns count past the 4 s that 32 bits hold */
	assert_int_equal(cli_parse_duration("5000000000ns", &ns), 0);
	assert_int_equal(ns, 5000000000ull);
	assert_int_equal(cli_parse_duration("18446744073s", &ns), 0);
	assert_int_equal(ns, 18446744073000000000ull);
	assert_int_equal(cli_parse_duration("18446744074s", &ns), -ERANGE);
	assert_int_equal(cli_parse_duration("99999999999999999999999999999999999ns", &ns), -ERANGE);
	/* a bare number: which unit? */
	assert_int_equal(cli_parse_duration("10", &ns), -EINVAL);
	/* below a ns */
	assert_int_equal(cli_parse_duration("1.5ns", &ns), -EINVAL);
	assert_int_equal(cli_parse_duration("10 ms", &ns), -EINVAL);
	assert_int_equal(cli_parse_duration("10MS", &ns), -EINVAL);
	assert_int_equal(cli_parse_duration("10m", &ns), -EINVAL);
	assert_int_equal(cli_parse_duration("ms", &ns), -EINVAL);
	assert_int_equal(cli_parse_duration("-1ms", &ns), -EINVAL);
	assert_int_equal(cli_parse_duration("1.ms", &ns), -EINVAL);
	assert_int_equal(cli_parse_duration("", &ns), -EINVAL);
	assert_int_equal(cli_parse_duration(NULL, &ns), -EINVAL);
	assert_int_equal(ns, 18446744073000000000ull);
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
