// SPDX-License-Identifier: BSD-3-Clause
/*
 * --devices: the devices of the trace - every deviceDescription (once per
 * id) and any device I/O went to without one (name and model empty) - with
 * the number of I/Os each saw. JSON: {"devices": [{id, name, size, model,
 * ios}]}, ids as kernel dev_t, sizes in sectors. A partition's I/Os
 * are its own; its disk's count includes them, as an I/O names the disk
 * (OCTF's deviceId) and the partition apart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv_writer.h"
#include "json_writer.h"
#include "table_writer.h"
#include "u64map.h"
#include "view.h"

struct devices_view {
	FILE *out;
	enum view_format fmt;
	uint64_t *ios;		/* by device index */
	size_t n;
	struct u64map part_ios;	/* by partition id */
	bool oom;
};

static void *devices_create(FILE *out, const struct view_opts *o)
{
	struct devices_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->fmt = o->format;
	return v;
}

static void devices_record(void *p, const struct io_rec *r)
{
	struct devices_view *v = p;
	unsigned int idx = r->dev->index;
	uint64_t *ni;

	if (r->kind != REC_IO)
		return;
	ni = view__grow(v->ios, &v->n, sizeof(*ni), idx);
	if (!ni) {
		v->oom = true;
		return;
	}
	v->ios = ni;
	v->ios[idx]++;
	if (r->part != r->dev->id) {
		bool created;
		uint64_t *n = u64map__ref(&v->part_ios, r->part, &created);

		if (n)
			(*n)++;
		else
			v->oom = true;
	}
}

static uint64_t ios(const struct devices_view *v, size_t i, const struct device *d)
{
	uint64_t n = 0;

	if (i < v->n && v->ios[i])
		return v->ios[i];
	u64map__get(&v->part_ios, d->id, &n);
	return n;
}

static int devices_finish(void *p, const struct join *j)
{
	struct devices_view *v = p;
	size_t i, n = join__device_count(j);
	struct json_writer *jw = NULL;
	struct csv_writer *cw = NULL;
	struct table *t = NULL;
	int err = 0;

	if (v->fmt == VIEW_JSON) {
		jw = jw__new(v->out, true);
		if (!jw)
			return -ENOMEM;
		jw__start_object(jw);
		jw__key(jw, "devices");
		jw__start_array(jw);
	} else if (v->fmt == VIEW_CSV) {
		cw = csv__new(v->out);
		if (!cw)
			return -ENOMEM;
		csv__string(cw, "id");
		csv__string(cw, "name");
		csv__string(cw, "size");
		csv__string(cw, "model");
		csv__string(cw, "ios");
		csv__end_row(cw);
	} else {
		t = table__new(6);
		if (!t)
			return -ENOMEM;
		table__align_left(t, 1, true);
		table__align_left(t, 3, true);
		table__cell(t, "NAME");
		table__cell(t, "MAJ:MIN");
		table__cell(t, "SIZE");
		table__cell(t, "MODEL");
		table__cell(t, "ID");
		table__cell(t, "I/Os");
		table__end_row(t);
	}
	for (i = 0; i < n; i++) {
		const struct device *d = join__device(j, i);
		char size[32];

		if (!d->described && !ios(v, i, d))
			continue;
		if (jw) {
			jw__start_object(jw);
			jw__key(jw, "id");
			jw__uint_str(jw, d->id);
			jw__key(jw, "name");
			jw__string(jw, d->name);
			jw__key(jw, "size");
			jw__uint_str(jw, d->size);
			jw__key(jw, "model");
			jw__string(jw, d->model);
			jw__key(jw, "ios");
			jw__uint_str(jw, ios(v, i, d));
			jw__end_object(jw);
		} else if (cw) {
			csv__uint(cw, d->id);
			csv__string(cw, d->name);
			csv__uint(cw, d->size);
			csv__string(cw, d->model);
			csv__uint(cw, ios(v, i, d));
			csv__end_row(cw);
		} else {
			table__fmt_bytes(size, sizeof(size), (double)d->size * 512);
			table__cell(t, "%s", d->name[0] ? d->name : "?");
			table__cell(t, DEVT_FMT, DEVT_ARGS(d->id));
			table__cell(t, "%s", d->described ? size : "?");
			table__cell(t, "%s", d->model);
			table__cell(t, "%llu", (unsigned long long)d->id);
			table__cell(t, "%llu", (unsigned long long)ios(v, i, d));
			table__end_row(t);
		}
	}
	if (jw) {
		jw__end_array(jw);
		jw__end_object(jw);
		jw__newline(jw);
		jw__free(jw);
	}
	csv__free(cw);
	if (t) {
		err = table__print(t, v->out, 0);
		table__free(t);
	}
	if (err || v->oom)
		return -ENOMEM;
	return view__flush(v->out);
}

static void devices_destroy(void *p)
{
	struct devices_view *v = p;

	if (!v)
		return;
	free(v->ios);
	u64map__free(&v->part_ios);
	free(v);
}

const struct view_ops devices_view_ops = {
	.name = "devices",
	.create = devices_create,
	.record = devices_record,
	.finish = devices_finish,
	.destroy = devices_destroy,
};
