// SPDX-License-Identifier: BSD-3-Clause
/*
 * --fs-statistics: I/O statistics of the files I/Os went to, grouped
 * three ways, as OCTF does:
 *
 * - directory: the directory holding the file ("/db", "/" for the root;
 *   "dir" without a leading "/" when the trace does not name all of the
 *   path, see file_names.h);
 * - fileExtension: what follows the last "." of the file name ("sst");
 * - fileNamePrefix: the file name without its extension and without the
 *   digits and punctuation it ends in ("MANIFEST-000005" -> "MANIFEST",
 *   "000014.sst" -> none): files that are numbered copies of one kind.
 *
 * Each group has, as OCTF's IoStatistics, its device (desc) and duration
 * (its first I/O's submission to its last's completion), and per
 * operation group count, errors, I/Os without a completion, size and
 * latency (min, average, max, total), throughput, bandwidth and workset;
 * the write group also Open-CAS's "write invalidation factor" (sectors
 * written and discarded over the write workset). Unlike Open-CAS, every
 * extension and prefix is listed, not only those whose factor is over 1.
 * I/Os without a file (metadata, discards, files the trace does not
 * name) are not in any group. Entries are sorted by device, partition and
 * name; the table's first column says which device (and partition).
 * JSON keeps the shape of OCTF's FilesystemStatistics: entries[]
 * with deviceId, partitionId, one of directory / fileExtension /
 * fileNamePrefix, and statistics.
 */
#define _GNU_SOURCE	/* memrchr */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv_writer.h"
#include "io_stats.h"
#include "json_writer.h"
#include "stats_view.h"
#include "table_writer.h"

enum fs_kind { FS_DIR, FS_EXT, FS_PREFIX, FS_KINDS };

static const char *const kind_json[FS_KINDS] = { "directory", "fileExtension", "fileNamePrefix" };
static const char *const kind_title[FS_KINDS] = { "by directory", "by file extension",
						  "by file name prefix" };

struct fs_entry {
	struct fs_entry *next;	/* hash chain */
	enum fs_kind kind;
	unsigned int dev;	/* device index */
	uint64_t part;
	struct io_stats stats;
	char name[];
};

struct fs_view {
	FILE *out;
	enum view_format fmt;
	struct fs_entry **tab;
	size_t cap, count;
	bool oom;
	bool filtered;	/* view_opts.filtered */
};

static uint64_t entry_hash(enum fs_kind kind, unsigned int dev, uint64_t part, const char *s,
			  size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (kind + 1) ^ ((uint64_t)dev << 8) ^ (part << 16);
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 31);
}

static void *fs_create(FILE *out, const struct view_opts *o)
{
	struct fs_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->fmt = o->format;
	v->filtered = o->filtered;
	return v;
}

static int grow(struct fs_view *v)
{
	size_t ncap = v->cap ? v->cap * 2 : 64, i;
	struct fs_entry **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (i = 0; i < v->cap; i++) {
		struct fs_entry *e = v->tab[i], *next;

		for (; e; e = next) {
			size_t k = entry_hash(e->kind, e->dev, e->part, e->name, strlen(e->name)) &
				   (ncap - 1);

			next = e->next;
			e->next = nt[k];
			nt[k] = e;
		}
	}
	free(v->tab);
	v->tab = nt;
	v->cap = ncap;
	return 0;
}

static struct fs_entry *entry(struct fs_view *v, enum fs_kind kind, const struct io_rec *r,
			      const char *name, size_t len)
{
	struct fs_entry *e;
	size_t k;

	if (v->count >= v->cap && grow(v))
		return NULL;
	k = entry_hash(kind, r->dev->index, r->part, name, len) & (v->cap - 1);
	for (e = v->tab[k]; e; e = e->next) {
		if (e->kind == kind && e->dev == r->dev->index && e->part == r->part &&
		    !strncmp(e->name, name, len) && !e->name[len])
			return e;
	}
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	e->kind = kind;
	e->dev = r->dev->index;
	e->part = r->part;
	io_stats__init(&e->stats, false);
	memcpy(e->name, name, len);
	e->name[len] = '\0';
	e->next = v->tab[k];
	v->tab[k] = e;
	v->count++;
	return e;
}

static void count(struct fs_view *v, enum fs_kind kind, const struct io_rec *r, const char *name,
		  size_t len)
{
	struct fs_entry *e = entry(v, kind, r, name, len);

	if (!e) {
		v->oom = true;
		return;
	}
	io_stats__add(&e->stats, r, true);
}

