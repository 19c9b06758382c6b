// SPDX-License-Identifier: BSD-3-Clause
/* Record framing: varint golden bytes, limits, partial and bad input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "framing.h"

static void check_put(uint64_t v, const uint8_t *want, size_t want_len)
{
	uint8_t buf[FRAMING_VARINT_MAX + 1];
	size_t n;

	memset(buf, 0xee, sizeof(buf));
	n = framing__put_varint(buf, v);
	assert_int_equal(n, want_len);
	assert_memory_equal(buf, want, want_len);
	/* nothing written past the varint */
	assert_int_equal(buf[n], 0xee);
}

static void test_put_golden(void **state)
{
	check_put(0, (const uint8_t[]){ 0x00 }, 1);
	check_put(1, (const uint8_t[]){ 0x01 }, 1);
	check_put(127, (const uint8_t[]){ 0x7f }, 1);
	check_put(128, (const uint8_t[]){ 0x80, 0x01 }, 2);
	check_put(300, (const uint8_t[]){ 0xac, 0x02 }, 2);
	check_put(16384, (const uint8_t[]){ 0x80, 0x80, 0x01 }, 3);
	check_put(UINT32_MAX, (const uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0x0f }, 5);
	check_put(UINT64_MAX,
		  (const uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
		  10);
}

static void test_get_golden(void **state)
{
	const uint8_t b300[] = { 0xac, 0x02, 0x55 };
	const uint8_t max[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	/* 0 written in two bytes: protobuf readers accept non-minimal varints */
	const uint8_t zero2[] = { 0x80, 0x00 };
	uint64_t v = 0;
	size_t used = 0;

	assert_int_equal(framing__get_varint(b300, sizeof(b300), &v, &used), 1);
	assert_int_equal(v, 300);
	assert_int_equal(used, 2);
	assert_int_equal(framing__get_varint(max, sizeof(max), &v, &used), 1);
	assert_true(v == UINT64_MAX);
	assert_int_equal(used, 10);
	assert_int_equal(framing__get_varint(zero2, sizeof(zero2), &v, &used), 1);
	assert_int_equal(v, 0);
	assert_int_equal(used, 2);
}

static void test_round_trip(void **state)
{
	const uint64_t vals[] = { 0, 1, 127, 128, 255, 300, 16383, 16384, FRAMING_RECORD_MAX,
				  UINT32_MAX, (uint64_t)UINT32_MAX + 1, 1ull << 56, 1ull << 63,
				  UINT64_MAX - 1, UINT64_MAX };
	size_t i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint8_t buf[FRAMING_VARINT_MAX];
		size_t n = framing__put_varint(buf, vals[i]), used = 0;
		uint64_t v = 0;

		assert_int_equal(framing__get_varint(buf, n, &v, &used), 1);
		assert_true(v == vals[i]);
		assert_int_equal(used, n);
		/* every proper prefix asks for more */
		while (n--)
			assert_int_equal(framing__get_varint(buf, n, &v, &used), 0);
	}
}

static void test_partial(void **state)
{
	const uint8_t cont[] = { 0xac, 0xff, 0xff };
	uint64_t v = 42;
	size_t used = 42;

	assert_int_equal(framing__get_varint(cont, 0, &v, &used), 0);
	assert_int_equal(framing__get_varint(cont, 1, &v, &used), 0);
	assert_int_equal(framing__get_varint(cont, 3, &v, &used), 0);
	/* outputs untouched when no value was read */
	assert_int_equal(v, 42);
	assert_int_equal(used, 42);
}

static void test_bad(void **state)
{
	/* eleven bytes: longer than any 64-bit varint */
	const uint8_t overlong[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
	/* ten bytes whose last one carries bits above 63 */
	const uint8_t overflow[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
	/* ten bytes, the last still continued */
	const uint8_t cont10[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81 };
	uint64_t v;
	size_t used;

	assert_int_equal(framing__get_varint(overlong, sizeof(overlong), &v, &used), -EBADMSG);
	assert_int_equal(framing__get_varint(overflow, sizeof(overflow), &v, &used), -EBADMSG);
	assert_int_equal(framing__get_varint(cont10, sizeof(cont10), &v, &used), -EBADMSG);
	/* decided at the tenth byte, whatever follows */
	assert_int_equal(framing__get_varint(overlong, 10, &v, &used), -EBADMSG);
	assert_int_equal(framing__get_varint(overlong, 9, &v, &used), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_golden),
		cmocka_unit_test(test_get_golden),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
