// SPDX-License-Identifier: BSD-3-Clause
/*
 * --vfs: one record per system call or io_uring request on a traced
 * file (EventVfs), in trace (sid) order, which is the order calls
 * returned in:
 *
 *   header  {sid, timestamp}           timestamp: the call's end, relative
 *                                      to the trace's first event
 *   vfs     {id, call, start, duration, fd, offset, size, result, error,
 *            flags, created, fd2, offset2, uringOpcode}
 *   process {pid, tid, comm, cgroup}
 *   device  {id, name, partition}
 *   file    {id, creationDate, path}
 *   file2   {id, partition, creationDate, path}
 *
 * In the style of --io: 64-bit integers as strings, the call by name
 * ("pread64", "io_uring:read_fixed"; its number if this parser does not
 * know it). start is relative like timestamp and may be negative: the
 * call began before the first event. offset -1 means "at the file
 * position". error (the errno's name, or its number) only when result is
 * negative; created only for open calls; fd2, offset2 and file2 (the
 * output side) only for copy_file_range, sendfile and splice;
 * uringOpcode only for io_uring requests; process fields only when not 0
 * or empty; file only when the call names one. device is the file
 * system's: partition is its dev_t, id and name the device the trace
 * describes for it (id = partition when none).
 *
 * CSV: one column per dotted path, always the same, empty cells where a
 * record has no value. The table is for people, one line per call.
 */
#define _GNU_SOURCE	/* ferror_unlocked */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "date_fmt.h"
#include "file_names.h"
#include "rec_out.h"
#include "vfs_call.h"

struct vfs_view {
	struct rec_out o;
	struct date_fmt date;
};

static const char *const csv_columns[] = {
	"header.sid", "header.timestamp",
	"vfs.id", "vfs.call", "vfs.start", "vfs.duration", "vfs.fd", "vfs.offset", "vfs.size",
	"vfs.result", "vfs.error", "vfs.flags", "vfs.created", "vfs.fd2", "vfs.offset2",
	"vfs.uringOpcode",
	"process.pid", "process.tid", "process.comm", "process.cgroup",
	"device.id", "device.name", "device.partition",
	"file.id", "file.creationDate", "file.path",
	"file2.id", "file2.partition", "file2.creationDate", "file2.path",
};
#define NCOLS (sizeof(csv_columns) / sizeof(csv_columns[0]))

