// SPDX-License-Identifier: BSD-3-Clause
/* JSON writer: exact output for nesting, numbers, escaping, pretty form. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_writer.h"

struct mem {
	char *text;
	size_t len;
	FILE *f;
	struct json_writer *jw;
};

static void mem_open(struct mem *m, bool pretty)
{
	m->text = NULL;
	m->len = 0;
	m->f = open_memstream(&m->text, &m->len);
	assert_non_null(m->f);
	m->jw = jw__new(m->f, pretty);
	assert_non_null(m->jw);
}

/* Ends writing and compares everything written with want. */
static void mem_expect(struct mem *m, const char *want)
{
	jw__free(m->jw);
	assert_int_equal(fclose(m->f), 0);
	assert_string_equal(m->text, want);
	free(m->text);
}

static void test_nesting(void **state)
{
	struct mem m;

	mem_open(&m, false);
	jw__start_object(m.jw);
	jw__name(m.jw, "a");
	jw__uint(m.jw, 1);
	jw__name(m.jw, "b");
	jw__start_array(m.jw);
	jw__uint(m.jw, 1);
	jw__int(m.jw, -2);
	jw__start_object(m.jw);
	jw__name(m.jw, "c");
	jw__string(m.jw, "x");
	jw__end_object(m.jw);
	jw__start_array(m.jw);
	jw__end_array(m.jw);
	jw__end_array(m.jw);
	jw__name(m.jw, "d");
	jw__start_object(m.jw);
	jw__end_object(m.jw);
	jw__name(m.jw, "e");
	jw__bool(m.jw, true);
	jw__name(m.jw, "f");
	jw__bool(m.jw, false);
	jw__name(m.jw, "g");
	jw__string(m.jw, NULL);
	jw__end_object(m.jw);
	jw__newline(m.jw);
	/* JSON Lines: the next top-level value starts afresh */
	jw__start_array(m.jw);
	jw__uint(m.jw, 3);
	jw__end_array(m.jw);
	jw__newline(m.jw);
	mem_expect(&m, "{\"a\":1,\"b\":[1,-2,{\"c\":\"x\"},[]],\"d\":{},\"e\":true,\"f\":false,"
		       "\"g\":null}\n[3]\n");
}

static void test_numbers(void **state)
{
	struct mem m;

	mem_open(&m, false);
	jw__start_array(m.jw);
	jw__uint(m.jw, 0);
	jw__uint(m.jw, 9);
	jw__uint(m.jw, 10);
	jw__uint(m.jw, 99);
	jw__uint(m.jw, 100);
	jw__uint(m.jw, 1234567);
	jw__uint(m.jw, UINT64_MAX);
	jw__int(m.jw, 0);
	jw__int(m.jw, -1);
	jw__int(m.jw, INT64_MAX);
	jw__int(m.jw, INT64_MIN);
	jw__uint_str(m.jw, UINT64_MAX);
	jw__uint_str(m.jw, 0);
	jw__int_str(m.jw, INT64_MIN);
	jw__int_str(m.jw, 42);
	jw__double(m.jw, 0.1);
	jw__double(m.jw, -2.5);
	jw__double(m.jw, 1e300);
	jw__double(m.jw, 0);
	jw__double(m.jw, NAN);
	jw__double(m.jw, INFINITY);
	jw__end_array(m.jw);
	mem_expect(&m, "[0,9,10,99,100,1234567,18446744073709551615,0,-1,9223372036854775807,"
		       "-9223372036854775808,\"18446744073709551615\",\"0\","
		       "\"-9223372036854775808\",\"42\",0.1,-2.5,1e+300,0,null,null]");
}

static void test_escaping(void **state)
{
	struct mem m;

	mem_open(&m, false);
	jw__start_array(m.jw);
	jw__string(m.jw, "say \"hi\" \\ o/");
	jw__string(m.jw, "tab\there\nnl\r\x01\x1f\x7f");
	/* UTF-8 passes through: 2, 3 and 4 byte sequences */
	jw__string(m.jw, "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");
	/* an embedded NUL with the explicit length */
	jw__string_len(m.jw, "a\0b", 3);
	jw__end_array(m.jw);
	mem_expect(&m, "[\"say \\\"hi\\\" \\\\ o/\","
		       "\"tab\\u0009here\\u000anl\\u000d\\u0001\\u001f\x7f\","
		       "\"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\","
		       "\"a\\u0000b\"]");
}

