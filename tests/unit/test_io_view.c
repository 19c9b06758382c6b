// SPDX-License-Identifier: BSD-3-Clause
/*
 * The --io view, byte for byte: OCTF's ParsedEvent JSON mapping (field
 * order, 64-bit integers as strings, LBA 0, the creation date), our
 * fields only where a record has them, file events without "io", I/Os
 * without completion last; CSV's fixed columns; the table.
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
 * sid 1 device; 2-3 names; 4 io with a file (meta 5), 6 io at LBA 0 with
 * our fields, dispatched at 7; 8 file event; 9, 10 completions; 11 io
 * that never completes.
 */
static void feed_trace(struct join *j)
{
	struct event ev = { .ts = 1000 };

	next_sid = 1;
	device(j, DEV_A, "nvme0n1");
	name(j, 64, 64, "/");
	name(j, 76, 64, "000014.sst");
	io(j, 1000, 0xa1, DEV_A, 1652296, 256, W);
	meta(j, 1000, 0xa1, 76, 0, 241960);
	ev.io.id = 0xa2;
	ev.io.dev = DEV_A;
	ev.io.part = DEV_A + 1;
	ev.io.lba = 0;
	ev.io.len = 8;
	ev.io.op = R;
	ev.io.flags = IOF_SYNC | IOF_META | IOF_DIRECT;
	ev.io.pid = 4242;
	ev.io.tid = 4243;
	ev.io.cgroup = 77;
	strcpy(ev.io.comm, "rocksdb:low");
	ev.io.vfs_call = 31;
	ev.ts = 1500;
	io_ev(j, &ev);
	dispatch(j, 1600, 0xa2, 0, 8, 1);
	file_event(j, 1700, 76, OCTF__PROTO__TRACE__FS_EVENT_TYPE__Create);
	done(j, 84797, 0xa1, false);
	done(j, 2000, 0xa2, true);
	io(j, 3000, 0xa3, DEV_A, 8, 8, W);
}

static const char *const want_json =
	"{\"header\":{\"sid\":\"4\",\"timestamp\":\"995\"},\"io\":{\"lba\":\"1652296\",\"len\":256,"
	"\"operation\":\"Write\",\"error\":false,\"latency\":\"83797\",\"qd\":\"1\",\"writeHint\":0,"
	"\"flags\":{\"flush\":false,\"fua\":false,\"metadata\":false,\"direct\":false,"
	"\"readahead\":false}},\"device\":{\"id\":\"271581186\",\"name\":\"nvme0n1\","
	"\"partition\":\"271581187\",\"model\":\"MODEL\"},\"file\":{\"id\":\"76\",\"offset\":\"0\","
	"\"size\":\"241960\",\"creationDate\":\"2020-07-02T06:52:55.712990641Z\","
	"\"path\":\"/000014.sst\",\"eventType\":\"Access\"}}\n"
	"{\"header\":{\"sid\":\"6\",\"timestamp\":\"1495\"},\"io\":{\"lba\":\"0\",\"len\":8,"
	"\"operation\":\"Read\",\"error\":true,\"latency\":\"500\",\"qd\":\"2\",\"writeHint\":0,"
	"\"flags\":{\"flush\":false,\"fua\":false,\"metadata\":true,\"direct\":true,"
	"\"readahead\":false,\"sync\":true},\"queueTime\":\"100\",\"deviceTime\":\"400\","
	"\"vfsCallId\":\"31\"},\"process\":{\"pid\":4242,\"tid\":4243,\"comm\":\"rocksdb:low\","
	"\"cgroup\":\"77\"},"
	"\"device\":{\"id\":\"271581186\",\"name\":\"nvme0n1\",\"partition\":\"271581187\","
	"\"model\":\"MODEL\"}}\n"
	"{\"header\":{\"sid\":\"8\",\"timestamp\":\"1695\"},\"device\":{\"id\":\"271581186\","
	"\"name\":\"nvme0n1\",\"partition\":\"271581187\",\"model\":\"MODEL\"},\"file\":{\"id\":\"76\","
	"\"offset\":\"0\",\"size\":\"241960\",\"creationDate\":\"2020-07-02T06:52:55.712990641Z\","
	"\"path\":\"/000014.sst\",\"eventType\":\"Create\"}}\n"
	"{\"header\":{\"sid\":\"11\",\"timestamp\":\"2995\"},\"io\":{\"lba\":\"8\",\"len\":8,"
	"\"operation\":\"Write\",\"error\":true,\"qd\":\"1\",\"writeHint\":0,"
	"\"flags\":{\"flush\":false,\"fua\":false,\"metadata\":false,\"direct\":false,"
	"\"readahead\":false}},\"device\":{\"id\":\"271581186\",\"name\":\"nvme0n1\","
	"\"partition\":\"271581186\",\"model\":\"MODEL\"}}\n";

static void test_json(void **state)
{
	struct view_opts o = { .format = VIEW_JSON };
	struct view_run vr;
	const char *out;

	feed_trace(view_run_start(&vr, &io_view_ops, &o));
	out = view_run_finish(&vr);
	assert_string_equal(out, want_json);
	free(vr.text);
}

