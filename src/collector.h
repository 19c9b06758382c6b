/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The collector: loads and attaches the BPF programs for a set of devices,
 * drains the per-CPU buffers into per-CPU trace streams, and keeps the
 * trace's summary current. Returns negative errno and never prints; the
 * message for a failure is left in the collector (collector__error).
 */
#ifndef IOTRACE_COLLECTOR_H
#define IOTRACE_COLLECTOR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "trace_filters.h"
#include "summary.h"

struct collector_config {
	const struct device_info *devs;
	size_t ndevs;
	uint64_t time_s;	/* 0 = until stopped */
	uint64_t size_mib;	/* 0 = no limit */
	uint64_t buffer_mib;	/* all CPUs' rings together: ring_plan.h */
	const char *label;
	/* the options given, as the summary's tags.options keeps them (summary.h) */
	const char *options;
	/* --vfs: trace system calls on files of the traced devices */
	bool vfs;
	/* --dispatch: also record each request's dispatch to the driver */
	bool dispatch;
	/*
	 * --no-file-events: no syscall program at all (file events, renamed
	 * files' names), so that no system call on the node pays for tracing
	 */
	bool no_file_events;
	/* --pids, --comm, --cgroup: which tasks' calls are traced (empty = all) */
	struct trace_filters filters;
	/* --paths: comma-separated globs on the full path (NULL = all) */
	const char *paths;
	/*
	 * --compress zstd (true, the default): octf.trace.<cpu>.zst, delta
	 * records in zstd frames of compress_level; --compress none:
	 * octf.trace.<cpu>, raw OCTF as Open-CAS writes it
	 */
	bool compress;
	int compress_level;
};

struct collector;

/*
 * Opens and loads the BPF programs configured for cfg->devs. Nothing is
 * attached and nothing is written yet, so a failure here leaves no trace
 * behind. cfg must outlive the collector.
 */
int collector__open(struct collector **c, const struct collector_config *cfg);

/*
 * Traces into the (existing, empty) trace directory dir until *stop is
 * set, or a limit or a write error ends it. Fills *s with the final
 * summary, which is also written to dir. Once stopped, it waits (at most
 * a few seconds) for the completions of the I/Os in the trace; a change of
 * *stop meanwhile (a second signal) ends that wait. Returns 0 or -errno
 * (-ENOSPC: the disk filled; what was written before is intact).
 */
int collector__run(struct collector *c, const char *dir, const char *rel,
		   volatile sig_atomic_t *stop, struct summary *s);

/*
 * Whether collector__run() got as far as tracing (the programs attached,
 * the first summary written): a failure before that leaves a trace
 * without a single event, which the caller removes.
 */
bool collector__started(const struct collector *c);

/* A one-line description of the last failure ("" if none). */
const char *collector__error(const struct collector *c);

/*
 * After collector__open(): what the trace will lack although it started,
 * in one line, or "" (this kernel or node cannot watch renames, so files
 * renamed while tracing keep their old names).
 */
const char *collector__warning(const struct collector *c);

/*
 * After collector__run(): the longest gap between two reads of all the
 * rings (their ends, waits for records included) in which events were
 * lost, and the longest a write of the trace (records or summary) took,
 * in ns. A short gap says the rings are too small for the rate; a long
 * one with a write about as long, a collector held up by the disk; with
 * short writes, one held up for CPU time.
 */
void collector__stalls(const struct collector *c, uint64_t *lossy_gap_ns, uint64_t *write_ns);

/*
 * After collector__run(): the programs whose runs the kernel skipped
 * (summary skipped_runs), with their counts: "handle_rq_complete 3".
 */
const char *collector__skipped_programs(const struct collector *c);

void collector__free(struct collector *c);

#endif
