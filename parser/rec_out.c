// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>

#include "rec_out.h"

int rec_out__init(struct rec_out *o, FILE *out, enum view_format fmt)
{
	o->out = out;
	o->fmt = fmt;
	o->jw = NULL;
	o->cw = NULL;
	o->header_done = false;
	if (fmt == VIEW_JSON)
		o->jw = jw__new(out, false);
	else if (fmt == VIEW_CSV)
		o->cw = csv__new(out);
	if ((fmt == VIEW_JSON && !o->jw) || (fmt == VIEW_CSV && !o->cw))
		return -ENOMEM;
	return 0;
}

void rec_out__free(struct rec_out *o)
{
	jw__free(o->jw);
	csv__free(o->cw);
	o->jw = NULL;
	o->cw = NULL;
}

void rec_out__csv_header(struct rec_out *o, const char *const *cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		csv__string(o->cw, cols[i]);
	csv__end_row(o->cw);
	o->header_done = true;
}

int rec_out__finish(struct rec_out *o, const char *const *cols, size_t n)
{
	if (!o->header_done && o->fmt == VIEW_CSV)
		rec_out__csv_header(o, cols, n);
	return view__flush(o->out);
}

void rec_out__json_header(struct json_writer *jw, uint64_t sid, uint64_t time)
{
	jw__key(jw, "header");
	jw__start_object(jw);
	jw__key(jw, "sid");
	jw__uint_str(jw, sid);
	jw__key(jw, "timestamp");
	jw__uint_str(jw, time);
	jw__end_object(jw);
}

void rec_out__json_process(struct json_writer *jw, uint32_t pid, uint32_t tid,
			   const char *comm, uint64_t cgroup)
{
	if (!pid && !tid && !comm[0] && !cgroup)
		return;
	jw__key(jw, "process");
	jw__start_object(jw);
	if (pid) {
		jw__key(jw, "pid");
		jw__uint(jw, pid);
	}
	if (tid) {
		jw__key(jw, "tid");
		jw__uint(jw, tid);
	}
	if (comm[0]) {
		jw__key(jw, "comm");
		jw__string(jw, comm);
	}
	if (cgroup) {
		jw__key(jw, "cgroup");
		jw__uint_str(jw, cgroup);
	}
	jw__end_object(jw);
}
