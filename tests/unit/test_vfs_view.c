// SPDX-License-Identifier: BSD-3-Clause
/*
 * The --vfs view, byte for byte: a call's fields as the trace has them,
 * the path of a file five directories down, the output file of a copy,
 * errno names, a call that began before the first event, a call without
 * a file, one newer than the parser, io_uring opcodes; the device named
 * once block I/O tied the partition to its disk; CSV's fixed columns;
 * the table; filters.
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

/*
 * sid 1 device; 2-9 names (/a/b/c/d/e/f.dat is 70, /g.dat 71); 10 openat
 * that began before the first event (ts 1); 11-13 a block write to 70,
 * queued by call 2; 14 pwrite64; 15 read, interrupted; 16 copy_file_range
 * 70 -> 71; 17 io_uring read_fixed; 18 close of a file it does not name;
 * 19 a call number from the future.
 */
static void feed_trace(struct join *j)
{
	struct event ev = { .ts = 1100 };

	next_sid = 1;
	device(j, DEV_A, "nvme0n1");
	name(j, 64, 64, "/");
	name(j, 65, 64, "a");
	name(j, 66, 65, "b");
	name(j, 67, 66, "c");
	name(j, 68, 67, "d");
	name(j, 69, 68, "e");
	name(j, 70, 69, "f.dat");
	name(j, 71, 64, "g.dat");
	vfs_ev(j, 300, &(struct vfs_call){ .id = 1, .call = VFS(Openat), .pid = 100,
					   .comm = "fio", .cgroup = 77, .fd = -100, .ino = 70,
					   .result = 3, .duration = 400, .flags = 0x241,
					   .created = true });
	ev.io.id = 0xa1;
	ev.io.dev = DEV_A;
	ev.io.lba = 2048;
	ev.io.len = 8;
	ev.io.op = W;
	ev.io.vfs_call = 2;
	io_ev(j, &ev);
	meta(j, 1100, 0xa1, 70, 0, 8);
	done(j, 1600, 0xa1, false);
	vfs_ev(j, 2000, &(struct vfs_call){ .id = 2, .call = VFS(Pwrite64), .pid = 100,
					    .tid = 101, .comm = "fio", .cgroup = 77, .fd = 3,
					    .ino = 70, .size = 4096, .result = 4096,
					    .duration = 900 });
	vfs_ev(j, 3000, &(struct vfs_call){ .id = 3, .call = VFS(Read), .pid = 100,
					    .comm = "fio", .cgroup = 77, .fd = 3, .ino = 70,
					    .offset = -1, .size = 4096, .result = -4,
					    .duration = 10 });
	vfs_ev(j, 4000, &(struct vfs_call){ .id = 4, .call = VFS(CopyFileRange), .pid = 200,
					    .comm = "cp", .fd = 3, .fd2 = 4, .ino = 70,
					    .ino2 = 71, .offset2 = 512, .size = 8192,
					    .result = 8192, .duration = 50 });
	vfs_ev(j, 5000, &(struct vfs_call){ .id = 5, .call = VFS(UringRead), .uring_op = 4,
					    .pid = 100, .comm = "fio", .fd = 3, .ino = 70,
					    .offset = 4096, .size = 4096, .result = 4096,
					    .duration = 3000 });
	vfs_ev(j, 6000, &(struct vfs_call){ .id = 6, .call = VFS(Close), .pid = 100,
					    .comm = "fio", .fd = 9, .result = -9, .duration = 20 });
	vfs_ev(j, 7000, &(struct vfs_call){ .id = 7, .call = 99, .pid = 100, .comm = "fio",
					    .ino = 70, .result = -600, .duration = 1 });
}

static const char *run_named(enum view_format fmt, const struct filter *f,
			     const struct cgroup_names *names)
{
	struct view_opts o = { .format = fmt, .cgroups = names };
	struct view_run vr;

	feed_trace(view_run_start_filtered(&vr, &vfs_view_ops, &o, f));
	return view_run_finish(&vr);
}

static const char *run(enum view_format fmt, const struct filter *f)
{
	return run_named(fmt, f, NULL);
}

