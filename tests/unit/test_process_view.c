// SPDX-License-Identifier: BSD-3-Clause
/*
 * --process-statistics: block I/O and VFS calls grouped by pid and comm
 * (two thread names of one process apart) and by cgroup (two processes
 * of one job together); exact counts, bytes, latency percentiles per
 * operation (flush and discard too); writeback under the flusher; I/O
 * without a process; a copy as one call, a read and a write; the order
 * by bytes moved; filters.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cgroup_names.h"
#include "join_events.h"
#include "view_run.h"

static void pio(struct join *j, uint64_t ts, uint64_t id, uint32_t len, int32_t op, uint32_t flags,
		uint32_t pid, const char *comm, uint64_t cgroup, uint64_t latency)
{
	struct event ev = { .ts = ts };

	ev.io.id = id;
	ev.io.dev = DEV_A;
	ev.io.lba = id * 128;
	ev.io.len = len;
	ev.io.op = op;
	ev.io.flags = flags;
	ev.io.pid = pid;
	ev.io.tid = pid;
	ev.io.cgroup = cgroup;
	strcpy(ev.io.comm, comm);
	io_ev(j, &ev);
	done(j, ts + latency, id, false);
}

static void pcall(struct join *j, uint64_t ts, int c, uint32_t pid, const char *comm,
		  uint64_t cgroup, uint64_t size, int64_t result, uint64_t dur)
{
	static uint64_t id;

	vfs_ev(j, ts, &(struct vfs_call){ .id = ++id, .call = c, .pid = pid, .comm = comm,
					  .cgroup = cgroup, .fd = 3, .ino = 70, .size = size,
					  .result = result, .duration = dur });
}

/*
 * fio (100, cgroup 77): writes of 8 sectors taking 100, 200, 300, 400,
 * 10000 ns, a read of 16 (50), an empty flush (70), a discard of 64
 * (30); calls: pwrite64 x2 (4096 each), a failed read. fio's thread
 * "fio:aux" (100, 77): a read of 8 (90). cp (200, cgroup 88): a copy of
 * 8192 bytes. kworker/u8:1 (50, cgroup 1): writeback, two writes of 128
 * (1000, 3000). An I/O without a process: a read of 8 (500).
 */
static void feed_trace(struct join *j)
{
	next_sid = 1;
	device(j, DEV_A, "nvme0n1");
	name(j, 64, 64, "/");
	name(j, 70, 64, "x.dat");
	name(j, 71, 64, "y.dat");
	pio(j, 1000, 1, 8, W, 0, 100, "fio", 77, 100);
	pio(j, 2000, 2, 8, W, 0, 100, "fio", 77, 200);
	pio(j, 3000, 3, 8, W, 0, 100, "fio", 77, 300);
	pio(j, 4000, 4, 8, W, 0, 100, "fio", 77, 400);
	pio(j, 5000, 5, 8, W, 0, 100, "fio", 77, 10000);
	pio(j, 16000, 6, 16, R, 0, 100, "fio", 77, 50);
	pio(j, 17000, 7, 0, W, IOF_FLUSH, 100, "fio", 77, 70);
	pio(j, 18000, 8, 64, D, 0, 100, "fio", 77, 30);
	pio(j, 19000, 9, 8, R, 0, 100, "fio:aux", 77, 90);
	pio(j, 20000, 10, 128, W, 0, 50, "kworker/u8:1", 1, 1000);
	pio(j, 22000, 11, 128, W, 0, 50, "kworker/u8:1", 1, 3000);
	io(j, 26000, 12, DEV_A, 12 * 128, 8, R);
	done(j, 26500, 12, false);
	pcall(j, 30000, VFS(Pwrite64), 100, "fio", 77, 4096, 4096, 800);
	pcall(j, 31000, VFS(Pwrite64), 100, "fio", 77, 4096, 4096, 1200);
	pcall(j, 32000, VFS(Read), 100, "fio", 77, 4096, -5, 10);
	vfs_ev(j, 33000, &(struct vfs_call){ .id = 99, .call = VFS(CopyFileRange), .pid = 200,
					     .comm = "cp", .cgroup = 88, .fd = 3, .fd2 = 4,
					     .ino = 70, .ino2 = 71, .size = 8192, .result = 8192,
					     .duration = 700 });
}

