// SPDX-License-Identifier: BSD-3-Clause
/*
 * The histogram views, per device and operation group (io_stats.h):
 *
 * --latency-histogram      completed I/Os by latency, log2 ns buckets
 * --io-size-histogram      I/Os by length, log2 sector buckets
 * --queue-depth-histogram  I/Os by queue depth at submission, log2 buckets
 * --lba-histogram          I/Os by the LBAs they touch, in buckets of
 *                          --bucket-size sectors aligned to LBA 0; an I/O
 *                          counts once in every bucket it touches. Only
 *                          LBAs in [--subrange-start, --subrange-end]
 *                          count. Empty I/Os (flushes) touch nothing.
 *                          More than LBA_BUCKETS_MAX buckets: -E2BIG.
 *
 * Log2 buckets are Open-CAS's: bucket 0 is [0, 0], bucket k > 0 is
 * [2^(k-1), 2^k - 1]. JSON and CSV list them from bucket 0 to the last
 * non-empty one, empty ones included, as Open-CAS prints them, so that a
 * script can take a bucket by its place; the table starts at the first
 * non-empty one, as biolatency does. LBA buckets are printed only when
 * not empty. JSON keeps the shape of OCTF's IoHistogramSet: histogram[].desc
 * .device, .duration, and per group {unit, range[{begin, end, count}]}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv_writer.h"
#include "io_stats.h"
#include "json_writer.h"
#include "stats_view.h"
#include "table_writer.h"
#include "u64map.h"

#define LOG2_BUCKETS 65
/*
 * LBA buckets counted at most, over all devices and groups: 32 MiB of
 * maps. A bucket size that needs more (or a damaged trace with a 2 TiB
 * I/O) is refused rather than eating the machine.
 */
#define LBA_BUCKETS_MAX (1u << 20)

enum hist_kind { H_LATENCY, H_SIZE, H_QD, H_LBA };

struct dev_hist {
	bool any;
	uint64_t first_ts, last_ts;
	uint64_t log2[GRP_COUNT][LOG2_BUCKETS];
	struct u64map lba[GRP_COUNT];	/* bucket number -> count */
};

struct hist_view {
	FILE *out;
	enum hist_kind kind;
	struct view_opts o;
	struct dev_hist **dev;	/* by device index */
	size_t ndev;
	size_t lba_buckets;	/* in all the maps */
	bool oom, too_many;
	/* output staging */
	struct hist_row *rows;
	size_t nrows, rows_cap;
};

static const char *const unit_json[] = { "ns", "sector", "I/O", "sector" };
static const char *const unit_table[] = { "nsecs", "sectors", "queue depth", "LBA" };

static void *hist_create(FILE *out, const struct view_opts *o, enum hist_kind kind)
{
	struct hist_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->kind = kind;
	v->o = *o;
	if (!v->o.bucket_size)
		v->o.bucket_size = 1;
	return v;
}

static void *lat_create(FILE *out, const struct view_opts *o)
{
	return hist_create(out, o, H_LATENCY);
}

static void *size_create(FILE *out, const struct view_opts *o)
{
	return hist_create(out, o, H_SIZE);
}

static void *qd_create(FILE *out, const struct view_opts *o)
{
	return hist_create(out, o, H_QD);
}

static void *lba_create(FILE *out, const struct view_opts *o)
{
	return hist_create(out, o, H_LBA);
}

static unsigned int log2_bucket(uint64_t v)
{
	return v ? 64 - (unsigned int)__builtin_clzll(v) : 0;
}

static struct dev_hist *dev_hist(struct hist_view *v, unsigned int idx)
{
	struct dev_hist **nd = view__grow(v->dev, &v->ndev, sizeof(*nd), idx);

	if (!nd)
		return NULL;
	v->dev = nd;
	if (!v->dev[idx])
		v->dev[idx] = calloc(1, sizeof(struct dev_hist));
	return v->dev[idx];
}

static int lba_add(struct hist_view *v, struct u64map *m, uint64_t bucket)
{
	uint64_t c = 0;

	if (!u64map__get(m, bucket, &c)) {
		if (v->lba_buckets == LBA_BUCKETS_MAX) {
			v->too_many = true;
			return 0;
		}
		v->lba_buckets++;
	}
	return u64map__put(m, bucket, c + 1);
}

