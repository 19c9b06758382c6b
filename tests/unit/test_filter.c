// SPDX-License-Identifier: BSD-3-Clause
/*
 * --file, --pid, --comm, --cgroup, --device, --min/--max-latency,
 * --from/--to: what each lets through on I/O records, file
 * events and VFS calls (their output file too), how they combine, and
 * the sink that puts them in front of a view.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "filter.h"

static struct io_rec io_rec(const char *path, uint32_t pid, uint32_t tid, const char *comm)
{
	struct io_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = REC_IO;
	r.path = path;
	r.path_len = path ? strlen(path) : 0;
	r.pid = pid;
	r.tid = tid;
	strcpy(r.comm, comm);
	return r;
}

static void test_none(void **state)
{
	struct filter f;
	struct io_rec r = io_rec(NULL, 0, 0, "");

	filter__init(&f, NULL, 0, NULL);
	assert_false(filter__active(&f));
	assert_int_equal(filter__join_flags(&f), 0);
	assert_true(filter__io(&f, NULL, &r));
	/* an empty glob is no glob */
	filter__init(&f, "", 0, "");
	assert_false(filter__active(&f));
}

static void test_file(void **state)
{
	struct io_rec nested = io_rec("/data/run42/a/b/c/d/e/f.dat", 1, 1, "x");
	struct io_rec other = io_rec("/data/run43/f.dat", 1, 1, "x");
	struct io_rec partial = io_rec("run42/f.dat", 1, 1, "x");
	struct io_rec nofile = io_rec(NULL, 1, 1, "x");
	struct filter f;

	filter__init(&f, "/data/run42/*", 0, NULL);
	assert_true(filter__active(&f));
	assert_int_equal(filter__join_flags(&f), JOIN_FILES | JOIN_PATHS);
	/* '*' crosses directories */
	assert_true(filter__io(&f, NULL, &nested));
	assert_false(filter__io(&f, NULL, &other));
	assert_false(filter__io(&f, NULL, &partial));
	assert_false(filter__io(&f, NULL, &nofile));
	filter__init(&f, "*.dat", 0, NULL);
	assert_true(filter__io(&f, NULL, &partial));
	filter__init(&f, "/data/run4[23]/f.dat", 0, NULL);
	assert_true(filter__io(&f, NULL, &other));
	assert_false(filter__io(&f, NULL, &nested));
}

static void test_process(void **state)
{
	struct io_rec r = io_rec("/a", 100, 102, "rocksdb:low");
	struct io_rec unknown = io_rec("/a", 0, 0, "");
	struct io_rec fs_event = io_rec("/a", 0, 0, "");
	struct filter f;

	fs_event.kind = REC_FS_EVENT;
	filter__init(&f, NULL, 100, NULL);
	assert_int_equal(filter__join_flags(&f), 0);
	assert_true(filter__io(&f, NULL, &r));
	assert_false(filter__io(&f, NULL, &unknown));
	assert_false(filter__io(&f, NULL, &fs_event));
	/* a thread id finds its thread */
	filter__init(&f, NULL, 102, NULL);
	assert_true(filter__io(&f, NULL, &r));
	filter__init(&f, NULL, 101, NULL);
	assert_false(filter__io(&f, NULL, &r));

	filter__init(&f, NULL, 0, "rocksdb:low");
	assert_true(filter__io(&f, NULL, &r));
	assert_false(filter__io(&f, NULL, &fs_event));
	filter__init(&f, NULL, 0, "rocksdb");
	assert_false(filter__io(&f, NULL, &r));
	/* cut where the kernel cuts */
	strcpy(r.comm, "a_long_thread_n");
	filter__init(&f, NULL, 0, "a_long_thread_name");
	assert_string_equal(f.comm, "a_long_thread_n");
	assert_true(filter__io(&f, NULL, &r));

	/* all must match; a file event passes a file filter alone */
	filter__init(&f, "/a", 100, "a_long_thread_n");
	assert_true(filter__io(&f, NULL, &r));
	filter__init(&f, "/a", 100, "other");
	assert_false(filter__io(&f, NULL, &r));
	filter__init(&f, "/a", 0, NULL);
	assert_true(filter__io(&f, NULL, &fs_event));
}

