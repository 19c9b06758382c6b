// SPDX-License-Identifier: BSD-3-Clause
/*
 * The join on hand-built event sequences with known answers: latencies,
 * queue depths, splits, dispatch (queue and device time), lost and
 * missing completions, the queue limit, file paths through renames and
 * broken chains, file events, VFS calls and the block I/O they queued.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "file_names.h"
#include "join.h"
#include "join_events.h"

#define MAX_RECS 80000

struct got {
	struct io_rec r;
	char path[256];
	bool has_path;
};

static struct got *recs;
static size_t nrecs;

static void collect(void *ctx, const struct io_rec *r)
{
	struct got *g;

	assert_true(nrecs < MAX_RECS);
	g = &recs[nrecs++];
	g->r = *r;
	g->has_path = r->path != NULL;
	if (r->path) {
		assert_true(r->path_len < sizeof(g->path));
		assert_int_equal(strlen(r->path), r->path_len);
		strcpy(g->path, r->path);
	}
}

static int setup(void **state)
{
	recs = calloc(MAX_RECS, sizeof(*recs));
	nrecs = 0;
	return recs ? 0 : -1;
}

static int teardown(void **state)
{
	free(recs);
	return 0;
}

static struct join *new_join(unsigned int flags)
{
	struct join_sink sink = { collect, NULL };
	struct join *j = join__new(flags, &sink);

	assert_non_null(j);
	return j;
}

static const struct io_rec *rec(size_t i)
{
	assert_true(i < nrecs);
	return &recs[i].r;
}

/* ---- tests ---- */

/*
 * Latency = completion - submission; qd counts the I/Os in flight on the
 * device at submission; a record waits for the earlier ones; timestamps
 * are relative to the first event (by sid), a device description too, as
 * Open-CAS counts them: here the devices' ts 5.
 */
static void test_latency_and_qd(void **state)
{
	struct join *j = new_join(0);

	device(j, DEV_A, "nvme0n1");
	device(j, DEV_B, "sda");
	io(j, 1000, 0xa0, DEV_A, 100, 8, W);
	io(j, 1100, 0xb0, DEV_A, 0, 16, R);
	io(j, 1150, 0xc0, DEV_B, 5, 8, W);
	done(j, 1500, 0xb0, false);
	done(j, 1600, 0xc0, true);
	/* B and C are done but wait for A */
	assert_int_equal(nrecs, 0);
	io(j, 1700, 0xd0, DEV_A, 200, 8, W);
	done(j, 2000, 0xa0, false);
	assert_int_equal(nrecs, 3);
	done(j, 2100, 0xd0, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 4);

	assert_int_equal(rec(0)->id, 0xa0);
	assert_int_equal(rec(0)->latency, 1000);
	assert_int_equal(rec(0)->qd, 1);
	assert_int_equal(rec(0)->time, 995);
	assert_string_equal(rec(0)->dev->name, "nvme0n1");
	assert_int_equal(rec(0)->part, DEV_A);

	assert_int_equal(rec(1)->id, 0xb0);
	assert_int_equal(rec(1)->lba, 0);
	assert_int_equal(rec(1)->latency, 400);
	assert_int_equal(rec(1)->qd, 2);
	assert_int_equal(rec(1)->time, 1095);
	assert_int_equal(rec(1)->op, R);

	/* another device has a queue of its own */
	assert_int_equal(rec(2)->qd, 1);
	assert_true(rec(2)->error);
	assert_int_equal(rec(2)->state, IO_COMPLETED);
	assert_string_equal(rec(2)->dev->name, "sda");

	/* A was still in flight, B done: qd 2 */
	assert_int_equal(rec(3)->qd, 2);
	assert_int_equal(rec(3)->latency, 400);

	assert_int_equal(join__counts(j)->ios, 4);
	assert_int_equal(join__counts(j)->completed, 4);
	assert_int_equal(join__counts(j)->not_completed, 0);
	assert_int_equal(join__device_count(j), 2);
	assert_int_equal(join__first_ts(j), 5);
	join__free(j);
}

/*
 * A 256-sector write split twice (the children carved off its front):
 * each piece has its own LBA, length, latency and queue depth, the
 * lengths add up, and the file offsets follow the pieces.
 */
