// SPDX-License-Identifier: BSD-3-Clause
/*
 * --access-pattern: the pattern of the reads and writes, as the devices
 * saw it (pattern.h): how many were sequential, how long the sequential
 * runs were, how many were not in whole 4 KiB units. Grouped three ways,
 * to find who and what makes a pattern: by device, by process (pid and
 * comm, the task that submitted: writeback shows as the flusher), and by
 * file (the I/Os filesystemMeta gives a file the trace names, by path).
 * Sequential is judged on the device, in submission order, so an I/O
 * counts the same in each of its groups; with a filter, among the
 * records it keeps.
 *
 * Per group and operation (read, write): count, bytes, sequential (I/Os
 * continuing a stream), runs (count - sequential: the stretches of
 * sequential I/O, so bytes / runs is a run's average length), unaligned.
 * Groups are sorted by the bytes they moved, most first; ties by device,
 * pid and comm, or path.
 *
 * JSON: {"devices": [{device {id, name}, read {...}, write {...}}],
 * "processes": [{pid, comm, read, write}], "files": [{file {path,
 * partition}, device {id, name}, read, write}]}, the operations that
 * happened only, their counts as strings (64-bit, as OCTF's JSON). CSV:
 * one row per group and operation, a "group" column saying which
 * grouping. Table: the shares in percent and a run's average length.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "file_names.h"
#include "io_stats.h"
#include "keymap.h"
#include "op_acc.h"
#include "pattern.h"
#include "view.h"

enum group_kind { BY_DEVICE, BY_PROCESS, BY_FILE, KINDS };
enum pat_op { PAT_READ, PAT_WRITE, PAT_OPS };

static const char *const kind_name[KINDS] = { "device", "process", "file" };
static const char *const kind_json[KINDS] = { "devices", "processes", "files" };
static const char *const kind_title[KINDS] = { "by device", "by process", "by file" };
static const char *const op_name[PAT_OPS] = { "read", "write" };

struct pat_counts {
	uint64_t count, bytes, sequential, unaligned;
};

struct group {
	struct pat_counts op[PAT_OPS];
	enum group_kind kind;
	const struct device *dev;	/* a device's; a file's, the last one known */
	uint64_t part;			/* a file's partition */
	uint32_t pid;
	char comm[EVENT_COMM_MAX];
	char path[];			/* a file's */
};

struct dev_streams {
	struct pattern_streams op[PAT_OPS];
};

struct pattern_view {
	FILE *out;
	bool filtered;		/* view_opts.filtered */
	enum view_format fmt;
	struct dev_streams *streams;	/* by device index */
	size_t nstreams;
	struct keymap groups[KINDS];
	bool oom;
};

static void *pattern_create(FILE *out, const struct view_opts *o)
{
	struct pattern_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->filtered = o->filtered;
	v->fmt = o->format;
	return v;
}

/* The group of kind a record counts in, made if new; NULL on ENOMEM. */
static struct group *group_of(struct pattern_view *v, enum group_kind kind, const struct io_rec *r)
{
	unsigned char key[sizeof(uint64_t) + FILE_PATH_MAX];
	size_t klen, plen = 0;
	struct keymap_item *it;
	struct group *g;

	if (kind == BY_DEVICE) {
		memcpy(key, &r->dev->id, sizeof(r->dev->id));
		klen = sizeof(r->dev->id);
	} else if (kind == BY_PROCESS) {
		memset(key, 0, sizeof(r->pid) + EVENT_COMM_MAX);
		memcpy(key, &r->pid, sizeof(r->pid));
		memcpy(key + sizeof(r->pid), r->comm, strnlen(r->comm, EVENT_COMM_MAX - 1));
		klen = sizeof(r->pid) + EVENT_COMM_MAX;
	} else {
		const struct file_id *id = file_node__id(r->file);

		plen = r->path_len < FILE_PATH_MAX ? r->path_len : FILE_PATH_MAX;
		memcpy(key, &id->part, sizeof(id->part));
		memcpy(key + sizeof(id->part), r->path, plen);
		klen = sizeof(id->part) + plen;
	}
	it = keymap__get(&v->groups[kind], key, klen);
	if (!it)
		return NULL;
	if (it->value)
		return it->value;
	g = calloc(1, sizeof(*g) + plen + 1);
	if (!g)
		return NULL;
	g->kind = kind;
	g->dev = r->dev;
	if (kind == BY_PROCESS) {
		g->pid = r->pid;
		memcpy(g->comm, key + sizeof(r->pid), EVENT_COMM_MAX - 1);
	} else if (kind == BY_FILE) {
		g->part = file_node__id(r->file)->part;
		memcpy(g->path, r->path, plen);
	}
	it->value = g;
	return g;
}

