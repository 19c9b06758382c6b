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
 *   process {pid, tid, comm, cgroup, cgroupPath}
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
 * or empty, cgroupPath where the trace names the cgroup; file only when
 * the call names one. device is the file
 * system's: partition is its dev_t, id and name the device the trace
 * describes for it (id = partition when none).
 *
 * CSV: one column per dotted path, always the same, empty cells where a
 * record has no value; process.cgroupPath last in a trace that names its
 * cgroups (before header.wallClock). The table is for people, one line
 * per call.
 */
#define _GNU_SOURCE	/* ferror_unlocked; fwrite_unlocked (outbuf.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_names.h"
#include "date_fmt.h"
#include "file_names.h"
#include "line_out.h"
#include "rec_out.h"
#include "wall_clock.h"
#include "table_writer.h"
#include "vfs_call.h"

struct vfs_view {
	struct rec_out o;
	struct date_fmt date;
	/* --wall-clock: view_opts.wall_origin_ns (0 = not asked), and its text */
	int64_t wall_origin;
	struct wall_fmt wall;
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
	if (rec_out__init(&v->o, out, o)) {
		free(v);
		errno = ENOMEM;
		return NULL;
	}
	v->wall_origin = o->wall_origin_ns;
	wall_fmt__init(&v->wall, o->format == VIEW_TABLE);
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

/*
 * JSON and CSV are written with line_out.h: each piece of fixed text
 * between two strings from the trace (or from the start) is under 600
 * bytes, far from LINE_ROOM.
 */

/* ,"KEY":{...}, KEY a literal */
#define json_file(v, l, key, f, path, path_len, partition) \
	do {                                                     \
		line_lit(l, ",\"" key "\":{\"id\":");               \
		json_file_rest(v, l, f, path, path_len, partition); \
	} while (0)

static void json_file_rest(struct vfs_view *v, struct line *l, const struct file_node *f,
			   const char *path, size_t path_len, bool partition)
{
	const char *date = file_date(v, f);

	line_u64_str(l, file_node__id(f)->ino);
	if (partition) {
		line_lit(l, ",\"partition\":");
		line_u64_str(l, file_node__id(f)->part);
	}
	line_lit(l, ",\"creationDate\":\"");
	/* RFC 3339: plain text, at most DATE_FMT_MAX */
	line_plain(l, date, strlen(date));
	line_lit(l, "\",\"path\":");
	line_json_string(l, path ? path : "", path ? path_len : 0);
	line_lit(l, "}");
}

static void json_vfs(struct line *l, const struct vfs_rec *r)
{
	char buf[24];

	line_lit(l, ",\"vfs\":{\"id\":");
	line_u64_str(l, r->id);
	line_lit(l, ",\"call\":");
	line_name_json(l, vfs_call__name(r->call, r->uring_op), r->call);
	line_lit(l, ",\"start\":");
	line_i64_str(l, r->start);
	line_lit(l, ",\"duration\":");
	line_u64_str(l, r->duration);
	line_lit(l, ",\"fd\":");
	line_i64(l, r->fd);
	line_lit(l, ",\"offset\":");
	line_i64_str(l, r->offset);
	line_lit(l, ",\"size\":");
	line_u64_str(l, r->size);
	line_lit(l, ",\"result\":");
	line_i64_str(l, r->result);
	if (r->result < 0) {
		line_lit(l, ",\"error\":");
		line_name_json(l, error_text(r, buf, sizeof(buf)), 0);
	}
	line_lit(l, ",\"flags\":");
	line_u64(l, r->flags);
	if (vfs_call__opens(r->call, r->uring_op)) {
		line_lit(l, ",\"created\":");
		line_bool(l, r->created);
	}
	if (vfs_call__has_output(r->call)) {
		line_lit(l, ",\"fd2\":");
		line_i64(l, r->fd2);
		line_lit(l, ",\"offset2\":");
		line_i64_str(l, r->offset2);
	}
	if (vfs_call__is_uring(r->call)) {
		line_lit(l, ",\"uringOpcode\":");
		line_u64(l, r->uring_op);
	}
	line_lit(l, "}");
}

static void json_record(struct vfs_view *v, const struct vfs_rec *r)
{
	const char *name = r->dev ? r->dev->name : "";
	struct line l;

	line_begin(&l, jw__outbuf(v->o.jw));
	rec_out__line_header(&l, r->sid, r->time, v->o.wall ?
			     wall_fmt(&v->wall, wall_clock__at(v->wall_origin, r->time)) : NULL);
	json_vfs(&l, r);
	rec_out__line_process(&l, r->pid, r->tid, r->comm, r->cgroup,
			      cgroup_names__path(v->o.cgroups, r->cgroup));
	line_lit(&l, ",\"device\":{\"id\":");
	line_u64_str(&l, r->dev ? r->dev->id : r->part);
	line_lit(&l, ",\"name\":");
	line_json_string(&l, name, strlen(name));
	line_lit(&l, ",\"partition\":");
	line_u64_str(&l, r->part);
	line_lit(&l, "}");
	if (r->file)
		json_file(v, &l, "file", r->file, r->path, r->path_len, false);
	if (r->file2 && vfs_call__has_output(r->call))
		json_file(v, &l, "file2", r->file2, r->path2, r->path2_len, true);
	line_lit(&l, "}\n");
	line_end(&l);
}

/* ---- CSV ---- */

/* file's columns, then the comma: id, [partition,] creationDate, path */
static void csv_file(struct vfs_view *v, struct line *l, const struct file_node *f,
		     const char *path, bool partition)
{
	const char *date;

	if (!f) {
		if (partition)
			line_lit(l, ",");
		line_lit(l, ",,,");
		return;
	}
	date = file_date(v, f);
	line_u64(l, file_node__id(f)->ino);
	line_lit(l, ",");
	if (partition) {
		line_u64(l, file_node__id(f)->part);
		line_lit(l, ",");
	}
	line_plain(l, date, strlen(date));
	line_lit(l, ",");
	if (path)
		line_csv_string(l, path, strlen(path));
	line_lit(l, ",");
}

static void csv_record(struct vfs_view *v, const struct vfs_rec *r)
{
	const char *name = vfs_call__name(r->call, r->uring_op);
	const char *dev_name = r->dev ? r->dev->name : "";
	bool out = vfs_call__has_output(r->call);
	struct line l;
	char buf[24];

	if (!v->o.header_done)
		rec_out__csv_header(&v->o, csv_columns, NCOLS);
	line_begin(&l, csv__outbuf(v->o.cw));
	line_u64(&l, r->sid);
	line_lit(&l, ",");
	line_u64(&l, r->time);
	line_lit(&l, ",");
	line_u64(&l, r->id);
	line_lit(&l, ",");
	line_name_csv(&l, name, r->call);
	line_lit(&l, ",");
	line_i64(&l, r->start);
	line_lit(&l, ",");
	line_u64(&l, r->duration);
	line_lit(&l, ",");
	line_i64(&l, r->fd);
	line_lit(&l, ",");
	line_i64(&l, r->offset);
	line_lit(&l, ",");
	line_u64(&l, r->size);
	line_lit(&l, ",");
	line_i64(&l, r->result);
	line_lit(&l, ",");
	if (r->result < 0) {
		const char *e = error_text(r, buf, sizeof(buf));

		line_plain(&l, e, strlen(e));
	}
	line_lit(&l, ",");
	line_u64(&l, r->flags);
	line_lit(&l, ",");
	if (vfs_call__opens(r->call, r->uring_op))
		line_bool(&l, r->created);
	line_lit(&l, ",");
	if (out) {
		line_i64(&l, r->fd2);
		line_lit(&l, ",");
		line_i64(&l, r->offset2);
		line_lit(&l, ",");
	} else {
		line_lit(&l, ",,");
	}
	line_cell_u64(&l, vfs_call__is_uring(r->call), r->uring_op);
	line_cell_u64(&l, r->pid, r->pid);
	line_cell_u64(&l, r->tid, r->tid);
	line_csv_string(&l, r->comm, strlen(r->comm));
	line_lit(&l, ",");
	line_cell_u64(&l, r->cgroup, r->cgroup);
	line_u64(&l, r->dev ? r->dev->id : r->part);
	line_lit(&l, ",");
	line_csv_string(&l, dev_name, strlen(dev_name));
	line_lit(&l, ",");
	line_u64(&l, r->part);
	line_lit(&l, ",");
	csv_file(v, &l, r->file, r->path, false);
	csv_file(v, &l, out ? r->file2 : NULL, r->path2, true);
	if (v->o.cgroups) {
		const char *path = cgroup_names__path(v->o.cgroups, r->cgroup);

		if (path)
			line_csv_string(&l, path, strlen(path));
		line_lit(&l, ",");
	}
	if (v->o.wall) {
		const char *wall = wall_fmt(&v->wall, wall_clock__at(v->wall_origin, r->time));

		line_plain(&l, wall, strlen(wall));
		line_lit(&l, ",");
	}
	/* the last cell's comma becomes the end of the row */
	l.p[-1] = '\n';
	line_end(&l);
}

/* ---- table ---- */

_Static_assert(EVENT_COMM_MAX <= TABLE_PAD_MAX, "a process name fits table__put_padded()");

static void table_record(struct vfs_view *v, const struct vfs_rec *r)
{
	const char *name = vfs_call__name(r->call, r->uring_op);
	char call[24], pid[16], off[24], res[24];

	if (!v->o.header_done) {
		/* a local time of day is 15 wide, seconds 14 */
		fprintf(v->o.out, "%-*s %-15s %7s %-20s %5s %12s %10s %12s %12s  %s\n",
			v->o.wall ? 15 : 14, v->o.wall ? "START" : "START(s)", "COMM", "PID", "CALL",
			"FD", "OFFSET", "SIZE", "RESULT", "DUR(us)", "FILE");
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
	if (v->o.wall)
		fprintf(v->o.out, "%-15s ",
			wall_fmt(&v->wall, wall_clock__at(v->wall_origin, (uint64_t)r->start)));
	else
		fprintf(v->o.out, "%-14.6f ", (double)r->start / 1e9);
	table__put_padded(v->o.out, r->comm[0] ? r->comm : "-", 15);
	fprintf(v->o.out, " %7s %-20s %5d %12s %10llu %12s %12.3f", pid, call, (int)r->fd, off,
		(unsigned long long)r->size, res, (double)r->duration / 1e3);
	if (r->file) {
		fputs("  ", v->o.out);
		table__put_printable(v->o.out, r->path ? r->path : "?");
	}
	if (r->file2 && vfs_call__has_output(r->call)) {
		fputs(r->file ? " -> " : "  -> ", v->o.out);
		table__put_printable(v->o.out, r->path2 ? r->path2 : "?");
	}
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
	.cgroup_paths = true,
	.create = vfs_view_create,
	.record = vfs_view_record,
	.vfs = vfs_view_vfs,
	.finish = vfs_view_finish,
	.destroy = vfs_view_destroy,
};
