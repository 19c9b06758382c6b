// SPDX-License-Identifier: BSD-3-Clause
/*
 * --access-pattern: the pattern of the reads and writes: how many were
 * sequential, how long the sequential runs were, how many were not in
 * whole 4 KiB units. Two layers:
 *
 * - block: the I/Os as the devices saw them (pattern.h), judged on the
 *   device in submission order, so that an I/O counts the same in each
 *   of its groups;
 * - vfs (traces taken with --vfs): the read and write calls as the
 *   programs made them, a copy a read of its input and a write of its
 *   output. A call is sequential when it starts where the same
 *   process's last call of its kind on the same file ended (Darshan's
 *   "consecutive"), unaligned when its offset or the size it asked for
 *   is not whole 4 KiB units. Only calls that moved bytes count; one at
 *   no known offset (a pipe's side of a copy) is neither sequential nor
 *   judged by its offset.
 *
 * Grouped four ways, to find who and what makes a pattern: by device
 * (block), by process (pid and comm; a block I/O's is its submitter's,
 * so writeback shows as the flusher), by cgroup (a batch job, a
 * container, a service) and by file (the trace names it; by path). With
 * a filter, the streams are those of what it keeps.
 *
 * Per group, layer and operation (read, write): count, bytes, sequential,
 * runs (the stretches of sequential I/O: the I/Os that were not, and the
 * group's first, so bytes / runs is a run's average length), unaligned.
 * Groups are sorted by the block bytes they moved, then the call bytes,
 * most first; ties by device, pid and comm, cgroup id, or path.
 *
 * JSON: {"devices": [{device {id, name}, block {read, write}}],
 * "processes": [{pid, comm, block {...}, vfs {...}}], "cgroups":
 * [{cgroup, block, vfs}], "files": [{file {path, partition}, device {id,
 * name}, block, vfs}]}, the layers and
 * operations that happened only, counts as strings (64-bit, as OCTF's
 * JSON). CSV: one row per group, layer and operation, a "group" column
 * saying which grouping. Table: the shares in percent and a run's
 * average length.
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

enum group_kind { BY_DEVICE, BY_PROCESS, BY_CGROUP, BY_FILE, KINDS };
enum pat_layer { PAT_BLOCK, PAT_VFS, PAT_LAYERS };
enum pat_op { PAT_READ, PAT_WRITE, PAT_OPS };

static const char *const kind_name[KINDS] = { "device", "process", "cgroup", "file" };
static const char *const kind_json[KINDS] = { "devices", "processes", "cgroups", "files" };
static const char *const kind_title[KINDS] = { "by device", "by process", "by cgroup", "by file" };
static const char *const layer_name[PAT_LAYERS] = { "block", "vfs" };
static const char *const op_name[PAT_OPS] = { "read", "write" };

/*
 * runs: the I/Os (calls) that began a stretch of the group's own: not
 * sequential, or its first, which may continue a stream another group
 * began (a log appended where the file before it ended on the device)
 */
struct pat_counts {
	uint64_t count, bytes, sequential, runs, unaligned;
};

struct group {
	struct pat_counts op[PAT_LAYERS][PAT_OPS];
	enum group_kind kind;
	const struct device *dev;	/* a device's; a file's, the last one known */
	uint64_t part;			/* a file's partition */
	uint32_t pid;
	char comm[EVENT_COMM_MAX];
	uint64_t cgroup;		/* a cgroup's: its id, 0 = not recorded */
	char path[];			/* a file's */
};

struct dev_streams {
	struct pattern_streams op[PAT_OPS];
};

/* Where a process's last call of each kind on a file ended; -1 = none yet. */
struct call_ends {
	int64_t end[PAT_OPS];
};

struct pattern_view {
	FILE *out;
	bool filtered;		/* view_opts.filtered */
	enum view_format fmt;
	struct dev_streams *streams;	/* by device index */
	size_t nstreams;
	struct keymap ends;		/* struct call_ends by file node and pid */
	struct keymap groups[KINDS];
	const struct cgroup_names *names;	/* view_opts.cgroups */
	const struct u64map *rollup;		/* view_opts.cgroup_rollup */
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
	v->names = o->cgroups;
	v->rollup = o->cgroup_rollup;
	return v;
}

/* What an I/O or a call's side is counted by: its device, process, file. */
struct origin {
	const struct device *dev;	/* NULL: unknown */
	uint64_t part;			/* the file system's device, for a file's */
	uint32_t pid;
	const char *comm;
	uint64_t cgroup;
	const struct file_node *file;	/* NULL: none */
	const char *path;		/* NULL: the trace names none */
	size_t path_len;
};