/* Counts r in every LBA bucket it touches within the subrange. */
static int add_lba(struct hist_view *v, struct u64map *m, const struct io_rec *r)
{
	uint64_t first = r->lba, last, b;
	int err;

	if (!r->len)
		return 0;
	last = r->lba + r->len - 1;
	if (last < first)
		last = UINT64_MAX;
	if (last < v->o.subrange_start || first > v->o.subrange_end)
		return 0;
	if (first < v->o.subrange_start)
		first = v->o.subrange_start;
	if (last > v->o.subrange_end)
		last = v->o.subrange_end;
	if (last / v->o.bucket_size - first / v->o.bucket_size >= LBA_BUCKETS_MAX)
		v->too_many = true;
	for (b = first / v->o.bucket_size; b <= last / v->o.bucket_size && !v->too_many; b++) {
		err = lba_add(v, m, b);
		if (err)
			return err;
		if (b == UINT64_MAX)
			break;
	}
	return 0;
}

static void hist_record(void *p, const struct io_rec *r)
{
	struct hist_view *v = p;
	enum op_group g;
	struct dev_hist *h;
	uint64_t val, end;

	if (r->kind != REC_IO)
		return;
	h = dev_hist(v, r->dev->index);
	if (!h) {
		v->oom = true;
		return;
	}
	end = r->ts + (r->state == IO_COMPLETED ? r->latency : 0);
	if (!h->any || r->ts < h->first_ts)
		h->first_ts = r->ts;
	if (!h->any || end > h->last_ts)
		h->last_ts = end;
	h->any = true;
	g = io_stats__group(r);
	if (v->kind == H_LBA) {
		if (v->too_many)
			return;
		if ((g != GRP_TOTAL && add_lba(v, &h->lba[g], r)) || add_lba(v, &h->lba[GRP_TOTAL], r))
			v->oom = true;
		return;
	}
	switch (v->kind) {
	case H_LATENCY:
		if (r->state != IO_COMPLETED)
			return;
		val = r->latency;
		break;
	case H_SIZE:
		val = r->len;
		break;
	default:
		val = r->qd;
		break;
	}
	if (g != GRP_TOTAL)
		h->log2[g][log2_bucket(val)]++;
	h->log2[GRP_TOTAL][log2_bucket(val)]++;
}

