// SPDX-License-Identifier: BSD-3-Clause
/*
 * --time-series [--interval S] [--by completion]: per device, the I/O of
 * each interval (series.h), by submission or completion time, from its
 * first I/O to its last, empty intervals included, so that a plot's x
 * axis is time: IOPS, bandwidth, latency (average, p50, p99, max) and
 * queue depth per operation group, as iostat shows a live system but for
 * every I/O of the trace.
 *
 * JSON: {"timeSeries": [{"device", "interval", "by", "slots": [{"start", and
 * per group with I/Os ("total" always) {count, errors, notCompleted,
 * iops, bandwidth (MiB/s), latency {average, p50, p99, max}, queueDepth
 * (average at submission)}}]}]}, times in ns from the trace's first
 * event. CSV: a row per device, interval and group, "by" last. Table: a row per
 * interval, reads and writes apart, latency and queue depth over all; its
 * first column says "done s" by completion.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv_writer.h"
#include "json_writer.h"
#include "series.h"
#include "stats_view.h"
#include "table_writer.h"
#include "wall_clock.h"

struct series_view {
	FILE *out;
	bool filtered;		/* view_opts.filtered */
	enum view_format fmt;
	uint64_t interval;
	bool by_completion;
	struct series **dev;	/* by device index */
	size_t ndev;
	size_t budget;		/* slots left */
	int err;		/* -ENOMEM, -E2BIG */
	/* --wall-clock: view_opts.wall_origin_ns (0 = not asked), and its text */
	int64_t wall_origin;
	struct wall_fmt wall;
};

static void *series_create(FILE *out, const struct view_opts *o)
{
	struct series_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->filtered = o->filtered;
	v->fmt = o->format;
	v->interval = o->interval_ns ? o->interval_ns : 1000000000ull;
	v->by_completion = o->by_completion;
	v->wall_origin = o->wall_origin_ns;
	wall_fmt__init(&v->wall, o->format == VIEW_TABLE);
	/* 400 bytes each: 52 MiB at most */
	v->budget = SERIES_INTERVALS_MAX;
	return v;
}

static struct series *dev_series(struct series_view *v, unsigned int idx)
{
	struct series **nd = view__grow(v->dev, &v->ndev, sizeof(*nd), idx);

	if (!nd)
		return NULL;
	v->dev = nd;
	if (!v->dev[idx]) {
		v->dev[idx] = malloc(sizeof(struct series));
		if (v->dev[idx])
			series__init(v->dev[idx], v->interval, v->by_completion);
	}
	return v->dev[idx];
}

static void series_record(void *p, const struct io_rec *r)
{
	struct series_view *v = p;
	struct series *s;

	if (r->kind != REC_IO || v->err)
		return;
	s = dev_series(v, r->dev->index);
	v->err = s ? series__add(s, r, &v->budget) : -ENOMEM;
}

static double per_second(const struct series_view *v, double x)
{
	return x * 1e9 / (double)v->interval;
}

static double avg(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / (double)n : 0.0;
}

/* The wall-clock time of slot k's start (--wall-clock) */
static const char *slot_wall(struct series_view *v, const struct series *s, size_t k)
{
	return wall_fmt(&v->wall, wall_clock__at(v->wall_origin, (s->first + k) * v->interval));
}

/* ---- JSON ---- */

static void json_group(struct json_writer *jw, const struct series_view *v, const char *name,
		       const struct slot_group *g)
{
	jw__name(jw, name);
	jw__start_object(jw);
	jw__key(jw, "count");
	jw__uint_str(jw, g->count);
	jw__key(jw, "errors");
	jw__uint_str(jw, g->errors);
	jw__key(jw, "notCompleted");
	jw__uint_str(jw, g->not_completed);
	jw__key(jw, "iops");
	jw__double(jw, per_second(v, (double)g->count));
	jw__key(jw, "bandwidth");
	jw__double(jw, per_second(v, stats_view__mib(g->sectors)));
	if (g->lat_count) {
		jw__key(jw, "latency");
		jw__start_object(jw);
		jw__key(jw, "average");
		jw__double(jw, avg(g->lat_sum, g->lat_count));
		jw__key(jw, "p50");
		jw__uint_str(jw, g->lat_p50);
		jw__key(jw, "p99");
		jw__uint_str(jw, g->lat_p99);
		jw__key(jw, "max");
		jw__uint_str(jw, g->lat_max);
		jw__end_object(jw);
	}
	jw__key(jw, "queueDepth");
	jw__double(jw, avg(g->qd_sum, g->count));
	jw__end_object(jw);
}