/* The group of kind o counts in, made if new; NULL on ENOMEM. */
static struct group *group_of(struct pattern_view *v, enum group_kind kind, const struct origin *o)
{
	unsigned char key[sizeof(uint64_t) + FILE_PATH_MAX];
	size_t klen, plen = 0;
	struct keymap_item *it;
	struct group *g;

	if (kind == BY_DEVICE) {
		memcpy(key, &o->dev->id, sizeof(o->dev->id));
		klen = sizeof(o->dev->id);
	} else if (kind == BY_PROCESS) {
		memset(key, 0, sizeof(o->pid) + EVENT_COMM_MAX);
		memcpy(key, &o->pid, sizeof(o->pid));
		memcpy(key + sizeof(o->pid), o->comm, strnlen(o->comm, EVENT_COMM_MAX - 1));
		klen = sizeof(o->pid) + EVENT_COMM_MAX;
	} else if (kind == BY_CGROUP) {
		memcpy(key, &o->cgroup, sizeof(o->cgroup));
		klen = sizeof(o->cgroup);
	} else {
		const struct file_id *id = file_node__id(o->file);

		plen = o->path_len < FILE_PATH_MAX ? o->path_len : FILE_PATH_MAX;
		memcpy(key, &id->part, sizeof(id->part));
		memcpy(key + sizeof(id->part), o->path, plen);
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
	if (kind == BY_PROCESS) {
		g->pid = o->pid;
		memcpy(g->comm, key + sizeof(o->pid), EVENT_COMM_MAX - 1);
	} else if (kind == BY_CGROUP) {
		g->cgroup = o->cgroup;
	} else if (kind == BY_FILE) {
		g->part = file_node__id(o->file)->part;
		memcpy(g->path, o->path, plen);
	}
	it->value = g;
	return g;
}

/* Counts one I/O or call side in each of its groups. */
static void count(struct pattern_view *v, const struct origin *o, enum pat_layer layer,
		  enum pat_op op, uint64_t bytes, bool seq, bool aligned)
{
	unsigned int k;

	for (k = 0; k < KINDS; k++) {
		struct pat_counts *c;
		struct group *g;

		/* the calls of a device are its files' */
		if ((k == BY_DEVICE && (layer != PAT_BLOCK || !o->dev)) ||
		    (k == BY_FILE && (!o->file || !o->path)))
			continue;
		g = group_of(v, k, o);
		if (!g) {
			v->oom = true;
			return;
		}
		/* a file's: its file system's, where the call or I/O says it */
		if (o->dev && (k != BY_FILE || o->part == g->part))
			g->dev = o->dev;
		c = &g->op[layer][op];
		c->runs += !seq || !c->count;
		c->count++;
		c->bytes += bytes;
		c->sequential += seq;
		c->unaligned += !aligned;
	}
}

static void pattern_record(void *p, const struct io_rec *r)
{
	struct pattern_view *v = p;
	struct origin o;
	enum op_group grp;
	struct dev_streams *ds;
	enum pat_op op;
	bool seq;

	/* passed: judged in its place already; its completion says nothing here */
	if (r->kind != REC_IO || !r->dev || r->passed)
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
	/*
	 * A split I/O's record comes before its pieces', holding what is left
	 * after them (the back: block_split gives the front away): it is
	 * judged as the whole I/O, which its pieces then follow, as the
	 * device sees them.
	 */
	seq = r->split_child ||
	      pattern__sequential(&ds[r->dev->index].op[op], r->whole_lba, r->whole_len);
	o = (struct origin){ r->dev, r->file ? file_node__id(r->file)->part : 0, r->pid, r->comm,
			     view__cgroup_of(v->rollup, r->cgroup), r->file, r->path, r->path_len };
	count(v, &o, PAT_BLOCK, op, (uint64_t)r->len * 512, seq,
	      pattern__aligned(r->lba, r->len));
}

/*
 * Whether a call at offset continues the same process's last call of
 * its kind on file, which then ends at end; false on ENOMEM too.
 */
static bool call_continues(struct pattern_view *v, const struct file_node *file, uint32_t pid,
			   enum pat_op op, int64_t offset, int64_t end)
{
	unsigned char key[sizeof(file) + sizeof(pid)];
	struct keymap_item *it;
	struct call_ends *e;
	bool seq;