static void *vfs_view_create(FILE *out, const struct view_opts *o)
{
	struct vfs_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	if (rec_out__init(&v->o, out, o->format)) {
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

/* errno of a failed call: its name, or its number as text */
static const char *error_text(const struct vfs_rec *r, char *buf, size_t len)
{
	const char *name = errno_name(-r->result);

	if (name)
		return name;
	snprintf(buf, len, "%lld", (long long)-r->result);
	return buf;
}

static const char *file_date(struct vfs_view *v, const struct file_node *f)
{
	const struct file_id *id = file_node__id(f);

	return date_fmt(&v->date, id->sec, id->nsec);
}

/* ---- JSON ---- */

static void json_file(struct vfs_view *v, const char *key, const struct file_node *f,
		      const char *path, size_t path_len, bool partition)
{
	struct json_writer *jw = v->o.jw;

	jw__name(jw, key);
	jw__start_object(jw);
	jw__key(jw, "id");
	jw__uint_str(jw, file_node__id(f)->ino);
	if (partition) {
		jw__key(jw, "partition");
		jw__uint_str(jw, file_node__id(f)->part);
	}
	jw__key(jw, "creationDate");
	jw__string(jw, file_date(v, f));
	jw__key(jw, "path");
	jw__string_len(jw, path ? path : "", path ? path_len : 0);
	jw__end_object(jw);
}

static void json_vfs(struct json_writer *jw, const struct vfs_rec *r)
{
	const char *name = vfs_call__name(r->call, r->uring_op);
	char buf[24];

	jw__key(jw, "vfs");
	jw__start_object(jw);
	jw__key(jw, "id");
	jw__uint_str(jw, r->id);
	jw__key(jw, "call");
	if (name)
		jw__string(jw, name);
	else
		jw__int(jw, r->call);
	jw__key(jw, "start");
	jw__int_str(jw, r->start);
	jw__key(jw, "duration");
	jw__uint_str(jw, r->duration);
	jw__key(jw, "fd");
	jw__int(jw, r->fd);
	jw__key(jw, "offset");
	jw__int_str(jw, r->offset);
	jw__key(jw, "size");
	jw__uint_str(jw, r->size);
	jw__key(jw, "result");
	jw__int_str(jw, r->result);
	if (r->result < 0) {
		jw__key(jw, "error");
		jw__string(jw, error_text(r, buf, sizeof(buf)));
	}
	jw__key(jw, "flags");
	jw__uint(jw, r->flags);
	if (vfs_call__opens(r->call)) {
		jw__key(jw, "created");
		jw__bool(jw, r->created);
	}
	if (vfs_call__has_output(r->call)) {
		jw__key(jw, "fd2");
		jw__int(jw, r->fd2);
		jw__key(jw, "offset2");
		jw__int_str(jw, r->offset2);
	}
	if (vfs_call__is_uring(r->call)) {
		jw__key(jw, "uringOpcode");
		jw__uint(jw, r->uring_op);
	}
	jw__end_object(jw);
}

static void json_record(struct vfs_view *v, const struct vfs_rec *r)
{
	struct json_writer *jw = v->o.jw;

	jw__start_object(jw);
	rec_out__json_header(jw, r->sid, r->time);
	json_vfs(jw, r);
	rec_out__json_process(jw, r->pid, r->tid, r->comm, r->cgroup);
	jw__key(jw, "device");
	jw__start_object(jw);
	jw__key(jw, "id");
	jw__uint_str(jw, r->dev ? r->dev->id : r->part);
	jw__key(jw, "name");
	jw__string(jw, r->dev ? r->dev->name : "");
	jw__key(jw, "partition");
	jw__uint_str(jw, r->part);
	jw__end_object(jw);
	if (r->file)
		json_file(v, "file", r->file, r->path, r->path_len, false);
	if (r->file2 && vfs_call__has_output(r->call))
		json_file(v, "file2", r->file2, r->path2, r->path2_len, true);
	jw__end_object(jw);
	jw__newline(jw);
}

/* ---- CSV ---- */

static void csv_file(struct vfs_view *v, const struct file_node *f, const char *path,
		     bool partition)
{
	struct csv_writer *cw = v->o.cw;

	if (!f) {
		csv__empty(cw);
		if (partition)
			csv__empty(cw);
		csv__empty(cw);
		csv__empty(cw);
		return;
	}
	csv__uint(cw, file_node__id(f)->ino);
	if (partition)
		csv__uint(cw, file_node__id(f)->part);
	csv__string(cw, file_date(v, f));
	csv__string(cw, path ? path : "");
}

static void csv_uint_if(struct csv_writer *cw, bool present, uint64_t v)
{
	if (present)
		csv__uint(cw, v);
	else
		csv__empty(cw);
}

static void csv_record(struct vfs_view *v, const struct vfs_rec *r)
{
	const char *name = vfs_call__name(r->call, r->uring_op);
	bool out = vfs_call__has_output(r->call);
	struct csv_writer *cw = v->o.cw;
	char buf[24];

	if (!v->o.header_done)
		rec_out__csv_header(&v->o, csv_columns, NCOLS);
	csv__uint(cw, r->sid);
	csv__uint(cw, r->time);
	csv__uint(cw, r->id);
	if (name)
		csv__string(cw, name);
	else
		csv__int(cw, r->call);
	csv__int(cw, r->start);
	csv__uint(cw, r->duration);
	csv__int(cw, r->fd);
	csv__int(cw, r->offset);
	csv__uint(cw, r->size);
	csv__int(cw, r->result);
	csv__string(cw, r->result < 0 ? error_text(r, buf, sizeof(buf)) : "");
	csv__uint(cw, r->flags);
	if (vfs_call__opens(r->call))
		csv__string(cw, r->created ? "true" : "false");
	else
		csv__empty(cw);
	if (out) {
		csv__int(cw, r->fd2);
		csv__int(cw, r->offset2);
	} else {
		csv__empty(cw);
		csv__empty(cw);
	}
	csv_uint_if(cw, vfs_call__is_uring(r->call), r->uring_op);
	csv_uint_if(cw, r->pid, r->pid);
	csv_uint_if(cw, r->tid, r->tid);
	csv__string(cw, r->comm);
	csv_uint_if(cw, r->cgroup, r->cgroup);
	csv__uint(cw, r->dev ? r->dev->id : r->part);
	csv__string(cw, r->dev ? r->dev->name : "");
	csv__uint(cw, r->part);
	csv_file(v, r->file, r->path, false);
	csv_file(v, out ? r->file2 : NULL, r->path2, true);
	csv__end_row(cw);
}

/* ---- table ---- */

static void table_record(struct vfs_view *v, const struct vfs_rec *r)
{
	const char *name = vfs_call__name(r->call, r->uring_op);
	char call[24], pid[16], off[24], res[24];

	if (!v->o.header_done) {
		fprintf(v->o.out, "%-14s %-15s %7s %-20s %5s %12s %10s %12s %12s  %s\n", "START(s)",
			"COMM", "PID", "CALL", "FD", "OFFSET", "SIZE", "RESULT", "DUR(us)", "FILE");
		v->o.header_done = true;
	}
	if (name)
		snprintf(call, sizeof(call), "%s", name);
	else
		snprintf(call, sizeof(call), "%d", (int)r->call);
	if (r->pid)
		snprintf(pid, sizeof(pid), "%u", r->pid);
	else
		snprintf(pid, sizeof(pid), "-");
	if (r->offset == -1)
		snprintf(off, sizeof(off), "-");
	else
		snprintf(off, sizeof(off), "%lld", (long long)r->offset);
	if (r->result < 0 && errno_name(-r->result))
		snprintf(res, sizeof(res), "%s", errno_name(-r->result));
	else
		snprintf(res, sizeof(res), "%lld", (long long)r->result);
	fprintf(v->o.out, "%-14.6f %-15.15s %7s %-20s %5d %12s %10llu %12s %12.3f", (double)r->start / 1e9,
		r->comm[0] ? r->comm : "-", pid, call, (int)r->fd, off,
		(unsigned long long)r->size, res, (double)r->duration / 1e3);
	if (r->file)
		fprintf(v->o.out, "  %s", r->path ? r->path : "?");
	if (r->file2 && vfs_call__has_output(r->call))
		fprintf(v->o.out, "%s%s", r->file ? " -> " : "  -> ", r->path2 ? r->path2 : "?");
	fputc('\n', v->o.out);
}

static void vfs_view_vfs(void *p, const struct vfs_rec *r)
{
	struct vfs_view *v = p;

	if (v->o.fmt == VIEW_JSON)
		json_record(v, r);
	else if (v->o.fmt == VIEW_CSV)
		csv_record(v, r);
	else
		table_record(v, r);
}

static void vfs_view_record(void *p, const struct io_rec *r)
{
	(void)p;
	(void)r;
}

static int vfs_view_finish(void *p, const struct join *j)
{
	struct vfs_view *v = p;

	(void)j;
	return rec_out__finish(&v->o, csv_columns, NCOLS);
}

static void vfs_view_destroy(void *p)
{
	struct vfs_view *v = p;

	if (!v)
		return;
	rec_out__free(&v->o);
	free(v);
}

const struct view_ops vfs_view_ops = {
	.name = "vfs",
	.join_flags = JOIN_FILES | JOIN_PATHS | JOIN_VFS,
	.create = vfs_view_create,
	.record = vfs_view_record,
	.vfs = vfs_view_vfs,
	.finish = vfs_view_finish,
	.destroy = vfs_view_destroy,
};