static int by_begin(const void *a, const void *b)
{
	const struct hist_row *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/*
 * Fills v->rows with the ranges of one group; returns their count (0 if
 * empty). from_zero: log2 buckets from bucket 0 on, not from the first
 * non-empty one.
 */
static size_t group_rows(struct hist_view *v, struct dev_hist *h, unsigned int g, bool from_zero)
{
	size_t n = 0;

	if (v->kind == H_LBA) {
		size_t pos = 0, need = u64map__count(&h->lba[g]);
		uint64_t b, c;

		if (need > v->rows_cap) {
			struct hist_row *nr = realloc(v->rows, need * sizeof(*nr));

			if (!nr) {
				v->oom = true;
				return 0;
			}
			v->rows = nr;
			v->rows_cap = need;
		}
		while (u64map__next(&h->lba[g], &pos, &b, &c)) {
			struct hist_row *row = &v->rows[n++];

			row->begin = b * v->o.bucket_size;
			row->end = row->begin + (v->o.bucket_size - 1);
			if (row->end < row->begin)
				row->end = UINT64_MAX;
			row->count = c;
		}
		if (n)
			qsort(v->rows, n, sizeof(*v->rows), by_begin);
	} else {
		int lo = -1, hi = -1, k;

		for (k = 0; k < LOG2_BUCKETS; k++) {
			if (h->log2[g][k]) {
				if (lo < 0)
					lo = k;
				hi = k;
			}
		}
		if (lo < 0)
			return 0;
		if (from_zero)
			lo = 0;
		if (v->rows_cap < LOG2_BUCKETS) {
			struct hist_row *nr = realloc(v->rows, LOG2_BUCKETS * sizeof(*nr));

			if (!nr) {
				v->oom = true;
				return 0;
			}
			v->rows = nr;
			v->rows_cap = LOG2_BUCKETS;
		}
		for (k = lo; k <= hi; k++) {
			struct hist_row *row = &v->rows[n++];

			row->begin = k ? 1ull << (k - 1) : 0;
			row->end = k == 64 ? UINT64_MAX : k ? (1ull << k) - 1 : 0;
			row->count = h->log2[g][k];
		}
	}
	return n;
}

static void write_json(struct hist_view *v, const struct join *j)
{
	struct json_writer *jw = jw__new(v->out, true);
	unsigned int g;
	size_t i, k, n;

	if (!jw) {
		v->oom = true;
		return;
	}
	jw__start_object(jw);
	jw__key(jw, "histogram");
	jw__start_array(jw);
	for (i = 0; i < v->ndev; i++) {
		struct dev_hist *h = v->dev[i];

		if (!h || !h->any)
			continue;
		jw__start_object(jw);
		stats_view__json_desc(jw, join__device(j, i), h->last_ts - h->first_ts);
		for (g = 0; g < GRP_COUNT; g++) {
			n = group_rows(v, h, g, true);
			jw__name(jw, op_group_name[g]);
			jw__start_object(jw);
			jw__key(jw, "unit");
			jw__string(jw, unit_json[v->kind]);
			jw__key(jw, "range");
			jw__start_array(jw);
			for (k = 0; k < n; k++) {
				jw__start_object(jw);
				jw__key(jw, "begin");
				jw__uint_str(jw, v->rows[k].begin);
				jw__key(jw, "end");
				jw__uint_str(jw, v->rows[k].end);
				jw__key(jw, "count");
				jw__uint_str(jw, v->rows[k].count);
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

static void write_csv(struct hist_view *v, const struct join *j)
{
	static const char *const head[] = { "device.id", "device.name", "operation", "unit",
					    "begin", "end", "count" };
	struct csv_writer *cw = csv__new(v->out);
	unsigned int g;
	size_t i, k, n;

	if (!cw) {
		v->oom = true;
		return;
	}
	for (k = 0; k < sizeof(head) / sizeof(head[0]); k++)
		csv__string(cw, head[k]);
	csv__end_row(cw);
	for (i = 0; i < v->ndev; i++) {
		struct dev_hist *h = v->dev[i];
		const struct device *d = join__device(j, i);

		if (!h || !h->any)
			continue;
		for (g = 0; g < GRP_COUNT; g++) {
			n = group_rows(v, h, g, true);
			for (k = 0; k < n; k++) {
				csv__uint(cw, d->id);
				csv__string(cw, d->name);
				csv__string(cw, op_group_name[g]);
				csv__string(cw, unit_json[v->kind]);
				csv__uint(cw, v->rows[k].begin);
				csv__uint(cw, v->rows[k].end);
				csv__uint(cw, v->rows[k].count);
				csv__end_row(cw);
			}
		}
	}
	csv__free(cw);
}

static void write_table(struct hist_view *v, const struct join *j)
{
	bool first = true;
	unsigned int g;
	size_t i, n;

	for (i = 0; i < v->ndev; i++) {
		struct dev_hist *h = v->dev[i];

		if (!h || !h->any)
			continue;
		stats_view__device_title(v->out, &first, join__device(j, i),
					 h->last_ts - h->first_ts);
		for (g = 0; g < GRP_COUNT; g++) {
			n = group_rows(v, h, g, false);
			if (!n)
				continue;
			fprintf(v->out, "\n%s:\n", op_group_name[g]);
			table__histogram(v->out, unit_table[v->kind], v->rows, n);
		}
	}
	if (first)
		view__none(v->out, "I/O", v->o.filtered);
}

static int hist_finish(void *p, const struct join *j)
{
	struct hist_view *v = p;

	if (v->too_many)
		return -E2BIG;
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

static void hist_destroy(void *p)
{
	struct hist_view *v = p;
	unsigned int g;
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->ndev; i++) {
		if (!v->dev[i])
			continue;
		for (g = 0; g < GRP_COUNT; g++)
			u64map__free(&v->dev[i]->lba[g]);
		free(v->dev[i]);
	}
	free(v->dev);
	free(v->rows);
	free(v);
}

const struct view_ops latency_hist_ops = {
	.name = "latency-histogram",
	.create = lat_create,
	.record = hist_record,
	.finish = hist_finish,
	.destroy = hist_destroy,
};

const struct view_ops size_hist_ops = {
	.name = "io-size-histogram",
	.create = size_create,
	.record = hist_record,
	.finish = hist_finish,
	.destroy = hist_destroy,
};

const struct view_ops qd_hist_ops = {
	.name = "queue-depth-histogram",
	.create = qd_create,
	.record = hist_record,
	.finish = hist_finish,
	.destroy = hist_destroy,
};

const struct view_ops lba_hist_ops = {
	.name = "lba-histogram",
	.create = lba_create,
	.record = hist_record,
	.finish = hist_finish,
	.destroy = hist_destroy,
};