static char *run_named(enum view_format fmt, const struct filter *f,
		       const struct cgroup_names *names)
{
	struct view_opts o = { .format = fmt, .cgroups = names };
	struct view_run vr;

	feed_trace(view_run_start_filtered(&vr, &process_view_ops, &o, f));
	return (char *)view_run_finish(&vr);
}

static char *run(enum view_format fmt, const struct filter *f)
{
	return run_named(fmt, f, NULL);
}

#define CSV_HEADER                                                                                 \
	"group,process.pid,process.comm,process.cgroup,process.cgroupPath,layer,operation,count,errors,notCompleted,"  \
	"bytes,size.min,size.average,size.max,duration.min,duration.average,duration.max,"        \
	"duration.p50,duration.p90,duration.p99,duration.p99.9,duration.p99.99,latency.min,"      \
	"latency.average,latency.max,latency.p50,latency.p90,latency.p99,latency.p99.9,"         \
	"latency.p99.99\n"
#define NO_DURATION ",,,,,,,,,"
#define NO_LATENCY ",,,,,,,,\n"

static const char *const want_csv =
	CSV_HEADER
	/* most block bytes first: the flusher's writeback */
	"process,50,kworker/u8:1,1,,block,write,2,0,0,131072,65536,65536,65536" NO_DURATION
	"1000,2000,3000,1000,3000,3000,3000,3000\n"
	"process,100,fio,77,,vfs,read,1,1,,0,4096,4096,4096,10,10,10,10,10,10,10,10" NO_LATENCY
	"process,100,fio,77,,vfs,write,2,0,,8192,4096,4096,4096,800,1000,1200,800,1200,1200,1200,"
	"1200" NO_LATENCY
	"process,100,fio,77,,block,read,1,0,0,8192,8192,8192,8192" NO_DURATION
	"50,50,50,50,50,50,50,50\n"
	/* p50 of 100, 200, 300, 400, 10000 is 300; p90 and up the slow one */
	"process,100,fio,77,,block,write,5,0,0,20480,4096,4096,4096" NO_DURATION
	"100,2200,10000,300,10000,10000,10000,10000\n"
	"process,100,fio,77,,block,discard,1,0,0,32768,32768,32768,32768" NO_DURATION
	"30,30,30,30,30,30,30,30\n"
	"process,100,fio,77,,block,flush,1,0,0,0,0,0,0" NO_DURATION "70,70,70,70,70,70,70,70\n"
	/* 4096 block bytes each: by pid */
	"process,0,,,,block,read,1,0,0,4096,4096,4096,4096" NO_DURATION
	"500,500,500,500,500,500,500,500\n"
	"process,100,fio:aux,77,,block,read,1,0,0,4096,4096,4096,4096" NO_DURATION
	"90,90,90,90,90,90,90,90\n"
	/* the copy: a read and a write */
	"process,200,cp,88,,vfs,read,1,0,,8192,8192,8192,8192,700,700,700,700,700,700,700,700"
	NO_LATENCY
	"process,200,cp,88,,vfs,write,1,0,,8192,8192,8192,8192,700,700,700,700,700,700,700,700"
	NO_LATENCY
	"cgroup,,,1,,block,write,2,0,0,131072,65536,65536,65536" NO_DURATION
	"1000,2000,3000,1000,3000,3000,3000,3000\n"
	"cgroup,,,77,,vfs,read,1,1,,0,4096,4096,4096,10,10,10,10,10,10,10,10" NO_LATENCY
	"cgroup,,,77,,vfs,write,2,0,,8192,4096,4096,4096,800,1000,1200,800,1200,1200,1200,1200"
	NO_LATENCY
	/* fio and its thread fio:aux, one job */
	"cgroup,,,77,,block,read,2,0,0,12288,4096,6144,8192" NO_DURATION
	"50,70,90,50,90,90,90,90\n"
	"cgroup,,,77,,block,write,5,0,0,20480,4096,4096,4096" NO_DURATION
	"100,2200,10000,300,10000,10000,10000,10000\n"
	"cgroup,,,77,,block,discard,1,0,0,32768,32768,32768,32768" NO_DURATION
	"30,30,30,30,30,30,30,30\n"
	"cgroup,,,77,,block,flush,1,0,0,0,0,0,0" NO_DURATION "70,70,70,70,70,70,70,70\n"
	"cgroup,,,0,,block,read,1,0,0,4096,4096,4096,4096" NO_DURATION
	"500,500,500,500,500,500,500,500\n"
	"cgroup,,,88,,vfs,read,1,0,,8192,8192,8192,8192,700,700,700,700,700,700,700,700"
	NO_LATENCY
	"cgroup,,,88,,vfs,write,1,0,,8192,8192,8192,8192,700,700,700,700,700,700,700,700"
	NO_LATENCY;

