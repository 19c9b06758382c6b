// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"

void series__init(struct series *s, uint64_t interval_ns, bool by_completion)
{
	memset(s, 0, sizeof(*s));
	s->interval = interval_ns ? interval_ns : 1;
	s->by_completion = by_completion;
}

/* Slot k, one of slots[] (done now), gets its percentiles; its distributions go. */
static void close_slot(struct series *s, uint64_t k)
{
	struct slot *sl = &s->slots[k - s->first];
	unsigned int g;

	if (!sl->lat)
		return;
	for (g = 0; g < GRP_COUNT; g++) {
		if (sl->lat[g].count) {
			sl->g[g].lat_p50 = dist__percentile(&sl->lat[g], 50);
			sl->g[g].lat_p99 = dist__percentile(&sl->lat[g], 99);
		}
		dist__free(&sl->lat[g]);
	}
	free(sl->lat);
	sl->lat = NULL;
}

/* Slots before `upto` (at most the end of slots[]) are done. */
static void close_before(struct series *s, uint64_t upto)
{
	for (; s->done < upto; s->done++)
		close_slot(s, s->done);
}

/* slots[] up to slot k; -E2BIG past the budget */
static int reach(struct series *s, uint64_t k, size_t *budget)
{
	size_t want, cap;
	struct slot *p;

	if (k - s->first < s->n)
		return 0;
	/* compared before the size_t: a damaged timestamp can be anything */
	if (k - s->first >= (uint64_t)s->n + *budget)
		return -E2BIG;
	want = (size_t)(k - s->first) + 1;
	if (want > s->cap) {
		cap = s->cap ? s->cap : 64;
		while (cap < want)
			cap *= 2;
		p = realloc(s->slots, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->slots = p;
		s->cap = cap;
	}
	memset(s->slots + s->n, 0, (want - s->n) * sizeof(*s->slots));
	*budget -= want - s->n;
	s->n = want;
	return 0;
}

static void count(struct series *s, struct slot *sl, unsigned int g, uint64_t k,
		  const struct io_rec *r)
{
	struct slot_group *sg = &sl->g[g];

	sg->count++;
	sg->sectors += r->len;
	sg->qd_sum += r->qd;
	/* set for an I/O never completed too: an error is what a completion said */
	if (r->error && r->state == IO_COMPLETED)
		sg->errors++;
	if (r->state != IO_COMPLETED) {
		sg->not_completed++;
		return;
	}
	sg->lat_count++;
	sg->lat_sum += r->latency;
	if (r->latency > sg->lat_max)
		sg->lat_max = r->latency;
	/* a slot not done: its percentiles see the latency */
	if (k >= s->done)
		dist__add(&sl->lat[g], r->latency);
}

int series__add(struct series *s, const struct io_rec *r, size_t *budget)
{
	uint64_t k, sub;
	enum op_group g;
	struct slot *sl;
	int err;

	if (r->kind != REC_IO)
		return 0;
	sub = r->time / s->interval;
	if (!s->any) {
		s->any = true;
		s->first = s->done = sub;
	}
	if (s->by_completion) {
		if (r->state != IO_COMPLETED)
			return 0;
		/* a damaged latency past the end of time: past the budget too */
		k = (r->time + r->latency < r->time ? UINT64_MAX : r->time + r->latency) /
		    s->interval;
	} else {
		k = sub;
	}
	/* a little before the first slot (CPUs out of step): counted in it */
	if (k < s->first)
		k = s->first;
	err = reach(s, k, budget);
	if (err)
		return err;
	/*
	 * Submitted two slots on, nothing more is submitted or completes
	 * before this slot - 1; sub <= k, so those slots are all in slots[].
	 */
	if (sub >= s->done + 2)
		close_before(s, sub - 1);
	sl = &s->slots[k - s->first];
	if (k >= s->done && !sl->lat && r->state == IO_COMPLETED) {
		sl->lat = calloc(GRP_COUNT, sizeof(*sl->lat));
		if (!sl->lat)
			return -ENOMEM;
		for (g = 0; g < GRP_COUNT; g++)
			sl->lat[g].percentiles = true;
	}
	g = io_stats__group(r);
	count(s, sl, g, k, r);
	if (g != GRP_TOTAL)
		count(s, sl, GRP_TOTAL, k, r);
	return 0;
}

void series__finish(struct series *s)
{
	size_t k = 0;

	if (!s->any)
		return;
	close_before(s, s->first + s->n);
	if (!s->by_completion)
		return;
	/*
	 * By completion the slots begin at the first submission's, which
	 * no completion can precede; the series begins at the first that
	 * holds one (none: the device completed nothing, and has no series).
	 */
	while (k < s->n && !s->slots[k].g[GRP_TOTAL].count)
		k++;
	/* slots is NULL where nothing completed: no slot was ever reached */
	if (k)
		memmove(s->slots, s->slots + k, (s->n - k) * sizeof(*s->slots));
	s->n -= k;
	s->first += k;
	s->any = s->n > 0;
}

void series__free(struct series *s)
{
	size_t k;
	unsigned int g;

	for (k = 0; k < s->n; k++) {
		if (!s->slots[k].lat)
			continue;
		for (g = 0; g < GRP_COUNT; g++)
			dist__free(&s->slots[k].lat[g]);
		free(s->slots[k].lat);
	}
	free(s->slots);
	s->slots = NULL;
	s->n = s->cap = 0;
}
