// SPDX-License-Identifier: BSD-3-Clause
/*
 * --process-statistics: who did the I/O. Block I/Os and VFS calls grouped
 * two ways:
 *
 * - by process: pid, comm and cgroup (threads of a process that name
 *   themselves apart - "rocksdb:low", "rocksdb:high" - are apart, and a
 *   process moved to another cgroup - a job step, a container's exec -
 *   is a row in each, so that its rows add up to its cgroups');
 * - by cgroup: a batch job, a container, a systemd service: on a shared
 *   node, the way to find the job that hurt the disk.
 *
 * Per group the block operations (read, write, discard, flush: count,
 * errors, notCompleted, bytes, size, latency with percentiles) and, in
 * traces with VFS calls, the kinds of calls (open, read, write, ...:
 * count, errors, bytes, size, duration); op_acc.h has the units (bytes,
 * ns) and what counts. A block I/O counts for the task that submitted it:
 * writeback shows as the flusher kworker, as it does in the kernel.
 * Records without a process (Open-CAS traces) form the group pid 0,
 * comm "", cgroup 0.
 *
 * Groups are sorted by the block bytes they moved, then by the bytes
 * their calls read and wrote, most first; ties by pid, comm, cgroup.
 *
 * JSON: {"processes": [{pid, comm[, cgroup[, cgroupPath]][, calls],
 * vfs {...}, block {...}}], "cgroups": [{cgroup[, cgroupPath][, calls],
 * vfs {...}, block {...}}]}, the operations that happened only; calls is
 * the number of VFS calls (a copy is one call, but a read and a write in
 * vfs); cgroupPath where the trace names the cgroup (cgroup_names.h).
 * CSV: one row per group and operation, a "group" column saying which
 * grouping (process, cgroup), the process and cgroup columns, then
 * op_acc.h's columns. A table shows a cgroup by its path where it can.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io_stats.h"
#include "keymap.h"
#include "op_acc.h"
#include "view.h"

enum group_kind { BY_PROCESS, BY_CGROUP, KINDS };

static const char *const kind_name[KINDS] = { "process", "cgroup" };
static const char *const kind_json[KINDS] = { "processes", "cgroups" };
static const char *const kind_title[KINDS] = { "by process", "by cgroup" };

struct group {
	struct op_totals t;	/* first: op_totals__free_entry */
	enum group_kind kind;
	uint32_t pid;
	char comm[EVENT_COMM_MAX];
	uint64_t cgroup;
};

struct process_view {
	FILE *out;
	bool filtered;		/* view_opts.filtered */
	enum view_format fmt;
	const struct cgroup_names *names;	/* view_opts.cgroups */
	const struct u64map *rollup;		/* view_opts.cgroup_rollup */
	struct keymap groups[KINDS];
	bool oom;
};

static void *process_create(FILE *out, const struct view_opts *o)
{
	struct process_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->filtered = o->filtered;
	v->fmt = o->format;
	v->names = o->cgroups;
	v->rollup = o->cgroup_rollup;
	return v;
}

static struct group *group_of(struct process_view *v, enum group_kind kind, uint32_t pid,
			      const char *comm, uint64_t cgroup)
{
	unsigned char key[sizeof(cgroup) + sizeof(pid) + EVENT_COMM_MAX];
	struct keymap_item *it;
	struct group *g;
	size_t klen;

	if (kind == BY_PROCESS) {
		memset(key, 0, sizeof(key));
		memcpy(key, &cgroup, sizeof(cgroup));
		memcpy(key + sizeof(cgroup), &pid, sizeof(pid));
		memcpy(key + sizeof(cgroup) + sizeof(pid), comm,
		       strnlen(comm, EVENT_COMM_MAX - 1));
		klen = sizeof(key);
	} else {
		memcpy(key, &cgroup, sizeof(cgroup));
		klen = sizeof(cgroup);
	}
	it = keymap__get(&v->groups[kind], key, klen);
	if (!it)
		return NULL;
	if (it->value)
		return it->value;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->kind = kind;
	g->cgroup = cgroup;
	if (kind == BY_PROCESS) {
		g->pid = pid;
		memcpy(g->comm, key + sizeof(cgroup) + sizeof(pid), EVENT_COMM_MAX - 1);
	}
	it->value = g;
	return g;
}

