// SPDX-License-Identifier: BSD-3-Clause
/* iotrace -P|--trace-parser: print a trace's I/Os, statistics and histograms. */
#define _GNU_SOURCE	/* ferror_unlocked, sched_getaffinity */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_names.h"
#include "cli.h"
#include "filter.h"
#include "join.h"
#include "merge.h"
#include "not_followed.h"
#include "parser_filters.h"
#include "raw_view.h"
#include "reader.h"
#include "regular_file.h"
#include "split.h"
#include "stream.h"
#include "summary.h"
#include "time_window.h"
#include "trace.h"
#include "trace_store.h"
#include "view.h"
#include "window_end.h"

/* how often (in events) a long run looks for a failed write */
#define WRITE_CHECK_EVERY 4096
/* OCTF's default LBA histogram bucket: 10 MiB */
#define LBA_BUCKET_DEFAULT 20480
#define SUBRANGE_MAX 9223372036854775807ull
/* cgroup v2 nests at most INT_MAX deep, but paths end at PATH_MAX: 2048 levels of "/x" */
#define CGROUP_DEPTH_MAX 2048
/* the kernel's PID_MAX_LIMIT on 64-bit: no pid or tid is larger */
#define PID_MAX_LIMIT 4194304
/* streams named on the line that says events are missing; more are counted */
#define MISSING_NAMED_MAX 8
/* --interval: 136 years, as far as ns go in 64 bits with room */
#define MAX_WINDOW_S 4294967295ull
#define INTERVAL_EXPECTED "seconds, more than 0, such as 1 or 0.1"
#define BY_EXPECTED "submission or completion"

enum {
	OPT_IO = 0x100,
	OPT_RAW,
	OPT_IO_SIZE_HIST,
	OPT_QD_HIST,
	OPT_DEVICES,
	OPT_VFS,
	OPT_FILE_STATS,
	OPT_PROCESS_STATS,
	OPT_FILE,
	OPT_PID,
	OPT_COMM,
	OPT_FINAL_NAMES,
	OPT_FROM,
	OPT_TO,
	OPT_TIME_SERIES,
	OPT_INTERVAL,
	OPT_BY,
	OPT_WALL_CLOCK,
	OPT_PATTERN,
	OPT_CGROUP,
	OPT_DEVICE,
	OPT_MIN_LATENCY,
	OPT_MAX_LATENCY,
	OPT_HIT_RATIO,
	OPT_LINE_SIZE,
	OPT_CGROUP_DEPTH,
};

/* ':' first: getopt_long() returns ':' for a missing value (cli_option_error()) */
#define PARSER_SHORT_OPTS ":p:f:HSLBFb:s:e:Pr"

static const struct option parser_opts[] = {
	{ "io", no_argument, NULL, OPT_IO },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "statistics", no_argument, NULL, 'S' },
	{ "latency-histogram", no_argument, NULL, 'L' },
	{ "io-size-histogram", no_argument, NULL, OPT_IO_SIZE_HIST },
	{ "queue-depth-histogram", no_argument, NULL, OPT_QD_HIST },
	{ "lba-histogram", no_argument, NULL, 'B' },
	{ "fs-statistics", no_argument, NULL, 'F' },
	{ "devices", no_argument, NULL, OPT_DEVICES },
	{ "vfs", no_argument, NULL, OPT_VFS },
	{ "file-statistics", no_argument, NULL, OPT_FILE_STATS },
	{ "process-statistics", no_argument, NULL, OPT_PROCESS_STATS },
	{ "access-pattern", no_argument, NULL, OPT_PATTERN },
	{ "hit-ratio-curve", no_argument, NULL, OPT_HIT_RATIO },
	{ "cache-line-size", required_argument, NULL, OPT_LINE_SIZE },
	{ "cgroup-depth", required_argument, NULL, OPT_CGROUP_DEPTH },
	{ "file", required_argument, NULL, OPT_FILE },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "min-latency", required_argument, NULL, OPT_MIN_LATENCY },
	{ "max-latency", required_argument, NULL, OPT_MAX_LATENCY },
	{ "final-names", no_argument, NULL, OPT_FINAL_NAMES },
	{ "wall-clock", no_argument, NULL, OPT_WALL_CLOCK },
	{ "time-series", no_argument, NULL, OPT_TIME_SERIES },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "by", required_argument, NULL, OPT_BY },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "bucket-size", required_argument, NULL, 'b' },
	{ "subrange-start", required_argument, NULL, 's' },
	{ "subrange-end", required_argument, NULL, 'e' },
	{ "path", required_argument, NULL, 'p' },
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'H' },
	{ NULL, 0, NULL, 0 },
};

/*
 * What a view has nothing to show without (its table would be empty, or
 * a column 0 throughout): where the trace has none, a note says so.
 */
enum {
	NEEDS_VFS = 1 << 0,	/* VFS calls: traces taken with --vfs */
	NEEDS_FILES = 1 << 1,	/* I/Os with file metadata */
};

/* the views, in the order the help lists them */
static const struct {
	int opt;
	const char *flag;
	const struct view_ops *ops;
	unsigned int needs;
} views[] = {
	{ OPT_IO, "--io", &io_view_ops, 0 },
	{ 'S', "--statistics", &stats_view_ops, 0 },
	{ 'L', "--latency-histogram", &latency_hist_ops, 0 },
	{ OPT_IO_SIZE_HIST, "--io-size-histogram", &size_hist_ops, 0 },
	{ OPT_QD_HIST, "--queue-depth-histogram", &qd_hist_ops, 0 },
	{ 'B', "--lba-histogram", &lba_hist_ops, 0 },
	{ OPT_TIME_SERIES, "--time-series", &series_view_ops, 0 },
	{ 'F', "--fs-statistics", &fs_view_ops, NEEDS_FILES },
	{ OPT_DEVICES, "--devices", &devices_view_ops, 0 },
	{ OPT_VFS, "--vfs", &vfs_view_ops, NEEDS_VFS },
	{ OPT_FILE_STATS, "--file-statistics", &file_stats_view_ops, NEEDS_VFS | NEEDS_FILES },
	{ OPT_PROCESS_STATS, "--process-statistics", &process_view_ops, NEEDS_VFS },
	{ OPT_PATTERN, "--access-pattern", &pattern_view_ops, 0 },
	{ OPT_HIT_RATIO, "--hit-ratio-curve", &hit_ratio_view_ops, 0 },
};

