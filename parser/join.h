/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The join: turns the events of a trace, in sid order, into I/O records
 * (struct io_rec) - one per I/O, with its latency, queue depth, device and
 * file - and hands them to a sink in submission order.
 *
 * - An I/O is an `io` event joined with the `ioCompletion` whose refId is
 *   its id. Ids are bio addresses, reused once an I/O completed: the join
 *   is by id among the I/Os in flight. latency = completion - submission
 *   timestamp (0 if the completion's clock is behind). qd = I/Os in flight
 *   on the device at submission, this one included.
 * - ioSplit: the child [lba, lba + len) is carved off the front of its
 *   parent, which keeps its id and goes on at parentLba with the rest.
 *   The child is an I/O of its own (sid of the split, the parent's
 *   submission time, the parent's file at the parent's file offset, qd
 *   counted at the split) with its own completion; the parent's record
 *   shrinks to the rest. No piece is left without a latency.
 * - ioDispatch: the request's bios are the first one (by id) and the
 *   in-flight I/Os that follow it on the device LBA by LBA, bioCount in
 *   all; each gets the dispatch time. A requeued request is dispatched
 *   again: the last dispatch before the completion counts. queueTime =
 *   dispatch - submission (btt's Q2D), deviceTime = completion - dispatch
 *   (D2C).
 * - filesystemMeta (refId = io id) gives the file, offset and size;
 *   filesystemFileName events the names (file_names.h); the path is
 *   resolved when the record is handed out. filesystemFileEvent (Create,
 *   Delete, MoveFrom, MoveTo) becomes a record without an I/O.
 * - requestOnly I/Os (a flush request the kernel made without a bio) are
 *   records like any other, with that flag.
 * - Open-CAS's io events have no metadata or direct field: io_rec.flags
 *   gets them from ioClass (1 metadata, 22 direct), as Open-CAS's parser
 *   gives them. Told from ours by the events themselves, so that a trace
 *   whose summary is lost reads the same.
 * - vfs (with JOIN_VFS): a record of its own (vfs_rec.h), handed to the
 *   sink's vfs callback at once, with its file, path and device.
 *
 * Records go out in submission (sid) order, each once it and every
 * earlier one completed. An I/O that never completes is reported at the
 * end, after all others, with state IO_NOT_COMPLETED: when its id is
 * submitted again while it is in flight (its completion was lost), when
 * the trace ends first, or when JOIN_QUEUE_LIMIT later records wait
 * behind it (it is moved to the end then; should it complete after all, it
 * is reported there with its latency). Completions, splits, dispatches
 * and metadata that match no I/O in flight are counted (join_counts).
 *
 * Memory grows with the I/Os in flight and waiting behind them (at most
 * JOIN_QUEUE_LIMIT), the files named and the devices, not with the trace.
 */
#ifndef IOTRACE_JOIN_H
#define IOTRACE_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "vfs_rec.h"

#define JOIN_QUEUE_LIMIT (1u << 16)

struct file_node;
struct join;

/*
 * A device id as traces hold it, the kernel's dev_t (major << 20 | minor),
 * for printf: printf(DEVT_FMT, DEVT_ARGS(id)).
 */
#define DEVT_FMT "%u:%u"
#define DEVT_ARGS(id) (unsigned int)((id) >> 20), (unsigned int)((id) & 0xfffff)

struct device {
	uint64_t id;		/* dev_t */
	const char *name;	/* "" until a deviceDescription names it */
	const char *model;
	uint64_t size;		/* sectors */
	bool described;		/* a deviceDescription event was seen */
	unsigned int index;	/* 0, 1, ... in order of appearance: for per-device tables */
	uint64_t inflight;	/* I/Os in flight now */
};

enum io_kind { REC_IO, REC_FS_EVENT };

enum io_state {
	IO_COMPLETED,
	IO_NOT_COMPLETED,	/* no completion in the trace */
	IO_PENDING,		/* internal: still in flight */
};

struct io_rec {
	enum io_kind kind;
	enum io_state state;
	uint64_t sid;		/* of the io (or split, or file) event */
	uint64_t ts;		/* submission, ns as recorded */
	uint64_t time;		/* ts relative to the trace's first event (0 if before it) */
	const struct device *dev;
	uint64_t part;		/* partition dev_t: io.partitionId, the file's, or dev->id */

	/* kind == REC_IO */
	uint64_t id;		/* bio address */
	uint64_t lba;
	uint32_t len;
	int32_t op;		/* Octf__Proto__Trace__IoType */
	uint32_t flags;		/* IOF_* */
	uint32_t write_hint, pid, tid;
	uint64_t cgroup;	/* cgroup v2 id, 0 = not recorded */
	char comm[EVENT_COMM_MAX];	/* "" = not recorded */
	uint64_t vfs_call;	/* vfs_rec.id of the call that queued it, 0 = none */
	uint32_t qd;
	bool error;		/* completion error (also set for IO_NOT_COMPLETED) */
	bool dispatched;
	/*
	 * a piece split off an I/O (block_split): the range as submitted,
	 * before its splits, is the I/O's first piece's whole_lba/whole_len
	 */
	bool split_child;
	/* join_sink.in_order: handed out in its place already; here for its completion */
	bool passed;
	uint32_t whole_len;	/* sectors, as submitted (a split child: its I/O's) */
	uint64_t whole_lba;
	uint64_t latency;	/* ns, IO_COMPLETED only */
	uint64_t dispatch_ts;	/* last dispatch, if dispatched */
	uint64_t queue_time;	/* ns, dispatch - submission, if dispatched */
	uint64_t device_time;	/* ns, completion - dispatch, if dispatched and completed */

	/* file: NULL if the I/O has no filesystemMeta */
	struct file_node *file;
	uint64_t file_offset, file_size;	/* sectors */
	int32_t fs_event;	/* Octf__Proto__Trace__FsEventType: Access for I/Os */
	const char *path;	/* set when handed out, if JOIN_PATHS: NULL = unknown */
	size_t path_len;
	/*
	 * the join's own: the path as of this record, copied when a rename
	 * came before it was handed out (NULL: the names are still those of
	 * its time)
	 */
	char *path_kept;
};

/* What the join could not match, and other counts for the end report. */
struct join_counts {
	uint64_t ios;			/* I/O records, split children included */
	uint64_t completed;
	uint64_t not_completed;		/* reported at the end without latency */
	uint64_t lost_by_reuse;		/* of those: id submitted again while in flight */
	uint64_t late_completions;	/* moved to the end, then completed */
	uint64_t fs_events;
	uint64_t orphan_completions;	/* no I/O in flight with that id */
	/*
	 * of another range than the I/O in flight with that id: that I/O's
	 * completion was lost, and so was the submission of the one
	 * completing (lost_by_reuse counts the first)
	 */
	uint64_t foreign_completions;
	uint64_t orphan_splits;
	uint64_t orphan_dispatches;
	uint64_t orphan_metas;
	uint64_t negative_latencies;	/* completion stamped before submission: latency 0 */
	/*
	 * what the trace has at all, before any filter: where it has none,
	 * a view of it shows nothing, and the CLI says why
	 */
	uint64_t vfs_calls;		/* VFS calls (with JOIN_VFS) */
	uint64_t file_ios;		/* I/Os a filesystemMeta gave a file (with JOIN_FILES) */
	uint64_t process_ios;		/* I/Os that name their task (Open-CAS's do not) */
};

struct join_sink {
	/* called for every record, in order; r is valid during the call */
	void (*record)(void *ctx, const struct io_rec *r);
	void *ctx;
	/* with JOIN_VFS: called for every VFS call, in sid order; NULL = not wanted */
	void (*vfs)(void *ctx, const struct vfs_rec *r);
	/*
	 * Submission order for a sink that judges an I/O by those before it
	 * (--access-pattern, --hit-ratio-curve): a record that goes to the
	 * end list (never completed, or waited past JOIN_QUEUE_LIMIT) is
	 * also handed out in its place, with state IO_PENDING (its
	 * completion not come yet); at the end it comes again with
	 * io_rec.passed set, completed or not.
	 */
	bool in_order;
};

enum join_flags {
	JOIN_FILES = 1 << 0,	/* read file metadata, names and file events */
	JOIN_PATHS = 1 << 1,	/* resolve io_rec.path (implies JOIN_FILES) */
	JOIN_VFS = 1 << 2,	/* read vfs events: sink.vfs */
	/*
	 * The events of a sid range after the trace's first (split.h): a
	 * completion or split of an I/O not in flight here is kept for the
	 * join of the range before. A dispatch of a request with a bio not
	 * in flight here cannot be: join__needs_one_pass(). No files, paths
	 * or VFS with it.
	 */
	JOIN_DEFER = 1 << 3,
};

/* Returns NULL on allocation failure. */
struct join *join__new(unsigned int flags, const struct join_sink *sink);

/*
 * Paths from the names files have at the end of the trace: reads the name
 * events of all of t first (name_pass.h; t is used up, the events then go
 * through a trace opened again), and the name events fed later change
 * nothing. Without it, a path uses the names known when its record goes
 * out. Call before the first join__event(); with JOIN_FILES only. Returns
 * 0 or -ENOMEM.
 */
struct trace;
int join__preload_names(struct join *j, struct trace *t, unsigned int threads);

/* EV_BIT() mask of the event types this join uses: for reader__new(). */
unsigned int join__event_types(const struct join *j);

/* Feeds one event. Returns 0 or -ENOMEM. */
int join__event(struct join *j, const struct event *ev);

/* Hands out everything still held; the never-completed last. 0 or -ENOMEM. */
int join__finish(struct join *j);

/*
 * Whether no I/O submitted before `to` (ns, as io_rec.time) still waits
 * for its completion, in the ring or in the end list: reading on could
 * change none of the records before `to` (a time window's early end).
 */
bool join__settled_before(const struct join *j, uint64_t to);
/* The records held (waiting in the ring or in the end list): what join__settled_before() walks. */
size_t join__held(const struct join *j);
/*
 * join__finish() short of the trace's end, for a caller that keeps no
 * record from `to` on: the I/Os submitted at `to` or later that are
 * still in flight are dropped, neither handed out nor counted as never
 * completed (their completions are in the events not read).
 */
int join__finish_before(struct join *j, uint64_t to);

/*
 * Split runs: dst joined the range before src's (src with JOIN_DEFER, both
 * fed to their ends). Feeds dst the events src kept, finishes both (each
 * hands out its records to its own sink), then takes in src's devices and
 * counts: map[i] = dst's index of src's device i, join__device_count(src)
 * entries. 0 or -ENOMEM.
 */
int join__finish_split(struct join *dst, struct join *src, unsigned int *map);
/* JOIN_DEFER: a request had bios before the range; the split cannot give one pass's result. */
bool join__needs_one_pass(const struct join *j);

const struct join_counts *join__counts(const struct join *j);
size_t join__device_count(const struct join *j);
const struct device *join__device(const struct join *j, size_t i);
/* The device of that id (dev_t), NULL if the trace has none yet. */
const struct device *join__device_by_id(const struct join *j, uint64_t id);
/*
 * The timestamp records' times count from (record.time): the first
 * event's, a device description too (0 if none), unless set before it.
 */
uint64_t join__first_ts(const struct join *j);
/*
 * Before the first event: times count from ts (a trace's own origin,
 * summary.h's timestamp_origin_clock_ns), not from the first event read,
 * which is another when the first ones are lost to damage.
 */
void join__set_first_ts(struct join *j, uint64_t ts);

void join__free(struct join *j);

#endif
