// SPDX-License-Identifier: BSD-3-Clause
/*
 * An --io record as a CSV row: one column per dotted path of the JSON
 * record, OCTF's first, ours after, always the same columns in the same
 * order, empty cells where a record has no value. The longest fixed text
 * between two strings from the trace (or the device's cached name and
 * model, at most DEV_TEXT_MAX each) is some 600 bytes, under LINE_ROOM.
 */
#define _GNU_SOURCE	/* fwrite_unlocked (outbuf.h) */
#include <string.h>

#include "cgroup_names.h"
#include "csv_writer.h"
#include "file_names.h"
#include "io_text.h"
#include "line_out.h"

const char *const io_text__csv_columns[] = {
	"header.sid", "header.timestamp",
	"io.lba", "io.len", "io.operation", "io.error", "io.latency", "io.qd", "io.writeHint",
	"io.flags.flush", "io.flags.fua", "io.flags.metadata", "io.flags.direct",
	"io.flags.readahead",
	"device.id", "device.name", "device.partition", "device.model",
	"file.id", "file.offset", "file.size", "file.creationDate", "file.path", "file.eventType",
	/* ours */
	"io.queueTime", "io.deviceTime", "process.pid", "process.tid", "process.comm",
	"process.cgroup",
	"io.flags.sync", "io.flags.requestOnly", "io.flags.writeZeroes", "io.vfsCallId",
};
const size_t io_text__csv_ncols = sizeof(io_text__csv_columns) / sizeof(io_text__csv_columns[0]);

void io_text__csv(struct io_text *x, struct outbuf *o, const struct io_rec *r)
{
	struct dev_text *t = &x->dev;
	bool io = r->kind == REC_IO;
	struct line l;

	io_text__dev(t, r->dev, VIEW_CSV);
	line_begin(&l, o);
	line_u64(&l, r->sid);
	line_lit(&l, ",");
	line_u64(&l, r->time);
	line_lit(&l, ",");
	if (io) {
		line_u64(&l, r->lba);
		line_lit(&l, ",");
		line_u64(&l, r->len);
		line_lit(&l, ",");
		line_name_csv(&l, io_text__op_name(r->op), r->op);
		line_lit(&l, ",");
		line_bool(&l, r->error);
		line_lit(&l, ",");
		line_cell_u64(&l, r->state == IO_COMPLETED, r->latency);
		line_u64(&l, r->qd);
		line_lit(&l, ",");
		line_u64(&l, r->write_hint);
		line_lit(&l, ",");
		line_bool(&l, r->flags & IOF_FLUSH);
		line_lit(&l, ",");
		line_bool(&l, r->flags & IOF_FUA);
		line_lit(&l, ",");
		line_bool(&l, r->flags & IOF_META);
		line_lit(&l, ",");
		line_bool(&l, r->flags & IOF_DIRECT);
		line_lit(&l, ",");
		line_bool(&l, r->flags & IOF_READAHEAD);
		line_lit(&l, ",");
	} else {
		line_lit(&l, ",,,,,,,,,,,,");
	}
	line_u64(&l, r->dev->id);
	line_lit(&l, ",");
	if (t->plain)
		line_plain(&l, t->name_t, t->name_len);
	else
		line_csv_string(&l, r->dev->name, strlen(r->dev->name));
	line_lit(&l, ",");
	line_u64(&l, r->part);
	line_lit(&l, ",");
	if (t->plain)
		line_plain(&l, t->model_t, t->model_len);
	else
		line_csv_string(&l, r->dev->model, strlen(r->dev->model));
	line_lit(&l, ",");
	if (r->file) {
		const struct file_id *id = file_node__id(r->file);
		const char *date = date_fmt(&x->date, id->sec, id->nsec);

		line_u64(&l, id->ino);
		line_lit(&l, ",");
		line_u64(&l, r->file_offset);
		line_lit(&l, ",");
		line_u64(&l, r->file_size);
		line_lit(&l, ",");
		/* RFC 3339: plain text, at most DATE_FMT_MAX */
		line_plain(&l, date, strlen(date));
		line_lit(&l, ",");
		/* the path up to its first NUL, as csv__string() wrote it */
		if (r->path)
			line_csv_string(&l, r->path, strnlen(r->path, r->path_len));
		line_lit(&l, ",");
		line_name_csv(&l, io_text__fs_event_name(r->fs_event), r->fs_event);
		line_lit(&l, ",");
	} else {
		line_lit(&l, ",,,,,,");
	}
	line_cell_u64(&l, io && r->dispatched, r->queue_time);
	line_cell_u64(&l, io && r->dispatched && r->state == IO_COMPLETED, r->device_time);
	line_cell_u64(&l, io && r->pid, r->pid);
	line_cell_u64(&l, io && r->tid, r->tid);
	if (io && r->comm[0])
		line_csv_string(&l, r->comm, strlen(r->comm));
	line_lit(&l, ",");
	line_cell_u64(&l, io && r->cgroup, r->cgroup);
	if (io) {
		line_bool(&l, r->flags & IOF_SYNC);
		line_lit(&l, ",");
		line_bool(&l, r->flags & IOF_REQUEST_ONLY);
		line_lit(&l, ",");
		line_bool(&l, r->flags & IOF_WRITE_ZEROES);
		line_lit(&l, ",");
	} else {
		line_lit(&l, ",,,");
	}
	if (io && r->vfs_call)
		line_u64(&l, r->vfs_call);
	if (x->cgroups) {
		const char *path = io ? cgroup_names__path(x->cgroups, r->cgroup) : NULL;

		line_lit(&l, ",");
		if (path)
			line_csv_string(&l, path, strlen(path));
	}
	if (x->wall_origin) {
		const char *wall = wall_fmt(&x->wall, wall_clock__at(x->wall_origin, r->time));

		line_lit(&l, ",");
		line_plain(&l, wall, strlen(wall));
	}
	line_lit(&l, "\n");
	line_end(&l);
}
