// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>

#include "io_stats.h"
#include "trace.pb-c.h"

const char *const op_group_name[GRP_COUNT] = { "read", "write", "discard", "flush", "total" };

void io_stats__init(struct io_stats *s, bool percentiles)
{
	unsigned int g;

	memset(s, 0, sizeof(*s));
	for (g = 0; g <= GRP_COUNT; g++) {
		struct op_stats *o = g < GRP_COUNT ? &s->op[g] : &s->other;

		o->size.percentiles = percentiles;
		o->latency.percentiles = percentiles;
		o->queue_time.percentiles = percentiles;
		o->device_time.percentiles = percentiles;
	}
}

enum op_group io_stats__group(const struct io_rec *r)
{
	if ((r->flags & IOF_FLUSH) && !r->len)
		return GRP_FLUSH;
	switch (r->op) {
	case OCTF__PROTO__TRACE__IO_TYPE__Read:
		return GRP_READ;
	case OCTF__PROTO__TRACE__IO_TYPE__Write:
		return GRP_WRITE;
	case OCTF__PROTO__TRACE__IO_TYPE__Discard:
		return GRP_DISCARD;
	default:
		return GRP_TOTAL;
	}
}

static void add_op(struct op_stats *o, const struct io_rec *r, bool workset)
{
	o->count++;
	if (r->error && r->state == IO_COMPLETED)
		o->errors++;
	dist__add(&o->size, r->len);
	if (r->state == IO_COMPLETED) {
		dist__add(&o->latency, r->latency);
		if (r->dispatched)
			dist__add(&o->device_time, r->device_time);
	} else {
		o->not_completed++;
	}
	if (r->dispatched)
		dist__add(&o->queue_time, r->queue_time);
	if (workset)
		workset__add(&o->workset, r->lba, r->len);
}

void io_stats__add(struct io_stats *s, const struct io_rec *r, bool workset)
{
	enum op_group g = io_stats__group(r);
	uint64_t end = r->ts + (r->state == IO_COMPLETED ? r->latency : 0);

	if (!s->any || r->ts < s->first_ts)
		s->first_ts = r->ts;
	if (!s->any || end > s->last_ts)
		s->last_ts = end;
	s->any = true;
	add_op(g == GRP_TOTAL ? &s->other : &s->op[g], r, workset);
}

static void merge_op(struct op_stats *dst, const struct op_stats *src)
{
	dst->count += src->count;
	dst->errors += src->errors;
	dst->not_completed += src->not_completed;
	dist__merge(&dst->size, &src->size);
	dist__merge(&dst->latency, &src->latency);
	dist__merge(&dst->queue_time, &src->queue_time);
	dist__merge(&dst->device_time, &src->device_time);
	workset__merge(&dst->workset, &src->workset);
}

void io_stats__total(struct io_stats *s)
{
	unsigned int g;

	for (g = 0; g < GRP_TOTAL; g++)
		merge_op(&s->op[GRP_TOTAL], &s->op[g]);
	merge_op(&s->op[GRP_TOTAL], &s->other);
}

void io_stats__merge(struct io_stats *dst, const struct io_stats *src)
{
	unsigned int g;

	if (!src->any)
		return;
	for (g = 0; g < GRP_COUNT; g++)
		merge_op(&dst->op[g], &src->op[g]);
	merge_op(&dst->other, &src->other);
	if (!dst->any || src->first_ts < dst->first_ts)
		dst->first_ts = src->first_ts;
	if (!dst->any || src->last_ts > dst->last_ts)
		dst->last_ts = src->last_ts;
	dst->any = true;
}

void io_stats__settle(struct io_stats *s)
{
	unsigned int g;

	for (g = 0; g < GRP_COUNT; g++)
		workset__settle(&s->op[g].workset);
	workset__settle(&s->other.workset);
}

uint64_t io_stats__duration(const struct io_stats *s)
{
	return s->any ? s->last_ts - s->first_ts : 0;
}

void io_stats__free(struct io_stats *s)
{
	unsigned int g;

	for (g = 0; g <= GRP_COUNT; g++) {
		struct op_stats *o = g < GRP_COUNT ? &s->op[g] : &s->other;

		dist__free(&o->size);
		dist__free(&o->latency);
		dist__free(&o->queue_time);
		dist__free(&o->device_time);
		workset__free(&o->workset);
	}
}