	memcpy(key, &file, sizeof(file));
	memcpy(key + sizeof(file), &pid, sizeof(pid));
	it = keymap__get(&v->ends, key, sizeof(key));
	if (it && !it->value) {
		e = malloc(sizeof(*e));
		if (e)
			e->end[PAT_READ] = e->end[PAT_WRITE] = -1;
		it->value = e;
	}
	if (!it || !it->value) {
		v->oom = true;
		return false;
	}
	e = it->value;
	seq = e->end[op] == offset;
	e->end[op] = end;
	return seq;
}

static void pattern_vfs(void *p, const struct vfs_rec *r)
{
	struct pattern_view *v = p;
	struct vfs_side sides[2];
	unsigned int n = vfs_rec__sides(r, sides), i;

	/* a call that moved nothing (an error, the end of a file) shows no pattern */
	if (r->result <= 0)
		return;
	for (i = 0; i < n; i++) {
		/* a copy's output is at offset2 */
		int64_t off = sides[i].op == VOP_WRITE && vfs_call__has_output(r->call) ?
				      r->offset2 : r->offset;
		enum pat_op op = sides[i].op == VOP_READ ? PAT_READ : PAT_WRITE;
		struct origin o = { r->dev, r->part, r->pid, r->comm,
				    view__cgroup_of(v->rollup, r->cgroup), sides[i].file,
				    sides[i].path, sides[i].path_len };
		bool seq = false, aligned;

		if (sides[i].op != VOP_READ && sides[i].op != VOP_WRITE)
			continue;
		/* bytes past INT64_MAX (a crafted trace) end nowhere */
		if (off >= 0 && sides[i].file && off <= INT64_MAX - r->result)
			seq = call_continues(v, sides[i].file, r->pid, op, off, off + r->result);
		aligned = (off < 0 || off % 4096 == 0) && r->size % 4096 == 0;
		count(v, &o, PAT_VFS, op, (uint64_t)r->result, seq, aligned);
	}
}

static uint64_t layer_bytes(const struct group *g, enum pat_layer layer)
{
	return g->op[layer][PAT_READ].bytes + g->op[layer][PAT_WRITE].bytes;
}

static uint64_t layer_count(const struct group *g, enum pat_layer layer)
{
	return g->op[layer][PAT_READ].count + g->op[layer][PAT_WRITE].count;
}

static int by_bytes(const void *a, const void *b)
{
	const struct group *x = (*(const struct keymap_item *const *)a)->value;
	const struct group *y = (*(const struct keymap_item *const *)b)->value;
	unsigned int l;
	int c;

	for (l = 0; l < PAT_LAYERS; l++) {
		uint64_t bx = layer_bytes(x, l), by = layer_bytes(y, l);

		if (bx != by)
			return bx > by ? -1 : 1;
	}
	if (x->kind == BY_DEVICE)
		return x->dev->index < y->dev->index ? -1 : x->dev->index > y->dev->index;
	if (x->kind == BY_CGROUP)
		return x->cgroup < y->cgroup ? -1 : x->cgroup > y->cgroup;
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

static void json_group(struct json_writer *jw, const struct cgroup_names *names,
		       const struct group *g)
{
	unsigned int l, i;

	jw__start_object(jw);
	if (g->kind == BY_PROCESS) {
		jw__key(jw, "pid");
		jw__uint(jw, g->pid);
		jw__key(jw, "comm");
		jw__string(jw, g->comm);
	} else if (g->kind == BY_CGROUP) {
		view__cgroup_json(jw, names, g->cgroup);
	} else if (g->kind == BY_FILE) {
		jw__key(jw, "file");
		jw__start_object(jw);
		jw__key(jw, "path");
		jw__string(jw, g->path);
		jw__key(jw, "partition");
		jw__uint_str(jw, g->part);
		jw__end_object(jw);
	}
	if (g->kind == BY_DEVICE || g->kind == BY_FILE)
		json_device(jw, g->dev, g->part);
	for (l = 0; l < PAT_LAYERS; l++) {
		if (!layer_count(g, l))
			continue;
		jw__name(jw, layer_name[l]);
		jw__start_object(jw);
		for (i = 0; i < PAT_OPS; i++) {
			const struct pat_counts *c = &g->op[l][i];

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
			jw__uint_str(jw, c->runs);
			jw__key(jw, "unaligned");
			jw__uint_str(jw, c->unaligned);
			jw__end_object(jw);
		}
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
			json_group(jw, v->names, v->groups[k].items[i]->value);
		jw__end_array(jw);
	}
	jw__end_object(jw);
	jw__newline(jw);
	jw__free(jw);
}

/* ---- CSV ---- */

/* The columns of one kind of group; the others' are empty. */
static void csv_group_cells(struct csv_writer *cw, const struct cgroup_names *names,
			    const struct group *g)
{
	bool dev = g->kind == BY_DEVICE || g->kind == BY_FILE;

	csv__string(cw, kind_name[g->kind]);
	if (dev) {
		csv__uint(cw, g->dev ? g->dev->id : g->part);
		csv__string(cw, g->dev ? g->dev->name : "");
	} else {
		csv__empty(cw);
		csv__empty(cw);
	}
	if (g->kind == BY_PROCESS) {
		csv__uint(cw, g->pid);
		csv__string(cw, g->comm);
	} else {
		csv__empty(cw);
		csv__empty(cw);
	}
	view__cgroup_csv(cw, names, g->cgroup, g->kind == BY_CGROUP);
	if (g->kind == BY_FILE) {
		csv__string(cw, g->path);
		csv__uint(cw, g->part);
	} else {
		csv__empty(cw);
		csv__empty(cw);
	}
}

static void write_csv(struct pattern_view *v)
{
	static const char *const head[] = { "group", "device.id", "device.name", "process.pid",
					    "process.comm", "process.cgroup",
					    "process.cgroupPath", "file.path",
					    "file.partition", "layer", "operation", "count", "bytes",
					    "sequential", "runs", "unaligned" };
	struct csv_writer *cw = csv__new(v->out);
	unsigned int k, l, op;
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

			for (l = 0; l < PAT_LAYERS; l++) {
				for (op = 0; op < PAT_OPS; op++) {
					const struct pat_counts *c = &g->op[l][op];

					if (!c->count)
						continue;
					csv_group_cells(cw, v->names, g);
					csv__string(cw, layer_name[l]);
					csv__string(cw, op_name[op]);
					csv__uint(cw, c->count);
					csv__uint(cw, c->bytes);
					csv__uint(cw, c->sequential);
					csv__uint(cw, c->runs);
					csv__uint(cw, c->unaligned);
					csv__end_row(cw);
				}
			}
		}
	}
	csv__free(cw);
}

