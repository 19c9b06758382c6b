// SPDX-License-Identifier: BSD-3-Clause
/*
 * --statistics on I/Os with known sizes and latencies: the operation
 * groups (an empty flush apart from the writes), errors, I/Os without a
 * completion, percentiles by count, workset, and the JSON, CSV and table
 * forms.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "join_events.h"
#include "view_run.h"

static void feed_trace(struct join *j)
{
	static const uint64_t wlat[] = { 100, 200, 300, 400 };
	struct event ev = { .ts = 1100 };
	uint64_t i;

	next_sid = 1;
	device(j, DEV_A, "nvme0n1");
	for (i = 0; i < 4; i++) {
		io(j, 1000 + i, 0x10 + i, DEV_A, i * 8, 8, W);
		done(j, 1000 + i + wlat[i], 0x10 + i, i == 3);
	}
	io(j, 1010, 0x20, DEV_A, 100, 16, R);
	io(j, 1011, 0x21, DEV_A, 100, 16, R);
	done(j, 2010, 0x20, false);
	done(j, 4011, 0x21, false);
	io(j, 1020, 0x30, DEV_A, 1000, 2048, D);
	done(j, 1070, 0x30, false);
	ev.io.id = 0x40;
	ev.io.dev = DEV_A;
	ev.io.op = W;
	ev.io.flags = IOF_FLUSH | IOF_REQUEST_ONLY;
	io_ev(j, &ev);
	done(j, 1110, 0x40, false);
	io(j, 1200, 0x50, DEV_A, 32, 8, W);	/* never completes */
}

/*
 * Duration 3011 ns (first submission 1000, last completion 4011); total
 * latency p50 is the 4th of 10, 50, 100, 200, 300, 400, 1000, 3000.
 */
static const char *const want_table =
	"nvme0n1 (259:2) MODEL, 3.0 us\n"
	"  op       count  errors  no compl       IOPS      MiB/s   avg size  workset  lat avg"
	"     p50     p90     p99   p99.9  p99.99     max\n"
	"  read         2       0         0   664231.2    5189.31      8 KiB    8 KiB   2.0 us"
	"  1.0 us  3.0 us  3.0 us  3.0 us  3.0 us  3.0 us\n"
	"  write        5       1         1  1660577.9    6486.63      4 KiB   20 KiB   250 ns"
	"  200 ns  400 ns  400 ns  400 ns  400 ns  400 ns\n"
	"  discard      1       0         0   332115.6  332115.58      1 MiB    1 MiB    50 ns"
	"   50 ns   50 ns   50 ns   50 ns   50 ns   50 ns\n"
	"  flush        1       0         0   332115.6       0.00        0 B      0 B    10 ns"
	"   10 ns   10 ns   10 ns   10 ns   10 ns   10 ns\n"
	"  total        9       1         1  2989040.2  343791.51  117.8 KiB  1.0 MiB   632 ns"
	"  200 ns  3.0 us  3.0 us  3.0 us  3.0 us  3.0 us\n";

static void test_table(void **state)
{
	struct view_opts o = { .format = VIEW_TABLE };
	struct view_run vr;
	const char *out;

	feed_trace(view_run_start(&vr, &stats_view_ops, &o));
	out = view_run_finish(&vr);
	assert_string_equal(out, want_table);
	free(vr.text);
}

static void test_json(void **state)
{
	struct view_opts o = { .format = VIEW_JSON };
	struct view_run vr;
	const char *out, *w, *f;

	feed_trace(view_run_start(&vr, &stats_view_ops, &o));
	out = view_run_finish(&vr);
	assert_non_null(strstr(out, "\"statistics\": ["));
	assert_non_null(strstr(out, "\"name\": \"nvme0n1\""));
	assert_non_null(strstr(out, "\"duration\": \"3011\""));
	w = strstr(out, "\"write\": {");
	f = strstr(out, "\"discard\": {");
	assert_non_null(w);
	assert_non_null(f);
	/* the write group, before the discard one */
	assert_true(strstr(w, "\"count\": \"5\"") < f);
	assert_true(strstr(w, "\"errors\": \"1\"") < f);
	assert_true(strstr(w, "\"notCompleted\": \"1\"") < f);
	assert_true(strstr(w, "\"average\": 250,") < f);
	assert_true(strstr(w, "\"50.000000th\": 200,") < f);
	assert_true(strstr(w, "\"90.000000th\": 400,") < f);
	assert_true(strstr(w, "\"unit\": \"IOPS\"") < f);
	assert_true(strstr(w, "\"value\": 40\n") < f);	/* workset */
	/* no dispatch events: no queue/device time */
	assert_null(strstr(out, "queueTime"));
	free(vr.text);
}

static void test_csv(void **state)
{
	struct view_opts o = { .format = VIEW_CSV };
	struct view_run vr;
	const char *out, *p;
	int lines = 0;

	feed_trace(view_run_start(&vr, &stats_view_ops, &o));
	out = view_run_finish(&vr);
	for (p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 6);
	assert_true(!strncmp(out, "device.id,device.name,operation,count,errors,notCompleted,", 58));
	assert_non_null(strstr(out, "\n271581186,nvme0n1,write,5,1,1,3011,"));
	assert_non_null(strstr(out, "\n271581186,nvme0n1,flush,1,0,0,3011,"));
	free(vr.text);
}

/* A trace without I/O: an empty list, a line for people. */
static void test_empty(void **state)
{
	struct view_opts o = { .format = VIEW_TABLE };
	struct view_run vr;
	const char *out;

	view_run_start(&vr, &stats_view_ops, &o);
	out = view_run_finish(&vr);
	assert_string_equal(out, "no I/O in this trace\n");
	free(vr.text);
	o.format = VIEW_JSON;
	view_run_start(&vr, &stats_view_ops, &o);
	out = view_run_finish(&vr);
	assert_string_equal(out, "{\n \"statistics\": []\n}\n");
	free(vr.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