static void fs_record(void *p, const struct io_rec *r)
{
	struct fs_view *v = p;
	const char *path = r->path, *name, *slash, *dot;
	size_t name_len, base_len;

	if (r->kind != REC_IO || !path || !r->path_len)
		return;
	slash = memrchr(path, '/', r->path_len);
	name = slash ? slash + 1 : path;
	name_len = r->path_len - (size_t)(name - path);
	if (slash)
		count(v, FS_DIR, r, slash == path ? "/" : path,
		      slash == path ? 1 : (size_t)(slash - path));
	if (!name_len)
		return;
	dot = memrchr(name, '.', name_len);
	if (dot && dot > name && dot + 1 < name + name_len)
		count(v, FS_EXT, r, dot + 1, name_len - (size_t)(dot + 1 - name));
	base_len = dot && dot > name ? (size_t)(dot - name) : name_len;
	while (base_len && !isalpha((unsigned char)name[base_len - 1]))
		base_len--;
	if (base_len)
		count(v, FS_PREFIX, r, name, base_len);
}

static int by_key(const void *a, const void *b)
{
	const struct fs_entry *x = *(const struct fs_entry *const *)a;
	const struct fs_entry *y = *(const struct fs_entry *const *)b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* All entries, sorted; NULL if out of memory (or none: check v->count). */
static struct fs_entry **sorted(struct fs_view *v)
{
	struct fs_entry **all = malloc((v->count ? v->count : 1) * sizeof(*all)), *e;
	size_t i, n = 0;

	if (!all)
		return NULL;
	for (i = 0; i < v->cap; i++) {
		for (e = v->tab[i]; e; e = e->next)
			all[n++] = e;
	}
	if (n)
		qsort(all, n, sizeof(*all), by_key);
	return all;
}

static const enum op_group shown[] = { GRP_READ, GRP_WRITE, GRP_DISCARD, GRP_TOTAL };
#define NSHOWN (sizeof(shown) / sizeof(shown[0]))

/*
 * Open-CAS's write invalidation factor: sectors written and discarded
 * over the write workset, how many times each written sector was written
 * again; 0 without writes.
 */
static double wif(struct io_stats *s)
{
	uint64_t ws = workset__sectors(&s->op[GRP_WRITE].workset);

	return ws ? (double)(s->op[GRP_WRITE].size.sum + s->op[GRP_DISCARD].size.sum) / (double)ws
		  : 0;
}

static void write_json(struct fs_view *v, struct fs_entry **all, const struct join *j)
{
	struct json_writer *jw = jw__new(v->out, true);
	unsigned int g;
	size_t i;

	if (!jw) {
		v->oom = true;
		return;
	}
	jw__start_object(jw);
	jw__key(jw, "entries");
	jw__start_array(jw);
	for (i = 0; i < v->count; i++) {
		struct fs_entry *e = all[i];
		uint64_t dur = io_stats__duration(&e->stats);

		jw__start_object(jw);
		jw__key(jw, "deviceId");
		jw__uint_str(jw, join__device(j, e->dev)->id);
		jw__key(jw, "partitionId");
		jw__uint_str(jw, e->part);
		jw__name(jw, kind_json[e->kind]);
		jw__string(jw, e->name);
		jw__key(jw, "statistics");
		jw__start_object(jw);
		/*
		 * OCTF's IoStatistics: desc and duration, then every group,
		 * flush too (always empty: a flush without data has no file)
		 */
		stats_view__json_desc(jw, join__device(j, e->dev), dur);
		for (g = 0; g < GRP_COUNT; g++)
			stats_view__json_op(jw, op_group_name[g], &e->stats.op[g], dur, false,
					    g == GRP_WRITE ? wif(&e->stats) : -1);
		jw__end_object(jw);
		jw__end_object(jw);
	}
	jw__end_array(jw);
	jw__end_object(jw);
	jw__newline(jw);
	jw__free(jw);
}

static void write_csv(struct fs_view *v, struct fs_entry **all, const struct join *j)
{
	static const char *const head[] = {
		"kind", "name", "device.id", "device.partition", "operation", "count", "errors",
		"notCompleted", "size.total", "size.average", "latency.average", "latency.max",
		"workset", "duration", "writeInvalidationFactor",
	};
	struct csv_writer *cw = csv__new(v->out);
	unsigned int g;
	size_t i;

	if (!cw) {
		v->oom = true;
		return;
	}
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		csv__string(cw, head[i]);
	csv__end_row(cw);
	for (i = 0; i < v->count; i++) {
		struct fs_entry *e = all[i];

		for (g = 0; g < NSHOWN; g++) {
			struct op_stats *o = &e->stats.op[shown[g]];

			csv__string(cw, kind_json[e->kind]);
			csv__string(cw, e->name);
			csv__uint(cw, join__device(j, e->dev)->id);
			csv__uint(cw, e->part);
			csv__string(cw, op_group_name[shown[g]]);
			csv__uint(cw, o->count);
			csv__uint(cw, o->errors);
			csv__uint(cw, o->not_completed);
			csv__uint(cw, o->size.sum);
			csv__double(cw, dist__avg(&o->size));
			csv__double(cw, dist__avg(&o->latency));
			csv__uint(cw, o->latency.max);
			csv__uint(cw, workset__sectors(&o->workset));
			csv__uint(cw, io_stats__duration(&e->stats));
			if (shown[g] == GRP_WRITE)
				csv__double(cw, wif(&e->stats));
			else
				csv__empty(cw);
			csv__end_row(cw);
		}
	}
	csv__free(cw);
}

static int write_table(struct fs_view *v, struct fs_entry **all, const struct join *j)
{
	static const char *const head[] = { "device", "name", "I/Os", "reads", "writes", "read",
					    "written", "lat avg", "lat max", "workset" };
	unsigned int k, c;
	size_t i;
	int err = 0;

	if (!v->count) {
		view__none(v->out, "I/O to named files", v->filtered);
		return 0;
	}
	for (k = 0; k < FS_KINDS && !err; k++) {
		struct table *t = table__new(sizeof(head) / sizeof(head[0]));
		bool any = false;

		if (!t)
			return -ENOMEM;
		table__align_left(t, 1, true);
		for (c = 0; c < sizeof(head) / sizeof(head[0]); c++)
			table__cell(t, "%s", head[c]);
		table__end_row(t);
		for (i = 0; i < v->count; i++) {
			struct fs_entry *e = all[i];
			struct op_stats *tot = &e->stats.op[GRP_TOTAL];
			char buf[32];

			if (e->kind != k)
				continue;
			any = true;
			view__device_cell(t, join__device(j, e->dev), e->part);
			table__cell(t, "%s", e->name);
			table__cell(t, "%llu", (unsigned long long)tot->count);
			table__cell(t, "%llu", (unsigned long long)e->stats.op[GRP_READ].count);
			table__cell(t, "%llu", (unsigned long long)e->stats.op[GRP_WRITE].count);
			table__fmt_bytes(buf, sizeof(buf), (double)e->stats.op[GRP_READ].size.sum * 512);
			table__cell(t, "%s", buf);
			table__fmt_bytes(buf, sizeof(buf),
					 (double)e->stats.op[GRP_WRITE].size.sum * 512);
			table__cell(t, "%s", buf);
			table__cell_ns(t, tot->latency.count != 0, dist__avg(&tot->latency));
			table__cell_ns(t, tot->latency.count != 0, (double)tot->latency.max);
			table__fmt_bytes(buf, sizeof(buf), (double)workset__sectors(&tot->workset) * 512);
			table__cell(t, "%s", buf);
			table__end_row(t);
		}
		if (any) {
			fprintf(v->out, "%s%s:\n", k ? "\n" : "", kind_title[k]);
			err = table__print(t, v->out, 2);
		}
		table__free(t);
	}
	return err;
}

static int fs_finish(void *p, const struct join *j)
{
	struct fs_view *v = p;
	struct fs_entry **all = sorted(v);
	size_t i;
	int err = 0;

	if (!all)
		return -ENOMEM;
	for (i = 0; i < v->count; i++)
		io_stats__total(&all[i]->stats);
	if (v->fmt == VIEW_JSON)
		write_json(v, all, j);
	else if (v->fmt == VIEW_CSV)
		write_csv(v, all, j);
	else
		err = write_table(v, all, j);
	free(all);
	if (v->oom || err)
		return -ENOMEM;
	return view__flush(v->out);
}

static void fs_destroy(void *p)
{
	struct fs_view *v = p;
	struct fs_entry *e, *next;
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->cap; i++) {
		for (e = v->tab[i]; e; e = next) {
			next = e->next;
			io_stats__free(&e->stats);
			free(e);
		}
	}
	free(v->tab);
	free(v);
}

const struct view_ops fs_view_ops = {
	.name = "fs-statistics",
	.join_flags = JOIN_FILES | JOIN_PATHS,
	.create = fs_create,
	.record = fs_record,
	.finish = fs_finish,
	.destroy = fs_destroy,
};
