/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The output of the views that write each record as it comes (--io,
 * --vfs): the writer of the format, the CSV header written once, and the
 * parts of a record the two print alike (header, process).
 */
#ifndef IOTRACE_REC_OUT_H
#define IOTRACE_REC_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csv_writer.h"
#include "json_writer.h"
#include "view.h"

struct rec_out {
	FILE *out;
	enum view_format fmt;
	struct json_writer *jw;	/* VIEW_JSON only */
	struct csv_writer *cw;	/* VIEW_CSV only */
	bool header_done;
	bool wall;		/* --wall-clock: the CSV header ends with header.wallClock */
	/*
	 * the trace's cgroup paths, NULL if it names none: the CSV has
	 * process.cgroupPath before header.wallClock only then, as a trace
	 * without (Open-CAS's) has only ids
	 */
	const struct cgroup_names *cgroups;
};

/* 0 or -ENOMEM, with nothing to free; wall and cgroups from opts. */
int rec_out__init(struct rec_out *o, FILE *out, const struct view_opts *opts);
void rec_out__free(struct rec_out *o);

/*
 * The CSV header row (and process.cgroupPath if cgroups, header.wallClock
 * if wall); header_done after it.
 */
void rec_out__csv_header(struct rec_out *o, const char *const *cols, size_t n);

/* The view's finish: 0 or -errno (view__flush); a CSV without records still has its header. */
int rec_out__finish(struct rec_out *o, const char *const *cols, size_t n);

/*
 * Written with line_out.h: the record's opening brace and "header"
 * {sid, timestamp, and wallClock if wall is not NULL}; then ',"process"'
 * {pid, tid, comm, cgroup, cgroupPath}, the fields not 0, empty or NULL,
 * nothing if none is.
 */
struct line;
void rec_out__line_header(struct line *l, uint64_t sid, uint64_t time, const char *wall);
void rec_out__line_process(struct line *l, uint32_t pid, uint32_t tid, const char *comm,
			   uint64_t cgroup, const char *cgroup_path);

#endif