/* [from, to) on the time a record is printed with, I/Os, file events and calls alike. */
static void test_window(void **state)
{
	struct io_rec r = io_rec("/a", 100, 100, "fio");
	struct io_rec fs_event = io_rec("/a", 0, 0, "");
	struct vfs_rec call;
	struct filter f;

	memset(&call, 0, sizeof(call));
	fs_event.kind = REC_FS_EVENT;
	filter__init(&f, NULL, 0, NULL);
	filter__set_window(&f, 1000, 2000);
	assert_true(filter__active(&f));
	assert_int_equal(filter__join_flags(&f), 0);
	r.time = 999;
	assert_false(filter__io(&f, NULL, &r));
	r.time = 1000;
	assert_true(filter__io(&f, NULL, &r));
	r.time = 1999;
	assert_true(filter__io(&f, NULL, &r));
	r.time = 2000;
	assert_false(filter__io(&f, NULL, &r));
	fs_event.time = 1500;
	assert_true(filter__io(&f, NULL, &fs_event));
	fs_event.time = 500;
	assert_false(filter__io(&f, NULL, &fs_event));
	call.time = 1500;
	assert_true(filter__vfs(&f, NULL, &call));
	call.time = 2500;
	assert_false(filter__vfs(&f, NULL, &call));
	/* with the others: all must match */
	filter__init(&f, NULL, 101, NULL);
	filter__set_window(&f, 1000, 2000);
	r.time = 1500;
	assert_false(filter__io(&f, NULL, &r));
	/* --from alone: to the end */
	filter__init(&f, NULL, 0, NULL);
	filter__set_window(&f, 1000, UINT64_MAX);
	assert_true(filter__active(&f));
	r.time = UINT64_MAX - 1;
	assert_true(filter__io(&f, NULL, &r));
	r.time = 0;
	assert_false(filter__io(&f, NULL, &r));
}

static void test_vfs(void **state)
{
	struct vfs_rec r;
	struct filter f;

	memset(&r, 0, sizeof(r));
	r.pid = 7;
	r.tid = 8;
	strcpy(r.comm, "cp");
	r.path = "/src/a";
	r.path_len = 6;
	r.path2 = "/dst/a";
	r.path2_len = 6;
	filter__init(&f, "/dst/*", 0, NULL);
	assert_true(filter__vfs(&f, NULL, &r));
	filter__init(&f, "/src/*", 8, "cp");
	assert_true(filter__vfs(&f, NULL, &r));
	filter__init(&f, "/tmp/*", 0, NULL);
	assert_false(filter__vfs(&f, NULL, &r));
	r.path = NULL;
	r.path2 = NULL;
	filter__init(&f, "*", 0, NULL);
	assert_false(filter__vfs(&f, NULL, &r));
	filter__init(&f, NULL, 9, NULL);
	assert_false(filter__vfs(&f, NULL, &r));
}

