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
 * comm, cgroup, cgroupPath} (named as --vfs names them) when not 0 or
 * empty, cgroupPath where the trace names the cgroup (CSV: a last column
 * process.cgroupPath, in a trace that names any); flags
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

#include "io_text.h"
#include "rec_out.h"
#include "table_writer.h"

struct io_view {
	struct rec_out o;
	struct io_text text;
};

static void *io_view_create(FILE *out, const struct view_opts *o)
{
	struct io_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	if (rec_out__init(&v->o, out, o)) {
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	v->text.wall_origin = o->wall_origin_ns;
	v->text.cgroups = v->o.cgroups;
	wall_fmt__init(&v->text.wall, o->format == VIEW_TABLE);
	return v;
}

/* ---- table ---- */

_Static_assert(EVENT_COMM_MAX <= TABLE_PAD_MAX, "a process name fits table__put_padded()");

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
		/* a local time of day is 15 wide, seconds 14 */
		fprintf(v->o.out, "%-*s %-15s %7s %-10s %-8s %12s %7s %5s %12s  %s\n",
			v->o.wall ? 15 : 14, v->o.wall ? "TIME" : "TIME(s)", "COMM", "PID", "DEVICE",
			"OP", "LBA", "SECTORS", "QD", "LAT(us)", "FILE");
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
		const char *e = io_text__fs_event_name(r->fs_event);

		snprintf(op, sizeof(op), "%s", e ? e : "?");
	}
	if (v->o.wall)
		fprintf(v->o.out, "%-15s ",
			wall_fmt(&v->text.wall, wall_clock__at(v->text.wall_origin, r->time)));
	else
		fprintf(v->o.out, "%-14.6f ", (double)r->time / 1e9);
	table__put_padded(v->o.out, r->kind == REC_IO && r->comm[0] ? r->comm : "-", 15);
	fprintf(v->o.out, " %7s %-10s %-8s %12s %7s %5s %12s", pid, name, op, lba, len, qd, lat);
	if (r->file) {
		fputs("  ", v->o.out);
		table__put_printable(v->o.out, r->path ? r->path : "?");
	}
	fputc('\n', v->o.out);
}

static void io_view_record(void *p, const struct io_rec *r)
{
	struct io_view *v = p;

	if (v->o.fmt == VIEW_JSON) {
		io_text__json(&v->text, jw__outbuf(v->o.jw), r);
	} else if (v->o.fmt == VIEW_CSV) {
		if (!v->o.header_done)
			rec_out__csv_header(&v->o, io_text__csv_columns, io_text__csv_ncols);
		io_text__csv(&v->text, csv__outbuf(v->o.cw), r);
	} else
		table_record(v, r);
}

static int io_view_finish(void *p, const struct join *j)
{
	struct io_view *v = p;

	return rec_out__finish(&v->o, io_text__csv_columns, io_text__csv_ncols);
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
	.cgroup_paths = true,
	.create = io_view_create,
	.record = io_view_record,
	.finish = io_view_finish,
	.destroy = io_view_destroy,
};