static void pattern_record(void *p, const struct io_rec *r)
{
	struct pattern_view *v = p;
	enum op_group grp;
	struct dev_streams *ds;
	bool seq, aligned;
	enum pat_op op;
	unsigned int k;

	if (r->kind != REC_IO || !r->dev)
		return;
	grp = io_stats__group(r);
	if (grp != GRP_READ && grp != GRP_WRITE)
		return;
	op = grp == GRP_READ ? PAT_READ : PAT_WRITE;
	ds = view__grow(v->streams, &v->nstreams, sizeof(*v->streams), r->dev->index);
	if (!ds) {
		v->oom = true;
		return;
	}
	v->streams = ds;
	seq = pattern__sequential(&ds[r->dev->index].op[op], r->lba, r->len);
	aligned = pattern__aligned(r->lba, r->len);
	for (k = 0; k < KINDS; k++) {
		struct pat_counts *c;
		struct group *g;

		if (k == BY_FILE && (!r->file || !r->path))
			continue;
		g = group_of(v, k, r);
		if (!g) {
			v->oom = true;
			return;
		}
		g->dev = r->dev;
		c = &g->op[op];
		c->count++;
		c->bytes += (uint64_t)r->len * 512;
		c->sequential += seq;
		c->unaligned += !aligned;
	}
}

static uint64_t group_bytes(const struct group *g)
{
	return g->op[PAT_READ].bytes + g->op[PAT_WRITE].bytes;
}

