// SPDX-License-Identifier: BSD-3-Clause
/*
 * --io: one record per I/O (and per file event) as OCTF's ParsedEvent in
 * the protobuf JSON mapping, which is what Open-CAS iotrace prints:
 *
 *   header {sid, timestamp}
 *   io     {lba, len, operation, error, latency, qd, writeHint,
 *           flags {flush, fua, metadata, direct, readahead}}
 *   device {id, name, partition, model}
 *   file   {id, offset, size, creationDate, path, eventType}
 *
 * in field-number order, 64-bit integers as strings, enums by name, the
 * creation date as RFC 3339, every field printed even when it is 0 (OCTF
 * prints defaults too; LBA 0 is an LBA). header.sid is the sid of the
 * trace event (OCTF renumbers its output 1, 2, ...; the trace's own number
 * finds the event in --raw), header.timestamp is relative to the first
 * event. A record without a file has no "file"; a file event has no "io".
 *
 * What our traces add, printed only when the trace has it: io.queueTime
 * and io.deviceTime (ns) for dispatched I/Os; io.vfsCallId (the vfs.id
 * of the call the I/O was queued in, see --vfs) and process {pid, tid,
 * comm, cgroup} (named as --vfs names them) when not 0 or empty; flags
 * sync, requestOnly and writeZeroes when set. io.flags.direct is OCTF's,
 * set by our traces. An I/O that never completed has error true and no
 * latency.
 *
 * CSV has one column per dotted path, OCTF's first, ours after, always
 * the same columns in the same order; empty cells where a record has no
 * value. The table is for people: fixed columns, one line per record.
 */
#define _GNU_SOURCE	/* ferror_unlocked */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "date_fmt.h"
#include "file_names.h"
#include "rec_out.h"

struct io_view {
	struct rec_out o;
	struct date_fmt date;
};