static void test_splits(void **state)
{
	struct join *j = new_join(JOIN_PATHS);
	uint32_t total = 0;
	size_t i;

	device(j, DEV_A, "nvme0n1");
	name(j, 1, 1, "/");
	name(j, 3, 1, "data.bin");
	io(j, 100, 0x10, DEV_A, 1000, 256, W);
	meta(j, 100, 0x10, 3, 4096, 10000);
	split(j, 110, 0x11, 0x10, 1000, 64, 1064);
	split(j, 120, 0x12, 0x10, 1064, 64, 1128);
	done(j, 300, 0x11, false);
	done(j, 350, 0x12, false);
	assert_int_equal(nrecs, 0);
	done(j, 400, 0x10, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 3);

	/* the parent keeps its id and the rest, from parentLba */
	assert_int_equal(rec(0)->id, 0x10);
	assert_int_equal(rec(0)->lba, 1128);
	assert_int_equal(rec(0)->len, 128);
	assert_int_equal(rec(0)->latency, 300);
	assert_int_equal(rec(0)->qd, 1);
	assert_int_equal(rec(0)->file_offset, 4096 + 128);

	/* children: the parent's submission time, their own completion */
	assert_int_equal(rec(1)->id, 0x11);
	assert_int_equal(rec(1)->lba, 1000);
	assert_int_equal(rec(1)->len, 64);
	assert_int_equal(rec(1)->latency, 200);
	assert_int_equal(rec(1)->qd, 2);
	assert_int_equal(rec(1)->file_offset, 4096);
	assert_true(recs[1].has_path);
	assert_string_equal(recs[1].path, "/data.bin");

	assert_int_equal(rec(2)->id, 0x12);
	assert_int_equal(rec(2)->lba, 1064);
	assert_int_equal(rec(2)->latency, 250);
	assert_int_equal(rec(2)->qd, 3);
	assert_int_equal(rec(2)->file_offset, 4096 + 64);
	assert_true(rec(2)->sid > rec(1)->sid);

	for (i = 0; i < nrecs; i++) {
		assert_int_not_equal(rec(i)->latency, 0);
		total += rec(i)->len;
	}
	assert_int_equal(total, 256);
	assert_int_equal(join__counts(j)->ios, 3);
	/* a split of an I/O not in flight is counted, not invented */
	split(j, 500, 0x21, 0x20, 0, 8, 8);
	assert_int_equal(join__counts(j)->orphan_splits, 1);
	join__free(j);
}

/*
 * Dispatch: the request's first bio by id, the next one by LBA; a
 * requeued request's last dispatch counts. queueTime = dispatch -
 * submission, deviceTime = completion - dispatch.
 */
static void test_dispatch(void **state)
{
	struct join *j = new_join(0);

	io(j, 100, 0xa, DEV_A, 0, 8, W);
	io(j, 110, 0xb, DEV_A, 8, 8, W);
	io(j, 115, 0xc, DEV_A, 100, 8, W);
	io(j, 116, 0xd, DEV_A, 16, 8, W);	/* right after B, but not in the request */
	dispatch(j, 150, 0xa, 0, 16, 2);
	dispatch(j, 170, 0xa, 0, 16, 2);	/* requeued, dispatched again */
	dispatch(j, 200, 0xc, 100, 8, 1);
	done(j, 260, 0xc, false);
	done(j, 300, 0xa, false);
	done(j, 310, 0xb, false);
	done(j, 320, 0xd, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 4);

	assert_true(rec(0)->dispatched);
	assert_int_equal(rec(0)->queue_time, 70);
	assert_int_equal(rec(0)->device_time, 130);
	assert_int_equal(rec(0)->latency, 200);
	assert_true(rec(1)->dispatched);
	assert_int_equal(rec(1)->queue_time, 60);
	assert_int_equal(rec(1)->device_time, 140);
	assert_true(rec(2)->dispatched);
	assert_int_equal(rec(2)->queue_time, 85);
	assert_int_equal(rec(2)->device_time, 60);
	assert_false(rec(3)->dispatched);
	assert_int_equal(rec(3)->queue_time, 0);

	dispatch(j, 400, 0x99, 0, 8, 1);
	assert_int_equal(join__counts(j)->orphan_dispatches, 1);
	join__free(j);
}

/*
 * An id submitted again while in flight: the first one's completion was
 * lost. It is reported after all others, without latency; the queue depth
 * no longer counts it; the completion goes to the newcomer.
 */