static int write_json(struct series_view *v, const struct join *j)
{
	struct json_writer *jw = jw__new(v->out, true);
	size_t i, k;
	unsigned int g;

	if (!jw)
		return -ENOMEM;
	jw__start_object(jw);
	jw__key(jw, "timeSeries");
	jw__start_array(jw);
	for (i = 0; i < v->ndev; i++) {
		const struct series *s = v->dev[i];

		if (!s || !s->any)
			continue;
		jw__start_object(jw);
		stats_view__json_device(jw, join__device(j, i));
		jw__key(jw, "interval");
		jw__uint_str(jw, v->interval);
		jw__key(jw, "by");
		jw__string(jw, v->by_completion ? "completion" : "submission");
		jw__key(jw, "slots");
		jw__start_array(jw);
		for (k = 0; k < s->n; k++) {
			const struct slot *sl = &s->slots[k];

			jw__start_object(jw);
			jw__key(jw, "start");
			jw__uint_str(jw, (s->first + k) * v->interval);
			if (v->wall_origin) {
				jw__key(jw, "wallClock");
				jw__string(jw, slot_wall(v, s, k));
			}
			for (g = 0; g < GRP_COUNT; g++)
				if (sl->g[g].count || g == GRP_TOTAL)
					json_group(jw, v, op_group_name[g], &sl->g[g]);
			jw__end_object(jw);
		}
		jw__end_array(jw);
		jw__end_object(jw);
	}
	jw__end_array(jw);
	jw__end_object(jw);
	jw__newline(jw);
	jw__free(jw);
	return 0;
}

/* ---- CSV ---- */

static int write_csv(struct series_view *v, const struct join *j)
{
	static const char *const head[] = {
		"device.id", "device.name", "start", "interval", "operation", "count", "errors",
		"notCompleted", "iops", "bandwidth", "latency.average", "latency.p50",
		"latency.p99", "latency.max", "queueDepth.average", "by",
	};
	struct csv_writer *cw = csv__new(v->out);
	size_t i, k;
	unsigned int c, g;

	if (!cw)
		return -ENOMEM;
	for (c = 0; c < sizeof(head) / sizeof(head[0]); c++)
		csv__string(cw, head[c]);
	if (v->wall_origin)
		csv__string(cw, "wallClock");
	csv__end_row(cw);
	for (i = 0; i < v->ndev; i++) {
		const struct series *s = v->dev[i];
		const struct device *d;

		if (!s || !s->any)
			continue;
		d = join__device(j, i);
		for (k = 0; k < s->n; k++) {
			for (g = 0; g < GRP_COUNT; g++) {
				const struct slot_group *sg = &s->slots[k].g[g];

				csv__uint(cw, d->id);
				csv__string(cw, d->name);
				csv__uint(cw, (s->first + k) * v->interval);
				csv__uint(cw, v->interval);
				csv__string(cw, op_group_name[g]);
				csv__uint(cw, sg->count);
				csv__uint(cw, sg->errors);
				csv__uint(cw, sg->not_completed);
				csv__double(cw, per_second(v, (double)sg->count));
				csv__double(cw, per_second(v, stats_view__mib(sg->sectors)));
				if (sg->lat_count) {
					csv__double(cw, avg(sg->lat_sum, sg->lat_count));
					csv__uint(cw, sg->lat_p50);
					csv__uint(cw, sg->lat_p99);
					csv__uint(cw, sg->lat_max);
				} else {
					for (c = 0; c < 4; c++)
						csv__empty(cw);
				}
				csv__double(cw, avg(sg->qd_sum, sg->count));
				/* what start means: last, so that the columns before keep their places */
				csv__string(cw, v->by_completion ? "completion" : "submission");
				if (v->wall_origin)
					csv__string(cw, slot_wall(v, s, k));
				csv__end_row(cw);
			}
		}
	}
	csv__free(cw);
	return 0;
}

