// SPDX-License-Identifier: BSD-3-Clause
/*
 * --file-statistics: exact per-file counts, bytes, sizes, durations and
 * their percentiles for each kind of call; block I/O attributed to the
 * file (a write that never completed, latencies); a copy counted as a
 * read of one file and a write of the other; a file the trace never
 * names; the order of files; filters (one matching nothing, a glob over
 * nested directories, a copy matched through its output).
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

static void call(struct join *j, uint64_t ts, int c, uint64_t ino, uint64_t size, int64_t result,
		 uint64_t dur)
{
	static uint64_t id;

	vfs_ev(j, ts, &(struct vfs_call){ .id = ++id, .call = c, .pid = 100, .comm = "fio",
					  .cgroup = 77, .fd = 3, .ino = ino, .size = size,
					  .result = result, .duration = dur });
}

static void blk(struct join *j, uint64_t ts, uint64_t id, uint32_t len, int32_t op, uint64_t ino,
		uint64_t latency)
{
	io(j, ts, id, DEV_A, id * 64, len, op);
	meta(j, ts, id, ino, 0, 64);
	if (latency)
		done(j, ts + latency, id, false);
}

/*
 * /d/x.dat (70): open; writes of 4096 taking 100, 200, 300, 10000 ns and
 * one failing with ENOSPC in 50; reads of 8192 returning 8192 and 100;
 * lseek; fsync; close; block writes of 8 and 16 sectors (latency 500,
 * 1500) and one of 8 never completed, a read of 8 (300). cp copies 8192
 * bytes of it to /d/sub/y.log (72) in 700 ns. Inode 99, never named: a
 * block write (1000) and a pread of 512 by dd.
 */
static void feed_trace(struct join *j)
{
	next_sid = 1;
	device(j, DEV_A, "nvme0n1");
	name(j, 64, 64, "/");
	name(j, 65, 64, "d");
	name(j, 66, 65, "sub");
	name(j, 70, 65, "x.dat");
	name(j, 72, 66, "y.log");
	call(j, 1000, VFS(Openat), 70, 0, 3, 1000);
	call(j, 2000, VFS(Pwrite64), 70, 4096, 4096, 100);
	call(j, 3000, VFS(Pwrite64), 70, 4096, 4096, 200);
	call(j, 4000, VFS(Pwrite64), 70, 4096, 4096, 300);
	call(j, 20000, VFS(Pwrite64), 70, 4096, 4096, 10000);
	call(j, 21000, VFS(Pwrite64), 70, 4096, -28, 50);
	call(j, 22000, VFS(Pread64), 70, 8192, 8192, 400);
	call(j, 23000, VFS(Pread64), 70, 8192, 100, 600);
	call(j, 24000, VFS(Lseek), 70, 0, 0, 30);
	call(j, 25000, VFS(Fsync), 70, 0, 0, 5000);
	blk(j, 25100, 1, 8, W, 70, 500);
	blk(j, 25200, 2, 16, W, 70, 1500);
	blk(j, 25300, 3, 8, W, 70, 0);
	blk(j, 25400, 4, 8, R, 70, 300);
	call(j, 26000, VFS(Close), 70, 0, 0, 20);
	vfs_ev(j, 27000, &(struct vfs_call){ .id = 50, .call = VFS(CopyFileRange), .pid = 200,
					     .comm = "cp", .cgroup = 88, .fd = 3, .fd2 = 4,
					     .ino = 70, .ino2 = 72, .size = 8192, .result = 8192,
					     .duration = 700 });
	blk(j, 28000, 5, 8, W, 99, 1000);
	vfs_ev(j, 29000, &(struct vfs_call){ .id = 51, .call = VFS(Pread64), .pid = 300,
					     .comm = "dd", .fd = 5, .ino = 99, .size = 512,
					     .result = 512, .duration = 80 });
}

static char *run(enum view_format fmt, const struct filter *f)
{
	struct view_opts o = { .format = fmt };
	struct view_run vr;

	feed_trace(view_run_start_filtered(&vr, &file_stats_view_ops, &o, f));
	return (char *)view_run_finish(&vr);
}

#define CSV_HEADER                                                                                 \
	"file.path,file.partition,file.id,device.id,device.name,layer,operation,count,errors,"     \
	"notCompleted,bytes,size.min,size.average,size.max,duration.min,duration.average,"        \
	"duration.max,duration.p50,duration.p90,duration.p99,duration.p99.9,duration.p99.99,"     \
	"latency.min,latency.average,latency.max,latency.p50,latency.p90,latency.p99,"           \
	"latency.p99.9,latency.p99.99\n"