void cmd_parser_help(FILE *out)
{
	fputs("Usage: iotrace -P|--trace-parser VIEW -p|--path PATH [-f|--format json|csv|table]\n"
	      "                                 [FILTER...]\n\n"
	      "Views (one):\n"
	      "  -P, --io                  every I/O: latency, queue depth, device, file\n"
	      "                            (one record per I/O in submission order; file\n"
	      "                            events too); I/Os that never completed last\n"
	      "  --io -r, --raw            every event as recorded, in sequence (sid) order\n"
	      "  -S, --statistics          per device and operation: count, errors, size,\n"
	      "                            latency with percentiles, IOPS, bandwidth, workset\n"
	      "  -L, --latency-histogram   I/Os by latency, log2 ns buckets\n"
	      "  --io-size-histogram       I/Os by size, log2 sector buckets\n"
	      "  --queue-depth-histogram   I/Os by queue depth at submission, log2 buckets\n"
	      "  -B, --lba-histogram       I/Os by the LBAs they touch, linear buckets:\n"
	      "    -b, --bucket-size N       sectors per bucket (default 20480, 10 MiB; 0 too)\n"
	      "    -s, --subrange-start S    count LBAs from S on (default 0)\n"
	      "    -e, --subrange-end E      ... up to E included (default, or 0: the end)\n"
	      "  --time-series             per device, each interval's IOPS, bandwidth,\n"
	      "                            latency (average, p50, p99, max) and queue depth:\n"
	      "    --interval S              seconds per interval (default 1; 0.1 allowed)\n"
	      "    --by WHEN                 submission (default): the I/Os sent in each\n"
	      "                              interval; completion: those done in it, as\n"
	      "                              iostat counts\n"
	      "  -F, --fs-statistics       I/O statistics per directory, file extension and\n"
	      "                            file name prefix\n"
	      "  --devices                 the traced devices\n"
	      "  --vfs                     every system call and io_uring request on a\n"
	      "                            traced file (traces taken with --vfs), in the\n"
	      "                            order they returned: call, duration, offset,\n"
	      "                            size, result, process, file\n"
	      "  --file-statistics         per file: calls (open, read, write, seek, sync,\n"
	      "                            ...) with bytes, sizes and durations, and the\n"
	      "                            block I/O attributed to the file\n"
	      "  --process-statistics      per process (pid, comm) and per cgroup: block I/O\n"
	      "                            count, bytes, latency; calls and their bytes\n"
	      "  --access-pattern          reads and writes per device, process, cgroup and\n"
	      "                            file, as block I/O and as calls (--vfs): how many\n"
	      "                            sequential, their runs' length, how many not in\n"
	      "                            whole 4 KiB units\n"
	      "    --cgroup-depth N          (these two) a cgroup counts for its ancestor N\n"
	      "                              levels below the root: one row a Slurm job\n"
	      "                              (system.slice/slurmstepd.scope/job_42: 3)\n"
	      "  --hit-ratio-curve         per device, the hit ratio an LRU cache of 4 KiB\n"
	      "                            blocks would have had at each size (powers of\n"
	      "                            two up to the workset): reads, writes, total\n"
	      "    --cache-line-size N       KiB a cache line: 4 (default), 8, 16, 32 or 64,\n"
	      "                              as casadm's\n\n"
	      "Filters (every view but --raw; a record must match each one given):\n"
	      "  --file GLOB               files whose path matches GLOB; '*' matches '/'\n"
	      "                            too, so '/data/run42/*' is the whole tree\n"
	      "  --pid N                   process (or thread) N\n"
	      "  --comm NAME               tasks named NAME (cut to 15 bytes, as the kernel\n"
	      "                            keeps it)\n"
	      "  --cgroup ID|PATH          tasks of cgroup ID (as --process-statistics\n"
	      "                            prints it) or PATH (system.slice/slurmd.service),\n"
	      "                            and of the cgroups below it (a job's steps)\n"
	      "  --device NAME             records on device NAME (nvme0n1; a partition's\n"
	      "                            are its disk's)\n"
	      "  --min-latency D, --max-latency D\n"
	      "                            I/Os whose latency, calls whose duration, is at\n"
	      "                            least D, at most D (units: ns, us, ms, s:\n"
	      "                            --min-latency 10ms); I/Os that never completed\n"
	      "                            have none\n"
	      "  --from S, --to T          records from S seconds after the trace's first\n"
	      "                            event up to, not including, T (decimals allowed:\n"
	      "                            12.5): an I/O by its submission, a call by its\n"
	      "                            return; or wall-clock times, local (14:03:05.25,\n"
	      "                            2026-11-30T14:03:05) or UTC (with a final Z)\n\n"
	      "Options:\n"
	      "  --final-names             paths from the names files have at the end of the\n"
	      "                            trace (a renamed file shows its new path in every\n"
	      "                            record); default: the names known at each record,\n"
	      "                            as Open-CAS OCTF does\n"
	      "  --wall-clock              --io, --vfs, --time-series: each record's (each\n"
	      "                            interval's) wall-clock time too (UTC; table: the\n"
	      "                            local time of day)\n"
	      "  -p, --path PATH           the trace: relative to the trace repository\n"
	      "                            (e.g. kernel/2026-11-21_10:00:00) or an absolute\n"
	      "                            directory\n"
	      "  -f, --format FORMAT       json (default: JSON Lines for --io and --vfs, one\n"
	      "                            document for the others), csv (one column per\n"
	      "                            field), or table (aligned text and ASCII\n"
	      "                            histograms, for people; not with --raw)\n"
	      "  -H, --help                show this help\n\n"
	      "Units: LBAs and sizes in 512-byte sectors, times in ns (JSON, CSV); sizes in\n"
	      "bytes in --vfs, --file-statistics, --process-statistics, --access-pattern\n"
	      "and --hit-ratio-curve.\n\n"
	      "Exit status: 0 done, 1 error, 2 bad command line, 3 output incomplete: the\n"
	      "trace is damaged, events were lost while tracing or are missing from the\n"
	      "files, the summary cannot be read, or its tracer died (stderr says which).\n\n"
	      "Examples:\n"
	      "  iotrace --trace-parser --io --path kernel/2026-11-21_10:00:00\n"
	      "  iotrace -P --io -p /tmp/mytrace -f csv > ios.csv\n"
	      "  iotrace -P --statistics -p kernel/2026-11-21_10:00:00 -f table\n"
	      "  iotrace -P --statistics -p kernel/2026-11-21_10:00:00 --from 30 --to 40\n"
	      "  iotrace -P --latency-histogram -p kernel/2026-11-21_10:00:00 -f table\n"
	      "  iotrace -P --time-series --interval 0.5 -p kernel/2026-11-21_10:00:00 -f table\n"
	      "  iotrace -P --lba-histogram --bucket-size 2048 -p kernel/2026-11-21_10:00:00\n"
	      "  iotrace -P --io --raw -p kernel/2026-11-21_10:00:00\n"
	      "  iotrace -P --vfs -p kernel/2026-11-21_10:00:00 --pid 4242 -f csv\n"
	      "  iotrace -P --file-statistics -p kernel/2026-11-21_10:00:00 --file '/data/*'\n"
	      "  iotrace -P --process-statistics -p kernel/2026-11-21_10:00:00 -f table\n"
	      "  iotrace -P --access-pattern -p kernel/2026-11-21_10:00:00 -f table\n", out);
}

static const char *damage_reason(int err)
{
	switch (err) {
	case -ENODATA:
		return "truncated record";
	case -EBADMSG:
		return "corrupted record";
	case -EPROTO:
		return "record does not decode";
	case -ENOSTR:
		return "not a regular file";
	case -EILSEQ:
		return "not a zstd stream, though its name ends in .zst";
	case -EPROTONOSUPPORT:
		return "written by a newer iotrace (a later version of its compressed records)";
	default:
		return strerror(-err);
	}
}

static int open_error(const char *path, int err)
{
	char root[PATH_MAX], where[PATH_MAX + 32] = "";

	/* a relative path is the repository's: say which, it may not be the one meant */
	if (path[0] != '/' && !store__root(root, sizeof(root)))
		snprintf(where, sizeof(where), " (in the repository %s)", root);
	if (err == -EMEDIUMTYPE)
		cli_err("'%s'%s is not a trace (no octf.summary or octf.trace.* files)", path, where);
	else if (*trace__open_failed_file())
		cli_err("cannot open trace '%s'%s: %s: %s", path, where, trace__open_failed_file(),
			regular_file__strerror(-err));
	else
		cli_err("cannot open trace '%s'%s: %s", path, where, strerror(-err));
	return EXIT_ERROR;
}

/*
 * What the trace's tracer had no way to follow (tags.notFollowed), said
 * by the views that would show it: file events where paths are joined,
 * calls in the call views.
 */
static void not_followed_note(const char *tag, const struct view_ops *ops)
{
	unsigned int mask = ((ops->join_flags & JOIN_PATHS) ? NF_FILE_EVENTS : 0) |
			    (ops->vfs ? NF_VFS : 0);
	char text[512];

	if (!*tag || !mask)
		return;
	not_followed__describe(tag, mask, text, sizeof(text));
	if (*text)
		cli_note("this trace's tracer had no way to follow these: %s; any such event is "
			 "missing from this trace, and not counted",
			 text);
}

/*
 * What the tracer was told to leave out (tags.options), said where a
 * view would otherwise seem to show it all: the calls of other tasks and
 * files (--pids, --comm, --cgroup, --paths), and file events
 * (--no-file-events).
 */
