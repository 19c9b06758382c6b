// SPDX-License-Identifier: BSD-3-Clause
/* Tables for people: column widths, alignment, histogram bars, units. */
#define _GNU_SOURCE	/* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "table_writer.h"

static void test_table(void **state)
{
	struct table *t = table__new(3);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(t);
	table__align_left(t, 2, true);
	table__cell(t, "name");
	table__cell(t, "count");
	table__cell(t, "note");
	table__end_row(t);
	table__cell(t, "a-long-name");
	table__cell(t, "%d", 7);
	table__end_row(t);	/* the missing cell is empty */
	table__cell(t, "b");
	table__cell(t, "%d", 12345);
	table__cell(t, "x");
	table__end_row(t);
	assert_int_equal(table__print(t, out, 1), 0);
	table__free(t);
	table__free(NULL);
	fclose(out);
	assert_string_equal(text, " name         count  note\n"
				  " a-long-name      7\n"
				  " b            12345  x\n");
	free(text);
}

/* A file name with a newline or an escape sequence stays on its row, as text */
static void test_control_characters(void **state)
{
	struct table *t = table__new(2);
	char *text = NULL, cut[8];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(t);
	table__cell(t, "file");
	table__cell(t, "n");
	table__end_row(t);
	table__cell(t, "/d/a\nb\t\x1b[31m\xc3\xa9");
	table__cell(t, "1");
	table__end_row(t);
	assert_int_equal(table__print(t, out, 0), 0);
	table__free(t);
	table__put_printable(out, "x\x7fy\r");
	fclose(out);
	/* UTF-8 (é) passes as it is, and takes one column of its two bytes */
	assert_string_equal(text, "file                n\n"
				  "/d/a\\nb\\t\\x1b[31m\xc3\xa9  1\n"
				  "x\\x7fy\\r");
	free(text);

	/* aligned by the columns a terminal gives: an emoji takes 2, a byte that is no UTF-8 1 */
	t = table__new(2);
	out = open_memstream(&text, &len);
	assert_true(t && out);
	table__cell(t, "name");
	table__cell(t, "n");
	table__end_row(t);
	table__cell(t, "\xf0\x9f\x98\x80.dat");
	table__cell(t, "12");
	table__end_row(t);
	table__cell(t, "\xff" "ab");
	table__cell(t, "3");
	table__end_row(t);
	assert_int_equal(table__print(t, out, 2), 0);
	table__free(t);
	fclose(out);
	assert_string_equal(text, "  name     n\n"
				  "  \xf0\x9f\x98\x80.dat  12\n"
				  "  \xff" "ab      3\n");
	free(text);
	/* cut to fit, never inside an escape */
	assert_string_equal(table__printable(cut, sizeof(cut), "ab\ncd\x01"), "ab\\ncd");
	assert_string_equal(table__printable(cut, sizeof(cut), "abcdef\n"), "abcdef");

	/* a row-by-row cell (a process name): padded by columns, its escapes never cut */
	out = open_memstream(&text, &len);
	assert_non_null(out);
	table__put_padded(out, "k\xc3\xa4" "fer", 8);
	putc('|', out);
	table__put_padded(out, "\xf0\x9f\x98\x80", 3);
	putc('|', out);
	table__put_padded(out, "a\x1b" "bcdefghijklmn", 8);
	putc('|', out);
	/* cut inside its last character (2 of 日's 3 bytes): one sign on a terminal */
	table__put_padded(out, "ab\xe6\x97", 5);
	putc('|', out);
	fclose(out);
	assert_string_equal(text, "k\xc3\xa4" "fer   |\xf0\x9f\x98\x80 |a\\x1bbcdefghijklmn|"
				  "ab\xe6\x97  |");
	free(text);
}

static void test_histogram(void **state)
{
	const struct hist_row rows[] = { { 0, 1, 0 }, { 2, 3, 40 }, { 4, 7, 10 } };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	table__histogram(out, "usecs", rows, 3);
	fclose(out);
	assert_string_equal(text, "usecs  : count  distribution\n"
				  "0 -> 1 : 0     |                                        |\n"
				  "2 -> 3 : 40    |****************************************|\n"
				  "4 -> 7 : 10    |**********                              |\n");
	free(text);
}

static void test_units(void **state)
{
	char b[32];

	table__fmt_ns(b, sizeof(b), 999);
	assert_string_equal(b, "999 ns");
	table__fmt_ns(b, sizeof(b), 83797);
	assert_string_equal(b, "83.8 us");
	table__fmt_ns(b, sizeof(b), 15070000);
	assert_string_equal(b, "15.07 ms");
	table__fmt_ns(b, sizeof(b), 24.65e9);
	assert_string_equal(b, "24.65 s");
	table__fmt_bytes(b, sizeof(b), 512);
	assert_string_equal(b, "512 B");
	table__fmt_bytes(b, sizeof(b), 131072);
	assert_string_equal(b, "128 KiB");
	table__fmt_bytes(b, sizeof(b), 1.5 * 1024 * 1024 * 1024);
	assert_string_equal(b, "1.5 GiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