static void test_csv(void **state)
{
	char *out = run(VIEW_CSV, NULL);

	assert_string_equal(out, want_csv);
	free(out);
}

static const char *const want_table =
	"by process:\n"
	"  pid  comm          cgroup  I/Os  blk read  blk written  lat avg  lat p99  lat max  calls"
	"  vfs read  vfs written\n"
	"   50  kworker/u8:1       1     2       0 B      128 KiB   2.0 us   3.0 us   3.0 us      0"
	"       0 B          0 B\n"
	"  100  fio               77     8     8 KiB       20 KiB   1.4 us  10.0 us  10.0 us      3"
	"       0 B        8 KiB\n"
	"    -  -                  -     1     4 KiB          0 B   500 ns   500 ns   500 ns      0"
	"       0 B          0 B\n"
	"  100  fio:aux           77     1     4 KiB          0 B    90 ns    90 ns    90 ns      0"
	"       0 B          0 B\n"
	"  200  cp                88     0       0 B          0 B        -        -        -      1"
	"     8 KiB        8 KiB\n"
	"\n"
	"by cgroup:\n"
	"  cgroup  I/Os  blk read  blk written  lat avg  lat p99  lat max  calls  vfs read"
	"  vfs written\n"
	"       1     2       0 B      128 KiB   2.0 us   3.0 us   3.0 us      0       0 B"
	"          0 B\n"
	"      77     9    12 KiB       20 KiB   1.2 us  10.0 us  10.0 us      3       0 B"
	"        8 KiB\n"
	"       -     1     4 KiB          0 B   500 ns   500 ns   500 ns      0       0 B"
	"          0 B\n"
	"      88     0       0 B          0 B        -        -        -      1     8 KiB"
	"        8 KiB\n";

static void test_table(void **state)
{
	char *out = run(VIEW_TABLE, NULL);

	assert_string_equal(out, want_table);
	free(out);
}

static const char *const want_json_cp =
	"  {\n"
	"   \"pid\": 200,\n"
	"   \"comm\": \"cp\",\n"
	"   \"cgroup\": \"88\",\n"
	"   \"calls\": \"1\",\n"
	"   \"vfs\": {\n"
	"    \"read\": {\n"
	"     \"count\": \"1\",\n"
	"     \"errors\": \"0\",\n"
	"     \"bytes\": \"8192\",\n";

static void test_json(void **state)
{
	char *out = run(VIEW_JSON, NULL);
	const char *cg = strstr(out, "\n \"cgroups\": [\n  {\n   \"cgroup\": \"1\",\n   \"block\": {");
	const char *first = "{\n \"processes\": [\n  {\n   \"pid\": 50,\n   \"comm\": "
			    "\"kworker/u8:1\",\n   \"cgroup\": \"1\",\n   \"block\": {\n";

	assert_true(!strncmp(out, first, strlen(first)));
	assert_non_null(strstr(out, want_json_cp));
	/* no process: pid 0, comm "", no cgroup */
	assert_non_null(strstr(out, "   \"pid\": 0,\n   \"comm\": \"\",\n   \"block\": {\n"));
	assert_non_null(cg);
	assert_non_null(strstr(cg, "   \"cgroup\": \"0\",\n   \"block\": {\n"));
	/* no "calls" where no call was made */
	assert_null(strstr(cg, "   \"cgroup\": \"1\",\n   \"calls\""));
	free(out);
}

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

	/* the flusher alone */
	filter__init(&f, NULL, 50, NULL);
	out = run(VIEW_CSV, &f);
	assert_string_equal(out, CSV_HEADER
			    "process,50,kworker/u8:1,1,,block,write,2,0,0,131072,65536,65536,65536"
			    NO_DURATION "1000,2000,3000,1000,3000,3000,3000,3000\n"
			    "cgroup,,,1,,block,write,2,0,0,131072,65536,65536,65536" NO_DURATION
			    "1000,2000,3000,1000,3000,3000,3000,3000\n");
	free(out);
	/* a thread name picks that thread's group only */
	filter__init(&f, NULL, 0, "fio:aux");
	out = run(VIEW_CSV, &f);
	assert_int_equal(rows(out, "process,"), 1);
	assert_int_equal(rows(out, "cgroup,,,77,,block,read,1,0,0,4096,"), 1);
	free(out);
	/* the copy through its output: the write side only; the block I/O names no file */
	filter__init(&f, "/y.dat", 0, NULL);
	out = run(VIEW_CSV, &f);
	assert_string_equal(out, CSV_HEADER
			    "process,200,cp,88,,vfs,write,1,0,,8192,8192,8192,8192,700,700,700,700,700,"
			    "700,700,700" NO_LATENCY
			    "cgroup,,,88,,vfs,write,1,0,,8192,8192,8192,8192,700,700,700,700,700,700,"
			    "700,700" NO_LATENCY);
	free(out);
	/* nothing */
	filter__init(&f, NULL, 4242, NULL);
	out = run(VIEW_JSON, &f);
	assert_string_equal(out, "{\n \"processes\": [],\n \"cgroups\": []\n}\n");
	free(out);
	out = run(VIEW_TABLE, &f);
	assert_string_equal(out, "no I/O in this trace\n");
	free(out);
}

