/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * octf.summary: the trace's JSON summary, in Open-CAS's TraceSummary form
 * (tracePath, state, sourceNode, traceStartDateTime, traceDuration,
 * traceSize, tracedEvents, droppedEvents, queueCount, label, version) so
 * either tool reads the other's. Our additions go in "tags", the
 * string map TraceSummary has for that.
 *
 * Written at start (RUNNING), rewritten while tracing and at the end,
 * each time atomically (temporary file + rename).
 */
#ifndef IOTRACE_SUMMARY_H
#define IOTRACE_SUMMARY_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The summary version this iotrace writes and the latest it reads: both
 * tools write 1 (Open-CAS's TraceConverter TRACE_VERSION), 0 if absent
 */
#define SUMMARY_VERSION 1
/*
 * The most queueCount a summary is read with: the CPUs of a node (the
 * kernel's NR_CPUS goes up to 8192), with room. The parser looks for
 * that many streams when events are missing; a larger count is no node's
 */
#define SUMMARY_QUEUES_MAX 65536
/*
 * bytes of a label kept: --start-tracing refuses a longer one; a longer
 * one in another tool's summary is cut, between UTF-8 characters
 */
#define SUMMARY_LABEL_MAX 4095

struct summary {
	char trace_path[PATH_MAX];	/* relative to the repository: kernel/... */
	char state[16];			/* INITIALIZING, RUNNING, COMPLETE, ERROR */
	char start[32];			/* local time, "YYYY-MM-DD HH:MM" */
	uint64_t duration_s;
	uint64_t size_mib;		/* on disk, rounded up */
	uint64_t traced_events;
	bool has_traced_events;		/* read: the key was there */
	uint64_t dropped_events;
	uint64_t queue_count;
	char label[SUMMARY_LABEL_MAX + 1];
	int version;
	/* tags */
	char devices[1024];		/* comma-separated names */
	char stop_reason[64];		/* signal, time limit, size limit, disk full, ... */
	char dropped_per_queue[4096];	/* comma-separated counts, one per queue */
	char tool_version[32];
	/*
	 * the options of --start-tracing that shaped the trace, but for
	 * --devices and --label, which have their own fields: "--vfs --pids
	 * 12" ("" = none; absent from older traces)
	 */
	char options[2048];
	/*
	 * unlink/rename on traced file systems whose path the tracer could
	 * not resolve (no Delete/Move event sent); written only when not 0
	 */
	uint64_t unresolved_file_events;
	/*
	 * unlinks and renames io_uring made whose file the tracer did not
	 * find, those with no completion, and its opens with O_CREAT into
	 * fixed file slots: no Move, Delete or Create was sent for them
	 * (bpf/uring.bpf.h); written only when not 0
	 */
	uint64_t uring_unfollowed;
	/*
	 * with --vfs, io_uring requests of traced tasks with no record: their
	 * completion found the ring's CQ full, or more were in flight than
	 * the tracer holds (bpf/uring.bpf.h); written only when not 0
	 */
	uint64_t uring_vfs_missing;
	/*
	 * runs of the tracer's programs the kernel skipped, each nested in a
	 * run of the same program on one CPU (prog_misses.h): their events,
	 * if they were for traced devices, were never made; written only
	 * when not 0
	 */
	uint64_t skipped_runs;
	/*
	 * stopped by the size limit or a write error: the files hold every
	 * event below incomplete_from_sid, and not all of those from it on
	 * (written only when incomplete)
	 */
	bool incomplete;
	uint64_t incomplete_from_sid;
	/*
	 * while RUNNING: the files hold every event below this sid; those
	 * from it on may not all be written yet, as each CPU's file is
	 * written apart (0 = not said; written only while RUNNING)
	 */
	uint64_t complete_below_sid;
	/*
	 * ns since the epoch (UTC) at which header.timestamp is 0: an
	 * event's wall-clock time is this plus its header.timestamp (0 = not
	 * said: Open-CAS's, an older iotrace's)
	 */
	int64_t timestamp_origin_ns;
	/*
	 * The events' clock (CLOCK_MONOTONIC, ns) at timestamp_origin_ns: the
	 * device descriptions' header.timestamp, which header.timestamp counts
	 * from, so that it still does when they are lost to damage (0 = not
	 * said: then from the first event read)
	 */
	uint64_t timestamp_origin_clock_ns;
	/*
	 * traced devices removed, emptied or given a new medium while
	 * traced, whose I/O after that is not in the trace: comma-separated
	 * names (written only when there is one)
	 */
	char devices_gone[1024];
	/*
	 * what the tracer was asked for and its kernel did not let it follow,
	 * nor count (not_followed.h): "delete,move" (written only when there
	 * is one)
	 */
	char not_followed[128];
	/* --size in MiB, given or the default, 0 = none; written when not 0 */
	uint64_t size_limit_mib;
	/*
	 * read: a summary another tool wrote (no iotraceVersion tag, as
	 * Open-CAS's): printed back without our tags, but those it has
	 */
	bool foreign;
	/* read: the tags that are not ours, "key\0value\0"..., printed back as they were */
	char other_tags[2048];
	size_t other_tags_len;
	/*
	 * read: fields of a newer summary that are not ours (Open-CAS's
	 * major and minor), scalars only, "key\0" then 's' (string), 'n'
	 * (number) or 'b' (bool) and the value as text "\0", printed back
	 */
	char other_fields[512];
	size_t other_fields_len;
	/* read: why summary__read() refused it (-EBADMSG), for summary__strerror() */
	char error[160];
};

/* Writes dir/octf.summary (0600). Returns 0 or -errno. */
int summary__write(const char *dir, const struct summary *s);

/*
 * Reads dir/octf.summary (ours or Open-CAS's). Unknown keys are kept for
 * printing back. Returns 0, -errno, or -EBADMSG if it is not a summary:
 * not one JSON object, a count that is no count ("-1", "1e3", more than
 * 64 bits, a queueCount past SUMMARY_QUEUES_MAX), a state neither tool
 * writes, a version later than SUMMARY_VERSION, or a field missing that
 * both tools always write ("state", "droppedEvents"), with the reason in
 * s->error.
 */
int summary__read(const char *dir, struct summary *s);

/*
 * Whether a summary's state says its tracer is still at work
 * (INITIALIZING while it starts, then RUNNING): a trace whose tracer is
 * gone, left so, died.
 */
bool summary__unfinished(const char *state);

/* What summary__read()'s err means, for an error line: s->error or strerror(). */
const char *summary__strerror(const struct summary *s, int err);

struct json_writer;

/*
 * Writes pairs[0..len) ("key\0value\0"..., as other_tags keeps them) as
 * string members of the object jw has open.
 */
void summary__json_pairs(struct json_writer *jw, const char *pairs, size_t len);

/* Prints s as JSON, as stored. Returns 0 or -errno from the stream. */
int summary__print(FILE *out, const struct summary *s);

#endif