static const char *const want_json =
	"{\"header\":{\"sid\":\"10\",\"timestamp\":\"295\"},\"vfs\":{\"id\":\"1\","
	"\"call\":\"openat\",\"start\":\"-105\",\"duration\":\"400\",\"fd\":-100,"
	"\"offset\":\"0\",\"size\":\"0\",\"result\":\"3\",\"flags\":577,\"created\":true},"
	"\"process\":{\"pid\":100,\"tid\":100,\"comm\":\"fio\",\"cgroup\":\"77\"},"
	"\"device\":{\"id\":\"271581187\",\"name\":\"\",\"partition\":\"271581187\"},"
	"\"file\":{\"id\":\"70\",\"creationDate\":\"2020-07-02T06:52:55.712990641Z\","
	"\"path\":\"/a/b/c/d/e/f.dat\"}}\n"
	"{\"header\":{\"sid\":\"14\",\"timestamp\":\"1995\"},\"vfs\":{\"id\":\"2\","
	"\"call\":\"pwrite64\",\"start\":\"1095\",\"duration\":\"900\",\"fd\":3,"
	"\"offset\":\"0\",\"size\":\"4096\",\"result\":\"4096\",\"flags\":0},"
	"\"process\":{\"pid\":100,\"tid\":101,\"comm\":\"fio\",\"cgroup\":\"77\"},"
	"\"device\":{\"id\":\"271581186\",\"name\":\"nvme0n1\",\"partition\":\"271581187\"},"
	"\"file\":{\"id\":\"70\",\"creationDate\":\"2020-07-02T06:52:55.712990641Z\","
	"\"path\":\"/a/b/c/d/e/f.dat\"}}\n"
	"{\"header\":{\"sid\":\"15\",\"timestamp\":\"2995\"},\"vfs\":{\"id\":\"3\","
	"\"call\":\"read\",\"start\":\"2985\",\"duration\":\"10\",\"fd\":3,"
	"\"offset\":\"-1\",\"size\":\"4096\",\"result\":\"-4\",\"error\":\"EINTR\","
	"\"flags\":0},\"process\":{\"pid\":100,\"tid\":100,\"comm\":\"fio\","
	"\"cgroup\":\"77\"},\"device\":{\"id\":\"271581186\",\"name\":\"nvme0n1\","
	"\"partition\":\"271581187\"},\"file\":{\"id\":\"70\","
	"\"creationDate\":\"2020-07-02T06:52:55.712990641Z\",\"path\":\"/a/b/c/d/e/f.dat\"}}\n"
	"{\"header\":{\"sid\":\"16\",\"timestamp\":\"3995\"},\"vfs\":{\"id\":\"4\","
	"\"call\":\"copy_file_range\",\"start\":\"3945\",\"duration\":\"50\",\"fd\":3,"
	"\"offset\":\"0\",\"size\":\"8192\",\"result\":\"8192\",\"flags\":0,\"fd2\":4,"
	"\"offset2\":\"512\"},\"process\":{\"pid\":200,\"tid\":200,\"comm\":\"cp\"},"
	"\"device\":{\"id\":\"271581186\",\"name\":\"nvme0n1\",\"partition\":\"271581187\"},"
	"\"file\":{\"id\":\"70\",\"creationDate\":\"2020-07-02T06:52:55.712990641Z\","
	"\"path\":\"/a/b/c/d/e/f.dat\"},\"file2\":{\"id\":\"71\",\"partition\":\"271581187\","
	"\"creationDate\":\"2020-07-02T06:52:55.712990641Z\",\"path\":\"/g.dat\"}}\n"
	"{\"header\":{\"sid\":\"17\",\"timestamp\":\"4995\"},\"vfs\":{\"id\":\"5\","
	"\"call\":\"io_uring:read_fixed\",\"start\":\"1995\",\"duration\":\"3000\",\"fd\":3,"
	"\"offset\":\"4096\",\"size\":\"4096\",\"result\":\"4096\",\"flags\":0,"
	"\"uringOpcode\":4},\"process\":{\"pid\":100,\"tid\":100,\"comm\":\"fio\"},"
	"\"device\":{\"id\":\"271581186\",\"name\":\"nvme0n1\",\"partition\":\"271581187\"},"
	"\"file\":{\"id\":\"70\",\"creationDate\":\"2020-07-02T06:52:55.712990641Z\","
	"\"path\":\"/a/b/c/d/e/f.dat\"}}\n"
	"{\"header\":{\"sid\":\"18\",\"timestamp\":\"5995\"},\"vfs\":{\"id\":\"6\","
	"\"call\":\"close\",\"start\":\"5975\",\"duration\":\"20\",\"fd\":9,\"offset\":\"0\","
	"\"size\":\"0\",\"result\":\"-9\",\"error\":\"EBADF\",\"flags\":0},"
	"\"process\":{\"pid\":100,\"tid\":100,\"comm\":\"fio\"},\"device\":{"
	"\"id\":\"271581186\",\"name\":\"nvme0n1\",\"partition\":\"271581187\"}}\n"
	"{\"header\":{\"sid\":\"19\",\"timestamp\":\"6995\"},\"vfs\":{\"id\":\"7\","
	"\"call\":99,\"start\":\"6994\",\"duration\":\"1\",\"fd\":0,\"offset\":\"0\","
	"\"size\":\"0\",\"result\":\"-600\",\"error\":\"600\",\"flags\":0},"
	"\"process\":{\"pid\":100,\"tid\":100,\"comm\":\"fio\"},\"device\":{"
	"\"id\":\"271581186\",\"name\":\"nvme0n1\",\"partition\":\"271581187\"},"
	"\"file\":{\"id\":\"70\",\"creationDate\":\"2020-07-02T06:52:55.712990641Z\","
	"\"path\":\"/a/b/c/d/e/f.dat\"}}\n";

