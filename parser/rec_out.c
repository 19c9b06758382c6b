// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE	/* fwrite_unlocked (outbuf.h) */
#include <errno.h>
#include <string.h>

#include "line_out.h"
#include "rec_out.h"

int rec_out__init(struct rec_out *o, FILE *out, const struct view_opts *opts)
{
	enum view_format fmt = opts->format;

	o->out = out;
	o->fmt = fmt;
	o->jw = NULL;
	o->cw = NULL;
	o->header_done = false;
	o->wall = opts->wall_origin_ns != 0;
	o->cgroups = view__cgroups_named(opts->cgroups) ? opts->cgroups : NULL;
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
	if (o->cgroups)
		csv__string(o->cw, "process.cgroupPath");
	if (o->wall)
		csv__string(o->cw, "header.wallClock");
	csv__end_row(o->cw);
	o->header_done = true;
}

int rec_out__finish(struct rec_out *o, const char *const *cols, size_t n)
{
	if (!o->header_done && o->fmt == VIEW_CSV)
		rec_out__csv_header(o, cols, n);
	/* records written with line_out.h wait in the writer's buffer until it fills */
	if (o->jw)
		outbuf_flush(jw__outbuf(o->jw));
	if (o->cw)
		outbuf_flush(csv__outbuf(o->cw));
	return view__flush(o->out);
}

void rec_out__line_header(struct line *l, uint64_t sid, uint64_t time, const char *wall)
{
	line_lit(l, "{\"header\":{\"sid\":");
	line_u64_str(l, sid);
	line_lit(l, ",\"timestamp\":");
	line_u64_str(l, time);
	if (wall) {
		/* RFC 3339: plain text, at most WALL_FMT_MAX */
		line_lit(l, ",\"wallClock\":\"");
		line_plain(l, wall, strlen(wall));
		line_lit(l, "\"");
	}
	line_lit(l, "}");
}

void rec_out__line_process(struct line *l, uint32_t pid, uint32_t tid, const char *comm,
			   uint64_t cgroup, const char *cgroup_path)
{
	char sep = '{';

	if (!pid && !tid && !comm[0] && !cgroup)
		return;
	line_lit(l, ",\"process\":");
	if (pid) {
		line_lit(l, "{\"pid\":");
		line_u64(l, pid);
		sep = ',';
	}
	if (tid) {
		*l->p++ = sep;
		line_lit(l, "\"tid\":");
		line_u64(l, tid);
		sep = ',';
	}
	if (comm[0]) {
		*l->p++ = sep;
		line_lit(l, "\"comm\":");
		line_json_string(l, comm, strlen(comm));
		sep = ',';
	}
	if (cgroup) {
		*l->p++ = sep;
		line_lit(l, "\"cgroup\":");
		line_u64_str(l, cgroup);
	}
	if (cgroup_path) {
		line_lit(l, ",\"cgroupPath\":");
		line_json_string(l, cgroup_path, strlen(cgroup_path));
	}
	line_lit(l, "}");
}