static void test_lost_completion(void **state)
{
	struct join *j = new_join(0);

	io(j, 100, 7, DEV_A, 0, 8, W);
	io(j, 200, 8, DEV_A, 8, 8, W);
	io(j, 300, 7, DEV_A, 16, 8, W);
	done(j, 400, 7, false);
	done(j, 450, 8, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 3);

	assert_int_equal(rec(0)->id, 8);
	assert_int_equal(rec(0)->latency, 250);
	assert_int_equal(rec(1)->id, 7);
	assert_int_equal(rec(1)->lba, 16);
	assert_int_equal(rec(1)->latency, 100);
	assert_int_equal(rec(1)->qd, 2);
	assert_int_equal(rec(2)->id, 7);
	assert_int_equal(rec(2)->lba, 0);
	assert_int_equal(rec(2)->state, IO_NOT_COMPLETED);
	assert_true(rec(2)->error);

	assert_int_equal(join__counts(j)->lost_by_reuse, 1);
	assert_int_equal(join__counts(j)->not_completed, 1);
	assert_int_equal(join__counts(j)->completed, 2);
	join__free(j);
}

/*
 * A stream file missing: the completion of I/O 7 is gone, and so is the
 * submission of the next I/O given id 7, whose completion is there. Its
 * other range tells it is not the first one's: joined, it would give
 * that one the latency of both. A completion of the I/O's range joins,
 * after a split too (the parent's range is what remains); one without a
 * range (an Open-CAS discard's) joins as ever.
 */
static void test_foreign_completion(void **state)
{
	struct join *j = new_join(0);

	io(j, 100, 7, DEV_A, 0, 8, W);
	io(j, 200, 9, DEV_A, 1000, 128, W);
	split(j, 210, 0x19, 9, 1000, 64, 1064);
	io(j, 220, 11, DEV_A, 5000, 2048, D);
	done_at(j, 5000000, 7, 64, 8);
	done_at(j, 5000100, 0x19, 1000, 64);
	done_at(j, 5000200, 9, 1064, 64);
	done(j, 5000300, 11, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 4);

	assert_int_equal(rec(0)->id, 9);
	assert_int_equal(rec(0)->lba, 1064);
	assert_int_equal(rec(0)->latency, 5000000);
	assert_int_equal(rec(1)->id, 0x19);
	/* a split child was submitted with its parent */
	assert_int_equal(rec(1)->latency, 5000100 - 200);
	assert_int_equal(rec(2)->id, 11);
	assert_int_equal(rec(2)->latency, 5000300 - 220);
	assert_int_equal(rec(3)->id, 7);
	assert_int_equal(rec(3)->state, IO_NOT_COMPLETED);
	assert_int_equal(rec(3)->latency, 0);
	assert_true(rec(3)->error);

	assert_int_equal(join__counts(j)->foreign_completions, 1);
	assert_int_equal(join__counts(j)->not_completed, 1);
	assert_int_equal(join__counts(j)->completed, 3);
	join__free(j);
}

/*
 * The trace ends with I/Os in flight (a tracer killed with -9) and
 * begins with completions of I/Os submitted before it: the first are
 * reported last, the others counted; nothing else is disturbed.
 */
static void test_trace_cut(void **state)
{
	struct join *j = new_join(0);

	done(j, 50, 0x77, false);
	io(j, 100, 1, DEV_A, 0, 8, W);
	io(j, 110, 2, DEV_A, 8, 8, W);
	io(j, 120, 3, DEV_A, 16, 8, W);
	done(j, 130, 2, false);
	done(j, 140, 0x78, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 3);
	/* 1 never completed: 2 waits behind it, both go out at the end in order */
	assert_int_equal(rec(0)->id, 2);
	assert_int_equal(rec(0)->latency, 20);
	assert_int_equal(rec(1)->id, 1);
	assert_int_equal(rec(1)->state, IO_NOT_COMPLETED);
	assert_int_equal(rec(2)->id, 3);
	assert_int_equal(rec(2)->state, IO_NOT_COMPLETED);
	assert_int_equal(join__counts(j)->orphan_completions, 2);
	assert_int_equal(join__counts(j)->not_completed, 2);
	/* the first event is the orphan completion: times count from it */
	assert_int_equal(rec(0)->time, 60);
	join__free(j);
}

/*
 * An I/O whose completion does not come holds up at most
 * JOIN_QUEUE_LIMIT records; then it moves to the end, and when it does
 * complete after all, it is reported there with its latency.
 */