/* Where the trace names its cgroups: by path beside the id, in the table instead of it. */
static void test_cgroup_paths(void **state)
{
	struct cgroup_names names = { .present = true };
	char *out;

	assert_int_equal(cgroup_names__add(&names, 1, "/"), 0);
	assert_int_equal(cgroup_names__add(&names, 77, "/slurm/job_77/step_0"), 0);
	out = run_named(VIEW_CSV, NULL, &names);
	assert_int_equal(rows(out, "process,100,fio,77,/slurm/job_77/step_0,block,write,5,"), 1);
	assert_int_equal(rows(out, "cgroup,,,77,/slurm/job_77/step_0,block,write,5,"), 1);
	assert_int_equal(rows(out, "cgroup,,,1,/,block,write,2,"), 1);
	/* not named: the id alone */
	assert_int_equal(rows(out, "cgroup,,,88,,vfs,read,1,"), 1);
	free(out);
	out = run_named(VIEW_JSON, NULL, &names);
	assert_non_null(strstr(out, "   \"pid\": 100,\n   \"comm\": \"fio\",\n   \"cgroup\": \"77\",\n"
				    "   \"cgroupPath\": \"/slurm/job_77/step_0\",\n"));
	assert_non_null(strstr(out, "   \"cgroup\": \"88\",\n   \"calls\""));
	free(out);
	/* paths to the left, where people read them */
	out = run_named(VIEW_TABLE, NULL, &names);
	assert_non_null(strstr(out, "\n  100  fio           /slurm/job_77/step_0     8 "));
	assert_non_null(strstr(out, "\n  /slurm/job_77/step_0     9 "));
	assert_non_null(strstr(out, "\n  88                       0 "));
	free(out);
	cgroup_names__free(&names);
}

/*
 * A process moved to another cgroup (a job step, a container's exec): a
 * row in each, each with the I/O done there, so that its rows add up to
 * its cgroups' (it was one row, shown in the last cgroup, with all of it).
 */
static void test_moved_process(void **state)
{
	struct view_opts o = { .format = VIEW_CSV };
	struct view_run vr;
	struct join *j = view_run_start_filtered(&vr, &process_view_ops, &o, NULL);
	char *out;

	next_sid = 1;
	device(j, DEV_A, "nvme0n1");
	pio(j, 1000, 1, 8, R, 0, 300, "job", 40, 100);
	pio(j, 2000, 2, 8, R, 0, 300, "job", 40, 100);
	pio(j, 3000, 3, 8, R, 0, 300, "job", 41, 100);
	out = (char *)view_run_finish(&vr);
	assert_int_equal(rows(out, "process,300,job,40,,block,read,2,0,0,8192,"), 1);
	assert_int_equal(rows(out, "process,300,job,41,,block,read,1,0,0,4096,"), 1);
	assert_int_equal(rows(out, "cgroup,,,40,,block,read,2,0,0,8192,"), 1);
	assert_int_equal(rows(out, "cgroup,,,41,,block,read,1,0,0,4096,"), 1);
	assert_int_equal(rows(out, "process,"), 2);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_cgroup_paths),
		cmocka_unit_test(test_moved_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