static void option_notes(const struct summary *s, const struct view_ops *ops)
{
	static const char *const call_filters[] = { "--pids", "--comm", "--cgroup", "--paths" };
	char word[sizeof(s->options)], value[sizeof(s->options)], kept[512] = "";
	const char *p = s->options;
	bool no_file_events = false;
	size_t i;

	while (cli_next_word(&p, word, sizeof(word))) {
		no_file_events |= !strcmp(word, "--no-file-events");
		for (i = 0; i < sizeof(call_filters) / sizeof(*call_filters); i++)
			if (!strcmp(word, call_filters[i]) && cli_next_word(&p, value, sizeof(value)))
				cli_append_option(kept, sizeof(kept), word, value);
	}
	if (ops->vfs && *kept)
		cli_note("this trace holds only the calls its tracer was told to keep (%s); other "
			 "calls on the traced files are not in it",
			 kept);
	if ((ops->join_flags & JOIN_PATHS) && no_file_events)
		cli_note("this trace was taken with --no-file-events: it has no Create, Delete or "
			 "Move events, and renamed files keep their first names");
	not_followed_note(s->not_followed, ops);
	if ((ops->join_flags & JOIN_PATHS) && s->unresolved_file_events)
		cli_note("%llu unlink or rename %s not resolved to %s file while traced: %s Delete "
			 "or Move %s not in this trace", (unsigned long long)s->unresolved_file_events,
			 ONE_MANY(s->unresolved_file_events, "call was", "calls were"),
			 ONE_MANY(s->unresolved_file_events, "its", "their"),
			 ONE_MANY(s->unresolved_file_events, "its", "their"),
			 ONE_MANY(s->unresolved_file_events, "event is", "events are"));
	if ((ops->join_flags & JOIN_PATHS) && s->uring_unfollowed)
		cli_note("%llu %s made through io_uring while traced %s not followed: any Move, "
			 "Delete or Create of %s is not in this trace",
			 (unsigned long long)s->uring_unfollowed,
			 ONE_MANY(s->uring_unfollowed, "rename, unlink or creating open",
				  "renames, unlinks or creating opens"),
			 ONE_MANY(s->uring_unfollowed, "was", "were"),
			 ONE_MANY(s->uring_unfollowed, "it", "theirs"));
	if (ops->vfs && s->uring_vfs_missing)
		cli_note("%llu io_uring %s on traced files %s no record in this trace: %s "
			 "completion found the ring's completion queue full, or more were in flight "
			 "than the tracer holds", (unsigned long long)s->uring_vfs_missing,
			 ONE_MANY(s->uring_vfs_missing, "request", "requests"),
			 ONE_MANY(s->uring_vfs_missing, "has", "have"),
			 ONE_MANY(s->uring_vfs_missing, "its", "their"));
	if (s->devices_gone[0])
		cli_note("devices removed, emptied or given a new medium while traced: %s; their "
			 "I/O after that is not in this trace",
			 s->devices_gone);
}

/* A trace's summary, read once for a run: s is valid if err (from summary__read()) is 0 */
struct summary_read {
	struct summary s;
	int err;
};

/*
 * Whether the stream file path holds no record: no byte, or (zstd) only
 * frames that hold nothing, or only the delta stream header. Any of them
 * is an empty stream, as the views read it; one that cannot be read is
 * not, its damage is said apart.
 */
static bool stream_empty(const char *path)
{
	struct stream *s = stream__open(path);
	const uint8_t *msg;
	size_t len;
	bool empty = s && stream__next(s, &msg, &len) == 0;

	stream__free(s);
	return empty;
}

/*
 * The streams a trace of queue_count queues has (octf.trace.0 to
 * octf.trace.<queue_count - 1>, raw or .zst) that are missing or empty
 * (stream_empty()), into buf: "octf.trace.1, octf.trace.22.zst" ("" for
 * none). Said only when events are missing: our zstd traces have no file
 * for a CPU that had no record, and raw ones an empty one, so either
 * alone is no fault. A missing stream is named as the trace's others are
 * (.zst or not).
 */
static void missing_streams(const char *dir, uint64_t queue_count, char *buf, size_t size)
{
	/* at most SUMMARY_QUEUES_MAX: summary__read() refuses more */
	uint64_t i, n = queue_count;
	unsigned int named = 0, more = 0;
	bool zst = false;
	char path[PATH_MAX];
	struct stat st;
	size_t len = 0;

	for (i = 0; i < n && !zst; i++) {
		snprintf(path, sizeof(path), "%s/octf.trace.%llu.zst", dir, (unsigned long long)i);
		zst = !stat(path, &st);
	}
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *suffix = zst ? ".zst" : "";
		bool found = false;
		int k;

		for (k = 0; k < 2 && !found; k++) {
			snprintf(path, sizeof(path), "%s/octf.trace.%llu%s", dir,
				 (unsigned long long)i, k ? ".zst" : "");
			if (!stat(path, &st)) {
				found = true;
				suffix = k ? ".zst" : "";
			}
		}
		if (found && !stream_empty(path))
			continue;
		if (named == MISSING_NAMED_MAX) {
			more++;
			continue;
		}
		len += (size_t)snprintf(buf + len, size > len ? size - len : 0, "%soctf.trace.%llu%s",
					named ? ", " : "", (unsigned long long)i, suffix);
		named++;
	}
	if (more)
		snprintf(buf + len, size > len ? size - len : 0, " and %u more", more);
}

/* Whether a stream the summary's queueCount gives is missing or empty (missing_streams()). */
static bool streams_missing(const char *dir, const struct summary_read *sr)
{
	char missing[512];

	if (sr->err || !sr->s.has_traced_events)
		return false;
	missing_streams(dir, sr->s.queue_count, missing, sizeof(missing));
	return *missing;
}

/* A RUNNING summary whose tracer is gone: it died before finishing (killed, or the node went down). */
static bool tracer_died(const char *dir, const struct summary_read *sr)
{
	return !sr->err && summary__unfinished(sr->s.state) && !store__trace_is_live(dir);
}

/*
 * What the summary knows and the streams cannot show: events the kernel
 * could not hand over while tracing, a tracer that died (its last second
 * of buffered events never reached the disk), and how many events the
 * trace files hold (records: what was read of them; damaged: damage was
 * reported, which says why fewer were read; whole: the files were read
 * to their ends, else records says nothing). Upstream traces have the
 * same fields. With a view (ops), also what the tracer left out.
 */
static int summary_warnings(const char *dir, const struct summary_read *sr,
			    const struct view_ops *ops, uint64_t records, bool damaged, bool whole)
{
	const struct summary *s = &sr->s;
	int ret = EXIT_OK;

	if (sr->err) {
		cli_warn("cannot read the trace's %s (%s): lost or missing events cannot be "
			 "ruled out; output may be partial", STORE_SUMMARY_NAME,
			 summary__strerror(&sr->s, sr->err));
		return EXIT_PARTIAL;
	}
	if (ops)
		option_notes(s, ops);
	if (tracer_died(dir, sr)) {
		cli_warn("the tracer of this trace died before finishing; its last second of events may be missing");
		ret = EXIT_PARTIAL;
	}
	if (s->dropped_events) {
		cli_warn("%llu %s lost while tracing (summary droppedEvents); output is partial",
			 (unsigned long long)s->dropped_events,
			 ONE_MANY(s->dropped_events, "event was", "events were"));
		ret = EXIT_PARTIAL;
	}
	if (s->skipped_runs) {
		cli_warn("the kernel skipped %llu %s of the tracer's programs while tracing "
			 "(summary tags.skippedProgramRuns): %s; output may be partial",
			 (unsigned long long)s->skipped_runs, ONE_MANY(s->skipped_runs, "run", "runs"),
			 ONE_MANY(s->skipped_runs,
				  "its events, if it was for a traced device, are missing",
				  "the events of those that were for traced devices are missing"));
		ret = EXIT_PARTIAL;
	}
	/*
	 * a dead tracer's summary counts what it had written some time
	 * before; a stopped one's reader stops at incomplete_from_sid
	 */
	if (whole && !damaged && s->has_traced_events && !summary__unfinished(s->state) &&
	    !s->incomplete && records != s->traced_events) {
		char missing[512];

		missing_streams(dir, s->queue_count, missing, sizeof(missing));
		if (records < s->traced_events && *missing)
			cli_warn("the trace files hold %llu of the %llu events its summary counts "
				 "(of the %llu streams its queueCount gives, missing or empty: %s); "
				 "output is partial",
				 (unsigned long long)records, (unsigned long long)s->traced_events,
				 (unsigned long long)s->queue_count, missing);
		else if (records < s->traced_events)
			cli_warn("the trace files hold %llu of the %llu events its summary counts "
				 "(a file is missing or cut short); output is partial",
				 (unsigned long long)records, (unsigned long long)s->traced_events);
		else
			cli_warn("the trace files hold %llu events, more than the %llu its summary "
				 "counts (a file is there twice?); output may count events twice",
				 (unsigned long long)records, (unsigned long long)s->traced_events);
		ret = EXIT_PARTIAL;
	}
	return ret;
}