static void test_queue_limit(void **state)
{
	struct join *j = new_join(0);
	uint64_t i, n = JOIN_QUEUE_LIMIT + 100;

	io(j, 10, 0x5000000, DEV_A, 0, 8, W);
	for (i = 1; i <= n; i++) {
		io(j, 10 + i, i, DEV_A, i * 8, 8, W);
		done(j, 11 + i, i, false);
	}
	assert_true(nrecs >= n - JOIN_QUEUE_LIMIT);
	done(j, 20 + n, 0x5000000, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, n + 1);
	assert_int_equal(rec(nrecs - 1)->id, 0x5000000);
	assert_int_equal(rec(nrecs - 1)->state, IO_COMPLETED);
	assert_int_equal(rec(nrecs - 1)->latency, 10 + n);
	for (i = 0; i + 1 < nrecs; i++)
		assert_int_equal(rec(i)->id, i + 1);
	assert_int_equal(join__counts(j)->late_completions, 1);
	assert_int_equal(join__counts(j)->not_completed, 0);
	join__free(j);
}

/*
 * join_sink.in_order: a record that goes to the end list is also handed
 * out in its place (IO_PENDING, not passed), then again at the end with
 * passed set: lost by the reuse of its id, left in flight at the end, or
 * completed after the queue limit moved it.
 */
static void test_in_order(void **state)
{
	struct join_sink sink = { collect, NULL, NULL, true };
	struct join *j = join__new(0, &sink);
	uint64_t i, n = JOIN_QUEUE_LIMIT + 10;

	assert_non_null(j);
	io(j, 100, 7, DEV_A, 0, 8, W);		/* lost: 7 comes again */
	io(j, 110, 1, DEV_A, 8, 8, W);		/* never completes */
	io(j, 120, 2, DEV_A, 16, 8, W);
	io(j, 130, 7, DEV_A, 24, 8, W);
	done(j, 140, 2, false);
	done(j, 150, 7, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 6);
	/* in submission order first, each once */
	assert_int_equal(rec(0)->lba, 0);
	assert_int_equal(rec(0)->state, IO_PENDING);
	assert_false(rec(0)->passed);
	assert_int_equal(rec(0)->time, 0);
	assert_int_equal(rec(1)->lba, 8);
	assert_int_equal(rec(1)->state, IO_PENDING);
	assert_int_equal(rec(2)->lba, 16);
	assert_int_equal(rec(2)->state, IO_COMPLETED);
	assert_false(rec(2)->passed);
	assert_int_equal(rec(3)->lba, 24);
	assert_int_equal(rec(3)->latency, 20);
	/* then the end list's, passed */
	assert_int_equal(rec(4)->lba, 0);
	assert_int_equal(rec(4)->state, IO_NOT_COMPLETED);
	assert_true(rec(4)->passed);
	assert_int_equal(rec(5)->lba, 8);
	assert_true(rec(5)->passed);
	assert_int_equal(join__counts(j)->not_completed, 2);
	assert_int_equal(join__counts(j)->lost_by_reuse, 1);
	join__free(j);

	/* moved by the queue limit, then completed: in its place, and at the end with its latency */
	nrecs = 0;
	j = join__new(0, &sink);
	assert_non_null(j);
	io(j, 10, 0x5000000, DEV_A, 0, 8, W);
	for (i = 1; i <= n; i++) {
		io(j, 10 + i, i, DEV_A, i * 8, 8, W);
		done(j, 11 + i, i, false);
	}
	done(j, 20 + n, 0x5000000, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, n + 2);
	assert_int_equal(rec(0)->id, 0x5000000);
	assert_int_equal(rec(0)->state, IO_PENDING);
	for (i = 1; i <= n; i++)
		assert_int_equal(rec(i)->id, i);
	assert_int_equal(rec(n + 1)->id, 0x5000000);
	assert_true(rec(n + 1)->passed);
	assert_int_equal(rec(n + 1)->latency, 10 + n);
	join__free(j);

	/* --to's stop: what it drops is neither handed out in its place nor at the end */
	nrecs = 0;
	j = join__new(0, &sink);
	assert_non_null(j);
	io(j, 100, 1, DEV_A, 0, 8, W);
	io(j, 300, 2, DEV_A, 8, 8, W);
	io(j, 310, 1, DEV_A, 16, 8, W);		/* 1's first is lost, moved to the end */
	assert_int_equal(join__finish_before(j, 150), 0);
	assert_int_equal(nrecs, 2);
	assert_int_equal(rec(0)->lba, 0);
	assert_false(rec(0)->passed);
	assert_int_equal(rec(1)->lba, 0);
	assert_true(rec(1)->passed);
	join__free(j);
}