static void test_cgroup_device(void **state)
{
	struct device nvme = { .id = 259 << 20, .name = "nvme0n1" };
	struct device unnamed = { .id = 7 << 20, .name = "" };
	struct io_rec r = io_rec("/a", 100, 100, "fio");
	struct io_rec fs_event = io_rec("/a", 0, 0, "");
	struct u64map job = { 0 }, other = { 0 };
	struct vfs_rec call;
	struct filter f;

	memset(&call, 0, sizeof(call));
	fs_event.kind = REC_FS_EVENT;
	r.cgroup = 4242;
	r.dev = &nvme;
	fs_event.dev = &nvme;
	call.cgroup = 4242;
	call.dev = &nvme;

	/* a job's cgroup and one below it */
	assert_int_equal(u64map__put(&job, 4240, 1), 0);
	assert_int_equal(u64map__put(&job, 4242, 1), 0);
	assert_int_equal(u64map__put(&other, 4243, 1), 0);
	filter__init(&f, NULL, 0, NULL);
	filter__set_cgroups(&f, &job);
	assert_true(filter__active(&f));
	assert_int_equal(filter__join_flags(&f), 0);
	assert_true(filter__io(&f, NULL, &r));
	assert_true(filter__vfs(&f, NULL, &call));
	/* a file event has no process, so no cgroup */
	assert_false(filter__io(&f, NULL, &fs_event));
	filter__set_cgroups(&f, &other);
	assert_false(filter__io(&f, NULL, &r));
	assert_false(filter__vfs(&f, NULL, &call));

	filter__init(&f, NULL, 0, NULL);
	filter__set_device(&f, "nvme0n1");
	assert_true(filter__active(&f));
	assert_true(filter__io(&f, NULL, &r));
	assert_true(filter__io(&f, NULL, &fs_event));
	assert_true(filter__vfs(&f, NULL, &call));
	filter__set_device(&f, "nvme1n1");
	assert_false(filter__io(&f, NULL, &r));
	assert_false(filter__io(&f, NULL, &fs_event));
	/* a name is no prefix, bar the kernel's partition names */
	filter__set_device(&f, "nvme0");
	assert_false(filter__io(&f, NULL, &r));
	/* a device the trace never described, or a call on none known */
	filter__set_device(&f, "nvme0n1");
	r.dev = &unnamed;
	assert_false(filter__io(&f, NULL, &r));
	call.dev = NULL;
	assert_false(filter__vfs(&f, NULL, &call));
	filter__set_device(&f, "");
	assert_false(filter__active(&f));

	/* a disk's name takes its partitions, named as the kernel names them */
	{
		struct device sda1 = { .id = (8 << 20) | 1, .name = "sda1" };
		struct device sda10 = { .id = (8 << 20) | 10, .name = "sda10" };
		struct device sdab = { .id = (65 << 20) | 16, .name = "sdab" };
		struct device p1 = { .id = 259 << 20 | 1, .name = "nvme0n1p1" };
		struct device nvme0n11 = { .id = 259 << 20 | 9, .name = "nvme0n11" };

		filter__set_device(&f, "sda");
		call.dev = &sda1;
		assert_true(filter__vfs(&f, NULL, &call));
		call.dev = &sda10;
		assert_true(filter__vfs(&f, NULL, &call));
		call.dev = &sdab;
		assert_false(filter__vfs(&f, NULL, &call));
		filter__set_device(&f, "sda1");
		call.dev = &sda10;
		assert_false(filter__vfs(&f, NULL, &call));
		filter__set_device(&f, "nvme0n1");
		call.dev = &p1;
		assert_true(filter__vfs(&f, NULL, &call));
		call.dev = &nvme0n11;
		assert_false(filter__vfs(&f, NULL, &call));
		filter__set_device(&f, "nvme0n1p1");
		call.dev = &nvme;
		assert_false(filter__vfs(&f, NULL, &call));
	}

	/* with the others: all must match */
	r.dev = &nvme;
	filter__init(&f, NULL, 100, "fio");
	filter__set_cgroups(&f, &job);
	filter__set_device(&f, "nvme0n1");
	assert_true(filter__io(&f, NULL, &r));
	filter__init(&f, NULL, 101, "fio");
	filter__set_cgroups(&f, &job);
	filter__set_device(&f, "nvme0n1");
	assert_false(filter__io(&f, NULL, &r));
	u64map__free(&job);
	u64map__free(&other);
}