/*
 * Events that share their sid with another: no framing check catches a
 * bit flipped in a sid, and a copied stream file holds only such events.
 */
static int same_sid_report(uint64_t n)
{
	if (!n)
		return EXIT_OK;
	cli_warn("%llu event%s a sid another event has (damaged records, or a stream file "
		 "there twice); output is partial", (unsigned long long)n,
		 n == 1 ? " has" : "s have");
	return EXIT_PARTIAL;
}

/*
 * Damage found in the streams, one line each; returns how many. But for
 * a trace still being recorded, a file that ends inside a record was
 * read while the collector's write(2) of it was under way: what that
 * write holds is past the summary's completeBelowSid, which the summary
 * says only once those events are written, so that is no damage.
 * (summary_warnings() may be told of it all the same: it does not hold a
 * RUNNING trace's files to its summary's count.)
 */
static size_t damage_report(const char *dir, const struct summary_read *sr,
			    const struct merge_error *(*get)(const void *, size_t), const void *src,
			    size_t n)
{
	bool live = n && !sr->err && !strcmp(sr->s.state, "RUNNING") && store__trace_is_live(dir);
	size_t i, found = 0;

	for (i = 0; i < n; i++) {
		const struct merge_error *e = get(src, i);

		if (live && e->err == -ENODATA)
			continue;
		cli_err("trace damaged: %s at byte %llu: %s; output is partial", e->path,
			(unsigned long long)e->offset, damage_reason(e->err));
		found++;
	}
	return found;
}

static const struct merge_error *merge_error_of(const void *m, size_t i)
{
	return merge__error(m, i);
}

static const struct merge_error *reader_error_of(const void *r, size_t i)
{
	return reader__error(r, i);
}

/* stdout for a long output: one big buffer, and a closed pipe is a write error, not a signal */
static void setup_stdout(void)
{
	/* static: stdout keeps using it until exit */
	static char out_buf[1 << 20];

	setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
	signal(SIGPIPE, SIG_IGN);
}

/*
 * A reader that closed the pipe (`iotrace -P --io ... | head`) has what it
 * wanted: stop quietly and successfully, as tools in a pipeline do. Any
 * other write error is reported.
 */
static int write_error(int err)
{
	if (err == -EPIPE) {
		/* main() checks stdout once more: this is no error */
		clearerr(stdout);
		return EXIT_OK;
	}
	cli_err("cannot write output: %s", strerror(-err));
	return EXIT_ERROR;
}

static int print_raw(const char *path, const char *dir, enum raw_format fmt)
{
	const Octf__Proto__Trace__Event *ev;
	struct raw_view *view = NULL;
	struct summary_read sr;
	struct merge *m = NULL;
	struct trace *t;
	unsigned long n = 0;
	int ret, r, ret2;

	t = trace__open(dir);
	if (!t)
		return open_error(path, -errno);
	m = merge__new(t);
	if (!m) {
		cli_err("cannot read trace '%s': %s", path, strerror(errno));
		ret = EXIT_ERROR;
		goto cleanup;
	}
	setup_stdout();
	view = raw_view__new(stdout, fmt);
	if (!view) {
		cli_err("out of memory");
		ret = EXIT_ERROR;
		goto cleanup;
	}

	while ((r = merge__next(m, &ev)) == 1) {
		raw_view__write(view, ev);
		if (++n % WRITE_CHECK_EVERY == 0 && raw_view__error(view))
			break;
	}
	if (r < 0) {
		raw_view__finish(view);
		cli_err("cannot read trace '%s': %s", path, strerror(-r));
		ret = EXIT_ERROR;
		goto cleanup;
	}
	r = raw_view__finish(view);
	if (r) {
		ret = write_error(r);
		goto cleanup;
	}

	sr.err = summary__read(dir, &sr.s);
	ret = summary_warnings(dir, &sr, NULL, n, merge__error_count(m) > 0, true);
	if (damage_report(dir, &sr, merge_error_of, m, merge__error_count(m)))
		ret = EXIT_PARTIAL;
	ret2 = same_sid_report(merge__same_sid(m));
	if (ret2)
		ret = ret2;

cleanup:
	raw_view__free(view);
	merge__free(m);
	trace__free(t);
	return ret;
}

/*
 * What the join could not match, on stderr; counted in the views too.
 * cut_after: the last sid the join was given when the reader cut the
 * trace short (NULL if not): an I/O in flight there may well have its
 * completion among the events left out, so it is not said to have
 * none. damaged: a stream file is damaged, and its events after the
 * damage are lost, completions among them. died: the trace's tracer
 * died, and with it the events it had not written yet, which each
 * CPU's file lacks from another point on. dropped: the summary counts
 * events the tracer lost (its buffers full). stopped: why the tracer
 * stopped writing short of its end (a size limit, a full disk) when
 * every file holds every event up to there, so nothing was cut (NULL
 * if it did not): the I/Os in flight then had their completion later.
 * part: the events read, when reading stopped short of the end (a time
 * window's, window_end.h), as words after "in"; NULL if it did not.
 */
static void join_warnings(const struct join *j, const uint64_t *cut_after, bool damaged,
			  bool died, bool dropped, const char *stopped, bool listed, bool filtered,
			  const char *part)
{
	const struct join_counts *c = join__counts(j);
	unsigned long long n = c->not_completed, f = c->foreign_completions,
			   o = c->orphan_completions, r = c->lost_by_reuse;
	/*
	 * the counts are the whole trace's (or the part read), which a filter
	 * (--from, --device, ...) does not narrow: the I/Os it leaves are
	 * said apart
	 */
	char in[64];
	/* the words that change with the count: "1 I/O has", "2 I/Os have" */
	const char *ios = ONE_MANY(n, "I/O", "I/Os"), *has = ONE_MANY(n, "has", "have"),
		   *its = ONE_MANY(n, "its", "their");
	/* --io lists each I/O; the other views count them */
	const char *fate;

	if (part)
		snprintf(in, sizeof(in), " in %s", part);
	else
		snprintf(in, sizeof(in), "%s", filtered ? " in the whole trace" : "");

	if (listed && filtered)
		fate = ONE_MANY(n, "it is listed last, without latency, if the filters keep it",
				"those the filters keep are listed last, without latency");
	else if (listed)
		fate = ONE_MANY(n, "it is listed last, without latency",
				"they are listed last, without latency");
	else if (filtered)
		fate = ONE_MANY(n, "it counts as not completed, without latency, if the filters keep it",
				"those the filters keep count as not completed, without latency");
	else
		fate = ONE_MANY(n, "it counts as not completed, without latency",
				"they count as not completed, without latency");

	if (n && cut_after)
		cli_warn("%llu %s%s %s no completion up to sid %llu, where the trace is cut (%s completion may be among the events left out); %s",
			 n, ios, in, has, (unsigned long long)*cut_after, its, fate);
	else if (n && damaged)
		cli_warn("%llu %s%s %s no completion in the trace (%s completion may be among a damaged file's lost events); %s",
			 n, ios, in, has, its, fate);
	else if (n && died)
		cli_warn("%llu %s%s %s no completion in the trace, which ends where its tracer died (%s completion may be among the events it had not written); %s",
			 n, ios, in, has, its, fate);
	else if (n && stopped)
		cli_warn("%llu %s%s %s no completion in the trace: the tracer stopped writing%s%s%s while %s in flight; %s",
			 n, ios, in, has, *stopped ? " (" : "", stopped, *stopped ? ")" : "",
			 ONE_MANY(n, "it was", "they were"), fate);
	else if (n)
		cli_warn("%llu %s%s never completed (%s completion is not in the trace); %s", n, ios,
			 in, its, fate);
	/* which of them is not a matter of the trace ending too early */
	if (r)
		cli_warn("%llu of them did end: %s id was used again later in the trace", r,
			 ONE_MANY(r, "its", "their"));
	/* what lost the two events, where the trace knows */
	if (f)
		cli_warn("%llu %s%s %s of another LBA range than the I/O in flight under %s id: "
			 "that I/O lost its completion, the one completing its submission (%s); "
			 "neither is given a latency",
			 f, ONE_MANY(f, "completion", "completions"), in, ONE_MANY(f, "is", "are"),
			 ONE_MANY(f, "its", "their"),
			 dropped ? "events were lost while tracing"
			 : damaged ? "among a damaged file's lost events?"
			 : "a stream file missing or damaged?");
	if (o)
		cli_warn("%llu %s%s %s no I/O in flight (the trace began while %s in flight, or %s submission was lost)",
			 o, ONE_MANY(o, "completion", "completions"), in, ONE_MANY(o, "matches", "match"),
			 ONE_MANY(o, "it was", "they were"), ONE_MANY(o, "its", "their"));
}