/*
 * Paths: names joined up the parent chain from the root ("/"); a rename
 * of a directory shows in the records handed out after it; a chain with
 * an unknown link gives what is known, without the leading "/", until
 * the missing name comes.
 */
static void test_paths(void **state)
{
	struct join *j = new_join(JOIN_PATHS);

	name(j, 1, 1, "/");
	name(j, 2, 1, "db");
	name(j, 5, 2, "logs");
	name(j, 3, 2, "000001.sst");
	name(j, 4, 5, "LOG");
	name(j, 6, 9, "orphan.txt");

	io(j, 100, 0x1, DEV_A, 0, 8, W);
	meta(j, 100, 0x1, 3, 0, 8);
	done(j, 150, 0x1, false);
	assert_int_equal(nrecs, 1);
	assert_string_equal(recs[0].path, "/db/000001.sst");

	io(j, 200, 0x2, DEV_A, 8, 8, W);
	meta(j, 200, 0x2, 4, 0, 8);
	io(j, 210, 0x3, DEV_A, 16, 8, W);
	meta(j, 210, 0x3, 6, 0, 8);
	io(j, 220, 0x4, DEV_A, 24, 8, W);
	meta(j, 220, 0x4, 3, 8, 16);
	io(j, 230, 0x5, DEV_A, 32, 8, W);
	meta(j, 230, 0x5, 42, 8, 16);	/* a file the trace never names */
	io(j, 240, 0x6, DEV_A, 40, 8, W);	/* no file at all */
	done(j, 250, 0x2, false);
	done(j, 260, 0x3, false);
	assert_int_equal(nrecs, 3);
	assert_string_equal(recs[1].path, "/db/logs/LOG");
	assert_string_equal(recs[2].path, "orphan.txt");

	/* an I/O of the file in a parent the trace has not named yet */
	io(j, 245, 0x8, DEV_A, 56, 8, W);
	meta(j, 245, 0x8, 6, 8, 8);
	/*
	 * The directory is renamed while 0x4 waits: it keeps the path of its
	 * time. The missing parent is named: a first name, not a rename, so
	 * 0x8 gets it.
	 */
	name(j, 2, 1, "data");
	name(j, 9, 1, "tmp");
	done(j, 270, 0x4, false);
	done(j, 280, 0x5, false);
	done(j, 285, 0x8, false);
	done(j, 290, 0x6, false);
	assert_int_equal(nrecs, 7);
	assert_string_equal(recs[3].path, "/db/000001.sst");
	assert_int_equal(rec(3)->file_offset, 8);
	assert_int_equal(rec(3)->file_size, 16);
	assert_int_equal(rec(3)->part, DEV_A + 1);
	assert_non_null(rec(4)->file);
	assert_false(recs[4].has_path);
	assert_null(rec(5)->file);
	assert_string_equal(recs[6].path, "/tmp/orphan.txt");

	io(j, 300, 0x7, DEV_A, 48, 8, W);
	meta(j, 300, 0x7, 3, 0, 8);
	done(j, 310, 0x7, false);
	assert_string_equal(recs[7].path, "/data/000001.sst");
	assert_int_equal(join__finish(j), 0);
	join__free(j);
}

/* A name chain that loops (a damaged trace) ends; the path is partial. */
static void test_path_cycle(void **state)
{
	struct join *j = new_join(JOIN_PATHS);

	name(j, 10, 11, "a");
	name(j, 11, 10, "b");
	io(j, 100, 0x1, DEV_A, 0, 8, W);
	meta(j, 100, 0x1, 10, 0, 8);
	done(j, 150, 0x1, false);
	assert_int_equal(nrecs, 1);
	assert_true(recs[0].has_path);
	assert_string_equal(recs[0].path, "b/a");
	join__free(j);
}

/*
 * File events become records without an I/O, in sid order among the
 * I/Os, on the device whose partition the file is on, with the size last
 * seen for the file.
 */
