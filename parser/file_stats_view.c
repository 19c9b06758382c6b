// SPDX-License-Identifier: BSD-3-Clause
/*
 * --file-statistics: per file, what was done to it - the per-file report
 * HPC I/O tools (Darshan's POSIX module) give, from the kernel's side:
 *
 * - vfs: per kind of call (open, close, read, write, seek, sync, mmap,
 *   other; vfs_call.h) the count, errors, bytes read or written, the size
 *   asked for (min, average, max) and the duration (min, average, max and
 *   percentiles by count);
 * - block: per operation (read, write, discard, flush) the I/Os that
 *   filesystemMeta attributes to the file: count, errors, notCompleted,
 *   bytes, size and latency.
 *
 * All sizes in bytes, times in ns (op_acc.h). A file is its path on its
 * file system (FileId.partitionId): a file deleted and created again under
 * the same name is one entry, as in a per-path report; a file the trace
 * never names is one entry per FileId, with its inode number and path "".
 * Files are sorted by path, then partition; unnamed files last.
 *
 * JSON: {"files": [{file {path, partition[, id]}, device {id, name},
 * vfs {op: {...}}, block {op: {...}}}]}, the operations that happened
 * only. CSV: one row per file and operation that happened, the file's
 * columns then op_acc.h's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "file_names.h"
#include "io_stats.h"
#include "keymap.h"
#include "op_acc.h"
#include "view.h"

struct file_entry {
	struct op_totals t;	/* first: op_totals__free_entry */
	uint64_t part;
	const struct device *dev;	/* the last one known */
	struct file_id id;		/* of an unnamed file */
	bool named;
	char path[];
};

struct file_view {
	FILE *out;
	bool filtered;		/* view_opts.filtered */
	enum view_format fmt;
	struct keymap files;
	bool oom;
};

static void *file_create(FILE *out, const struct view_opts *o)
{
	struct file_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->filtered = o->filtered;
	v->fmt = o->format;
	return v;
}

/* The entry of a file seen with this path (NULL: unknown); NULL on ENOMEM. */
static struct file_entry *entry(struct file_view *v, const struct file_node *f, const char *path,
				size_t path_len)
{
	const struct file_id *id = file_node__id(f);
	unsigned char key[1 + sizeof(*id) + FILE_PATH_MAX];
	struct keymap_item *it;
	struct file_entry *e;
	size_t klen;

	if (path_len > FILE_PATH_MAX)
		path_len = FILE_PATH_MAX;
	memcpy(key + 1, &id->part, sizeof(id->part));
	if (path) {
		key[0] = 'p';
		memcpy(key + 1 + sizeof(id->part), path, path_len);
		klen = 1 + sizeof(id->part) + path_len;
	} else {
		/* field by field: no padding bytes in the key */
		key[0] = 'i';
		memcpy(key + 9, &id->ino, 8);
		memcpy(key + 17, &id->sec, 8);
		memcpy(key + 25, &id->nsec, 4);
		klen = 29;
	}
	it = keymap__get(&v->files, key, klen);
	if (!it)
		return NULL;
	if (it->value)
		return it->value;
	e = calloc(1, sizeof(*e) + (path ? path_len : 0) + 1);
	if (!e)
		return NULL;
	e->part = id->part;
	e->named = path != NULL;
	e->id = *id;
	if (path)
		memcpy(e->path, path, path_len);
	it->value = e;
	return e;
}

static void file_record(void *p, const struct io_rec *r)
{
	struct file_view *v = p;
	struct file_entry *e;

	if (r->kind != REC_IO || !r->file || io_stats__group(r) >= BLOCK_OPS)
		return;
	e = entry(v, r->file, r->path, r->path_len);
	if (!e || op_totals__add_io(&e->t, r)) {
		v->oom = true;
		return;
	}
	e->dev = r->dev;
}

static void file_vfs(void *p, const struct vfs_rec *r)
{
	struct file_view *v = p;
	struct vfs_side sides[2];
	unsigned int n = vfs_rec__sides(r, sides), i;

	for (i = 0; i < n; i++) {
		struct file_entry *e;

		if (!sides[i].file)
			continue;
		e = entry(v, sides[i].file, sides[i].path, sides[i].path_len);
		if (!e || op_totals__add_vfs(&e->t, sides[i].op, r)) {
			v->oom = true;
			return;
		}
		/* deviceId is the file system of the call (of its input, for a copy) */
		if (r->dev && file_node__id(sides[i].file)->part == r->part)
			e->dev = r->dev;
	}
}

static int by_path(const void *a, const void *b)
{
	const struct file_entry *x = (*(const struct keymap_item *const *)a)->value;
	const struct file_entry *y = (*(const struct keymap_item *const *)b)->value;
	int c;

	if (x->named != y->named)
		return x->named ? -1 : 1;
	if (x->named) {
		c = strcmp(x->path, y->path);
		if (c)
			return c;
	}
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	if (x->id.ino != y->id.ino)
		return x->id.ino < y->id.ino ? -1 : 1;
	if (x->id.sec != y->id.sec)
		return x->id.sec < y->id.sec ? -1 : 1;
	return x->id.nsec < y->id.nsec ? -1 : x->id.nsec > y->id.nsec;
}

/* ---- JSON ---- */

