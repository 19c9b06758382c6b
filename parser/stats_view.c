// SPDX-License-Identifier: BSD-3-Clause
/*
 * --statistics: per device, per operation group (io_stats.h) - count,
 * errors, I/Os without completion, size and latency (min, average, max,
 * total, percentiles by count), IOPS, bandwidth and workset.
 *
 * JSON keeps the shape of OCTF's IoStatisticsSet so its readers find
 * things where they were (statistics[].desc.device, .duration,
 * .write.latency.average, .write.metrics.throughput.value, ...), with
 * percentiles under Open-CAS's keys ("90.000000th", ..., and a median,
 * "50.000000th", which it lacks) and notCompleted added; CSV and tables
 * say p50 ... p99.99;
 * queueTime and deviceTime (btt's Q2D and D2C) appear when the trace has
 * dispatch events. Durations and latencies in ns, sizes in sectors.
 * IOPS and bandwidth are over the device's duration: first submission to
 * last completion.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv_writer.h"
#include "io_stats.h"
#include "json_writer.h"
#include "stats_view.h"
#include "table_writer.h"

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
static const char *const pct_names[] = { "p50", "p90", "p99", "p99.9", "p99.99" };
/*
 * JSON's keys are Open-CAS's (std::to_string(90.0) + "th"), so that its
 * users' scripts find them; its values are numbers, as in its
 * map<string, double>. Open-CAS computes no median (50.000000th is ours)
 * and weighs its percentiles by the values' sum; ours are by count.
 */
static const char *const pct_keys[] = { "50.000000th", "90.000000th", "99.000000th",
					"99.900000th", "99.990000th" };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

struct stats_view {
	FILE *out;
	bool filtered;		/* view_opts.filtered */
	enum view_format fmt;
	struct io_stats *dev;	/* by device index */
	size_t ndev;
	bool oom;
};

struct io_stats *stats_view__device_stats(struct io_stats **arr, size_t *n, unsigned int idx,
					  bool percentiles)
{
	size_t i = *n;
	struct io_stats *na;

	if (idx < i)
		return &(*arr)[idx];
	na = view__grow_to(*arr, n, sizeof(*na), idx);
	if (!na)
		return NULL;
	for (; i < *n; i++)
		io_stats__init(&na[i], percentiles);
	*arr = na;
	return &na[idx];
}

static void *stats_create(FILE *out, const struct view_opts *o)
{
	struct stats_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->filtered = o->filtered;
	v->fmt = o->format;
	return v;
}

static void stats_record(void *p, const struct io_rec *r)
{
	struct stats_view *v = p;
	struct io_stats *s;

	if (r->kind != REC_IO)
		return;
	s = stats_view__device_stats(&v->dev, &v->ndev, r->dev->index, true);
	if (!s) {
		v->oom = true;
		return;
	}
	io_stats__add(s, r, true);
}

static double per_second(double v, uint64_t ns)
{
	return ns ? v * 1e9 / (double)ns : 0.0;
}

double stats_view__mib(uint64_t sectors)
{
	return (double)sectors * 512.0 / (1024.0 * 1024.0);
}

void stats_view__json_desc(struct json_writer *jw, const struct device *d, uint64_t dur_ns)
{
	jw__key(jw, "desc");
	jw__start_object(jw);
	stats_view__json_device(jw, d);
	jw__end_object(jw);
	jw__key(jw, "duration");
	jw__uint_str(jw, dur_ns);
}

void stats_view__json_device(struct json_writer *jw, const struct device *d)
{
	jw__key(jw, "device");
	jw__start_object(jw);
	jw__key(jw, "id");
	jw__uint_str(jw, d->id);
	jw__key(jw, "name");
	jw__string(jw, d->name);
	jw__key(jw, "size");
	jw__uint_str(jw, d->size);
	jw__key(jw, "model");
	jw__string(jw, d->model);
	jw__end_object(jw);
}

