// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "io_stats.h"
#include "op_acc.h"
#include "stats_view.h"

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
static const char *const pct_names[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

unsigned int vfs_rec__sides(const struct vfs_rec *r, struct vfs_side out[2])
{
	unsigned int n = 0;

	if (!vfs_call__has_output(r->call)) {
		out[0] = (struct vfs_side){ vfs_call__op(r->call, r->uring_op), r->file, r->path,
					    r->path_len };
		return 1;
	}
	/* a copy from a pipe or socket names only its output */
	if ((r->has_file || !r->has_file2) && !(r->unmatched & VFS_IN))
		out[n++] = (struct vfs_side){ VOP_READ, r->file, r->path, r->path_len };
	if (r->has_file2 && !(r->unmatched & VFS_OUT))
		out[n++] = (struct vfs_side){ VOP_WRITE, r->file2, r->path2, r->path2_len };
	return n;
}

static int add(struct op_acc *a, uint64_t size, uint64_t bytes, bool error, bool timed,
	       uint64_t ns)
{
	if (!a->count || size < a->size_min)
		a->size_min = size;
	if (size > a->size_max)
		a->size_max = size;
	a->size_sum += size;
	a->count++;
	a->bytes += bytes;
	a->errors += error;
	if (!timed)
		return 0;
	if (!a->time) {
		a->time = calloc(1, sizeof(*a->time));
		if (!a->time)
			return -ENOMEM;
		a->time->percentiles = true;
	}
	/* a histogram bucket that cannot be had turns percentiles off, as in --statistics */
	dist__add(a->time, ns);
	return 0;
}

static const struct op_acc none;

const struct op_acc *op_totals__vfs(const struct op_totals *t, enum vfs_op op)
{
	return t->vfs[op] ? t->vfs[op] : &none;
}

const struct op_acc *op_totals__block(const struct op_totals *t, unsigned int group)
{
	return t->block[group] ? t->block[group] : &none;
}

/* *slot, allocated if it is not yet; NULL if it cannot be */
static struct op_acc *acc(struct op_acc **slot)
{
	if (!*slot)
		*slot = calloc(1, sizeof(**slot));
	return *slot;
}

int op_totals__add_vfs(struct op_totals *t, enum vfs_op op, const struct vfs_rec *r)
{
	struct op_acc *a = acc(&t->vfs[op]);
	uint64_t bytes = 0;

	if (!a)
		return -ENOMEM;
	if ((op == VOP_READ || op == VOP_WRITE) && r->result > 0)
		bytes = (uint64_t)r->result;
	t->any_vfs = true;
	return add(a, r->size, bytes, r->result < 0, true, r->duration);
}

int op_totals__add_io(struct op_totals *t, const struct io_rec *r)
{
	enum op_group g = io_stats__group(r);
	bool done = r->state == IO_COMPLETED;
	uint64_t bytes = (uint64_t)r->len * 512;
	struct op_acc *a;

	if (r->kind != REC_IO || g >= BLOCK_OPS)
		return 0;
	a = acc(&t->block[g]);
	if (!a)
		return -ENOMEM;
	t->any_block = true;
	a->not_completed += !done;
	return add(a, bytes, bytes, done && r->error, done, r->latency);
}

static void free_acc(struct op_acc **slot)
{
	struct op_acc *a = *slot;

	if (!a)
		return;
	if (a->time)
		dist__free(a->time);
	free(a->time);
	free(a);
	*slot = NULL;
}

void op_totals__free(struct op_totals *t)
{
	unsigned int i;

	for (i = 0; i < VOP_COUNT; i++)
		free_acc(&t->vfs[i]);
	for (i = 0; i < BLOCK_OPS; i++)
		free_acc(&t->block[i]);
}

void op_totals__free_entry(void *entry)
{
	if (!entry)
		return;
	op_totals__free(entry);
	free(entry);
}

uint64_t op_totals__block_bytes(const struct op_totals *t)
{
	return op_totals__block(t, GRP_READ)->bytes + op_totals__block(t, GRP_WRITE)->bytes +
	       op_totals__block(t, GRP_DISCARD)->bytes;
}

uint64_t op_totals__vfs_bytes(const struct op_totals *t)
{
	return op_totals__vfs(t, VOP_READ)->bytes + op_totals__vfs(t, VOP_WRITE)->bytes;
}

/* ---- JSON ---- */

static const struct dist empty_dist;

static void json_op(struct json_writer *jw, const char *name, const struct op_acc *a, bool block)
{
	struct dist size = { .count = a->count, .sum = a->size_sum, .min = a->size_min,
			     .max = a->size_max };

	jw__name(jw, name);
	jw__start_object(jw);
	jw__key(jw, "count");
	jw__uint_str(jw, a->count);
	jw__key(jw, "errors");
	jw__uint_str(jw, a->errors);
	if (block) {
		jw__key(jw, "notCompleted");
		jw__uint_str(jw, a->not_completed);
	}
	jw__key(jw, "bytes");
	jw__uint_str(jw, a->bytes);
	stats_view__json_dist(jw, "size", "byte", &size);
	stats_view__json_dist(jw, block ? "latency" : "duration", "ns",
			      a->time ? a->time : &empty_dist);
	jw__end_object(jw);
}

void op_totals__json(struct json_writer *jw, const struct op_totals *t)
{
	unsigned int i;

	if (t->any_vfs) {
		jw__key(jw, "vfs");
		jw__start_object(jw);
		for (i = 0; i < VOP_COUNT; i++) {
			if (op_totals__vfs(t, i)->count)
				json_op(jw, vfs_op_name[i], t->vfs[i], false);
		}
		jw__end_object(jw);
	}
	if (t->any_block) {
		jw__key(jw, "block");
		jw__start_object(jw);
		for (i = 0; i < BLOCK_OPS; i++) {
			if (op_totals__block(t, i)->count)
				json_op(jw, op_group_name[i], t->block[i], true);
		}
		jw__end_object(jw);
	}
}

/* ---- CSV ---- */

static void csv_time_header(struct csv_writer *cw, const char *name)
{
	static const char *const fields[] = { "min", "average", "max" };
	char col[48];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(col, sizeof(col), "%s.%s", name, fields[i]);
		csv__string(cw, col);
	}
	for (i = 0; i < NPCT; i++) {
		snprintf(col, sizeof(col), "%s.%s", name, pct_names[i]);
		csv__string(cw, col);
	}
}