static const char *const want_csv =
	"header.sid,header.timestamp,io.lba,io.len,io.operation,io.error,io.latency,io.qd,"
	"io.writeHint,io.flags.flush,io.flags.fua,io.flags.metadata,io.flags.direct,"
	"io.flags.readahead,device.id,device.name,device.partition,device.model,file.id,"
	"file.offset,file.size,file.creationDate,file.path,file.eventType,io.queueTime,"
	"io.deviceTime,process.pid,process.tid,process.comm,process.cgroup,io.flags.sync,"
	"io.flags.requestOnly,io.flags.writeZeroes,io.vfsCallId\n"
	"4,995,1652296,256,Write,false,83797,1,0,false,false,false,false,false,271581186,nvme0n1,"
	"271581187,MODEL,76,0,241960,2020-07-02T06:52:55.712990641Z,/000014.sst,Access,,,,,,,"
	"false,false,false,\n"
	"6,1495,0,8,Read,true,500,2,0,false,false,true,true,false,271581186,nvme0n1,271581187,"
	"MODEL,,,,,,,100,400,4242,4243,rocksdb:low,77,true,false,false,31\n"
	"8,1695,,,,,,,,,,,,,271581186,nvme0n1,271581187,MODEL,76,0,241960,"
	"2020-07-02T06:52:55.712990641Z,/000014.sst,Create,,,,,,,,,,\n"
	"11,2995,8,8,Write,true,,1,0,false,false,false,false,false,271581186,nvme0n1,271581186,"
	"MODEL,,,,,,,,,,,,,false,false,false,\n";

static void test_csv(void **state)
{
	struct view_opts o = { .format = VIEW_CSV };
	struct view_run vr;
	const char *out;

	feed_trace(view_run_start(&vr, &io_view_ops, &o));
	out = view_run_finish(&vr);
	assert_string_equal(out, want_csv);
	free(vr.text);
}

/* An empty trace still gets its CSV columns; JSON prints nothing. */
static void test_empty(void **state)
{
	struct view_opts o = { .format = VIEW_CSV };
	struct view_run vr;
	const char *out;

	view_run_start(&vr, &io_view_ops, &o);
	out = view_run_finish(&vr);
	assert_true(!strncmp(out, "header.sid,header.timestamp,io.lba,", 35));
	assert_int_equal(strchr(out, '\n') - out + 1, (long)strlen(out));
	free(vr.text);
	o.format = VIEW_JSON;
	view_run_start(&vr, &io_view_ops, &o);
	out = view_run_finish(&vr);
	assert_string_equal(out, "");
	free(vr.text);
}

/*
 * A trace that names its cgroups: the path beside the id in JSON, a last
 * CSV column (empty where a record has no cgroup, or one not named).
 */
static void test_cgroup_paths(void **state)
{
	struct cgroup_names names = { .present = true };
	struct view_opts o = { .format = VIEW_CSV, .cgroups = &names };
	struct view_run vr;
	const char *out, *row;

	assert_int_equal(cgroup_names__add(&names, 77, "/slurm/job_7/step_0"), 0);
	feed_trace(view_run_start(&vr, &io_view_ops, &o));
	out = view_run_finish(&vr);
	assert_non_null(strstr(out, ",io.vfsCallId,process.cgroupPath\n"));
	row = strstr(out, "\n6,1495,");
	assert_non_null(row);
	assert_true(!strncmp(strstr(row, ",77,"), ",77,true,false,false,31,/slurm/job_7/step_0\n",
			     strlen(",77,true,false,false,31,/slurm/job_7/step_0\n")));
	assert_non_null(strstr(out, "\n11,2995,8,8,Write,true,,1,0,false,false,false,false,false,"
				    "271581186,nvme0n1,271581186,MODEL,,,,,,,,,,,,,false,false,false,,\n"));
	free(vr.text);

	o.format = VIEW_JSON;
	feed_trace(view_run_start(&vr, &io_view_ops, &o));
	out = view_run_finish(&vr);
	assert_non_null(strstr(out, "\"process\":{\"pid\":4242,\"tid\":4243,\"comm\":\"rocksdb:low\","
				    "\"cgroup\":\"77\",\"cgroupPath\":\"/slurm/job_7/step_0\"},"));
	free(vr.text);

	/* a trace whose file names none: the columns of one without it */
	cgroup_names__free(&names);
	names.present = true;
	o.format = VIEW_CSV;
	feed_trace(view_run_start(&vr, &io_view_ops, &o));
	out = view_run_finish(&vr);
	assert_string_equal(out, want_csv);
	free(vr.text);
}

static const char *const want_table =
	"TIME(s)        COMM                PID DEVICE     OP                LBA SECTORS    QD"
	"      LAT(us)  FILE\n"
	"0.000001       -                     - nvme0n1    W             1652296     256     1"
	"       83.797  /000014.sst\n"
	"0.000001       rocksdb:low        4242 nvme0n1    RSME                0       8     2"
	"        0.500\n"
	"0.000002       -                     - nvme0n1    Create                            "
	"                /000014.sst\n"
	"0.000003       -                     - nvme0n1    WE                  8       8     1"
	"            -\n";

static void test_table(void **state)
{
	struct view_opts o = { .format = VIEW_TABLE };
	struct view_run vr;
	const char *out;

	feed_trace(view_run_start(&vr, &io_view_ops, &o));
	out = view_run_finish(&vr);
	assert_string_equal(out, want_table);
	free(vr.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_cgroup_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