/* octf: "percentiles" also where d keeps none ({}), as OCTF's IoStatistics always has it */
static void json_dist(struct json_writer *jw, const char *name, const char *unit,
		      const struct dist *d, bool octf)
{
	unsigned int i;

	jw__name(jw, name);
	jw__start_object(jw);
	jw__key(jw, "unit");
	jw__string(jw, unit);
	jw__key(jw, "average");
	jw__double(jw, dist__avg(d));
	jw__key(jw, "min");
	jw__uint_str(jw, d->count ? d->min : 0);
	jw__key(jw, "max");
	jw__uint_str(jw, d->max);
	jw__key(jw, "count");
	jw__uint_str(jw, d->count);
	jw__key(jw, "total");
	jw__uint_str(jw, d->sum);
	/* kept, there also when empty, as Open-CAS prints it */
	if (d->percentiles || octf) {
		jw__key(jw, "percentiles");
		jw__start_object(jw);
		for (i = 0; dist__has_percentiles(d) && i < NPCT; i++) {
			jw__name(jw, pct_keys[i]);
			jw__uint(jw, dist__percentile(d, pcts[i]));
		}
		jw__end_object(jw);
	}
	jw__end_object(jw);
}

void stats_view__json_dist(struct json_writer *jw, const char *name, const char *unit,
			   const struct dist *d)
{
	json_dist(jw, name, unit, d, false);
}

static void json_metric(struct json_writer *jw, const char *name, const char *unit, double value)
{
	jw__name(jw, name);
	jw__start_object(jw);
	jw__key(jw, "unit");
	jw__string(jw, unit);
	jw__key(jw, "value");
	jw__double(jw, value);
	jw__end_object(jw);
}

void stats_view__json_op(struct json_writer *jw, const char *name, struct op_stats *o,
			 uint64_t dur, bool dispatch, double wif)
{
	jw__name(jw, name);
	jw__start_object(jw);
	jw__key(jw, "count");
	jw__uint_str(jw, o->count);
	jw__key(jw, "errors");
	jw__uint_str(jw, o->errors);
	jw__key(jw, "notCompleted");
	jw__uint_str(jw, o->not_completed);
	json_dist(jw, "size", "sector", &o->size, true);
	json_dist(jw, "latency", "ns", &o->latency, true);
	if (dispatch) {
		json_dist(jw, "queueTime", "ns", &o->queue_time, true);
		json_dist(jw, "deviceTime", "ns", &o->device_time, true);
	}
	jw__key(jw, "metrics");
	jw__start_object(jw);
	json_metric(jw, "throughput", "IOPS", per_second((double)o->count, dur));
	json_metric(jw, "bandwidth", "MiB/s", per_second(stats_view__mib(o->size.sum), dur));
	json_metric(jw, "workset", "sector", (double)workset__sectors(&o->workset));
	if (wif >= 0) {
		/* Open-CAS's name and its empty unit */
		jw__name(jw, "write invalidation factor");
		jw__start_object(jw);
		jw__key(jw, "unit");
		jw__string(jw, "");
		jw__key(jw, "value");
		jw__double(jw, wif);
		jw__end_object(jw);
	}
	jw__end_object(jw);
	jw__end_object(jw);
}

static bool has_dispatch(const struct io_stats *s)
{
	return s->op[GRP_TOTAL].queue_time.count != 0;
}

static void write_json(struct stats_view *v, const struct join *j)
{
	struct json_writer *jw = jw__new(v->out, true);
	size_t i;
	unsigned int g;

	if (!jw) {
		v->oom = true;
		return;
	}
	jw__start_object(jw);
	jw__key(jw, "statistics");
	jw__start_array(jw);
	for (i = 0; i < v->ndev; i++) {
		struct io_stats *s = &v->dev[i];
		uint64_t dur = io_stats__duration(s);

		if (!s->any)
			continue;
		jw__start_object(jw);
		stats_view__json_desc(jw, join__device(j, i), dur);
		for (g = 0; g < GRP_COUNT; g++)
			stats_view__json_op(jw, op_group_name[g], &s->op[g], dur, has_dispatch(s),
					    -1);
		jw__end_object(jw);
	}
	jw__end_array(jw);
	jw__end_object(jw);
	jw__newline(jw);
	jw__free(jw);
}