/* ---- table ---- */

/* Decimals that show every interval start exactly: 0 for whole seconds, 3 for ms. */
static int decimals(uint64_t interval)
{
	int d = 0;
	uint64_t unit = 1000000000ull;

	while (d < 9 && interval % unit) {
		unit /= 10;
		d++;
	}
	return d;
}

static int write_table(struct series_view *v, const struct join *j)
{
	static const char *const head[] = { "time s", "rd IOPS", "rd MiB/s", "wr IOPS",
					    "wr MiB/s", "IOPS", "lat avg", "p50", "p99", "max",
					    "qd avg" };
	int dec = decimals(v->interval), err = 0;
	bool first = true;
	size_t i, k;
	unsigned int c;

	for (i = 0; i < v->ndev && !err; i++) {
		const struct series *s = v->dev[i];
		struct table *t;

		if (!s || !s->any)
			continue;
		t = table__new(sizeof(head) / sizeof(head[0]));
		if (!t)
			return -ENOMEM;
		stats_view__device_title(v->out, &first, join__device(j, i), s->n * v->interval);
		for (c = 0; c < sizeof(head) / sizeof(head[0]); c++)
			table__cell(t, "%s", c ? head[c] : v->wall_origin ? "time" :
				    v->by_completion ? "done s" : head[c]);
		table__end_row(t);
		for (k = 0; k < s->n; k++) {
			const struct slot_group *rd = &s->slots[k].g[GRP_READ];
			const struct slot_group *wr = &s->slots[k].g[GRP_WRITE];
			const struct slot_group *all = &s->slots[k].g[GRP_TOTAL];

			if (v->wall_origin)
				/* HH:MM:SS and the decimals the interval needs, of the six there */
				table__cell(t, "%.*s", 8 + (dec ? 1 + (dec < 6 ? dec : 6) : 0),
					    slot_wall(v, s, k));
			else
				table__cell(t, "%.*f", dec,
					    (double)((s->first + k) * v->interval) / 1e9);
			table__cell(t, "%.1f", per_second(v, (double)rd->count));
			table__cell(t, "%.2f", per_second(v, stats_view__mib(rd->sectors)));
			table__cell(t, "%.1f", per_second(v, (double)wr->count));
			table__cell(t, "%.2f", per_second(v, stats_view__mib(wr->sectors)));
			table__cell(t, "%.1f", per_second(v, (double)all->count));
			table__cell_ns(t, all->lat_count != 0, avg(all->lat_sum, all->lat_count));
			table__cell_ns(t, all->lat_count != 0, (double)all->lat_p50);
			table__cell_ns(t, all->lat_count != 0, (double)all->lat_p99);
			table__cell_ns(t, all->lat_count != 0, (double)all->lat_max);
			table__cell(t, "%.1f", avg(all->qd_sum, all->count));
			table__end_row(t);
		}
		err = table__print(t, v->out, 2);
		table__free(t);
	}
	if (first)
		view__none(v->out, "I/O", v->filtered);
	return err;
}

static int series_finish(void *p, const struct join *j)
{
	struct series_view *v = p;
	size_t i;
	int err;

	if (v->err)
		return v->err;
	for (i = 0; i < v->ndev; i++)
		if (v->dev[i])
			series__finish(v->dev[i]);
	if (v->fmt == VIEW_JSON)
		err = write_json(v, j);
	else if (v->fmt == VIEW_CSV)
		err = write_csv(v, j);
	else
		err = write_table(v, j);
	return err ? err : view__flush(v->out);
}

static void series_destroy(void *p)
{
	struct series_view *v = p;
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->ndev; i++) {
		if (v->dev[i])
			series__free(v->dev[i]);
		free(v->dev[i]);
	}
	free(v->dev);
	free(v);
}

const struct view_ops series_view_ops = {
	.name = "time-series",
	.join_flags = 0,
	.create = series_create,
	.record = series_record,
	.finish = series_finish,
	.destroy = series_destroy,
};
