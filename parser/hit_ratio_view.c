// SPDX-License-Identifier: BSD-3-Clause
/*
 * --hit-ratio-curve: per device, the hit ratio an LRU cache in front of
 * it would have had at each size, powers of two from 1 MiB (or one
 * line) up to the first that holds the workset, for reads, writes and
 * both: what sizing a cache from a trace asks.
 *
 * The cache holds lines of view_opts.line_sectors (4 KiB by default,
 * Open-CAS's default cache line; --cache-line-size as casadm's); an I/O
 * accesses each line it touches, in submission order, reads and writes
 * alike (a write is cached, as in write-back and write-through modes).
 * A discard takes its lines out; flushes touch nothing. A line's first
 * access, and its first after a discard, misses at every size (cold); the
 * workset is the most lines in at once, at no limit (a discard's lines
 * out), not the lines ever touched. Distances are exact (reuse.h):
 * hits at size C are the accesses at distance C or less. An I/O of more
 * than HIT_LINES_MAX lines accesses its first HIT_LINES_MAX; the
 * rest are counted as not simulated (none in real traces: the kernel
 * splits I/O far smaller).
 *
 * JSON: {"hitRatioCurve": [{desc, duration, lineSize, workset,
 * notSimulated, read|write|total: {accesses, coldMisses, curve: [{cacheSize,
 * hits, hitRatio}]}}]}, sizes in bytes. CSV: one row per device,
 * operation and size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv_writer.h"
#include "io_stats.h"
#include "json_writer.h"
#include "reuse.h"
#include "stats_view.h"
#include "table_writer.h"
#include "view.h"

#define HIT_LINES_MAX 16384
/* the smallest size listed when the workset is larger: 1 MiB, 2^20 bytes */
#define FIRST_SIZE_SHIFT 20
/* distances by order: d <= 2^k; d of 2^64 lines would not fit a trace */
#define ORDERS 64

enum { HR_READ, HR_WRITE, HR_TOTAL, HR_OPS };
static const char *const hr_op_name[HR_OPS] = { "read", "write", "total" };

struct dev_cache {
	struct reuse lru;
	/* [HR_TOTAL]: read's and write's added up by fill_totals() at the end */
	uint64_t by_order[HR_OPS][ORDERS + 1];	/* accesses at distance in (2^(k-1), 2^k] */
	uint64_t accesses[HR_OPS], cold[HR_OPS];
	uint64_t peak;				/* most lines cached at once, at no limit */
	uint64_t peak_depth;			/* ... and holes: no distance is larger */
	uint64_t not_simulated;
	uint64_t first_ts, last_ts;
	bool any;
};

struct hit_view {
	FILE *out;
	struct view_opts o;
	uint64_t line;		/* sectors a cache line */
	struct dev_cache **dev;
	size_t ndev;
	bool oom;
};

static void *hit_create(FILE *out, const struct view_opts *o)
{
	struct hit_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->o = *o;
	v->line = o->line_sectors ? o->line_sectors : 8;
	return v;
}

/* The order of distance d: the smallest k with d <= 2^k. */
static unsigned int order_of(uint64_t d)
{
	return d <= 1 ? 0 : 64 - (unsigned int)__builtin_clzll(d - 1);
}

static struct dev_cache *cache_of(struct hit_view *v, unsigned int idx)
{
	struct dev_cache **d = view__grow(v->dev, &v->ndev, sizeof(*d), idx);

	if (!d)
		return NULL;
	v->dev = d;
	if (!d[idx])
		d[idx] = calloc(1, sizeof(**d));
	return d[idx];
}