static const char *const csv_columns[] = {
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
#define NCOLS (sizeof(csv_columns) / sizeof(csv_columns[0]))

static const char *op_name(int32_t op)
{
	switch (op) {
	case OCTF__PROTO__TRACE__IO_TYPE__UnknownIoType:
		return "UnknownIoType";
	case OCTF__PROTO__TRACE__IO_TYPE__Read:
		return "Read";
	case OCTF__PROTO__TRACE__IO_TYPE__Write:
		return "Write";
	case OCTF__PROTO__TRACE__IO_TYPE__Discard:
		return "Discard";
	default:
		return NULL;
	}
}

static const char *fs_event_name(int32_t e)
{
	switch (e) {
	case OCTF__PROTO__TRACE__FS_EVENT_TYPE__Access:
		return "Access";
	case OCTF__PROTO__TRACE__FS_EVENT_TYPE__Create:
		return "Create";
	case OCTF__PROTO__TRACE__FS_EVENT_TYPE__Delete:
		return "Delete";
	case OCTF__PROTO__TRACE__FS_EVENT_TYPE__MoveTo:
		return "MoveTo";
	case OCTF__PROTO__TRACE__FS_EVENT_TYPE__MoveFrom:
		return "MoveFrom";
	default:
		return NULL;
	}
}

static void *io_view_create(FILE *out, const struct view_opts *o)
{
	struct io_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	if (rec_out__init(&v->o, out, o->format)) {
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

/* ---- JSON ---- */

static void json_enum(struct json_writer *jw, const char *name, int32_t value)
{
	/* a value newer than our schema: the JSON mapping prints the number */
	if (name)
		jw__string(jw, name);
	else
		jw__int(jw, value);
}

static void json_io(struct json_writer *jw, const struct io_rec *r)
{
	jw__key(jw, "io");
	jw__start_object(jw);
	jw__key(jw, "lba");
	jw__uint_str(jw, r->lba);
	jw__key(jw, "len");
	jw__uint(jw, r->len);
	jw__key(jw, "operation");
	json_enum(jw, op_name(r->op), r->op);
	jw__key(jw, "error");
	jw__bool(jw, r->error);
	if (r->state == IO_COMPLETED) {
		jw__key(jw, "latency");
		jw__uint_str(jw, r->latency);
	}
	jw__key(jw, "qd");
	jw__uint_str(jw, r->qd);
	jw__key(jw, "writeHint");
	jw__uint(jw, r->write_hint);
	jw__key(jw, "flags");
	jw__start_object(jw);
	jw__key(jw, "flush");
	jw__bool(jw, r->flags & IOF_FLUSH);
	jw__key(jw, "fua");
	jw__bool(jw, r->flags & IOF_FUA);
	jw__key(jw, "metadata");
	jw__bool(jw, r->flags & IOF_META);
	jw__key(jw, "direct");
	jw__bool(jw, r->flags & IOF_DIRECT);
	jw__key(jw, "readahead");
	jw__bool(jw, r->flags & IOF_READAHEAD);
	if (r->flags & IOF_SYNC) {
		jw__key(jw, "sync");
		jw__bool(jw, true);
	}
	if (r->flags & IOF_REQUEST_ONLY) {
		jw__key(jw, "requestOnly");
		jw__bool(jw, true);
	}
	if (r->flags & IOF_WRITE_ZEROES) {
		jw__key(jw, "writeZeroes");
		jw__bool(jw, true);
	}
	jw__end_object(jw);
	if (r->dispatched) {
		jw__key(jw, "queueTime");
		jw__uint_str(jw, r->queue_time);
		if (r->state == IO_COMPLETED) {
			jw__key(jw, "deviceTime");
			jw__uint_str(jw, r->device_time);
		}
	}
	if (r->vfs_call) {
		jw__key(jw, "vfsCallId");
		jw__uint_str(jw, r->vfs_call);
	}
	jw__end_object(jw);
	rec_out__json_process(jw, r->pid, r->tid, r->comm, r->cgroup);
}

static void json_record(struct io_view *v, const struct io_rec *r)
{
	struct json_writer *jw = v->o.jw;

	jw__start_object(jw);
	rec_out__json_header(jw, r->sid, r->time);
	if (r->kind == REC_IO)
		json_io(jw, r);
	jw__key(jw, "device");
	jw__start_object(jw);
	jw__key(jw, "id");
	jw__uint_str(jw, r->dev->id);
	jw__key(jw, "name");
	jw__string(jw, r->dev->name);
	jw__key(jw, "partition");
	jw__uint_str(jw, r->part);
	jw__key(jw, "model");
	jw__string(jw, r->dev->model);
	jw__end_object(jw);
	if (r->file) {
		const struct file_id *id = file_node__id(r->file);

		jw__key(jw, "file");
		jw__start_object(jw);
		jw__key(jw, "id");
		jw__uint_str(jw, id->ino);
		jw__key(jw, "offset");
		jw__uint_str(jw, r->file_offset);
		jw__key(jw, "size");
		jw__uint_str(jw, r->file_size);
		jw__key(jw, "creationDate");
		jw__string(jw, date_fmt(&v->date, id->sec, id->nsec));
		jw__key(jw, "path");
		jw__string_len(jw, r->path ? r->path : "", r->path_len);
		jw__key(jw, "eventType");
		json_enum(jw, fs_event_name(r->fs_event), r->fs_event);
		jw__end_object(jw);
	}
	jw__end_object(jw);
	jw__newline(jw);
}

/* ---- CSV ---- */

/* ten of a row's fields: no scan for quotes, a constant-size copy */
static void csv_bool(struct csv_writer *cw, bool b)
{
	if (b)
		csv__plain(cw, "true", 4);
	else
		csv__plain(cw, "false", 5);
}

static void csv_enum(struct csv_writer *cw, const char *name, int32_t value)
{
	if (name)
		csv__string(cw, name);
	else
		csv__int(cw, value);
}

static void csv_record(struct io_view *v, const struct io_rec *r)
{
	struct csv_writer *cw = v->o.cw;
	bool io = r->kind == REC_IO;
	unsigned int i;

	if (!v->o.header_done)
		rec_out__csv_header(&v->o, csv_columns, NCOLS);
	csv__uint(cw, r->sid);
	csv__uint(cw, r->time);
	if (io) {
		csv__uint(cw, r->lba);
		csv__uint(cw, r->len);
		csv_enum(cw, op_name(r->op), r->op);
		csv_bool(cw, r->error);
		if (r->state == IO_COMPLETED)
			csv__uint(cw, r->latency);
		else
			csv__empty(cw);
		csv__uint(cw, r->qd);
		csv__uint(cw, r->write_hint);
		csv_bool(cw, r->flags & IOF_FLUSH);
		csv_bool(cw, r->flags & IOF_FUA);
		csv_bool(cw, r->flags & IOF_META);
		csv_bool(cw, r->flags & IOF_DIRECT);
		csv_bool(cw, r->flags & IOF_READAHEAD);
	} else {
		for (i = 0; i < 12; i++)
			csv__empty(cw);
	}
	csv__uint(cw, r->dev->id);
	csv__string(cw, r->dev->name);
	csv__uint(cw, r->part);
	csv__string(cw, r->dev->model);
	if (r->file) {
		const struct file_id *id = file_node__id(r->file);

		csv__uint(cw, id->ino);
		csv__uint(cw, r->file_offset);
		csv__uint(cw, r->file_size);
		csv__string(cw, date_fmt(&v->date, id->sec, id->nsec));
		csv__string(cw, r->path ? r->path : "");
		csv_enum(cw, fs_event_name(r->fs_event), r->fs_event);
	} else {
		for (i = 0; i < 6; i++)
			csv__empty(cw);
	}
	if (io && r->dispatched)
		csv__uint(cw, r->queue_time);
	else
		csv__empty(cw);
	if (io && r->dispatched && r->state == IO_COMPLETED)
		csv__uint(cw, r->device_time);
	else
		csv__empty(cw);
	if (io && r->pid)
		csv__uint(cw, r->pid);
	else
		csv__empty(cw);
	if (io && r->tid)
		csv__uint(cw, r->tid);
	else
		csv__empty(cw);
	csv__string(cw, io ? r->comm : "");
	if (io && r->cgroup)
		csv__uint(cw, r->cgroup);
	else
		csv__empty(cw);
	if (io) {
		csv_bool(cw, r->flags & IOF_SYNC);
		csv_bool(cw, r->flags & IOF_REQUEST_ONLY);
		csv_bool(cw, r->flags & IOF_WRITE_ZEROES);
	} else {
		for (i = 0; i < 3; i++)
			csv__empty(cw);
	}
	if (io && r->vfs_call)
		csv__uint(cw, r->vfs_call);
	else
		csv__empty(cw);
	csv__end_row(cw);
}

/* ---- table ---- */

/* blkparse's RWBS: F (preflush), the operation, F (FUA), A, S, M; E for an error. */
static void rwbs(const struct io_rec *r, char *s)
{
	size_t n = 0;

	if (r->flags & IOF_FLUSH)
		s[n++] = 'F';
	switch (r->op) {
	case OCTF__PROTO__TRACE__IO_TYPE__Read:
		s[n++] = 'R';
		break;
	case OCTF__PROTO__TRACE__IO_TYPE__Write:
		s[n++] = r->len || !(r->flags & IOF_FLUSH) ? 'W' : 'N';
		break;
	case OCTF__PROTO__TRACE__IO_TYPE__Discard:
		s[n++] = 'D';
		break;
	default:
		s[n++] = '?';
	}
	if (r->flags & IOF_FUA)
		s[n++] = 'F';
	if (r->flags & IOF_READAHEAD)
		s[n++] = 'A';
	if (r->flags & IOF_SYNC)
		s[n++] = 'S';
	if (r->flags & IOF_META)
		s[n++] = 'M';
	if (r->error)
		s[n++] = 'E';
	s[n] = '\0';
}

static void table_record(struct io_view *v, const struct io_rec *r)
{
	char op[16], lat[32], qd[16], lba[24], len[16], pid[16];
	const char *name = r->dev->name[0] ? r->dev->name : "?";

	if (!v->o.header_done) {
		fprintf(v->o.out, "%-14s %-15s %7s %-10s %-8s %12s %7s %5s %12s  %s\n", "TIME(s)",
			"COMM", "PID", "DEVICE", "OP", "LBA", "SECTORS", "QD", "LAT(us)", "FILE");
		v->o.header_done = true;
	}
	lba[0] = len[0] = qd[0] = lat[0] = '\0';
	snprintf(pid, sizeof(pid), "%s", "-");
	if (r->kind == REC_IO) {
		rwbs(r, op);
		snprintf(lba, sizeof(lba), "%llu", (unsigned long long)r->lba);
		snprintf(len, sizeof(len), "%u", r->len);
		snprintf(qd, sizeof(qd), "%u", r->qd);
		if (r->state == IO_COMPLETED)
			snprintf(lat, sizeof(lat), "%.3f", (double)r->latency / 1e3);
		else
			snprintf(lat, sizeof(lat), "-");
		if (r->pid)
			snprintf(pid, sizeof(pid), "%u", r->pid);
	} else {
		const char *e = fs_event_name(r->fs_event);

		snprintf(op, sizeof(op), "%s", e ? e : "?");
	}
	fprintf(v->o.out, "%-14.6f %-15.15s %7s %-10s %-8s %12s %7s %5s %12s", (double)r->time / 1e9,
		r->kind == REC_IO && r->comm[0] ? r->comm : "-", pid, name, op, lba, len, qd, lat);
	if (r->file)
		fprintf(v->o.out, "  %s", r->path ? r->path : "?");
	fputc('\n', v->o.out);
}

static void io_view_record(void *p, const struct io_rec *r)
{
	struct io_view *v = p;

	if (v->o.fmt == VIEW_JSON)
		json_record(v, r);
	else if (v->o.fmt == VIEW_CSV)
		csv_record(v, r);
	else
		table_record(v, r);
}

static int io_view_finish(void *p, const struct join *j)
{
	struct io_view *v = p;

	return rec_out__finish(&v->o, csv_columns, NCOLS);
}

static void io_view_destroy(void *p)
{
	struct io_view *v = p;

	if (!v)
		return;
	rec_out__free(&v->o);
	free(v);
}

const struct view_ops io_view_ops = {
	.name = "io",
	.join_flags = JOIN_FILES | JOIN_PATHS,
	.create = io_view_create,
	.record = io_view_record,
	.finish = io_view_finish,
	.destroy = io_view_destroy,
};
