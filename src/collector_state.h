/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector's state, shared by its parts and by nothing else:
 * collector.c (loading, the run loop, stopping), record_intake.c (the
 * records from the kernel into the streams) and trace_dir.c (the rest
 * of the trace directory: device descriptions, summary figures).
 */
#ifndef IOTRACE_COLLECTOR_STATE_H
#define IOTRACE_COLLECTOR_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector.h"
#include "cgroup_paths.h"
#include "delta.h"
#include "inflight.h"
#include "mount_gate.h"
#include "ring_plan.h"
#include "round_batch.h"
#include "vfs_attach.h"

struct ring_ctx {
	struct collector *c;
	int cpu;
};

struct collector {
	const struct collector_config *cfg;
	struct iotrace *skel;
	struct ring_buffer *rb;
	int ncpus;
	int *ring_fds;	/* per CPU, -1 = not created */
	struct ring_ctx *ring_ctx;	/* per CPU */
	struct stream_writer **streams;	/* per CPU; NULL for one offline at the start, until its first record */
	char *dir;	/* the trace's, for the streams opened later */
	struct stream_zstd *zstd;	/* shared by compressed streams */
	/*
	 * sum of the streams' size bounds: on disk plus the worst case of
	 * the buffers; kept with a size limit only
	 */
	uint64_t bytes;
	uint64_t size_limit;	/* bytes, 0 = none */
	struct vfs_links vfs;
	struct path_filter *paths;	/* --paths, NULL = every file */
	struct batch *batches;	/* per CPU, with paths or a size limit */
	bool batching;	/* this round's records go to the batches */
	bool near_limit;	/* this round's, within batch_margin of the size limit */
	bool batches_held;	/* the batches hold records for the next round */
	/* with a size limit: batching once less room than this is left */
	uint64_t batch_margin;
	int write_err;
	bool size_reached;
	bool started;	/* collector__started() */
	/*
	 * the lowest sid of a record that the size limit or a write error
	 * kept out of the streams (UINT64_MAX: none): the streams hold
	 * every event below it, and some of them events above it
	 */
	uint64_t first_refused_sid;
	uint64_t cur_sid;	/* the record being taken in */
	const struct iotrace_stage *stages;	/* per CPU, mapped */
	size_t stages_size;
	uint64_t *stage_flushes;	/* per CPU, the stage's outputs at the last look */
	bool no_stage_flush;	/* flush_stage cannot be run on a CPU here */
	/*
	 * rounds of intake__flush_stages() that output every stage they
	 * looked at, no offline CPU holding records; after two, every record
	 * that had its sid before the first is out of the stages
	 * (tdir__mark_complete())
	 */
	uint64_t clean_stage_rounds;
	/* marks taken at the last rounds (tdir__take_mark()), sid 0 = none */
	struct {
		uint64_t sid;		/* the last sid handed out then */
		uint64_t rounds;	/* clean_stage_rounds then */
	} marks[4];
	unsigned int next_mark;
	int mounts_fd;	/* fs_devs__watch, -1 = none */
	uint64_t poll_failing_since;	/* CLOCK_MONOTONIC ns, 0 = the wait works */
	bool poll_failure_said;
	/* the wait for records saw the mount table change; when to look (mount_gate.h) */
	struct mount_gate mounts;
	/*
	 * The syscall programs (vfs__attach()) are attached, or failed to:
	 * once a file system on a traced device is mounted, in this mount
	 * namespace or another (or a file of one is named), --vfs or not;
	 * with --no-file-events, set from the start: none is to attach
	 */
	bool fs_watch;
	/* a FILE_NAME record came, of a file system the syscall programs trace */
	bool files_named;
	int tracefs;	/* probe__tracefs_mount(): 1 = mounted it, unmounted at the end */
	bool fs_devs_full;	/* told that a mount did not fit */
	unsigned int not_followed;	/* vfs__not_followed(), for the summary */
	uint32_t devs_gone;	/* by cfg->devs index: told it was removed or changed */
	struct inflight open;	/* the trace's I/Os not completed yet */
	struct cgroup_paths cgroups;	/* the trace's iotrace.cgroups */
	long toggle_ms;	/* bench_toggle.h, 0 = never */
	int toggle_what;	/* enum bench_toggle_what */
	bool toggle_on;	/* the block programs are attached, or the collector keeps records */
	struct ring_plan rings;	/* each CPU's ring, of --buffer */
	/*
	 * collector__stalls(): when the rings were last all read and the
	 * losses counted then, the longest gap with a loss, the longest write
	 */
	uint64_t read_at_ns, lost_seen, lossy_gap_ns, longest_write_ns;
	char skipped_programs[256];	/* collector__skipped_programs() */
	char err[256];
	char warning[384];	/* collector__warning() */
};

/* ---- record_intake.c ---- */

/*
 * Creates CPU cpu's stream in c->dir. The collector creates those of CPU 0
 * (the device descriptions) and of the CPUs online at the start; a CPU
 * brought online later gets its stream with its first record, so a VM's
 * hot-plug slots leave no empty files. 0 or -errno.
 */
int intake__open_stream(struct collector *c, int cpu);

/*
 * Appends msg[0..len) to CPU cpu's stream, keeping the size-limit count
 * exact. 0 or -errno.
 */
int intake__append(struct collector *c, int cpu, const uint8_t *msg, size_t len);

/* The ring callback of CPU ctx (a struct ring_ctx): its records into the trace. */
int intake__on_ring_record(void *ctx, void *data, size_t size);

/*
 * Reads every ring, and with stages what the stages hold (once nothing
 * writes to them any more), into the streams; 0 or -errno.
 */
int intake__read_round(struct collector *c, bool stages);

/*
 * Has each CPU whose stage held records a whole round (all: any records)
 * output them; whether every stage looked at was output.
 */
bool intake__flush_stages(struct collector *c, bool all);

/* Flushes every stream; the first error, or 0. */
int intake__flush_all(struct collector *c);

/* ---- trace_dir.c ---- */

/* The summary of a trace starting now at rel (repository-relative). */
void tdir__init_summary(struct collector *c, struct summary *s, const char *rel);

/*
 * Describes the traced devices (sids 1..n in stream 0, the trace's
 * first events), and notes their timestamp as s's timestampOriginClock
 * and its wall-clock time as s's timestampOrigin; 0 or -errno.
 */
int tdir__write_descriptions(struct collector *c, struct summary *s);

/* The summary's figures for the time traced, start_ns to end_ns. */
void tdir__fill_summary(struct collector *c, struct summary *s, uint64_t start_ns,
			uint64_t end_ns);

/* At each round, after the stages' flush: the last sid handed out, as a mark. */
void tdir__take_mark(struct collector *c);

/*
 * While tracing, after every stream was flushed: s's completeBelowSid,
 * moved on to the latest mark whose records the stages have all output.
 */
void tdir__mark_complete(const struct collector *c, struct summary *s);

/* An empty stream file for CPU cpu, which had no record. */
void tdir__empty_stream(const struct collector *c, int cpu);

/* Says so when dir is on a file system of a traced device. */
void tdir__warn_self_traced(const struct collector *c, const char *dir);

#endif
