// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"

void series__init(struct series *s, uint64_t interval_ns)
{
	unsigned int k, g;

	memset(s, 0, sizeof(*s));
	s->interval = interval_ns ? interval_ns : 1;
	for (k = 0; k < 2; k++)
		for (g = 0; g < GRP_COUNT; g++)
			s->open[k][g].percentiles = true;
}

/* Slot k's percentiles from its distributions, which are emptied for the slot k + 2. */
static void close_slot(struct series *s, uint64_t k)
{
	struct dist *d = s->open[k % 2];
	unsigned int g;

	for (g = 0; g < GRP_COUNT; g++) {
		if (k >= s->first && k - s->first < s->n && d[g].count) {
			struct slot_group *sg = &s->slots[k - s->first].g[g];

			sg->lat_p50 = dist__percentile(&d[g], 50);
			sg->lat_p99 = dist__percentile(&d[g], 99);
		}
		dist__free(&d[g]);
		memset(&d[g], 0, sizeof(d[g]));
		d[g].percentiles = true;
	}
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

static void count(struct series *s, struct slot_group *sg, unsigned int g, uint64_t k,
		  const struct io_rec *r)
{
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
	/* a slot still open: its percentiles see the latency */
	if (k + 1 >= s->cur)
		dist__add(&s->open[k % 2][g], r->latency);
}

int series__add(struct series *s, const struct io_rec *r, size_t *budget)
{
	uint64_t k;
	enum op_group g;
	struct slot *sl;
	int err;

	if (r->kind != REC_IO)
		return 0;
	k = r->time / s->interval;
	if (!s->any) {
		s->any = true;
		s->first = s->cur = k;
	}
	/* a little before the first slot (CPUs out of step): counted in it */
	if (k < s->first)
		k = s->first;
	err = reach(s, k, budget);
	if (err)
		return err;
	if (k > s->cur) {
		/* k - 1 and k are open from now on: cur - 1 is done, and cur unless it is k - 1 */
		if (s->cur > s->first)
			close_slot(s, s->cur - 1);
		if (k - s->cur >= 2)
			close_slot(s, s->cur);
		s->cur = k;
	}
	sl = &s->slots[k - s->first];
	g = io_stats__group(r);
	count(s, &sl->g[g], g, k, r);
	if (g != GRP_TOTAL)
		count(s, &sl->g[GRP_TOTAL], GRP_TOTAL, k, r);
	return 0;
}

void series__finish(struct series *s)
{
	if (!s->any)
		return;
	if (s->cur > s->first)
		close_slot(s, s->cur - 1);
	close_slot(s, s->cur);
}

void series__free(struct series *s)
{
	unsigned int k, g;

	for (k = 0; k < 2; k++)
		for (g = 0; g < GRP_COUNT; g++)
			dist__free(&s->open[k][g]);
	free(s->slots);
	s->slots = NULL;
	s->n = s->cap = 0;
}