static void write_json(struct file_view *v)
{
	struct json_writer *jw = jw__new(v->out, true);
	size_t i;

	if (!jw) {
		v->oom = true;
		return;
	}
	jw__start_object(jw);
	jw__key(jw, "files");
	jw__start_array(jw);
	for (i = 0; i < v->files.count; i++) {
		const struct file_entry *e = v->files.items[i]->value;

		jw__start_object(jw);
		jw__key(jw, "file");
		jw__start_object(jw);
		jw__key(jw, "path");
		jw__string(jw, e->path);
		jw__key(jw, "partition");
		jw__uint_str(jw, e->part);
		if (!e->named) {
			jw__key(jw, "id");
			jw__uint_str(jw, e->id.ino);
		}
		jw__end_object(jw);
		jw__key(jw, "device");
		jw__start_object(jw);
		jw__key(jw, "id");
		jw__uint_str(jw, e->dev ? e->dev->id : e->part);
		jw__key(jw, "name");
		jw__string(jw, e->dev ? e->dev->name : "");
		jw__end_object(jw);
		op_totals__json(jw, &e->t);
		jw__end_object(jw);
	}
	jw__end_array(jw);
	jw__end_object(jw);
	jw__newline(jw);
	jw__free(jw);
}

/* ---- CSV ---- */

static void csv_file_cells(struct csv_writer *cw, void *ctx)
{
	const struct file_entry *e = ctx;

	csv__string(cw, e->path);
	csv__uint(cw, e->part);
	if (e->named)
		csv__empty(cw);
	else
		csv__uint(cw, e->id.ino);
	csv__uint(cw, e->dev ? e->dev->id : e->part);
	csv__string(cw, e->dev ? e->dev->name : "");
}

static void write_csv(struct file_view *v)
{
	static const char *const head[] = { "file.path", "file.partition", "file.id", "device.id",
					    "device.name" };
	struct csv_writer *cw = csv__new(v->out);
	size_t i;

	if (!cw) {
		v->oom = true;
		return;
	}
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		csv__string(cw, head[i]);
	op_totals__csv_header(cw);
	for (i = 0; i < v->files.count; i++)
		op_totals__csv_rows(cw, &((struct file_entry *)v->files.items[i]->value)->t,
				    csv_file_cells, v->files.items[i]->value);
	csv__free(cw);
}

/* ---- table ---- */

static void cell_p99(struct table *t, const struct op_acc *a)
{
	op_totals__cell_ns(t, a->time, a->time ? (double)dist__percentile(a->time, 99) : 0);
}

static int write_table(struct file_view *v)
{
	static const char *const head[] = { "device", "file", "opens", "reads", "read", "rd avg", "rd p99",
					    "writes", "written", "wr avg", "wr p99", "seeks",
					    "syncs", "blk read", "blk written" };
	unsigned int ncols = sizeof(head) / sizeof(head[0]), c;
	struct table *t;
	size_t i;
	int err;

	if (!v->files.count) {
		view__none(v->out, "file", v->filtered);
		return 0;
	}
	t = table__new(ncols);
	if (!t)
		return -ENOMEM;
	table__align_left(t, 1, true);
	for (c = 0; c < ncols; c++)
		table__cell(t, "%s", head[c]);
	table__end_row(t);
	for (i = 0; i < v->files.count; i++) {
		const struct file_entry *e = v->files.items[i]->value;
		const struct op_acc *rd = op_totals__vfs(&e->t, VOP_READ),
				    *wr = op_totals__vfs(&e->t, VOP_WRITE);

		view__device_cell(t, e->dev, e->part);
		if (e->named)
			table__cell(t, "%s", e->path[0] ? e->path : "?");
		else
			table__cell(t, "? (inode %llu)", (unsigned long long)e->id.ino);
		op_totals__cell_count(t, op_totals__vfs(&e->t, VOP_OPEN)->count);
		op_totals__cell_count(t, rd->count);
		op_totals__cell_bytes(t, rd->bytes);
		op_totals__cell_ns(t, rd->time, rd->time ? dist__avg(rd->time) : 0);
		cell_p99(t, rd);
		op_totals__cell_count(t, wr->count);
		op_totals__cell_bytes(t, wr->bytes);
		op_totals__cell_ns(t, wr->time, wr->time ? dist__avg(wr->time) : 0);
		cell_p99(t, wr);
		op_totals__cell_count(t, op_totals__vfs(&e->t, VOP_SEEK)->count);
		op_totals__cell_count(t, op_totals__vfs(&e->t, VOP_SYNC)->count);
		op_totals__cell_bytes(t, op_totals__block(&e->t, GRP_READ)->bytes);
		op_totals__cell_bytes(t, op_totals__block(&e->t, GRP_WRITE)->bytes);
		table__end_row(t);
	}
	err = table__print(t, v->out, 0);
	table__free(t);
	return err;
}

static int file_finish(void *p, const struct join *j)
{
	struct file_view *v = p;
	int err = 0;

	(void)j;
	keymap__sort(&v->files, by_path);
	if (v->fmt == VIEW_JSON)
		write_json(v);
	else if (v->fmt == VIEW_CSV)
		write_csv(v);
	else
		err = write_table(v);
	if (v->oom || err)
		return -ENOMEM;
	return view__flush(v->out);
}

static void file_destroy(void *p)
{
	struct file_view *v = p;

	if (!v)
		return;
	keymap__free(&v->files, op_totals__free_entry);
	free(v);
}

const struct view_ops file_stats_view_ops = {
	.name = "file-statistics",
	.join_flags = JOIN_FILES | JOIN_PATHS | JOIN_VFS,
	.create = file_create,
	.record = file_record,
	.vfs = file_vfs,
	.finish = file_finish,
	.destroy = file_destroy,
};
