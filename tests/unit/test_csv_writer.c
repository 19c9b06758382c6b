// SPDX-License-Identifier: BSD-3-Clause
/* CSV writer: RFC 4180 quoting, numbers, empty cells, rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csv_writer.h"

struct mem {
	char *text;
	size_t len;
	FILE *f;
	struct csv_writer *cw;
};

static void mem_open(struct mem *m)
{
	m->text = NULL;
	m->len = 0;
	m->f = open_memstream(&m->text, &m->len);
	assert_non_null(m->f);
	m->cw = csv__new(m->f);
	assert_non_null(m->cw);
}

static void mem_expect(struct mem *m, const char *want)
{
	csv__free(m->cw);
	assert_int_equal(fclose(m->f), 0);
	assert_string_equal(m->text, want);
	free(m->text);
}

static void test_rows(void **state)
{
	struct mem m;

	mem_open(&m);
	csv__string(m.cw, "header.sid");
	csv__string(m.cw, "io.lba");
	csv__string(m.cw, "name");
	csv__end_row(m.cw);
	csv__uint(m.cw, 1);
	csv__empty(m.cw);
	csv__string(m.cw, "nvme0n1");
	csv__end_row(m.cw);
	csv__empty(m.cw);
	csv__empty(m.cw);
	csv__string(m.cw, NULL);
	csv__end_row(m.cw);
	mem_expect(&m, "header.sid,io.lba,name\n1,,nvme0n1\n,,\n");
}

/* csv__plain: taken as it is, with separators like any other field */
static void test_plain(void **state)
{
	struct mem m;

	mem_open(&m);
	csv__plain(m.cw, "false", 5);
	csv__uint(m.cw, 7);
	csv__plain(m.cw, "true", 4);
	csv__plain(m.cw, "", 0);
	csv__end_row(m.cw);
	csv__plain(m.cw, "truex", 4);
	csv__end_row(m.cw);
	mem_expect(&m, "false,7,true,\ntrue\n");
}

static void test_numbers(void **state)
{
	struct mem m;

	mem_open(&m);
	csv__uint(m.cw, 0);
	csv__uint(m.cw, UINT64_MAX);
	csv__int(m.cw, -1);
	csv__int(m.cw, INT64_MIN);
	csv__int(m.cw, INT64_MAX);
	csv__end_row(m.cw);
	mem_expect(&m, "0,18446744073709551615,-1,-9223372036854775808,9223372036854775807\n");
}

/* every digit count, at both ends: the writer sizes a number before writing it */
static void test_number_lengths(void **state)
{
	char want[1024], got[64];
	uint64_t p = 1;
	size_t len = 0;
	struct mem m;
	int i;

	mem_open(&m);
	for (i = 0; i < 20; i++, p *= 10) {
		uint64_t lo = p, hi = i < 19 ? p * 10 - 1 : UINT64_MAX;

		csv__uint(m.cw, lo);
		csv__uint(m.cw, hi);
		snprintf(got, sizeof(got), "%s%llu,%llu", i ? "," : "", (unsigned long long)lo,
			 (unsigned long long)hi);
		memcpy(want + len, got, strlen(got) + 1);
		len += strlen(got);
	}
	csv__end_row(m.cw);
	memcpy(want + len, "\n", 2);
	mem_expect(&m, want);
}

static void test_quoting(void **state)
{
	struct mem m;

	mem_open(&m);
	csv__string(m.cw, "plain text; with: other 'marks'");
	csv__string(m.cw, "a,b");
	csv__string(m.cw, "say \"hi\"");
	csv__string(m.cw, "\"");
	csv__string(m.cw, "line\nbreak");
	csv__string(m.cw, "cr\r");
	csv__string(m.cw, "");
	csv__end_row(m.cw);
	mem_expect(&m, "plain text; with: other 'marks',\"a,b\",\"say \"\"hi\"\"\",\"\"\"\","
		       "\"line\nbreak\",\"cr\r\",\n");
}

/* A field longer than the writer's staging buffer. */
static void test_long_field(void **state)
{
	size_t n = 50000;
	char *s = malloc(n + 1), *want = malloc(n + 8);
	struct mem m;

	assert_non_null(s);
	assert_non_null(want);
	memset(s, 'y', n);
	s[n] = '\0';
	mem_open(&m);
	csv__uint(m.cw, 7);
	csv__string(m.cw, s);
	csv__end_row(m.cw);
	snprintf(want, n + 8, "7,%s\n", s);
	mem_expect(&m, want);
	free(s);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_number_lengths),
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_long_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