/* Whether the trace's tracer was given opt (our summaries' tags.options). */
static bool traced_with(const struct summary_read *sr, const char *opt)
{
	char word[sizeof(sr->s.options)];
	const char *p = sr->s.options;

	while (!sr->err && cli_next_word(&p, word, sizeof(word)))
		if (!strcmp(word, opt))
			return true;
	return false;
}

/*
 * A view of what the trace does not have shows nothing, or 0 calls: a
 * valid answer (exit 0), but one that reads as "none happened", so
 * stderr says what the trace lacks. From the join's counts, before any
 * filter: a filter that leaves nothing is no news. part: as for
 * join_warnings(), the events read if not all.
 */
static void missing_notes(const struct summary_read *sr, const struct view_ops *ops,
			  const struct filter *filter, const struct join *j, const char *part)
{
	const struct join_counts *c = join__counts(j);
	const char *has = part ? "have" : "has", *its = part ? "their" : "its";
	/* the I/Os the view shows, which VFS calls with their files and tasks do not replace */
	bool ios = c->ios && !c->vfs_calls && ops != &vfs_view_ops;
	unsigned int needs = 0;
	size_t i;

	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (views[i].ops == ops)
			needs = views[i].needs;
	if ((needs & NEEDS_VFS) && !c->vfs_calls)
		cli_note("%s %s no VFS records (%s)%s", part ? part : "this trace", has,
			 traced_with(sr, "--vfs") ? "its tracer recorded no call on the traced files"
			 : !sr->err && sr->s.foreign ? "Open-CAS's traces have none"
			 : "was it taken with --vfs?",
			 ops == &vfs_view_ops ? "" : ": no call is counted");
	if (((needs & NEEDS_FILES) || (filter->file && ios)) && c->ios && !c->file_ios)
		cli_note("%s %s no file metadata: none of %s %llu I/Os is attributed to a "
			 "file (no file system mounted on the traced devices?)",
			 part ? part : "this trace", has, its, (unsigned long long)c->ios);
	if ((filter->pid || filter->comm[0] || filter->cgroups) && ios && !c->process_ios)
		cli_note("no I/O in %s names its process (Open-CAS's traces do not): %s "
			 "matches none", part ? part : "this trace",
			 filter->pid ? "--pid" : filter->comm[0] ? "--comm" : "--cgroup");
}

/*
 * A second CPU reads and decodes ahead while this one joins and writes,
 * if the process may run on two (taskset, cgroup cpusets).
 */
static unsigned int reader_threads(void)
{
	const char *env = getenv("IOTRACE_PARSER_THREADS");
	cpu_set_t set;

	if (env && !strcmp(env, "1"))
		return 1;
	if (!sched_getaffinity(0, sizeof(set), &set))
		return CPU_COUNT(&set) > 1 ? 2 : 1;
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
}

static void sink_record(void *ctx, const struct io_rec *r)
{
	const struct view_ops *ops = ((void **)ctx)[0];

	ops->record(((void **)ctx)[1], r);
}

static void sink_vfs(void *ctx, const struct vfs_rec *r)
{
	const struct view_ops *ops = ((void **)ctx)[0];

	ops->vfs(((void **)ctx)[1], r);
}

/*
 * Paths are built, as Open-CAS OCTF builds them, from the names seen up
 * to each record. --final-names asks for the names files have at the end
 * of the trace (the file as it is now): a first pass over a second
 * opening of the trace reads the name events alone.
 */
static bool final_names;

static int preload_names(struct join *j, const char *dir)
{
	struct trace *t = trace__open(dir);
	int err;

	if (!t)
		return -errno;
	err = join__preload_names(j, t, reader_threads());
	trace__free(t);
	return err;
}