static void test_file_events(void **state)
{
	struct join *j = new_join(JOIN_PATHS);

	device(j, DEV_A, "nvme0n1");
	name(j, 1, 1, "/");
	name(j, 3, 1, "new.txt");
	io(j, 100, 0x1, DEV_A, 0, 8, W);
	meta(j, 100, 0x1, 3, 0, 24);
	file_event(j, 120, 3, OCTF__PROTO__TRACE__FS_EVENT_TYPE__Create);
	done(j, 150, 0x1, false);
	file_event(j, 160, 3, OCTF__PROTO__TRACE__FS_EVENT_TYPE__Delete);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 3);
	assert_int_equal(rec(0)->kind, REC_IO);
	assert_int_equal(rec(1)->kind, REC_FS_EVENT);
	assert_int_equal(rec(1)->fs_event, OCTF__PROTO__TRACE__FS_EVENT_TYPE__Create);
	assert_int_equal(rec(1)->file_size, 24);
	assert_int_equal(rec(1)->dev->id, DEV_A);
	assert_int_equal(rec(1)->part, DEV_A + 1);
	/* times count from the first event, the device's ts 5 (the names' ts 1 came later) */
	assert_int_equal(rec(1)->time, 115);
	assert_string_equal(recs[1].path, "/new.txt");
	assert_int_equal(rec(2)->fs_event, OCTF__PROTO__TRACE__FS_EVENT_TYPE__Delete);
	assert_int_equal(join__counts(j)->fs_events, 2);
	assert_int_equal(join__counts(j)->ios, 1);
	join__free(j);
}

/*
 * Records waiting behind an I/O in flight keep the paths of their time
 * through renames: the MoveFrom the old name, the MoveTo the new one; an
 * I/O between two renames the name between them.
 */
static void test_rename_while_waiting(void **state)
{
	struct join *j = new_join(JOIN_PATHS);

	device(j, DEV_A, "nvme0n1");
	name(j, 1, 1, "/");
	name(j, 3, 1, "a.txt");
	io(j, 100, 0x1, DEV_A, 0, 8, W);
	meta(j, 100, 0x1, 3, 0, 8);
	file_event(j, 110, 3, OCTF__PROTO__TRACE__FS_EVENT_TYPE__MoveFrom);
	name(j, 3, 1, "b.txt");
	file_event(j, 111, 3, OCTF__PROTO__TRACE__FS_EVENT_TYPE__MoveTo);
	io(j, 120, 0x2, DEV_A, 8, 8, W);
	meta(j, 120, 0x2, 3, 8, 8);
	name(j, 3, 1, "c.txt");
	done(j, 130, 0x2, false);
	done(j, 140, 0x1, false);
	io(j, 150, 0x3, DEV_A, 16, 8, W);
	meta(j, 150, 0x3, 3, 16, 8);
	done(j, 160, 0x3, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 5);
	assert_string_equal(recs[0].path, "/a.txt");
	assert_int_equal(rec(1)->fs_event, OCTF__PROTO__TRACE__FS_EVENT_TYPE__MoveFrom);
	assert_string_equal(recs[1].path, "/a.txt");
	assert_int_equal(rec(2)->fs_event, OCTF__PROTO__TRACE__FS_EVENT_TYPE__MoveTo);
	assert_string_equal(recs[2].path, "/b.txt");
	assert_string_equal(recs[3].path, "/b.txt");
	assert_string_equal(recs[4].path, "/c.txt");
	join__free(j);
}

/* Without JOIN_FILES, file metadata and names are not read. */
static void test_no_files(void **state)
{
	struct join *j = new_join(0);

	assert_false(join__event_types(j) & EV_BIT(EV_FS_META));
	assert_true(join__event_types(j) & EV_BIT(EV_IO));
	name(j, 1, 1, "/");
	io(j, 100, 0x1, DEV_A, 0, 8, W);
	meta(j, 100, 0x1, 1, 0, 8);
	file_event(j, 120, 1, OCTF__PROTO__TRACE__FS_EVENT_TYPE__Create);
	done(j, 150, 0x1, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 1);
	assert_null(rec(0)->file);
	join__free(j);
}

/*
 * Our extensions pass through: flags, process, partition; a flush the
 * kernel made itself (requestOnly, no data); a completion stamped before
 * its submission gives latency 0 and is counted.
 */