static void hit_record(void *p, const struct io_rec *r)
{
	struct hit_view *v = p;
	enum op_group grp;
	struct dev_cache *c;
	uint64_t first, last, b, n, dist, end;
	int op;

	if (r->kind != REC_IO || !r->dev || !r->len)
		return;
	grp = io_stats__group(r);
	if (grp != GRP_READ && grp != GRP_WRITE && grp != GRP_DISCARD)
		return;
	c = cache_of(v, r->dev->index);
	if (!c) {
		v->oom = true;
		return;
	}
	/* passed: its lines were accessed in its place; only its completion is new */
	if (r->passed) {
		if (grp != GRP_DISCARD && r->state == IO_COMPLETED && c->any &&
		    r->ts + r->latency > c->last_ts)
			c->last_ts = r->ts + r->latency;
		return;
	}
	first = r->lba / v->line;
	last = (r->lba > UINT64_MAX - (r->len - 1) ? UINT64_MAX : r->lba + (r->len - 1)) /
	       v->line;
	if (grp == GRP_DISCARD) {
		if (reuse__forget_range(&c->lru, first, last))
			v->oom = true;
		return;
	}
	/* as the histograms time a device: first submission to last completion */
	end = r->ts + (r->state == IO_COMPLETED ? r->latency : 0);
	if (!c->any || r->ts < c->first_ts)
		c->first_ts = r->ts;
	if (!c->any || end > c->last_ts)
		c->last_ts = end;
	c->any = true;
	op = grp == GRP_READ ? HR_READ : HR_WRITE;
	/* len is 32 bits: at most 2^29 + 1 lines */
	n = last - first + 1;
	if (n > HIT_LINES_MAX) {
		c->not_simulated += n - HIT_LINES_MAX;
		last = first + HIT_LINES_MAX - 1;
	}
	for (b = first;; b++) {
		if (reuse__access(&c->lru, b, &dist)) {
			v->oom = true;
			return;
		}
		c->accesses[op]++;
		if (dist)
			c->by_order[op][order_of(dist)]++;
		else
			c->cold[op]++;
		if (b == last)
			break;
	}
	if (c->lru.blocks > c->peak)
		c->peak = c->lru.blocks;
	if (reuse__depth(&c->lru) > c->peak_depth)
		c->peak_depth = reuse__depth(&c->lru);
}

/* The sizes listed, as orders: [*from, *to]. */
static void size_orders(const struct hit_view *v, const struct dev_cache *c, unsigned int *from,
			unsigned int *to)
{
	/* 4 to 64 KiB lines (cmd_parser checks --cache-line-size): 1 MiB is 2^8 to 2^4 of them */
	unsigned int first = FIRST_SIZE_SHIFT - 9 - order_of(v->line);

	*to = order_of(c->peak_depth ? c->peak_depth : 1);
	*from = *to > first ? first : 0;
}

/* Hits of op in a cache of 2^k lines. */
static uint64_t hits(const struct dev_cache *c, int op, unsigned int k)
{
	uint64_t h = 0;
	unsigned int i;

	for (i = 0; i <= k; i++)
		h += c->by_order[op][i];
	return h;
}

