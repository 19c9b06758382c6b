// SPDX-License-Identifier: BSD-3-Clause
/* The mount tables' octal escapes, decoded in place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "mount_escape.h"

static void expect(const char *in, const char *out)
{
	char buf[256];

	strcpy(buf, in);
	mount_unescape(buf);
	assert_string_equal(buf, out);
}

static void test_escapes(void **state)
{
	(void)state;
	expect("/mnt/my\\040data", "/mnt/my data");
	expect("\\011tab\\012nl\\134bs", "\ttab\nnl\\bs");
	expect("/plain/path", "/plain/path");
	expect("", "");
	/* what the kernel never writes stays as it is */
	expect("/a\\4", "/a\\4");
	expect("/a\\04", "/a\\04");
	expect("/a\\400", "/a\\400");
	expect("/a\\08x", "/a\\08x");
	expect("/end\\", "/end\\");
	/* a decoded backslash does not start another escape */
	expect("\\134040", "\\040");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