static void test_extensions(void **state)
{
	struct join *j = new_join(0);
	struct event ev = { .ts = 100 };

	ev.io.id = 0x1;
	ev.io.dev = DEV_A;
	ev.io.part = DEV_A + 2;
	ev.io.lba = 2048;
	ev.io.len = 8;
	ev.io.op = W;
	ev.io.flags = IOF_SYNC | IOF_FUA | IOF_DIRECT;
	ev.io.pid = 42;
	ev.io.tid = 43;
	ev.io.cgroup = 7;
	strcpy(ev.io.comm, "fio");
	io_ev(j, &ev);
	memset(&ev, 0, sizeof(ev));
	ev.ts = 110;
	ev.io.id = 0x2;
	ev.io.dev = DEV_A;
	ev.io.op = W;
	ev.io.flags = IOF_FLUSH | IOF_REQUEST_ONLY;
	io_ev(j, &ev);
	done(j, 90, 0x1, false);
	done(j, 200, 0x2, false);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, 2);
	assert_int_equal(rec(0)->latency, 0);
	assert_int_equal(join__counts(j)->negative_latencies, 1);
	assert_int_equal(rec(0)->part, DEV_A + 2);
	assert_int_equal(rec(0)->pid, 42);
	assert_int_equal(rec(0)->tid, 43);
	assert_int_equal(rec(0)->cgroup, 7);
	assert_string_equal(rec(0)->comm, "fio");
	assert_int_equal(rec(0)->flags, IOF_SYNC | IOF_FUA | IOF_DIRECT);
	assert_int_equal(rec(1)->flags, IOF_FLUSH | IOF_REQUEST_ONLY);
	assert_int_equal(rec(1)->len, 0);
	assert_int_equal(rec(1)->latency, 90);
	/* the device was never described */
	assert_string_equal(rec(0)->dev->name, "");
	assert_false(rec(0)->dev->described);
	join__free(j);
}

/*
 * Open-CAS's io events have no metadata or direct field: the flags come
 * from ioClass 1 and 22. Ours have them, and never take them from ioClass
 * (ours gives a block device file's I/O class 1, not metadata): told
 * from the events, with no summary to ask.
 */
static void test_class_flags(void **state)
{
	static const struct {
		uint32_t io_class, pid, tid, flags;
		const char *comm;
		uint32_t want;
	} cases[] = {
		{ 1, 0, 0, 0, "", IOF_META },
		{ 22, 0, 0, IOF_FUA, "", IOF_DIRECT | IOF_FUA },
		{ 11, 0, 0, IOF_FLUSH, "", IOF_FLUSH },
		/* ours: the task named, by any of the three */
		{ 1, 42, 43, 0, "dd", 0 },
		{ 22, 0, 0, 0, "swapper/0", 0 },
		{ 1, 42, 0, 0, "", 0 },
		{ 22, 0, 0, IOF_SYNC, "", IOF_SYNC },
	};
	struct join *j = new_join(0);
	struct event ev;
	size_t i, n = sizeof(cases) / sizeof(cases[0]);

	for (i = 0; i < n; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.ts = 100 + i;
		ev.io.id = i + 1;
		ev.io.dev = DEV_A;
		ev.io.lba = 8 * i;
		ev.io.len = 8;
		ev.io.op = W;
		ev.io.io_class = cases[i].io_class;
		ev.io.pid = cases[i].pid;
		ev.io.tid = cases[i].tid;
		ev.io.flags = cases[i].flags;
		strcpy(ev.io.comm, cases[i].comm);
		io_ev(j, &ev);
		done(j, 200 + i, i + 1, false);
	}
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(nrecs, n);
	for (i = 0; i < n; i++)
		assert_int_equal(rec(i)->flags, cases[i].want);
	join__free(j);
}

struct got_vfs {
	struct vfs_rec r;
	char path[64], path2[64];
	const char *dev_name;
};

static struct got_vfs vrecs[16];
static size_t nvrecs;

static void collect_vfs(void *ctx, const struct vfs_rec *r)
{
	struct got_vfs *g;

	assert_true(nvrecs < 16);
	g = &vrecs[nvrecs++];
	g->r = *r;
	snprintf(g->path, sizeof(g->path), "%s", r->path ? r->path : "(null)");
	snprintf(g->path2, sizeof(g->path2), "%s", r->path2 ? r->path2 : "(null)");
	g->dev_name = r->dev ? r->dev->name : NULL;
}

/*
 * VFS calls come out at once, in order, with their files' paths and the
 * device of their file system: unknown until block I/O (file metadata)
 * ties the partition to its disk, or described by the trace. A block
 * I/O keeps the call it was queued in, and so do its split pieces.
 */