/* ---- CSV ---- */

static void csv_header_values(struct csv_writer *cw, const char *name)
{
	static const char *const fields[] = { "min", "average", "max", "total" };
	char col[64];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		snprintf(col, sizeof(col), "%s.%s", name, fields[i]);
		csv__string(cw, col);
	}
	for (i = 0; i < NPCT; i++) {
		snprintf(col, sizeof(col), "%s.%s", name, pct_names[i]);
		csv__string(cw, col);
	}
}

static void csv_values(struct csv_writer *cw, const struct dist *d, bool present)
{
	unsigned int i;

	if (!present || !d->count) {
		for (i = 0; i < 4 + NPCT; i++)
			csv__empty(cw);
		return;
	}
	csv__uint(cw, d->min);
	csv__double(cw, dist__avg(d));
	csv__uint(cw, d->max);
	csv__uint(cw, d->sum);
	for (i = 0; i < NPCT; i++) {
		if (dist__has_percentiles(d))
			csv__uint(cw, dist__percentile(d, pcts[i]));
		else
			csv__empty(cw);
	}
}

static void write_csv(struct stats_view *v, const struct join *j)
{
	static const char *const head[] = { "device.id", "device.name", "operation", "count",
					    "errors", "notCompleted", "duration", "iops",
					    "bandwidth", "workset" };
	struct csv_writer *cw = csv__new(v->out);
	unsigned int i, g;

	if (!cw) {
		v->oom = true;
		return;
	}
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		csv__string(cw, head[i]);
	csv_header_values(cw, "size");
	csv_header_values(cw, "latency");
	csv_header_values(cw, "queueTime");
	csv_header_values(cw, "deviceTime");
	csv__end_row(cw);
	for (i = 0; i < v->ndev; i++) {
		struct io_stats *s = &v->dev[i];
		const struct device *d = join__device(j, i);
		uint64_t dur = io_stats__duration(s);

		if (!s->any)
			continue;
		for (g = 0; g < GRP_COUNT; g++) {
			struct op_stats *o = &s->op[g];

			csv__uint(cw, d->id);
			csv__string(cw, d->name);
			csv__string(cw, op_group_name[g]);
			csv__uint(cw, o->count);
			csv__uint(cw, o->errors);
			csv__uint(cw, o->not_completed);
			csv__uint(cw, dur);
			csv__double(cw, per_second((double)o->count, dur));
			csv__double(cw, per_second(stats_view__mib(o->size.sum), dur));
			csv__uint(cw, workset__sectors(&o->workset));
			csv_values(cw, &o->size, true);
			csv_values(cw, &o->latency, true);
			csv_values(cw, &o->queue_time, has_dispatch(s));
			csv_values(cw, &o->device_time, has_dispatch(s));
			csv__end_row(cw);
		}
	}
	csv__free(cw);
}

/* ---- table ---- */

void stats_view__device_title(FILE *out, bool *first, const struct device *d, uint64_t dur_ns)
{
	char dur[32];

	if (!*first)
		fputc('\n', out);
	*first = false;
	table__fmt_ns(dur, sizeof(dur), (double)dur_ns);
	fprintf(out, "%s (" DEVT_FMT ")%s%s, %s\n", d->name[0] ? d->name : "unknown device",
		DEVT_ARGS(d->id), d->model[0] ? " " : "", d->model, dur);
}

