// SPDX-License-Identifier: BSD-3-Clause
/*
 * An --io record as OCTF's ParsedEvent in the protobuf JSON mapping
 * (io_view.c). Each piece of fixed text between two strings from the
 * trace stays well under LINE_ROOM: the longest, from "header" through
 * "creationDate" with the device's cached name and model (at most
 * DEV_TEXT_MAX each), is some 1,100 bytes with 20-digit numbers.
 */
#define _GNU_SOURCE	/* fwrite_unlocked (outbuf.h) */
#include <string.h>

#include "file_names.h"
#include "cgroup_names.h"
#include "io_text.h"
#include "json_writer.h"
#include "line_out.h"
#include "rec_out.h"

static void json_io(struct line *l, const struct io_rec *r)
{
	line_lit(l, ",\"io\":{\"lba\":");
	line_u64_str(l, r->lba);
	line_lit(l, ",\"len\":");
	line_u64(l, r->len);
	line_lit(l, ",\"operation\":");
	line_name_json(l, io_text__op_name(r->op), r->op);
	line_lit(l, ",\"error\":");
	line_bool(l, r->error);
	if (r->state == IO_COMPLETED) {
		line_lit(l, ",\"latency\":");
		line_u64_str(l, r->latency);
	}
	line_lit(l, ",\"qd\":");
	line_u64_str(l, r->qd);
	line_lit(l, ",\"writeHint\":");
	line_u64(l, r->write_hint);
	line_lit(l, ",\"flags\":{\"flush\":");
	line_bool(l, r->flags & IOF_FLUSH);
	line_lit(l, ",\"fua\":");
	line_bool(l, r->flags & IOF_FUA);
	line_lit(l, ",\"metadata\":");
	line_bool(l, r->flags & IOF_META);
	line_lit(l, ",\"direct\":");
	line_bool(l, r->flags & IOF_DIRECT);
	line_lit(l, ",\"readahead\":");
	line_bool(l, r->flags & IOF_READAHEAD);
	if (r->flags & IOF_SYNC)
		line_lit(l, ",\"sync\":true");
	if (r->flags & IOF_REQUEST_ONLY)
		line_lit(l, ",\"requestOnly\":true");
	if (r->flags & IOF_WRITE_ZEROES)
		line_lit(l, ",\"writeZeroes\":true");
	line_lit(l, "}");
	if (r->dispatched) {
		line_lit(l, ",\"queueTime\":");
		line_u64_str(l, r->queue_time);
		if (r->state == IO_COMPLETED) {
			line_lit(l, ",\"deviceTime\":");
			line_u64_str(l, r->device_time);
		}
	}
	if (r->vfs_call) {
		line_lit(l, ",\"vfsCallId\":");
		line_u64_str(l, r->vfs_call);
	}
	line_lit(l, "}");
}

void io_text__json(struct io_text *x, struct outbuf *o, const struct io_rec *r)
{
	struct dev_text *t = &x->dev;
	struct line l;

	line_begin(&l, o);
	rec_out__line_header(&l, r->sid, r->time, x->wall_origin ?
			     wall_fmt(&x->wall, wall_clock__at(x->wall_origin, r->time)) : NULL);
	if (r->kind == REC_IO) {
		json_io(&l, r);
		rec_out__line_process(&l, r->pid, r->tid, r->comm, r->cgroup,
				      cgroup_names__path(x->cgroups, r->cgroup));
	}
	io_text__dev(t, r->dev, VIEW_JSON);
	line_lit(&l, ",\"device\":{\"id\":");
	line_u64_str(&l, r->dev->id);
	line_lit(&l, ",\"name\":");
	if (t->plain)
		line_plain(&l, t->name_t, t->name_len);
	else
		line_json_string(&l, r->dev->name, strlen(r->dev->name));
	line_lit(&l, ",\"partition\":");
	line_u64_str(&l, r->part);
	line_lit(&l, ",\"model\":");
	if (t->plain)
		line_plain(&l, t->model_t, t->model_len);
	else
		line_json_string(&l, r->dev->model, strlen(r->dev->model));
	line_lit(&l, "}");
	if (r->file) {
		const struct file_id *id = file_node__id(r->file);
		const char *date = date_fmt(&x->date, id->sec, id->nsec);

		line_lit(&l, ",\"file\":{\"id\":");
		line_u64_str(&l, id->ino);
		line_lit(&l, ",\"offset\":");
		line_u64_str(&l, r->file_offset);
		line_lit(&l, ",\"size\":");
		line_u64_str(&l, r->file_size);
		line_lit(&l, ",\"creationDate\":\"");
		/* RFC 3339: plain text, at most DATE_FMT_MAX */
		line_plain(&l, date, strlen(date));
		line_lit(&l, "\"");
		line_lit(&l, ",\"path\":");
		line_json_string(&l, r->path ? r->path : "", r->path ? r->path_len : 0);
		line_lit(&l, ",\"eventType\":");
		line_name_json(&l, io_text__fs_event_name(r->fs_event), r->fs_event);
		line_lit(&l, "}");
	}
	line_lit(&l, "}\n");
	line_end(&l);
}