static void test_vfs_calls(void **state)
{
	struct join_sink sink = { collect, NULL, collect_vfs };
	struct join *j = join__new(JOIN_PATHS | JOIN_VFS, &sink);
	struct event ev = { .ts = 1000 };

	assert_non_null(j);
	assert_true(join__event_types(j) & EV_BIT(EV_VFS));
	nvrecs = 0;
	next_sid = 1;
	device(j, DEV_A, "nvme0n1");
	name(j, 64, 64, "/");
	name(j, 65, 64, "dir");
	name(j, 66, 65, "f");
	vfs_ev(j, 500, &(struct vfs_call){ .id = 1, .call = VFS(Openat), .pid = 7,
					   .comm = "a-very-long-name-indeed", .ino = 66,
					   .result = 3, .duration = 600 });
	ev.io.id = 0xa;
	ev.io.dev = DEV_A;
	ev.io.lba = 64;
	ev.io.len = 16;
	ev.io.op = R;
	ev.io.vfs_call = 2;
	io_ev(j, &ev);
	meta(j, 1000, 0xa, 66, 0, 16);
	split(j, 1010, 0xb, 0xa, 64, 8, 72);
	done(j, 1100, 0xb, false);
	done(j, 1200, 0xa, false);
	vfs_ev(j, 1300, &(struct vfs_call){ .id = 2, .call = VFS(Pread64), .pid = 7, .ino = 66,
					    .size = 8192, .result = 8192, .duration = 400 });
	vfs_ev(j, 1400, &(struct vfs_call){ .id = 3, .call = VFS(Splice), .pid = 7, .ino2 = 66,
					    .result = 10, .duration = 5 });
	vfs_ev(j, 1500, &(struct vfs_call){ .id = 4, .call = VFS(Close), .pid = 7, .fd = 3,
					    .duration = 1 });
	assert_int_equal(join__finish(j), 0);

	assert_int_equal(nvrecs, 4);
	/* ts0 is the device's (ts 5); the open began 105 ns before it */
	assert_true(vrecs[0].r.time == 495);
	assert_true(vrecs[0].r.start == -105);
	assert_int_equal(vrecs[0].r.call, VFS(Openat));
	assert_string_equal(vrecs[0].r.comm, "a-very-long-nam");
	assert_string_equal(vrecs[0].path, "/dir/f");
	assert_true(vrecs[0].r.has_file && !vrecs[0].r.has_file2);
	assert_null(vrecs[0].r.file2);
	assert_true(vrecs[0].r.part == DEV_A + 1);
	assert_null(vrecs[0].dev_name);
	/* after the metadata: the disk */
	assert_string_equal(vrecs[1].dev_name, "nvme0n1");
	assert_true(vrecs[1].r.start == 1300 - 400 - 5);
	assert_ptr_equal(vrecs[1].r.file, vrecs[0].r.file);
	/* a splice from a pipe: only its output file */
	assert_null(vrecs[2].r.file);
	assert_string_equal(vrecs[2].path, "(null)");
	assert_string_equal(vrecs[2].path2, "/dir/f");
	assert_true(!vrecs[2].r.has_file && vrecs[2].r.has_file2);
	assert_null(vrecs[3].r.file);
	assert_int_equal(vrecs[3].r.fd, 3);

	/* the block I/O and its split piece: the read's call */
	assert_int_equal(nrecs, 2);
	assert_true(rec(0)->vfs_call == 2);
	assert_true(rec(1)->vfs_call == 2);
	assert_int_equal(rec(1)->len, 8);
	join__free(j);

	/* a described partition names itself */
	nvrecs = 0;
	j = join__new(JOIN_VFS, &sink);
	assert_non_null(j);
	device(j, DEV_A + 1, "nvme0n1p1");
	vfs_ev(j, 10, &(struct vfs_call){ .id = 1, .call = VFS(Fsync), .ino = 66 });
	assert_int_equal(nvrecs, 1);
	assert_string_equal(vrecs[0].dev_name, "nvme0n1p1");
	/* no JOIN_FILES: no file, but the event had one */
	assert_null(vrecs[0].r.file);
	assert_true(vrecs[0].r.has_file);
	join__free(j);

	/* without JOIN_VFS no call is read, nor handed out */
	nvrecs = 0;
	j = join__new(JOIN_PATHS, &sink);
	assert_non_null(j);
	assert_false(join__event_types(j) & EV_BIT(EV_VFS));
	vfs_ev(j, 10, &(struct vfs_call){ .id = 1, .call = VFS(Fsync), .ino = 66 });
	assert_int_equal(nvrecs, 0);
	join__free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_latency_and_qd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_splits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dispatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_completion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_completion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_cycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rename_while_waiting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extensions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_class_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vfs_calls, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
