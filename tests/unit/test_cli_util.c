// SPDX-License-Identifier: BSD-3-Clause
/* Number parsing for --time, --size, --buffer. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