/* Bytes that are not UTF-8 become U+FFFD so the output stays JSON. */
static void test_invalid_utf8(void **state)
{
	struct mem m;

	mem_open(&m, false);
	jw__start_array(m.jw);
	jw__string(m.jw, "a\x80z");		/* lone continuation byte */
	jw__string(m.jw, "\xc0\xaf");		/* overlong '/' */
	jw__string(m.jw, "\xed\xa0\x80");	/* surrogate */
	jw__string(m.jw, "\xf4\x90\x80\x80");	/* above U+10FFFF */
	jw__string(m.jw, "end\xe2\x82");	/* cut sequence */
	jw__end_array(m.jw);
	mem_expect(&m, "[\"a\\ufffdz\",\"\\ufffd\\ufffd\",\"\\ufffd\\ufffd\\ufffd\","
		       "\"\\ufffd\\ufffd\\ufffd\\ufffd\",\"end\\ufffd\\ufffd\"]");
}

/* Names are escaped like values. */
static void test_name_escaping(void **state)
{
	struct mem m;

	mem_open(&m, false);
	jw__start_object(m.jw);
	jw__name(m.jw, "a\"b");
	jw__uint(m.jw, 1);
	jw__end_object(m.jw);
	mem_expect(&m, "{\"a\\\"b\":1}");
}

/* A string longer than the writer's staging buffer. */
static void test_long_string(void **state)
{
	size_t n = 100000;
	char *s = malloc(n + 1), *want = malloc(n + 3);
	struct mem m;

	assert_non_null(s);
	assert_non_null(want);
	memset(s, 'x', n);
	s[n] = '\0';
	want[0] = '"';
	memset(want + 1, 'x', n);
	strcpy(want + 1 + n, "\"");
	mem_open(&m, false);
	jw__string(m.jw, s);
	mem_expect(&m, want);
	free(s);
	free(want);
}

/* The pretty form is the one of octf.summary: one space per level. */
/* One object with keys a, bc and def (then a nested one), by name or by key */
static void keyed_object(struct json_writer *jw, bool by_key)
{
	jw__start_object(jw);
	if (by_key)
		jw__key(jw, "a");
	else
		jw__name(jw, "a");
	jw__uint(jw, 1);
	if (by_key)
		jw__key(jw, "bc");
	else
		jw__name(jw, "bc");
	jw__start_object(jw);
	if (by_key)
		jw__key(jw, "def");
	else
		jw__name(jw, "def");
	jw__string(jw, "x");
	jw__end_object(jw);
	jw__end_object(jw);
	jw__newline(jw);
}

/* jw__key() writes what jw__name() does, in either form */
static void test_key_as_name(void **state)
{
	static const char *const want[2] = {
		"{\"a\":1,\"bc\":{\"def\":\"x\"}}\n",
		"{\n \"a\": 1,\n \"bc\": {\n  \"def\": \"x\"\n }\n}\n",
	};
	struct mem m;
	int pretty, by_key;

	(void)state;
	for (pretty = 0; pretty < 2; pretty++) {
		for (by_key = 0; by_key < 2; by_key++) {
			mem_open(&m, pretty);
			keyed_object(m.jw, by_key);
			mem_expect(&m, want[pretty]);
		}
	}
}

static void test_pretty(void **state)
{
	struct mem m;

	mem_open(&m, true);
	jw__start_object(m.jw);
	jw__name(m.jw, "tracePath");
	jw__string(m.jw, "kernel/x");
	jw__name(m.jw, "sourceNode");
	jw__start_object(m.jw);
	jw__name(m.jw, "node");
	jw__start_array(m.jw);
	jw__start_object(m.jw);
	jw__name(m.jw, "id");
	jw__string(m.jw, "kernel");
	jw__end_object(m.jw);
	jw__end_array(m.jw);
	jw__end_object(m.jw);
	jw__name(m.jw, "empty");
	jw__start_object(m.jw);
	jw__end_object(m.jw);
	jw__name(m.jw, "version");
	jw__uint(m.jw, 1);
	jw__end_object(m.jw);
	jw__newline(m.jw);
	mem_expect(&m, "{\n"
		       " \"tracePath\": \"kernel/x\",\n"
		       " \"sourceNode\": {\n"
		       "  \"node\": [\n"
		       "   {\n"
		       "    \"id\": \"kernel\"\n"
		       "   }\n"
		       "  ]\n"
		       " },\n"
		       " \"empty\": {},\n"
		       " \"version\": 1\n"
		       "}\n");
}

/* A finished top-level value is in the FILE at once, not held back. */
static void test_flushed_per_value(void **state)
{
	struct mem m;

	mem_open(&m, false);
	jw__start_object(m.jw);
	jw__name(m.jw, "a");
	jw__uint(m.jw, 1);
	jw__end_object(m.jw);
	jw__newline(m.jw);
	assert_int_equal(fflush(m.f), 0);
	assert_string_equal(m.text, "{\"a\":1}\n");
	/* the caller may write to the FILE itself between values */
	fputs("#\n", m.f);
	jw__uint(m.jw, 2);
	mem_expect(&m, "{\"a\":1}\n#\n2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_name_escaping),
		cmocka_unit_test(test_long_string),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_key_as_name),
		cmocka_unit_test(test_flushed_per_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