#define X ",271581186,nvme0n1,"
#define NO_LATENCY ",,,,,,,,\n"

static const char *const want_csv =
	CSV_HEADER
	"/d/sub/y.log,271581187," X "vfs,write,1,0,,8192,8192,8192,8192,"
	"700,700,700,700,700,700,700,700" NO_LATENCY
	"/d/x.dat,271581187," X "vfs,open,1,0,,0,0,0,0,1000,1000,1000,1000,1000,1000,1000,1000"
	NO_LATENCY
	"/d/x.dat,271581187," X "vfs,close,1,0,,0,0,0,0,20,20,20,20,20,20,20,20" NO_LATENCY
	/* 8192 + 100 + the copy's 8192; p50 is the second of 400, 600, 700 */
	"/d/x.dat,271581187," X "vfs,read,3,0,,16484,8192,8192,8192,"
	"400,566.6666666666666,700,600,700,700,700,700" NO_LATENCY
	/* the ENOSPC is an error, 0 bytes; p50 of 50, 100, 200, 300, 10000 is 200 */
	"/d/x.dat,271581187," X "vfs,write,5,1,,16384,4096,4096,4096,"
	"50,2130,10000,200,10000,10000,10000,10000" NO_LATENCY
	"/d/x.dat,271581187," X "vfs,seek,1,0,,0,0,0,0,30,30,30,30,30,30,30,30" NO_LATENCY
	"/d/x.dat,271581187," X "vfs,sync,1,0,,0,0,0,0,5000,5000,5000,5000,5000,5000,5000,5000"
	NO_LATENCY
	"/d/x.dat,271581187," X "block,read,1,0,0,4096,4096,4096,4096,,,,,,,,,"
	"300,300,300,300,300,300,300,300\n"
	/* 8 + 16 + 8 sectors; the one never completed has no latency */
	"/d/x.dat,271581187," X "block,write,3,0,1,16384,4096,5461.333333333333,8192,,,,,,,,,"
	"500,1000,1500,500,1500,1500,1500,1500\n"
	",271581187,99" X "vfs,read,1,0,,512,512,512,512,80,80,80,80,80,80,80,80" NO_LATENCY
	",271581187,99" X "block,write,1,0,0,4096,4096,4096,4096,,,,,,,,,"
	"1000,1000,1000,1000,1000,1000,1000,1000\n";

static void test_csv(void **state)
{
	char *out = run(VIEW_CSV, NULL);

	assert_string_equal(out, want_csv);
	free(out);
}

static const char *const want_table =
	"device              file          opens  reads      read  rd avg  rd p99  writes  written"
	"  wr avg   wr p99  seeks  syncs  blk read  blk written\n"
	"nvme0n1 part 259:3  /d/sub/y.log      0      0       0 B       -       -       1    8 KiB"
	"  700 ns   700 ns      0      0       0 B          0 B\n"
	"nvme0n1 part 259:3  /d/x.dat          1      3  16.1 KiB  567 ns  700 ns       5   16 KiB"
	"  2.1 us  10.0 us      1      1     4 KiB       16 KiB\n"
	"nvme0n1 part 259:3  ? (inode 99)      0      1     512 B   80 ns   80 ns       0      0 B"
	"       -        -      0      0       0 B        4 KiB\n";

static void test_table(void **state)
{
	char *out = run(VIEW_TABLE, NULL);

	assert_string_equal(out, want_table);
	free(out);
}

static const char *const want_json_block =
	"   \"block\": {\n"
	"    \"read\": {\n"
	"     \"count\": \"1\",\n"
	"     \"errors\": \"0\",\n"
	"     \"notCompleted\": \"0\",\n"
	"     \"bytes\": \"4096\",\n"
	"     \"size\": {\n"
	"      \"unit\": \"byte\",\n"
	"      \"average\": 4096,\n"
	"      \"min\": \"4096\",\n"
	"      \"max\": \"4096\",\n"
	"      \"count\": \"1\",\n"
	"      \"total\": \"4096\"\n"
	"     },\n"
	"     \"latency\": {\n"
	"      \"unit\": \"ns\",\n"
	"      \"average\": 300,\n";

static void test_json(void **state)
{
	char *out = run(VIEW_JSON, NULL);
	const char *x = strstr(out, "\"path\": \"/d/x.dat\"");

	assert_non_null(x);
	assert_non_null(strstr(x, want_json_block));
	assert_non_null(strstr(out, "    \"path\": \"\",\n    \"partition\": \"271581187\",\n"
				    "    \"id\": \"99\"\n"));
	/* the operations that happened only: x.dat has no mmap, y.log no read */
	assert_null(strstr(out, "\"mmap\""));
	assert_true(strstr(out, "\"read\"") > x);
	free(out);
}