/* ns as seconds, as a user writes them (0.000000001, not 1e-09), into buf */
static const char *seconds_text(uint64_t ns, char buf[32])
{
	int n = snprintf(buf, 32, "%llu.%09llu", (unsigned long long)(ns / 1000000000),
			 (unsigned long long)(ns % 1000000000));

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

/*
 * A trace whose tracer stopped in error before it wrote one I/O, file
 * event or call (a full disk that took its first frame) prints empty
 * views, which would read as "nothing happened": said.
 */
static void empty_note(const struct summary_read *sr, const struct view_ops *ops,
		       const struct join *j, const char *part)
{
	const struct join_counts *c = join__counts(j);

	if (ops == &devices_view_ops || part || c->ios || c->fs_events || c->vfs_calls ||
	    sr->err || strcmp(sr->s.state, "ERROR") || !sr->s.stop_reason[0])
		return;
	cli_note("this trace holds no I/O, file event or call: its tracer stopped in error "
		 "(%s) before it wrote one", sr->s.stop_reason);
}

/*
 * A view fed to the end: writes what it summarizes and reports the
 * summary's warnings (sr, as read for the run; records: the events read,
 * which it counts), the damage found (get, src, n), where the reader cut
 * the trace (cut_after: the last sid kept, NULL if not cut) and the
 * join's warnings, which the damage or the cut explains; part: the
 * events read when reading stopped short of the end (join_warnings()),
 * NULL if all were. Returns the exit status.
 */
static int end_view(const char *dir, const struct summary_read *sr, const struct view_ops *ops,
		    const struct view_opts *opts, void *view, const struct join *j, uint64_t records,
		    const struct merge_error *(*get)(const void *, size_t), const void *src, size_t n,
		    const uint64_t *cut_after, const char *part)
{
	int r = ops->finish(view, j), ret, ret2;
	char secs[32], held[48] = "";
	bool died;

	if (r) {
		if (r == -ENOMEM)
			cli_err("out of memory");
		else if (r == -E2BIG && ops == &series_view_ops)
			cli_err("--interval %s s makes more than %u intervals for this trace; use a "
				"longer one", seconds_text(opts->interval_ns, secs), SERIES_INTERVALS_MAX);
		else if (r == -E2BIG)
			cli_err("--bucket-size %llu makes more than a million LBA buckets with I/O "
				"(over all devices and operations); use a larger one",
				(unsigned long long)opts->bucket_size);
		else
			return write_error(r);
		/* what the option asks of this trace is too much: the command line's to change */
		return EXIT_USAGE;
	}
	ret = summary_warnings(dir, sr, ops, records, n > 0, !part);
	n = damage_report(dir, sr, get, src, n);
	ret2 = n ? EXIT_PARTIAL : EXIT_OK;
	/*
	 * the other streams are read to their ends, as with a stream file
	 * missing: the join's range check keeps a completion whose I/O was
	 * lost with the damage from completing another I/O under its id
	 */
	if (n)
		cli_note("%s events after the damage are lost; the other files are read to "
			 "their ends", n == 1 ? "that file's" : "those files'");
	/*
	 * the reader cuts only where the summary says the tracer stopped, or
	 * up to where a trace still RUNNING is written
	 */
	/* the lock looked at once: a RUNNING trace's tracer is alive or died */
	died = tracer_died(dir, sr);
	/* the scale, which the sid alone does not give: a small --size may leave most out */
	if (cut_after && sr->s.incomplete && sr->s.has_traced_events)
		snprintf(held, sizeof(held), " (the files hold %llu)",
			 (unsigned long long)sr->s.traced_events);
	if (cut_after && sr->s.incomplete)
		cli_note("the events after sid %llu are left out%s: not every CPU's file holds "
			 "them, as the tracer stopped%s%s%s",
			 (unsigned long long)*cut_after, held, sr->s.stop_reason[0] ? " (" : "",
			 sr->s.stop_reason, sr->s.stop_reason[0] ? ")" : "");
	else if (cut_after && died)
		cli_note("the events after sid %llu are left out: not every CPU's file holds "
			 "them, as the tracer died", (unsigned long long)*cut_after);
	else if (cut_after)
		cli_note("the events after sid %llu are left out: this trace is still being "
			 "recorded, and not every CPU's file holds them yet",
			 (unsigned long long)*cut_after);
	/* its first second, an older tracer's, or one whose stages cannot be flushed */
	else if (!sr->err && !sr->s.complete_below_sid && !strcmp(sr->s.state, "RUNNING") && !died)
		cli_note("this trace is still being recorded, and its summary does not say up to "
			 "where every CPU's file holds every event: read to their ends, the files "
			 "may hold an I/O without its completion, or a completion without its I/O");
	empty_note(sr, ops, j, part);
	/* read in part, the trace's end (where its tracer died or stopped) explains nothing */
	join_warnings(j, cut_after, n > 0, died && !part, !sr->err && sr->s.dropped_events,
		      !cut_after && !part && sr->s.incomplete ? sr->s.stop_reason : NULL,
		      ops == &io_view_ops, opts->filtered, part);
	return ret2 ? ret2 : ret;
}

/*
 * The process exits right after the view: a finished split is left to
 * the kernel, which takes back its memory and the trace's mappings at
 * once (freed piece by piece - unmapping the trace file by file, the
 * readers' windows - they took a tenth of a --statistics run, the exit
 * then half of that less). Kept here, it is still reachable for leak
 * checkers. Sanitizer builds free it, so that the tests run
 * split__free() under ASan.
 */
#if defined(__SANITIZE_ADDRESS__)
#define FREE_BEFORE_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FREE_BEFORE_EXIT 1
#endif
#endif
#ifndef FREE_BEFORE_EXIT
#define FREE_BEFORE_EXIT 0
#endif
/* volatile: a store never read back would be optimized away */
static struct split *volatile split_at_exit;

/*
 * A summary view of a long finished trace on two CPUs (split.h): the
 * exit status, or -1 when the trace is one for a single pass.
 */
static int print_split(const char *path, const char *dir, const struct summary_read *sr,
		       const struct view_ops *ops, const struct view_opts *opts)
{
	struct split *sp;
	int err, ret;

	if (reader_threads() < 2 || sr->err || !strcmp(sr->s.state, "RUNNING") || sr->s.incomplete)
		return -1;
	setup_stdout();
	sp = split__run(dir, sr->s.traced_events, ops, stdout, opts,
			ops->join_flags, &err);
	if (!sp) {
		if (!err)
			return -1;
		if (*trace__open_failed_file())
			return open_error(path, err);
		cli_err("cannot read trace '%s': %s", path, strerror(-err));
		return EXIT_ERROR;
	}
	/*
	 * events missing (a stream gone) or there twice: the halves' joins
	 * account for what they could not match otherwise than one pass does
	 */
	if (split__records(sp) != sr->s.traced_events) {
		split__free(sp);
		return -1;
	}
	ret = end_view(dir, sr, ops, opts, split__view(sp), split__join(sp), split__records(sp),
		       NULL, NULL, 0, NULL, NULL);
	if (FREE_BEFORE_EXIT)
		split__free(sp);
	else
		split_at_exit = sp;
	return ret;
}

/*
 * The trace's cgroup paths, if it has them. A damaged line, or a file
 * that cannot be read, is said, and the view goes on with the cgroups
 * named before it, the others by id only: EXIT_PARTIAL. EXIT_OK, or
 * EXIT_ERROR (out of memory, said).
 */
static int load_cgroup_names(const char *dir, struct cgroup_names *names)
{
	size_t bad_line = 0;
	int err = cgroup_names__load(names, dir, &bad_line);

	if (err == -EINVAL) {
		cli_warn("%s/%s: line %zu is not a cgroup's id and path; the cgroups from it on "
			 "are named by id only", dir, CGROUP_NAMES_FILE, bad_line);
		return EXIT_PARTIAL;
	}
	if (err == -ENOMEM) {
		cli_err("out of memory");
		return EXIT_ERROR;
	}
	if (err) {
		cli_warn("cannot read %s/%s: %s; its cgroups are named by id only", dir,
			 CGROUP_NAMES_FILE, regular_file__strerror(-err));
		return EXIT_PARTIAL;
	}
	return EXIT_OK;
}

/* --cgroup-depth: by the trace's names, which a trace without them has not. */
static int cgroup_rollup(const struct cgroup_names *names, unsigned int depth,
			 struct u64map *rollup)
{
	if (!names->count && names->present) {
		/* a damaged file's warning is just above */
		if (names->damaged)
			cli_err("--cgroup-depth: no cgroup's path could be read from the trace's "
				"%s", CGROUP_NAMES_FILE);
		else
			cli_err("--cgroup-depth: the trace's %s names no cgroup", CGROUP_NAMES_FILE);
		return EXIT_USAGE;
	}
	if (!names->count) {
		cli_err("--cgroup-depth: the trace does not name its cgroups (it has no %s: "
			"an Open-CAS trace, an older iotrace's, or one with no I/O or call of a "
			"task)", CGROUP_NAMES_FILE);
		return EXIT_USAGE;
	}
	if (cgroup_names__rollup(names, depth, rollup)) {
		cli_err("out of memory");
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

static int print_view(const char *path, const char *dir, const struct view_ops *ops,
		      const struct view_opts *opts, const struct filter *filter)
{
	void *ctx[2] = { (void *)ops, NULL };
	struct join_sink sink = { sink_record, ctx, ops->vfs ? sink_vfs : NULL, ops->in_order };
	struct filter_sink fsink;
	struct reader *rd = NULL;
	struct join *j = NULL;
	const struct event *ev;
	struct trace *t;
	unsigned long n = 0;
	int ret = EXIT_ERROR, ret2, r;
	struct summary_read sr;
	struct window_end we;
	char part[64] = "";
	uint64_t last;
	bool cut;

	sr.err = summary__read(dir, &sr.s);
	/*
	 * --devices lists every device described, which a window does not
	 * narrow; and a trace missing a stream file is read to its end,
	 * where the count of its events tells a file lost from a CPU that
	 * had no record (summary_warnings()). Looked for only with a --to:
	 * it opens every stream, and without one the trace is read to its
	 * end anyway.
	 */
	window_end__init(&we, filter->to_ns == UINT64_MAX || ops == &devices_view_ops ||
				      streams_missing(dir, &sr) ? UINT64_MAX : filter->to_ns);
	if (ops->merge && !filter__active(filter)) {
		ret = print_split(path, dir, &sr, ops, opts);
		if (ret >= 0)
			return ret;
		ret = EXIT_ERROR;
	}
	t = trace__open(dir);
	if (!t)
		return open_error(path, -errno);
	/* filtered before any view counts: every view sees the same records */
	if (filter__active(filter))
		sink = filter__sink(&fsink, filter, &sink);
	j = join__new(ops->join_flags | filter__join_flags(filter), &sink);
	if (j && filter__active(filter))
		filter__sink_join(&fsink, j);
	/* the same times as the whole trace gives, when damage took its first events */
	if (j && !sr.err && sr.s.timestamp_origin_clock_ns)
		join__set_first_ts(j, sr.s.timestamp_origin_clock_ns);
	if (j && final_names && ((ops->join_flags | filter__join_flags(filter)) & JOIN_PATHS)) {
		r = preload_names(j, dir);
		if (r) {
			cli_err("cannot read trace '%s': %s", path, strerror(-r));
			goto cleanup;
		}
	}
	/* after the first pass: the reader's helper thread would only wait through it */
	rd = j ? reader__new(t, join__event_types(j), reader_threads()) : NULL;
	if (!j || !rd) {
		cli_err("cannot read trace '%s': %s", path, strerror(ENOMEM));
		goto cleanup;
	}
	/* past where the limit stopped some streams, the others' events would join wrongly */
	if (!sr.err && sr.s.incomplete)
		reader__keep_below(rd, sr.s.incomplete_from_sid);
	else if (!sr.err && sr.s.complete_below_sid && !strcmp(sr.s.state, "RUNNING"))
		reader__keep_below(rd, sr.s.complete_below_sid);
	setup_stdout();
	ctx[1] = ops->create(stdout, opts);
	if (!ctx[1]) {
		cli_err("out of memory");
		goto cleanup;
	}

	while ((r = reader__next(rd, &ev)) == 1) {
		r = join__event(j, ev);
		if (r || window_end__reached(&we, j, ev))
			break;
		if (++n % WRITE_CHECK_EVERY == 0 && ferror_unlocked(stdout)) {
			ret = write_error(errno ? -errno : -EIO);
			goto cleanup;
		}
	}
	if (!r)
		r = we.stopped ? join__finish_before(j, we.to) : join__finish(j);
	if (r < 0) {
		cli_err("cannot read trace '%s': %s", path, strerror(-r));
		goto cleanup;
	}
	/*
	 * A --device the trace has not is a bad command line, said alone:
	 * a summary view's empty output would pass for an answer. Known only
	 * now; no record passed the filter meanwhile.
	 */
	ret = parser_filters__check_device(filter, j);
	if (ret)
		goto cleanup;
	/* what the reader met ahead of the stop, a cut or damage, is past the window */
	if (we.stopped) {
		snprintf(part, sizeof(part), "the first %.3f s of this trace",
			 (double)we.stopped_at / 1e9);
		reader__forget_damage_past(rd, we.stopped_sid);
	}
	cut = !we.stopped && reader__cut(rd, &last);
	ret = end_view(dir, &sr, ops, opts, ctx[1], j, reader__records(rd), reader_error_of, rd,
		       reader__error_count(rd), cut ? &last : NULL, we.stopped ? part : NULL);
	ret2 = same_sid_report(reader__same_sid(rd));
	if (ret2 && ret != EXIT_ERROR)
		ret = ret2;
	missing_notes(&sr, ops, filter, j, we.stopped ? part : NULL);

cleanup:
	if (ctx[1])
		ops->destroy(ctx[1]);
	reader__free(rd);
	join__free(j);
	trace__free(t);
	return ret;
}

/*
 * --final-names changes the paths a view prints and the files --file
 * matches: without either it would change nothing, and --raw prints no
 * path.
 */
static int check_final_names(const struct view_ops *ops, bool raw, const char *file_glob)
{
	char list[256] = "";
	size_t i, at = 0;

	if (raw) {
		cli_err("--final-names does not go with --raw: it prints every event as recorded");
		return EXIT_USAGE;
	}
	if ((ops->join_flags & JOIN_PATHS) || file_glob)
		return EXIT_OK;
	for (i = 0; i < sizeof(views) / sizeof(views[0]) && at < sizeof(list); i++)
		if (views[i].ops->join_flags & JOIN_PATHS)
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", at ? ", " : "",
					       views[i].flag);
	cli_err("--final-names goes with the views that print paths (%s) or with --file", list);
	return EXIT_USAGE;
}

/* --interval: seconds, into ns; expected: what the error line asks for */
static int parse_time(const char *opt, const char *val, const char *expected, uint64_t *ns)
{
	unsigned long long v;
	int err = cli_parse_seconds(val, MAX_WINDOW_S, &v);

	if (err)
		return cli_bad_seconds(opt, val, err, MAX_WINDOW_S, expected);
	*ns = v;
	return EXIT_OK;
}

static int parse_number(const char *opt, const char *val, unsigned long long min,
			unsigned long long max, uint64_t *out)
{
	unsigned long long v;
	char expected[96];

	if (cli_parse_u64(val, min, max, &v)) {
		snprintf(expected, sizeof(expected), "a number from %llu to %llu", min, max);
		return cli_bad_value(opt, val, expected);
	}
	*out = v;
	return EXIT_OK;
}

int cmd_parser(int argc, char **argv)
{
	struct view_opts opts = { .format = VIEW_JSON, .bucket_size = LBA_BUCKET_DEFAULT,
				  .subrange_end = UINT64_MAX, .interval_ns = 1000000000ull };
	const char *path = NULL, *format = "json", *view_flag = NULL, *lba_opt = NULL;
	const char *line_opt = NULL;
	unsigned long long kib;
	const char *file_glob = NULL, *comm = NULL, *filter_opt = NULL, *device = NULL;
	const struct view_ops *ops = NULL;
	struct filter filter;
	uint64_t pid = 0, min_latency = 0, max_latency = UINT64_MAX, cgroup_depth = 0;
	const char *cgroup = NULL;
	struct cgroup_names names = { 0 };
	struct u64map cgroup_ids = { 0 }, rollup = { 0 };
	struct time_window window;
	bool raw = false, help = false, wall_clock = false;
	const char *series_opt = NULL, *latency_text[2] = { NULL, NULL };
	char dir[PATH_MAX];
	uint64_t seen = 0;
	int c, err, names_ret;
	size_t i;

	time_window__init(&window);
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(argc, argv, PARSER_SHORT_OPTS, parser_opts)) != -1) {
		/* Open-CAS's short forms: iotrace -P -P -p TRACE -r */
		if (c == 'P')
			c = OPT_IO;
		else if (c == 'r')
			c = OPT_RAW;
		err = cli_once(parser_opts, c, &seen, "-P");
		if (err)
			return err;
		for (i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
			if (views[i].opt != c)
				continue;
			if (ops && ops != views[i].ops) {
				cli_err("%s and %s are two views; choose one (try 'iotrace -P -H')",
					view_flag, views[i].flag);
				return EXIT_USAGE;
			}
			ops = views[i].ops;
			view_flag = views[i].flag;
			break;
		}
		if (i < sizeof(views) / sizeof(views[0]))
			continue;
		switch (c) {
		case OPT_RAW:
			raw = true;
			break;
		case 'b':
			lba_opt = "--bucket-size";
			err = parse_number("--bucket-size", optarg, 0, SUBRANGE_MAX, &opts.bucket_size);
			if (err)
				return err;
			/* 0: the default, as Open-CAS takes it */
			if (!opts.bucket_size)
				opts.bucket_size = LBA_BUCKET_DEFAULT;
			break;
		case 's':
			lba_opt = "--subrange-start";
			err = parse_number("--subrange-start", optarg, 0, SUBRANGE_MAX,
					   &opts.subrange_start);
			if (err)
				return err;
			break;
		case 'e':
			lba_opt = "--subrange-end";
			err = parse_number("--subrange-end", optarg, 0, SUBRANGE_MAX,
					   &opts.subrange_end);
			if (err)
				return err;
			/* 0: no end, as Open-CAS takes it */
			if (!opts.subrange_end)
				opts.subrange_end = UINT64_MAX;
			break;
		case OPT_FILE:
			filter_opt = "--file";
			if (!*optarg)
				return cli_bad_value("--file", optarg, "a path glob such as '/data/*'");
			file_glob = optarg;
			break;
		case OPT_PID:
			filter_opt = "--pid";
			err = parse_number("--pid", optarg, 1, PID_MAX_LIMIT, &pid);
			if (err)
				return err;
			break;
		case OPT_CGROUP:
			filter_opt = "--cgroup";
			err = parser_filters__cgroup(optarg);
			if (err)
				return err;
			cgroup = optarg;
			break;
		case OPT_DEVICE:
			filter_opt = "--device";
			err = parser_filters__device(optarg, &device);
			if (err)
				return err;
			break;
		case OPT_MIN_LATENCY:
		case OPT_MAX_LATENCY:
			filter_opt = c == OPT_MIN_LATENCY ? "--min-latency" : "--max-latency";
			latency_text[c == OPT_MAX_LATENCY] = optarg;
			err = parser_filters__latency(filter_opt, optarg, c == OPT_MIN_LATENCY ?
						      &min_latency : &max_latency);
			if (err)
				return err;
			break;
		case OPT_CGROUP_DEPTH:
			err = parse_number("--cgroup-depth", optarg, 1, CGROUP_DEPTH_MAX,
					   &cgroup_depth);
			if (err)
				return err;
			break;
		case OPT_LINE_SIZE:
			line_opt = "--cache-line-size";
			if (cli_parse_u64(optarg, 4, 64, &kib) || (kib & (kib - 1)))
				return cli_bad_value(line_opt, optarg, "4, 8, 16, 32 or 64 (KiB)");
			opts.line_sectors = kib * 2;
			break;
		case OPT_WALL_CLOCK:
			wall_clock = true;
			break;
		case OPT_FINAL_NAMES:
			final_names = true;
			break;
		case OPT_INTERVAL:
			err = parse_time("--interval", optarg, INTERVAL_EXPECTED, &opts.interval_ns);
			if (err)
				return err;
			if (!opts.interval_ns)
				return cli_bad_value("--interval", optarg, INTERVAL_EXPECTED);
			series_opt = "--interval";
			break;
		case OPT_BY:
			if (strcmp(optarg, "submission") && strcmp(optarg, "completion"))
				return cli_bad_value("--by", optarg, BY_EXPECTED);
			opts.by_completion = !strcmp(optarg, "completion");
			series_opt = "--by";
			break;
		case OPT_FROM:
		case OPT_TO:
			filter_opt = c == OPT_FROM ? "--from" : "--to";
			err = time_window__set(&window, c == OPT_FROM, optarg);
			if (err)
				return err;
			break;
		case OPT_COMM:
			filter_opt = "--comm";
			if (!*optarg)
				return cli_bad_value("--comm", optarg, "a task name such as 'fio'");
			comm = optarg;
			break;
		case 'p':
			if (!*optarg)
				return cli_bad_value("--path", optarg, "a trace such as "
						     "kernel/2026-11-21_10:00:00 or a directory");
			path = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 'H':
			help = true;
			break;
		default:
			return cli_option_error(c, argv, PARSER_SHORT_OPTS, parser_opts,
						"--trace-parser", "-P");
		}
	}
	if (optind < argc) {
		cli_err("unexpected argument '%s' (try 'iotrace -P -H')", argv[optind]);
		return EXIT_USAGE;
	}
	/* help asked for: the other options are not checked against each other */
	if (help) {
		cmd_parser_help(stdout);
		return EXIT_OK;
	}

	if (!strcmp(format, "json"))
		opts.format = VIEW_JSON;
	else if (!strcmp(format, "csv"))
		opts.format = VIEW_CSV;
	else if (!strcmp(format, "table"))
		opts.format = VIEW_TABLE;
	else
		return cli_bad_value("--format", format, "json, csv or table");
	if (!ops) {
		cli_err("missing the view to print: --io, --statistics, ... (try 'iotrace -P -H')");
		return EXIT_USAGE;
	}
	if (raw && ops != &io_view_ops) {
		cli_err("--raw goes with --io only");
		return EXIT_USAGE;
	}
	if (raw && opts.format == VIEW_TABLE) {
		cli_err("--raw prints json or csv, not table");
		return EXIT_USAGE;
	}
	if (raw && filter_opt) {
		cli_err("%s does not go with --raw: it prints every event as recorded", filter_opt);
		return EXIT_USAGE;
	}
	if (wall_clock && raw) {
		cli_err("--wall-clock does not go with --raw: it prints every event as recorded");
		return EXIT_USAGE;
	}
	if (wall_clock && ops != &io_view_ops && ops != &vfs_view_ops && ops != &series_view_ops) {
		cli_err("--wall-clock goes with the views that print times: --io, --vfs and "
			"--time-series");
		return EXIT_USAGE;
	}
	if (final_names) {
		err = check_final_names(ops, raw, file_glob);
		if (err)
			return err;
	}
	if (series_opt && ops != &series_view_ops) {
		cli_err("%s goes with --time-series only", series_opt);
		return EXIT_USAGE;
	}
	if (cgroup_depth && ops != &process_view_ops && ops != &pattern_view_ops) {
		cli_err("--cgroup-depth goes with --process-statistics and --access-pattern");
		return EXIT_USAGE;
	}
	if (line_opt && ops != &hit_ratio_view_ops) {
		cli_err("%s goes with --hit-ratio-curve only", line_opt);
		return EXIT_USAGE;
	}
	if (lba_opt && ops != &lba_hist_ops) {
		cli_err("%s goes with --lba-histogram only", lba_opt);
		return EXIT_USAGE;
	}
	if (min_latency > max_latency) {
		cli_err("--min-latency %s is past --max-latency %s", latency_text[0],
			latency_text[1]);
		return EXIT_USAGE;
	}
	if (opts.subrange_start > opts.subrange_end) {
		cli_err("--subrange-start %llu is past --subrange-end %llu",
			(unsigned long long)opts.subrange_start,
			(unsigned long long)opts.subrange_end);
		return EXIT_USAGE;
	}
	/* a time of day is checked once the trace says when it began */
	if (!window.wall) {
		err = time_window__check(&window);
		if (err)
			return err;
	}
	if (!path) {
		cli_err("missing --path (try 'iotrace -P -H')");
		return EXIT_USAGE;
	}

	err = store__resolve(path, dir, sizeof(dir));
	if (err)
		return open_error(path, err);
	if (raw)
		return print_raw(path, dir, opts.format == VIEW_CSV ? RAW_CSV : RAW_JSON);
	filter__init(&filter, file_glob, (uint32_t)pid, comm);
	/* a view that names no cgroup need not read them, nor say the file is damaged */
	names_ret = ops->cgroup_paths || cgroup ? load_cgroup_names(dir, &names) : EXIT_OK;
	err = names_ret == EXIT_PARTIAL ? EXIT_OK : names_ret;
	if (!err && cgroup) {
		err = parser_filters__cgroup_ids(cgroup, &names, "/proc/self/mounts", &cgroup_ids);
		filter__set_cgroups(&filter, &cgroup_ids);
	}
	if (!err && cgroup_depth)
		err = cgroup_rollup(&names, (unsigned int)cgroup_depth, &rollup);
	if (err)
		goto out;
	opts.cgroups = &names;
	opts.cgroup_rollup = cgroup_depth ? &rollup : NULL;
	filter__set_device(&filter, device);
	if (latency_text[0] || latency_text[1])
		filter__set_latency(&filter, min_latency, max_latency);
	if (window.wall || wall_clock) {
		uint64_t duration_s;
		int64_t origin;

		/* one read of the summary serves both */
		err = time_window__times(path, dir, window.wall ? "--from/--to as a time of day" :
					 "--wall-clock", &origin, &duration_s);
		if (!err)
			err = time_window__resolve(&window, origin, duration_s);
		if (err)
			goto out;
		if (wall_clock)
			opts.wall_origin_ns = origin;
	}
	filter__set_window(&filter, window.from_ns, window.to_ns);
	opts.filtered = filter__active(&filter);
	err = print_view(path, dir, ops, &opts, &filter);
	if (err == EXIT_OK)
		err = names_ret;
out:
	cgroup_names__free(&names);
	u64map__free(&cgroup_ids);
	u64map__free(&rollup);
	return err;
}