static int write_table(struct stats_view *v, const struct join *j)
{
	static const char *const head[] = { "op", "count", "errors", "no compl", "IOPS", "MiB/s",
					    "avg size", "workset", "lat avg", "p50", "p90",
					    "p99", "p99.9", "p99.99", "max", "Q2D avg", "D2C avg" };
	unsigned int ncols = sizeof(head) / sizeof(head[0]), i, g, c;
	bool first = true;
	int err = 0;

	for (i = 0; i < v->ndev && !err; i++) {
		struct io_stats *s = &v->dev[i];
		uint64_t dur = io_stats__duration(s);
		bool disp = has_dispatch(s);
		struct table *t;
		char buf[32];

		if (!s->any)
			continue;
		t = table__new(disp ? ncols : ncols - 2);
		if (!t)
			return -ENOMEM;
		stats_view__device_title(v->out, &first, join__device(j, i), dur);
		for (c = 0; c < (disp ? ncols : ncols - 2); c++)
			table__cell(t, "%s", head[c]);
		table__end_row(t);
		for (g = 0; g < GRP_COUNT; g++) {
			struct op_stats *o = &s->op[g];
			const struct dist *l = &o->latency;

			if (!o->count && g != GRP_TOTAL)
				continue;
			table__cell(t, "%s", op_group_name[g]);
			table__cell(t, "%llu", (unsigned long long)o->count);
			table__cell(t, "%llu", (unsigned long long)o->errors);
			table__cell(t, "%llu", (unsigned long long)o->not_completed);
			table__cell(t, "%.1f", per_second((double)o->count, dur));
			table__cell(t, "%.2f", per_second(stats_view__mib(o->size.sum), dur));
			table__fmt_bytes(buf, sizeof(buf), dist__avg(&o->size) * 512.0);
			table__cell(t, "%s", buf);
			table__fmt_bytes(buf, sizeof(buf),
					 (double)workset__sectors(&o->workset) * 512.0);
			table__cell(t, "%s", buf);
			table__cell_ns(t, l->count != 0, dist__avg(l));
			for (c = 0; c < NPCT; c++)
				table__cell_ns(t, l->count != 0,
					       (double)dist__percentile(l, pcts[c]));
			table__cell_ns(t, l->count != 0, (double)l->max);
			if (disp) {
				table__cell_ns(t, o->queue_time.count != 0, dist__avg(&o->queue_time));
				table__cell_ns(t, o->device_time.count != 0, dist__avg(&o->device_time));
			}
			table__end_row(t);
		}
		err = table__print(t, v->out, 2);
		table__free(t);
	}
	if (first)
		view__none(v->out, "I/O", v->filtered);
	return err;
}

static int stats_finish(void *p, const struct join *j)
{
	struct stats_view *v = p;
	size_t i;
	int err = 0;

	for (i = 0; i < v->ndev; i++)
		io_stats__total(&v->dev[i]);
	if (v->fmt == VIEW_JSON)
		write_json(v, j);
	else if (v->fmt == VIEW_CSV)
		write_csv(v, j);
	else
		err = write_table(v, j);
	if (v->oom || err)
		return -ENOMEM;
	return view__flush(v->out);
}

static int stats_merge(void *p, void *q, const unsigned int *dev_map, size_t ndev)
{
	struct stats_view *v = p, *src = q;
	size_t i;

	for (i = 0; i < src->ndev && i < ndev; i++) {
		struct io_stats *d;

		if (!src->dev[i].any)
			continue;
		d = stats_view__device_stats(&v->dev, &v->ndev, dev_map[i], true);
		if (!d)
			return -ENOMEM;
		io_stats__merge(d, &src->dev[i]);
	}
	if (src->oom)
		v->oom = true;
	return 0;
}

static void stats_settle(void *p)
{
	struct stats_view *v = p;
	size_t i;

	for (i = 0; i < v->ndev; i++)
		io_stats__settle(&v->dev[i]);
}

static void stats_destroy(void *p)
{
	struct stats_view *v = p;
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->ndev; i++)
		io_stats__free(&v->dev[i]);
	free(v->dev);
	free(v);
}

const struct view_ops stats_view_ops = {
	.name = "statistics",
	.join_flags = 0,
	.create = stats_create,
	.record = stats_record,
	.finish = stats_finish,
	.merge = stats_merge,
	.settle = stats_settle,
	.destroy = stats_destroy,
};