/* y.log alone: the copy matched through its output, x.dat's side is left out */
static const char *const want_json_output_side =
	"{\n"
	" \"files\": [\n"
	"  {\n"
	"   \"file\": {\n"
	"    \"path\": \"/d/sub/y.log\",\n"
	"    \"partition\": \"271581187\"\n"
	"   },\n"
	"   \"device\": {\n"
	"    \"id\": \"271581186\",\n"
	"    \"name\": \"nvme0n1\"\n"
	"   },\n"
	"   \"vfs\": {\n"
	"    \"write\": {\n"
	"     \"count\": \"1\",\n"
	"     \"errors\": \"0\",\n"
	"     \"bytes\": \"8192\",\n"
	"     \"size\": {\n"
	"      \"unit\": \"byte\",\n"
	"      \"average\": 8192,\n"
	"      \"min\": \"8192\",\n"
	"      \"max\": \"8192\",\n"
	"      \"count\": \"1\",\n"
	"      \"total\": \"8192\"\n"
	"     },\n"
	"     \"duration\": {\n"
	"      \"unit\": \"ns\",\n"
	"      \"average\": 700,\n"
	"      \"min\": \"700\",\n"
	"      \"max\": \"700\",\n"
	"      \"count\": \"1\",\n"
	"      \"total\": \"700\",\n"
	"      \"percentiles\": {\n"
	"       \"50.000000th\": 700,\n"
	"       \"90.000000th\": 700,\n"
	"       \"99.000000th\": 700,\n"
	"       \"99.900000th\": 700,\n"
	"       \"99.990000th\": 700\n"
	"      }\n"
	"     }\n"
	"    }\n"
	"   }\n"
	"  }\n"
	" ]\n"
	"}\n";

static unsigned int rows(const char *out, const char *prefix)
{
	unsigned int n = 0;

	for (; out && *out; out = strchr(out, '\n') ? strchr(out, '\n') + 1 : NULL)
		n += !strncmp(out, prefix, strlen(prefix));
	return n;
}

static void test_filters(void **state)
{
	struct filter f;
	char *out;

	filter__init(&f, "/d/sub/*", 0, NULL);
	out = run(VIEW_JSON, &f);
	assert_string_equal(out, want_json_output_side);
	free(out);

	/* '*' crosses directories; the unnamed file has no path to match */
	filter__init(&f, "/d/*", 0, NULL);
	out = run(VIEW_CSV, &f);
	assert_int_equal(rows(out, "/d/x.dat,"), 8);
	assert_int_equal(rows(out, "/d/sub/y.log,"), 1);
	assert_int_equal(rows(out, ",271581187,99,"), 0);
	free(out);

	/* fio's calls only: no copy, no block I/O (the helpers give it no pid) */
	filter__init(&f, NULL, 100, "fio");
	out = run(VIEW_CSV, &f);
	assert_int_equal(rows(out, "/d/x.dat,"), 6);
	assert_int_equal(rows(out, "/d/x.dat,271581187," X "vfs,read,2,0,,8292,"), 1);
	assert_int_equal(rows(out, "/d/sub/y.log,"), 0);
	free(out);

	/* nothing left: the columns, an empty list, a word for people */
	filter__init(&f, "/nowhere/*", 0, NULL);
	out = run(VIEW_CSV, &f);
	assert_string_equal(out, CSV_HEADER);
	free(out);
	out = run(VIEW_JSON, &f);
	assert_string_equal(out, "{\n \"files\": []\n}\n");
	free(out);
	out = run(VIEW_TABLE, &f);
	assert_string_equal(out, "no file in this trace\n");
	free(out);
}

/* Many files: the map grows and keeps each one apart. */
static void test_many_files(void **state)
{
	struct view_opts o = { .format = VIEW_CSV };
	struct view_run vr;
	struct join *j = view_run_start(&vr, &file_stats_view_ops, &o);
	char n[16];
	char *out;
	uint64_t i;

	next_sid = 1;
	name(j, 64, 64, "/");
	for (i = 0; i < 500; i++) {
		snprintf(n, sizeof(n), "f%03u", (unsigned int)i);
		name(j, 1000 + i, 64, n);
		call(j, 10 + i, VFS(Write), 1000 + i, i + 1, (int64_t)i + 1, 5);
	}
	out = (char *)view_run_finish(&vr);
	assert_int_equal(rows(out, "/f"), 500);
	assert_int_equal(rows(out, "/f000,"), 1);
	assert_non_null(strstr(out, "\n/f499,271581187,,271581187,,vfs,write,1,0,,500,500,500,500,"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_many_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