static double ratio(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

static uint64_t size_bytes(const struct hit_view *v, unsigned int k)
{
	return v->line * 512 << k;
}

static void write_json(struct hit_view *v, const struct join *j)
{
	struct json_writer *jw = jw__new(v->out, true);
	unsigned int from, to, k;
	size_t i;
	int op;

	if (!jw) {
		v->oom = true;
		return;
	}
	jw__start_object(jw);
	jw__key(jw, "hitRatioCurve");
	jw__start_array(jw);
	for (i = 0; i < v->ndev; i++) {
		const struct dev_cache *c = v->dev[i];

		if (!c || !c->any)
			continue;
		size_orders(v, c, &from, &to);
		jw__start_object(jw);
		stats_view__json_desc(jw, join__device(j, i), c->last_ts - c->first_ts);
		jw__key(jw, "lineSize");
		jw__uint(jw, v->line * 512);
		jw__key(jw, "workset");
		jw__uint_str(jw, c->peak * v->line * 512);
		jw__key(jw, "notSimulated");
		jw__uint_str(jw, c->not_simulated);
		for (op = 0; op < HR_OPS; op++) {
			jw__name(jw, hr_op_name[op]);
			jw__start_object(jw);
			jw__key(jw, "accesses");
			jw__uint_str(jw, c->accesses[op]);
			jw__key(jw, "coldMisses");
			jw__uint_str(jw, c->cold[op]);
			jw__key(jw, "curve");
			jw__start_array(jw);
			for (k = from; k <= to; k++) {
				jw__start_object(jw);
				jw__key(jw, "cacheSize");
				jw__uint_str(jw, size_bytes(v, k));
				jw__key(jw, "hits");
				jw__uint_str(jw, hits(c, op, k));
				jw__key(jw, "hitRatio");
				jw__double(jw, ratio(hits(c, op, k), c->accesses[op]));
				jw__end_object(jw);
			}
			jw__end_array(jw);
			jw__end_object(jw);
		}
		jw__end_object(jw);
	}
	jw__end_array(jw);
	jw__end_object(jw);
	jw__newline(jw);
	jw__free(jw);
}

static void write_csv(struct hit_view *v, const struct join *j)
{
	static const char *const head[] = { "device.id", "device.name", "operation", "cacheSize",
					    "accesses", "hits", "hitRatio" };
	struct csv_writer *cw = csv__new(v->out);
	unsigned int from, to, k;
	size_t i;
	int op;

	if (!cw) {
		v->oom = true;
		return;
	}
	for (k = 0; k < sizeof(head) / sizeof(head[0]); k++)
		csv__string(cw, head[k]);
	csv__end_row(cw);
	for (i = 0; i < v->ndev; i++) {
		const struct dev_cache *c = v->dev[i];
		const struct device *d = join__device(j, i);

		if (!c || !c->any)
			continue;
		size_orders(v, c, &from, &to);
		for (op = 0; op < HR_OPS; op++) {
			for (k = from; k <= to; k++) {
				csv__uint(cw, d->id);
				csv__string(cw, d->name);
				csv__string(cw, hr_op_name[op]);
				csv__uint(cw, size_bytes(v, k));
				csv__uint(cw, c->accesses[op]);
				csv__uint(cw, hits(c, op, k));
				csv__double(cw, ratio(hits(c, op, k), c->accesses[op]));
				csv__end_row(cw);
			}
		}
	}
	csv__free(cw);
}

static void percent_cell(struct table *t, const struct dev_cache *c, int op, unsigned int k)
{
	if (c->accesses[op])
		table__cell(t, "%.2f", 100 * ratio(hits(c, op, k), c->accesses[op]));
	else
		table__cell(t, "-");
}

static void write_table(struct hit_view *v, const struct join *j)
{
	unsigned int from, to, k;
	bool first = true;
	char buf[32], line[32];
	size_t i;
	int op;

	for (i = 0; i < v->ndev; i++) {
		const struct dev_cache *c = v->dev[i];
		struct table *t;

		if (!c || !c->any)
			continue;
		size_orders(v, c, &from, &to);
		stats_view__device_title(v->out, &first, join__device(j, i),
					 c->last_ts - c->first_ts);
		table__fmt_bytes(line, sizeof(line), (double)v->line * 512);
		table__fmt_bytes(buf, sizeof(buf), (double)c->peak * v->line * 512);
		fprintf(v->out, "\n%s lines accessed: %llu reads, %llu writes (cold: %llu, %llu); "
			"workset %s\n", line, (unsigned long long)c->accesses[HR_READ],
			(unsigned long long)c->accesses[HR_WRITE], (unsigned long long)c->cold[HR_READ],
			(unsigned long long)c->cold[HR_WRITE], buf);
		if (c->not_simulated)
			fprintf(v->out, "not simulated (past %u lines of one I/O): %llu lines\n",
				HIT_LINES_MAX, (unsigned long long)c->not_simulated);
		t = table__new(4);
		if (!t) {
			v->oom = true;
			return;
		}
		table__cell(t, "CACHE");
		for (op = 0; op < HR_OPS; op++)
			table__cell(t, "%s HITS %%", op == HR_READ ? "READ" : op == HR_WRITE ? "WRITE"
										 : "TOTAL");
		table__end_row(t);
		for (k = from; k <= to; k++) {
			table__fmt_bytes(buf, sizeof(buf), (double)size_bytes(v, k));
			table__cell(t, "%s", buf);
			for (op = 0; op < HR_OPS; op++)
				percent_cell(t, c, op, k);
			table__end_row(t);
		}
		fputc('\n', v->out);
		if (table__print(t, v->out, 0))
			v->oom = true;
		table__free(t);
	}
	if (first)
		view__none(v->out, "read or write I/O", v->o.filtered);
}

static void fill_totals(struct dev_cache *c)
{
	unsigned int k;

	c->accesses[HR_TOTAL] = c->accesses[HR_READ] + c->accesses[HR_WRITE];
	c->cold[HR_TOTAL] = c->cold[HR_READ] + c->cold[HR_WRITE];
	for (k = 0; k <= ORDERS; k++)
		c->by_order[HR_TOTAL][k] = c->by_order[HR_READ][k] + c->by_order[HR_WRITE][k];
}

static int hit_finish(void *p, const struct join *j)
{
	struct hit_view *v = p;
	size_t i;

	for (i = 0; i < v->ndev; i++)
		if (v->dev[i])
			fill_totals(v->dev[i]);
	if (v->o.format == VIEW_JSON)
		write_json(v, j);
	else if (v->o.format == VIEW_CSV)
		write_csv(v, j);
	else
		write_table(v, j);
	if (v->oom)
		return -ENOMEM;
	return view__flush(v->out);
}

static void hit_destroy(void *p)
{
	struct hit_view *v = p;
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->ndev; i++) {
		if (v->dev[i])
			reuse__free(&v->dev[i]->lru);
		free(v->dev[i]);
	}
	free(v->dev);
	free(v);
}

const struct view_ops hit_ratio_view_ops = {
	.name = "hit-ratio-curve",
	.in_order = true,
	.create = hit_create,
	.record = hit_record,
	.finish = hit_finish,
	.destroy = hit_destroy,
};