static void test_json(void **state)
{
	char *out = (char *)run(VIEW_JSON, NULL);

	assert_string_equal(out, want_json);
	free(out);
}

#define CSV_HEADER                                                                                 \
	"header.sid,header.timestamp,vfs.id,vfs.call,vfs.start,vfs.duration,vfs.fd,vfs.offset,"   \
	"vfs.size,vfs.result,vfs.error,vfs.flags,vfs.created,vfs.fd2,vfs.offset2,vfs.uringOpcode," \
	"process.pid,process.tid,process.comm,process.cgroup,device.id,device.name,"               \
	"device.partition,file.id,file.creationDate,file.path,file2.id,file2.partition,"          \
	"file2.creationDate,file2.path\n"
#define DATE "2020-07-02T06:52:55.712990641Z"

static const char *const want_csv =
	CSV_HEADER
	"10,295,1,openat,-105,400,-100,0,0,3,,577,true,,,,100,100,fio,77,271581187,,271581187,70,"
	DATE ",/a/b/c/d/e/f.dat,,,,\n"
	"14,1995,2,pwrite64,1095,900,3,0,4096,4096,,0,,,,,100,101,fio,77,271581186,nvme0n1,"
	"271581187,70," DATE ",/a/b/c/d/e/f.dat,,,,\n"
	"15,2995,3,read,2985,10,3,-1,4096,-4,EINTR,0,,,,,100,100,fio,77,271581186,nvme0n1,"
	"271581187,70," DATE ",/a/b/c/d/e/f.dat,,,,\n"
	"16,3995,4,copy_file_range,3945,50,3,0,8192,8192,,0,,4,512,,200,200,cp,,271581186,nvme0n1,"
	"271581187,70," DATE ",/a/b/c/d/e/f.dat,71,271581187," DATE ",/g.dat\n"
	"17,4995,5,io_uring:read_fixed,1995,3000,3,4096,4096,4096,,0,,,,4,100,100,fio,,271581186,"
	"nvme0n1,271581187,70," DATE ",/a/b/c/d/e/f.dat,,,,\n"
	"18,5995,6,close,5975,20,9,0,0,-9,EBADF,0,,,,,100,100,fio,,271581186,nvme0n1,271581187,,,,,"
	",,\n"
	"19,6995,7,99,6994,1,0,0,0,-600,600,0,,,,,100,100,fio,,271581186,nvme0n1,271581187,70,"
	DATE ",/a/b/c/d/e/f.dat,,,,\n";

static void test_csv(void **state)
{
	char *out = (char *)run(VIEW_CSV, NULL);

	assert_string_equal(out, want_csv);
	free(out);
}