/* The process and cgroup groups of a record; false on ENOMEM. */
static bool groups_of(struct process_view *v, uint32_t pid, const char *comm, uint64_t cgroup,
		      struct group *out[KINDS])
{
	out[BY_PROCESS] = group_of(v, BY_PROCESS, pid, comm, cgroup);
	out[BY_CGROUP] = group_of(v, BY_CGROUP, pid, comm, cgroup);
	if (!out[BY_PROCESS] || !out[BY_CGROUP]) {
		v->oom = true;
		return false;
	}
	return true;
}

static void process_record(void *p, const struct io_rec *r)
{
	struct process_view *v = p;
	struct group *g[KINDS];
	unsigned int k;

	/* an operation OCTF does not know is in no report's operations */
	if (r->kind != REC_IO || io_stats__group(r) >= BLOCK_OPS ||
	    !groups_of(v, r->pid, r->comm, view__cgroup_of(v->rollup, r->cgroup), g))
		return;
	for (k = 0; k < KINDS; k++) {
		if (op_totals__add_io(&g[k]->t, r))
			v->oom = true;
	}
}

static void process_vfs(void *p, const struct vfs_rec *r)
{
	struct process_view *v = p;
	struct vfs_side sides[2];
	unsigned int n = vfs_rec__sides(r, sides), i, k;
	struct group *g[KINDS];

	if (!groups_of(v, r->pid, r->comm, view__cgroup_of(v->rollup, r->cgroup), g))
		return;
	for (k = 0; k < KINDS; k++)
		g[k]->t.calls++;
	for (i = 0; i < n; i++) {
		for (k = 0; k < KINDS; k++) {
			if (op_totals__add_vfs(&g[k]->t, sides[i].op, r))
				v->oom = true;
		}
	}
}

static int by_impact(const void *a, const void *b)
{
	const struct group *x = (*(const struct keymap_item *const *)a)->value;
	const struct group *y = (*(const struct keymap_item *const *)b)->value;
	uint64_t bx = op_totals__block_bytes(&x->t), by = op_totals__block_bytes(&y->t);
	int c;

	if (bx != by)
		return bx > by ? -1 : 1;
	bx = op_totals__vfs_bytes(&x->t);
	by = op_totals__vfs_bytes(&y->t);
	if (bx != by)
		return bx > by ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	c = strcmp(x->comm, y->comm);
	if (c)
		return c;
	return x->cgroup < y->cgroup ? -1 : x->cgroup > y->cgroup;
}

/* ---- JSON ---- */

static void json_group(struct json_writer *jw, const struct cgroup_names *names,
		       const struct group *g)
{
	jw__start_object(jw);
	if (g->kind == BY_PROCESS) {
		jw__key(jw, "pid");
		jw__uint(jw, g->pid);
		jw__key(jw, "comm");
		jw__string(jw, g->comm);
	}
	if (g->kind == BY_CGROUP || g->cgroup)
		view__cgroup_json(jw, names, g->cgroup);
	if (g->t.calls) {
		jw__key(jw, "calls");
		jw__uint_str(jw, g->t.calls);
	}
	op_totals__json(jw, &g->t);
	jw__end_object(jw);
}

static void write_json(struct process_view *v)
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
			json_group(jw, v->names, v->groups[k].items[i]->value);
		jw__end_array(jw);
	}
	jw__end_object(jw);
	jw__newline(jw);
	jw__free(jw);
}

/* ---- CSV ---- */

struct csv_row {
	const struct group *g;
	const struct cgroup_names *names;
};

static void csv_group_cells(struct csv_writer *cw, void *ctx)
{
	const struct csv_row *row = ctx;
	const struct group *g = row->g;

	csv__string(cw, kind_name[g->kind]);
	if (g->kind == BY_PROCESS) {
		csv__uint(cw, g->pid);
		csv__string(cw, g->comm);
	} else {
		csv__empty(cw);
		csv__empty(cw);
	}
	view__cgroup_csv(cw, row->names, g->cgroup, g->kind == BY_CGROUP || g->cgroup);
}