/* ---- table ---- */

static void table_rows(struct table *t, const struct cgroup_names *names,
		       const struct group *g)
{
	unsigned int l, op;

	for (l = 0; l < PAT_LAYERS; l++) {
		for (op = 0; op < PAT_OPS; op++) {
			const struct pat_counts *c = &g->op[l][op];

			if (!c->count)
				continue;
			/* a file's device cell names its file system's partition */
			if (g->kind == BY_PROCESS)
				view__process_cells(t, g->pid, g->comm);
			else if (g->kind == BY_CGROUP)
				view__cgroup_cell(t, names, g->cgroup);
			else
				view__device_cell(t, g->dev, g->kind == BY_FILE ? g->part : g->dev->id);
			if (g->kind == BY_FILE)
				table__cell(t, "%s", g->path[0] ? g->path : "?");
			if (g->kind != BY_DEVICE)
				table__cell(t, "%s", layer_name[l]);
			table__cell(t, "%s", op_name[op]);
			op_totals__cell_count(t, c->count);
			op_totals__cell_bytes(t, c->bytes);
			table__cell(t, "%.1f%%", 100.0 * (double)c->sequential / (double)c->count);
			op_totals__cell_bytes(t, c->bytes / c->runs);
			table__cell(t, "%.1f%%", 100.0 * (double)c->unaligned / (double)c->count);
			table__end_row(t);
		}
	}
}

static int write_table(struct pattern_view *v)
{
	static const char *const tail[] = { "op", "count", "bytes", "sequential", "avg run",
					    "unaligned" };
	/* the devices' rows are block I/O only */
	static const char *const lead[KINDS][3] = { { "device" }, { "pid", "comm", "layer" },
						    { "cgroup", "layer" },
						    { "device", "file", "layer" } };
	unsigned int k, c;
	int err = 0;
	size_t i;

	/* every I/O and call counts for its process */
	if (!v->groups[BY_PROCESS].count) {
		view__none(v->out, "read or write I/O", v->filtered);
		return 0;
	}
	for (k = 0; k < KINDS && !err; k++) {
		unsigned int nlead = !lead[k][1] ? 1 : !lead[k][2] ? 2 : 3;
		struct table *t;

		if (!v->groups[k].count)
			continue;
		t = table__new(nlead + sizeof(tail) / sizeof(tail[0]));
		if (!t)
			return -ENOMEM;
		/* names and words to the left, numbers (a pid, a cgroup id) to the right */
		for (c = 0; c <= nlead; c++)
			table__align_left(t, c, !((k == BY_PROCESS || k == BY_CGROUP) && c == 0) ||
						(k == BY_CGROUP && view__cgroups_named(v->names)));
		for (c = 0; c < nlead; c++)
			table__cell(t, "%s", lead[k][c]);
		for (c = 0; c < sizeof(tail) / sizeof(tail[0]); c++)
			table__cell(t, "%s", tail[c]);
		table__end_row(t);
		for (i = 0; i < v->groups[k].count; i++)
			table_rows(t, v->names, v->groups[k].items[i]->value);
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
	keymap__free(&v->ends, free);
	free(v->streams);
	free(v);
}

const struct view_ops pattern_view_ops = {
	.name = "access-pattern",
	.join_flags = JOIN_PATHS | JOIN_VFS,
	.cgroup_paths = true,
	.in_order = true,
	.create = pattern_create,
	.record = pattern_record,
	.vfs = pattern_vfs,
	.finish = pattern_finish,
	.destroy = pattern_destroy,
};