static int by_bytes(const void *a, const void *b)
{
	const struct group *x = (*(const struct keymap_item *const *)a)->value;
	const struct group *y = (*(const struct keymap_item *const *)b)->value;
	uint64_t bx = group_bytes(x), by = group_bytes(y);
	int c;

	if (bx != by)
		return bx > by ? -1 : 1;
	if (x->kind == BY_DEVICE)
		return x->dev->index < y->dev->index ? -1 : x->dev->index > y->dev->index;
	if (x->kind == BY_FILE) {
		c = strcmp(x->path, y->path);
		return c ? c : (x->part < y->part ? -1 : x->part > y->part);
	}
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

/* ---- JSON ---- */

static void json_device(struct json_writer *jw, const struct device *d, uint64_t part)
{
	jw__key(jw, "device");
	jw__start_object(jw);
	jw__key(jw, "id");
	jw__uint_str(jw, d ? d->id : part);
	jw__key(jw, "name");
	jw__string(jw, d ? d->name : "");
	jw__end_object(jw);
}

static void json_group(struct json_writer *jw, const struct group *g)
{
	unsigned int i;

	jw__start_object(jw);
	if (g->kind == BY_PROCESS) {
		jw__key(jw, "pid");
		jw__uint(jw, g->pid);
		jw__key(jw, "comm");
		jw__string(jw, g->comm);
	} else if (g->kind == BY_FILE) {
		jw__key(jw, "file");
		jw__start_object(jw);
		jw__key(jw, "path");
		jw__string(jw, g->path);
		jw__key(jw, "partition");
		jw__uint_str(jw, g->part);
		jw__end_object(jw);
	}
	if (g->kind != BY_PROCESS)
		json_device(jw, g->dev, g->part);
	for (i = 0; i < PAT_OPS; i++) {
		const struct pat_counts *c = &g->op[i];

		if (!c->count)
			continue;
		jw__name(jw, op_name[i]);
		jw__start_object(jw);
		jw__key(jw, "count");
		jw__uint_str(jw, c->count);
		jw__key(jw, "bytes");
		jw__uint_str(jw, c->bytes);
		jw__key(jw, "sequential");
		jw__uint_str(jw, c->sequential);
		jw__key(jw, "runs");
		jw__uint_str(jw, c->count - c->sequential);
		jw__key(jw, "unaligned");
		jw__uint_str(jw, c->unaligned);
		jw__end_object(jw);
	}
	jw__end_object(jw);
}

static void write_json(struct pattern_view *v)
{
	struct json_writer *jw = jw__new(v->out, true);
	unsigned int k;
	size_t i;

	if (!jw) {
		v->oom = true;
		return;
	}
	jw__start_object(jw);
	for (k = 0; k < KINDS; k++) {
		jw__name(jw, kind_json[k]);
		jw__start_array(jw);
		for (i = 0; i < v->groups[k].count; i++)
			json_group(jw, v->groups[k].items[i]->value);
		jw__end_array(jw);
	}
	jw__end_object(jw);
	jw__newline(jw);
	jw__free(jw);
}

/* ---- CSV ---- */

static void write_csv(struct pattern_view *v)
{
	static const char *const head[] = { "group", "device.id", "device.name", "process.pid",
					    "process.comm", "file.path", "file.partition",
					    "operation", "count", "bytes", "sequential", "runs",
					    "unaligned" };
	struct csv_writer *cw = csv__new(v->out);
	unsigned int k, op;
	size_t i;

	if (!cw) {
		v->oom = true;
		return;
	}
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		csv__string(cw, head[i]);
	csv__end_row(cw);
	for (k = 0; k < KINDS; k++) {
		for (i = 0; i < v->groups[k].count; i++) {
			const struct group *g = v->groups[k].items[i]->value;

			for (op = 0; op < PAT_OPS; op++) {
				const struct pat_counts *c = &g->op[op];

				if (!c->count)
					continue;
				csv__string(cw, kind_name[k]);
				if (k == BY_PROCESS) {
					csv__empty(cw);
					csv__empty(cw);
					csv__uint(cw, g->pid);
					csv__string(cw, g->comm);
				} else {
					csv__uint(cw, g->dev ? g->dev->id : g->part);
					csv__string(cw, g->dev ? g->dev->name : "");
					csv__empty(cw);
					csv__empty(cw);
				}
				if (k == BY_FILE) {
					csv__string(cw, g->path);
					csv__uint(cw, g->part);
				} else {
					csv__empty(cw);
					csv__empty(cw);
				}
				csv__string(cw, op_name[op]);
				csv__uint(cw, c->count);
				csv__uint(cw, c->bytes);
				csv__uint(cw, c->sequential);
				csv__uint(cw, c->count - c->sequential);
				csv__uint(cw, c->unaligned);
				csv__end_row(cw);
			}
		}
	}
	csv__free(cw);
}

/* ---- table ---- */

static void table_rows(struct table *t, const struct group *g)
{
	unsigned int op;

	for (op = 0; op < PAT_OPS; op++) {
		const struct pat_counts *c = &g->op[op];
		uint64_t runs = c->count - c->sequential;

		if (!c->count)
			continue;
		if (g->kind == BY_PROCESS) {
			/* pid 0 with a name is the idle task, in interrupt context; without, no process */
			if (g->pid || g->comm[0])
				table__cell(t, "%u", g->pid);
			else
				table__cell(t, "-");
			table__cell(t, "%s", g->comm[0] ? g->comm : "-");
		} else {
			/* a file: where its file system is; a device: itself */
			view__device_cell(t, g->dev, g->kind == BY_FILE ? g->part : g->dev->id);
		}
		if (g->kind == BY_FILE)
			table__cell(t, "%s", g->path[0] ? g->path : "?");
		table__cell(t, "%s", op_name[op]);
		op_totals__cell_count(t, c->count);
		op_totals__cell_bytes(t, c->bytes);
		table__cell(t, "%.1f%%", 100.0 * (double)c->sequential / (double)c->count);
		op_totals__cell_bytes(t, runs ? c->bytes / runs : c->bytes);
		table__cell(t, "%.1f%%", 100.0 * (double)c->unaligned / (double)c->count);
		table__end_row(t);
	}
}

static int write_table(struct pattern_view *v)
{
	static const char *const tail[] = { "op", "I/Os", "bytes", "sequential", "avg run",
					    "unaligned" };
	static const char *const lead[KINDS][2] = { { "device" }, { "pid", "comm" },
						    { "device", "file" } };
	unsigned int k, c;
	int err = 0;
	size_t i;

	if (!v->groups[BY_DEVICE].count) {
		view__none(v->out, "read or write I/O", v->filtered);
		return 0;
	}
	for (k = 0; k < KINDS && !err; k++) {
		unsigned int nlead = lead[k][1] ? 2 : 1;
		struct table *t;

		if (!v->groups[k].count)
			continue;
		t = table__new(nlead + sizeof(tail) / sizeof(tail[0]));
		if (!t)
			return -ENOMEM;
		if (k == BY_PROCESS)
			table__align_left(t, 0, false);
		table__align_left(t, 1, true);
		table__align_left(t, nlead, true);
		for (c = 0; c < nlead; c++)
			table__cell(t, "%s", lead[k][c]);
		for (c = 0; c < sizeof(tail) / sizeof(tail[0]); c++)
			table__cell(t, "%s", tail[c]);
		table__end_row(t);
		for (i = 0; i < v->groups[k].count; i++)
			table_rows(t, v->groups[k].items[i]->value);
		fprintf(v->out, "%s%s:\n", k ? "\n" : "", kind_title[k]);
		err = table__print(t, v->out, 2);
		table__free(t);
	}
	return err;
}

static int pattern_finish(void *p, const struct join *j)
{
	struct pattern_view *v = p;
	unsigned int k;
	int err = 0;

	(void)j;
	for (k = 0; k < KINDS; k++)
		keymap__sort(&v->groups[k], by_bytes);
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

static void pattern_destroy(void *p)
{
	struct pattern_view *v = p;
	unsigned int k;

	if (!v)
		return;
	for (k = 0; k < KINDS; k++)
		keymap__free(&v->groups[k], free);
	free(v->streams);
	free(v);
}

const struct view_ops pattern_view_ops = {
	.name = "access-pattern",
	.join_flags = JOIN_PATHS,
	.create = pattern_create,
	.record = pattern_record,
	.finish = pattern_finish,
	.destroy = pattern_destroy,
};