void op_totals__csv_header(struct csv_writer *cw)
{
	static const char *const head[] = { "layer", "operation", "count", "errors",
					    "notCompleted", "bytes", "size.min",
					    "size.average", "size.max" };
	unsigned int i;

	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		csv__string(cw, head[i]);
	csv_time_header(cw, "duration");
	csv_time_header(cw, "latency");
	csv__end_row(cw);
}

static void csv_time(struct csv_writer *cw, const struct dist *d)
{
	unsigned int i;

	if (!d || !d->count) {
		for (i = 0; i < 3 + NPCT; i++)
			csv__empty(cw);
		return;
	}
	csv__uint(cw, d->min);
	csv__double(cw, dist__avg(d));
	csv__uint(cw, d->max);
	for (i = 0; i < NPCT; i++) {
		if (dist__has_percentiles(d))
			csv__uint(cw, dist__percentile(d, pcts[i]));
		else
			csv__empty(cw);
	}
}

static void csv_op(struct csv_writer *cw, const char *layer, const char *op,
		   const struct op_acc *a, bool block)
{
	csv__string(cw, layer);
	csv__string(cw, op);
	csv__uint(cw, a->count);
	csv__uint(cw, a->errors);
	if (block)
		csv__uint(cw, a->not_completed);
	else
		csv__empty(cw);
	csv__uint(cw, a->bytes);
	csv__uint(cw, a->size_min);
	csv__double(cw, (double)a->size_sum / (double)a->count);
	csv__uint(cw, a->size_max);
	csv_time(cw, block ? NULL : a->time);
	csv_time(cw, block ? a->time : NULL);
	csv__end_row(cw);
}

void op_totals__csv_rows(struct csv_writer *cw, const struct op_totals *t,
			 void (*row)(struct csv_writer *cw, void *ctx), void *ctx)
{
	unsigned int i;

	for (i = 0; i < VOP_COUNT; i++) {
		if (!op_totals__vfs(t, i)->count)
			continue;
		row(cw, ctx);
		csv_op(cw, "vfs", vfs_op_name[i], t->vfs[i], false);
	}
	for (i = 0; i < BLOCK_OPS; i++) {
		if (!op_totals__block(t, i)->count)
			continue;
		row(cw, ctx);
		csv_op(cw, "block", op_group_name[i], t->block[i], true);
	}
}

/* ---- table ---- */

void op_totals__cell_count(struct table *tb, uint64_t n)
{
	table__cell(tb, "%llu", (unsigned long long)n);
}

void op_totals__cell_bytes(struct table *tb, uint64_t bytes)
{
	char buf[32];

	table__fmt_bytes(buf, sizeof(buf), (double)bytes);
	table__cell(tb, "%s", buf);
}

void op_totals__cell_ns(struct table *tb, const struct dist *d, double ns)
{
	table__cell_ns(tb, d && d->count, ns);
}