/* [min, max], both included: an I/O's latency, a call's duration. */
static void test_latency(void **state)
{
	struct io_rec r = io_rec("/a", 100, 100, "fio");
	struct io_rec fs_event = io_rec("/a", 0, 0, "");
	struct vfs_rec call;
	struct filter f;

	memset(&call, 0, sizeof(call));
	fs_event.kind = REC_FS_EVENT;
	r.state = IO_COMPLETED;
	filter__init(&f, NULL, 0, NULL);
	filter__set_latency(&f, 1000, 2000);
	assert_true(filter__active(&f));
	assert_int_equal(filter__join_flags(&f), 0);
	r.latency = 999;
	assert_false(filter__io(&f, NULL, &r));
	r.latency = 1000;
	assert_true(filter__io(&f, NULL, &r));
	r.latency = 2000;
	assert_true(filter__io(&f, NULL, &r));
	r.latency = 2001;
	assert_false(filter__io(&f, NULL, &r));
	/* never completed: no latency to compare, even one far past max */
	r.latency = 1500;
	r.state = IO_NOT_COMPLETED;
	assert_false(filter__io(&f, NULL, &r));
	assert_false(filter__io(&f, NULL, &fs_event));
	call.duration = 1500;
	assert_true(filter__vfs(&f, NULL, &call));
	call.duration = 2500;
	assert_false(filter__vfs(&f, NULL, &call));

	/* --min-latency alone: no end; latency 0 passes only a minimum of 0 */
	r.state = IO_COMPLETED;
	filter__init(&f, NULL, 0, NULL);
	filter__set_latency(&f, 1000, UINT64_MAX);
	r.latency = UINT64_MAX;
	assert_true(filter__io(&f, NULL, &r));
	filter__set_latency(&f, 0, 10);
	assert_true(filter__active(&f));
	r.latency = 0;
	assert_true(filter__io(&f, NULL, &r));
	/* every latency (--min-latency 0): still none for those without one */
	filter__set_latency(&f, 0, UINT64_MAX);
	assert_true(filter__active(&f));
	assert_true(filter__io(&f, NULL, &r));
	r.state = IO_NOT_COMPLETED;
	assert_false(filter__io(&f, NULL, &r));
	assert_false(filter__io(&f, NULL, &fs_event));
	/* no latency option: they pass */
	filter__init(&f, NULL, 0, NULL);
	assert_false(filter__active(&f));
	assert_true(filter__io(&f, NULL, &r));
	assert_true(filter__io(&f, NULL, &fs_event));
}

static unsigned int got_io, got_vfs;

static void count_io(void *ctx, const struct io_rec *r)
{
	(void)r;
	assert_ptr_equal(ctx, &got_io);
	got_io++;
}

static void count_vfs(void *ctx, const struct vfs_rec *r)
{
	(void)r;
	assert_ptr_equal(ctx, &got_io);
	got_vfs++;
}

static void test_sink(void **state)
{
	struct join_sink next = { count_io, &got_io, count_vfs }, s;
	struct io_rec yes = io_rec("/a", 5, 5, "x"), no = io_rec("/a", 6, 6, "x");
	struct vfs_rec v;
	struct filter_sink fs;
	struct filter f;

	memset(&v, 0, sizeof(v));
	v.pid = 5;
	filter__init(&f, NULL, 5, NULL);
	s = filter__sink(&fs, &f, &next);
	s.record(s.ctx, &yes);
	s.record(s.ctx, &no);
	s.vfs(s.ctx, &v);
	v.pid = 6;
	s.vfs(s.ctx, &v);
	assert_int_equal(got_io, 1);
	assert_int_equal(got_vfs, 1);
	/* a view without VFS records gets a sink without them */
	next.vfs = NULL;
	s = filter__sink(&fs, &f, &next);
	assert_null(s.vfs);
}

static unsigned int last_unmatched;

static void keep_unmatched(void *ctx, const struct vfs_rec *r)
{
	(void)ctx;
	last_unmatched = r->unmatched;
}

/* A copy that matches through one file: the other side is marked for the totals. */
static void test_copy_sides(void **state)
{
	struct join_sink next = { count_io, &got_io, keep_unmatched }, s;
	struct filter_sink fs;
	struct vfs_rec v;
	struct filter f;

	memset(&v, 0, sizeof(v));
	v.has_file = v.has_file2 = true;
	v.path = "/src/a";
	v.path2 = "/dst/a";
	filter__init(&f, "/dst/*", 0, NULL);
	s = filter__sink(&fs, &f, &next);
	s.vfs(s.ctx, &v);
	assert_int_equal(last_unmatched, VFS_IN);
	filter__init(&f, "/src/*", 0, NULL);
	s.vfs(s.ctx, &v);
	assert_int_equal(last_unmatched, VFS_OUT);
	filter__init(&f, "/*/a", 0, NULL);
	s.vfs(s.ctx, &v);
	assert_int_equal(last_unmatched, 0);
	/* an output the trace does not name (a socket) is no side to leave out */
	v.has_file2 = false;
	v.path2 = NULL;
	filter__init(&f, "/src/*", 0, NULL);
	s.vfs(s.ctx, &v);
	assert_int_equal(last_unmatched, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_process),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_cgroup_device),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_vfs),
		cmocka_unit_test(test_sink),
		cmocka_unit_test(test_copy_sides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