/* A trace that names its cgroups: cgroupPath in JSON, a last CSV column. */
static void test_cgroup_paths(void **state)
{
	struct cgroup_names names = { .present = true };
	char *out;

	assert_int_equal(cgroup_names__add(&names, 77, "/job,1"), 0);
	out = (char *)run_named(VIEW_CSV, NULL, &names);
	assert_non_null(strstr(out, ",file2.path,process.cgroupPath\n"));
	assert_non_null(strstr(out, "\n14,1995,2,pwrite64,"));
	assert_non_null(strstr(out, ",/a/b/c/d/e/f.dat,,,,,\"/job,1\"\n15,2995,3,read,"));
	/* cp's copy has no cgroup: an empty last cell */
	assert_non_null(strstr(out, ",/g.dat,\n17,4995,"));
	free(out);
	out = (char *)run_named(VIEW_JSON, NULL, &names);
	assert_non_null(strstr(out, "\"comm\":\"fio\",\"cgroup\":\"77\",\"cgroupPath\":\"/job,1\"}"));
	free(out);
	cgroup_names__free(&names);
}

static const char *const want_table =
	"START(s)       COMM                PID CALL                    FD       OFFSET       SIZE"
	"       RESULT      DUR(us)  FILE\n"
	"-0.000000      fio                 100 openat                -100            0          0"
	"            3        0.400  /a/b/c/d/e/f.dat\n"
	"0.000001       fio                 100 pwrite64                 3            0       4096"
	"         4096        0.900  /a/b/c/d/e/f.dat\n"
	"0.000003       fio                 100 read                     3            -       4096"
	"        EINTR        0.010  /a/b/c/d/e/f.dat\n"
	"0.000004       cp                  200 copy_file_range          3            0       8192"
	"         8192        0.050  /a/b/c/d/e/f.dat -> /g.dat\n"
	"0.000002       fio                 100 io_uring:read_fixed      3         4096       4096"
	"         4096        3.000  /a/b/c/d/e/f.dat\n"
	"0.000006       fio                 100 close                    9            0          0"
	"        EBADF        0.020\n"
	"0.000007       fio                 100 99                       0            0          0"
	"         -600        0.001  /a/b/c/d/e/f.dat\n";

static void test_table(void **state)
{
	char *out = (char *)run(VIEW_TABLE, NULL);

	assert_string_equal(out, want_table);
	free(out);
}

/* Lines of out that start with prefix, counted. */
static unsigned int lines(const char *out, const char *prefix)
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

	/* the process of the copy */
	filter__init(&f, NULL, 200, NULL);
	out = (char *)run(VIEW_CSV, &f);
	assert_string_equal(out, CSV_HEADER
			    "16,3995,4,copy_file_range,3945,50,3,0,8192,8192,,0,,4,512,,200,200,cp,,"
			    "271581186,nvme0n1,271581187,70," DATE ",/a/b/c/d/e/f.dat,71,271581187,"
			    DATE ",/g.dat\n");
	free(out);
	/* a thread of the writer */
	filter__init(&f, NULL, 101, NULL);
	out = (char *)run(VIEW_CSV, &f);
	assert_int_equal(lines(out, "14,"), 1);
	assert_int_equal(lines(out, "1"), 1);
	free(out);
	/* five directories down; the close names no file */
	filter__init(&f, "/a/*", 0, "fio");
	out = (char *)run(VIEW_CSV, &f);
	assert_int_equal(lines(out, "1"), 5);
	assert_int_equal(lines(out, "18,"), 0);
	free(out);
	/* the copy's output file */
	filter__init(&f, "/g.dat", 0, NULL);
	out = (char *)run(VIEW_CSV, &f);
	assert_int_equal(lines(out, "16,"), 1);
	assert_int_equal(lines(out, "1"), 1);
	free(out);
	/* nothing: JSON empty, CSV its columns */
	filter__init(&f, NULL, 0, "nobody");
	out = (char *)run(VIEW_JSON, &f);
	assert_string_equal(out, "");
	free(out);
	out = (char *)run(VIEW_CSV, &f);
	assert_string_equal(out, CSV_HEADER);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_cgroup_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