static void write_csv(struct process_view *v)
{
	static const char *const head[] = { "group", "process.pid", "process.comm",
					    "process.cgroup", "process.cgroupPath" };
	struct csv_writer *cw = csv__new(v->out);
	unsigned int k;
	size_t i;

	if (!cw) {
		v->oom = true;
		return;
	}
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		csv__string(cw, head[i]);
	op_totals__csv_header(cw);
	for (k = 0; k < KINDS; k++) {
		for (i = 0; i < v->groups[k].count; i++) {
			struct csv_row row = { v->groups[k].items[i]->value, v->names };

			op_totals__csv_rows(cw, &row.g->t, csv_group_cells, &row);
		}
	}
	csv__free(cw);
}

/* ---- table ---- */

static void table_group(struct table *t, const struct cgroup_names *names,
			const struct group *g)
{
	struct dist lat = { .percentiles = true };
	uint64_t ios = 0;
	unsigned int i;

	for (i = 0; i < BLOCK_OPS; i++) {
		const struct op_acc *a = op_totals__block(&g->t, i);

		ios += a->count;
		if (a->time)
			dist__merge(&lat, a->time);
	}
	if (g->kind == BY_PROCESS)
		view__process_cells(t, g->pid, g->comm);
	view__cgroup_cell(t, names, g->cgroup);
	op_totals__cell_count(t, ios);
	op_totals__cell_bytes(t, op_totals__block(&g->t, GRP_READ)->bytes);
	op_totals__cell_bytes(t, op_totals__block(&g->t, GRP_WRITE)->bytes);
	op_totals__cell_ns(t, &lat, dist__avg(&lat));
	op_totals__cell_ns(t, &lat, (double)dist__percentile(&lat, 99));
	op_totals__cell_ns(t, &lat, (double)lat.max);
	op_totals__cell_count(t, g->t.calls);
	op_totals__cell_bytes(t, op_totals__vfs(&g->t, VOP_READ)->bytes);
	op_totals__cell_bytes(t, op_totals__vfs(&g->t, VOP_WRITE)->bytes);
	table__end_row(t);
	dist__free(&lat);
}

static int write_table(struct process_view *v)
{
	static const char *const head[] = { "pid", "comm", "cgroup", "I/Os", "blk read",
					    "blk written", "lat avg", "lat p99", "lat max",
					    "calls", "vfs read", "vfs written" };
	unsigned int ncols = sizeof(head) / sizeof(head[0]), k, c;
	int err = 0;
	size_t i;

	if (!v->groups[BY_PROCESS].count) {
		view__none(v->out, "I/O", v->filtered);
		return 0;
	}
	for (k = 0; k < KINDS && !err; k++) {
		/* the cgroup table has no pid and comm */
		unsigned int first = k == BY_PROCESS ? 0 : 2;
		struct table *t = table__new(ncols - first);

		if (!t)
			return -ENOMEM;
		/* ids to the right like the other numbers, comm and paths to the left */
		table__align_left(t, 0, false);
		if (k == BY_PROCESS)
			table__align_left(t, 1, true);
		table__align_left(t, 2 - first, view__cgroups_named(v->names));
		for (c = first; c < ncols; c++)
			table__cell(t, "%s", head[c]);
		table__end_row(t);
		for (i = 0; i < v->groups[k].count; i++)
			table_group(t, v->names, v->groups[k].items[i]->value);
		fprintf(v->out, "%s%s:\n", k ? "\n" : "", kind_title[k]);
		err = table__print(t, v->out, 2);
		table__free(t);
	}
	return err;
}

static int process_finish(void *p, const struct join *j)
{
	struct process_view *v = p;
	unsigned int k;
	int err = 0;

	(void)j;
	for (k = 0; k < KINDS; k++)
		keymap__sort(&v->groups[k], by_impact);
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

static void process_destroy(void *p)
{
	struct process_view *v = p;
	unsigned int k;

	if (!v)
		return;
	for (k = 0; k < KINDS; k++)
		keymap__free(&v->groups[k], op_totals__free_entry);
	free(v);
}

const struct view_ops process_view_ops = {
	.name = "process-statistics",
	.join_flags = JOIN_VFS,
	.cgroup_paths = true,
	.create = process_create,
	.record = process_record,
	.vfs = process_vfs,
	.finish = process_finish,
	.destroy = process_destroy,
};
