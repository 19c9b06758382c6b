// SPDX-License-Identifier: BSD-3-Clause
/*
 * --fs-statistics: I/Os grouped by the directory of their file, its
 * extension and its name prefix (without trailing digits and
 * punctuation); I/Os without a file left out; in the table, which
 * device and partition each group is on.
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
	static const struct {
		uint64_t ino;
		int32_t op;
		uint32_t len;
	} ios[] = {
		{ 10, W, 8 },	/* /db/000014.sst */
		{ 11, W, 16 },	/* /db/000015.sst */
		{ 12, W, 8 },	/* /db/MANIFEST-000005 */
		{ 13, R, 8 },	/* /db/logs/LOG */
		{ 14, W, 8 },	/* /top.txt */
		{ 0, W, 8 },	/* no file */
	};
	uint64_t i;

	next_sid = 1;
	device(j, DEV_A, "nvme0n1");
	name(j, 1, 1, "/");
	name(j, 2, 1, "db");
	name(j, 3, 2, "logs");
	name(j, 10, 2, "000014.sst");
	name(j, 11, 2, "000015.sst");
	name(j, 12, 2, "MANIFEST-000005");
	name(j, 13, 3, "LOG");
	name(j, 14, 1, "top.txt");
	for (i = 0; i < 6; i++) {
		io(j, 100 + i, 0x10 + i, DEV_A, i * 100, ios[i].len, ios[i].op);
		if (ios[i].ino)
			meta(j, 100 + i, 0x10 + i, ios[i].ino, 0, 64);
		done(j, 1100 + i, 0x10 + i, false);
	}
}

static const char *const want_table =
	"by directory:\n"
	"  device              name      I/Os  reads  writes   read  written  lat avg  lat max  workset\n"
	"  nvme0n1 part 259:3  /            1      0       1    0 B    4 KiB   1.0 us   1.0 us    4 KiB\n"
	"  nvme0n1 part 259:3  /db          3      0       3    0 B   16 KiB   1.0 us   1.0 us   16 KiB\n"
	"  nvme0n1 part 259:3  /db/logs     1      1       0  4 KiB      0 B   1.0 us   1.0 us    4 KiB\n"
	"\n"
	"by file extension:\n"
	"  device              name  I/Os  reads  writes  read  written  lat avg  lat max  workset\n"
	"  nvme0n1 part 259:3  sst      2      0       2   0 B   12 KiB   1.0 us   1.0 us   12 KiB\n"
	"  nvme0n1 part 259:3  txt      1      0       1   0 B    4 KiB   1.0 us   1.0 us    4 KiB\n"
	"\n"
	"by file name prefix:\n"
	"  device              name      I/Os  reads  writes   read  written  lat avg  lat max  workset\n"
	"  nvme0n1 part 259:3  LOG          1      1       0  4 KiB      0 B   1.0 us   1.0 us    4 KiB\n"
	"  nvme0n1 part 259:3  MANIFEST     1      0       1    0 B    4 KiB   1.0 us   1.0 us    4 KiB\n"
	"  nvme0n1 part 259:3  top          1      0       1    0 B    4 KiB   1.0 us   1.0 us    4 KiB\n";

static void test_table(void **state)
{
	struct view_opts o = { .format = VIEW_TABLE };
	struct view_run vr;
	const char *out;

	feed_trace(view_run_start(&vr, &fs_view_ops, &o));
	out = view_run_finish(&vr);
	assert_string_equal(out, want_table);
	free(vr.text);
}

/*
 * The same groups on two devices (the second never described, its I/O
 * to partition 8:1) are two rows each, told apart by the device column.
 */
static void test_table_devices(void **state)
{
	static const char *const want =
		"by directory:\n"
		"  device              name  I/Os  reads  writes  read  written  lat avg  lat max  workset\n"
		"  nvme0n1 part 259:3  /db      1      0       1   0 B    4 KiB   1.0 us   1.0 us    4 KiB\n"
		"  8:0 part 8:1        /db      1      0       1   0 B    8 KiB   1.0 us   1.0 us    8 KiB\n"
		"\n"
		"by file extension:\n"
		"  device              name  I/Os  reads  writes  read  written  lat avg  lat max  workset\n"
		"  nvme0n1 part 259:3  sst      1      0       1   0 B    4 KiB   1.0 us   1.0 us    4 KiB\n"
		"  8:0 part 8:1        sst      1      0       1   0 B    8 KiB   1.0 us   1.0 us    8 KiB\n";
	struct view_opts o = { .format = VIEW_TABLE };
	struct event ev = { .ts = 200 };
	struct view_run vr;
	struct join *j;
	const char *out;

	j = view_run_start(&vr, &fs_view_ops, &o);
	next_sid = 1;
	device(j, DEV_A, "nvme0n1");
	name(j, 1, 1, "/");
	name(j, 2, 1, "db");
	name(j, 10, 2, "000014.sst");
	name(j, 11, 2, "000015.sst");
	io(j, 100, 0x10, DEV_A, 0, 8, W);
	meta(j, 100, 0x10, 10, 0, 64);
	done(j, 1100, 0x10, false);
	ev.io.id = 0x11;
	ev.io.dev = DEV_B;
	ev.io.part = DEV_B + 1;
	ev.io.len = 16;
	ev.io.op = W;
	io_ev(j, &ev);
	meta(j, 200, 0x11, 11, 0, 64);
	done(j, 1200, 0x11, false);
	out = view_run_finish(&vr);
	assert_string_equal(out, want);
	free(vr.text);
}

static void test_json_csv(void **state)
{
	struct view_opts o = { .format = VIEW_CSV };
	struct view_run vr;
	const char *out, *p;
	int lines = 0;

	feed_trace(view_run_start(&vr, &fs_view_ops, &o));
	out = view_run_finish(&vr);
	for (p = out; *p; p++)
		lines += *p == '\n';
	/* 8 groups x read, write, discard, total, and the header */
	assert_int_equal(lines, 1 + 8 * 4);
	assert_non_null(strstr(out, "\ndirectory,/db,271581186,271581187,write,3,0,0,32,"));
	assert_non_null(strstr(out, "\nfileExtension,sst,271581186,271581187,total,2,0,0,24,"));
	assert_non_null(strstr(out, "\nfileNamePrefix,MANIFEST,271581186,271581187,write,1,"));
	free(vr.text);

	o.format = VIEW_JSON;
	feed_trace(view_run_start(&vr, &fs_view_ops, &o));
	out = view_run_finish(&vr);
	assert_non_null(strstr(out, "\"directory\": \"/db/logs\""));
	assert_non_null(strstr(out, "\"fileExtension\": \"txt\""));
	assert_non_null(strstr(out, "\"fileNamePrefix\": \"LOG\""));
	assert_non_null(strstr(out, "\"partitionId\": \"271581187\""));
	free(vr.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_devices),
		cmocka_unit_test(test_json_csv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
