// SPDX-License-Identifier: BSD-3-Clause
#include <math.h>
#include <stdlib.h>

#include "dist.h"

/* octave and bucket of v: octave 0 holds 0..127, octave k >= 1 holds [2^(k+6), 2^(k+7)) */
static inline void locate(uint64_t v, unsigned int *o, unsigned int *b)
{
	unsigned int e;

	if (v < DIST_SUB) {
		*o = 0;
		*b = (unsigned int)v;
		return;
	}
	e = 63 - (unsigned int)__builtin_clzll(v);	/* >= 7 */
	*o = e - 6;
	*b = (unsigned int)(v >> (e - 7)) & (DIST_SUB - 1);
}

static inline uint64_t lower_bound(unsigned int o, unsigned int b)
{
	if (!o)
		return b;
	return (uint64_t)(DIST_SUB + b) << (o - 1);
}

static inline uint64_t upper_bound(unsigned int o, unsigned int b)
{
	if (!o)
		return b;
	return lower_bound(o, b) + ((1ull << (o - 1)) - 1);
}

/* Puts v in the histogram, which d->oct is. */
static void histogram_add(struct dist *d, uint64_t v)
{
	unsigned int o, b;

	locate(v, &o, &b);
	if (!d->oct[o]) {
		d->oct[o] = calloc(1, sizeof(*d->oct[o]));
		if (!d->oct[o]) {
			d->oom = true;
			return;
		}
	}
	d->oct[o]->count[b]++;
	d->oct[o]->sum[b] += v;
}

/* Moves the n values kept as they are into a histogram; false if out of memory. */
static bool to_histogram(struct dist *d, uint64_t n)
{
	uint64_t i;

	d->oct = calloc(DIST_OCTAVES, sizeof(*d->oct));
	if (!d->oct) {
		d->oom = true;
		return false;
	}
	for (i = 0; i < n && !d->oom; i++)
		histogram_add(d, d->few[i]);
	return !d->oom;
}

/* Keeps v for the percentiles, d->count counting it already. */
static void keep(struct dist *d, uint64_t v)
{
	if (!d->percentiles || d->oom)
		return;
	if (!d->oct) {
		if (d->count <= DIST_FEW) {
			d->few[d->count - 1] = v;
			return;
		}
		if (!to_histogram(d, d->count - 1))
			return;
	}
	histogram_add(d, v);
}

void dist__add(struct dist *d, uint64_t v)
{
	if (!d->count || v < d->min)
		d->min = v;
	if (v > d->max)
		d->max = v;
	d->count++;
	d->sum += v;
	keep(d, v);
}

void dist__merge(struct dist *dst, const struct dist *src)
{
	unsigned int o, b;
	uint64_t i;

	if (!src->count)
		return;
	/* a few values are added as they are, which keeps dst's exact as long as it can be */
	if (!src->oct && src->percentiles && !src->oom && dst->percentiles && !dst->oom) {
		for (i = 0; i < src->count; i++)
			dist__add(dst, src->few[i]);
		return;
	}
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	if (!dst->percentiles || dst->oom)
		return;
	if (!src->percentiles || src->oom) {
		dst->oom = true;
		return;
	}
	if (!dst->oct && !to_histogram(dst, dst->count - src->count))
		return;
	for (o = 0; o < DIST_OCTAVES; o++) {
		if (!src->oct[o])
			continue;
		if (!dst->oct[o]) {
			dst->oct[o] = calloc(1, sizeof(*dst->oct[o]));
			if (!dst->oct[o]) {
				dst->oom = true;
				return;
			}
		}
		for (b = 0; b < DIST_SUB; b++) {
			dst->oct[o]->count[b] += src->oct[o]->count[b];
			dst->oct[o]->sum[b] += src->oct[o]->sum[b];
		}
	}
}

double dist__avg(const struct dist *d)
{
	return d->count ? (double)d->sum / (double)d->count : 0.0;
}

bool dist__has_percentiles(const struct dist *d)
{
	return d->percentiles && !d->oom && d->count;
}

/* The value of rank (1-based) among the few kept as they are */
static uint64_t few_ranked(const struct dist *d, uint64_t rank)
{
	uint64_t v[DIST_FEW], t;
	size_t i, j, n = (size_t)d->count;

	for (i = 0; i < n; i++) {
		t = d->few[i];
		for (j = i; j > 0 && v[j - 1] > t; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
	return v[rank - 1];
}

uint64_t dist__percentile(const struct dist *d, double p)
{
	uint64_t rank, seen = 0;
	unsigned int o, b;

	if (!dist__has_percentiles(d))
		return 0;
	rank = (uint64_t)ceil(p / 100.0 * (double)d->count);
	if (rank < 1)
		rank = 1;
	if (rank > d->count)
		rank = d->count;
	if (!d->oct)
		return few_ranked(d, rank);
	for (o = 0; o < DIST_OCTAVES; o++) {
		if (!d->oct[o])
			continue;
		for (b = 0; b < DIST_SUB; b++) {
			uint64_t c = d->oct[o]->count[b], v, lo, hi;

			seen += c;
			if (seen < rank)
				continue;
			/* the average of the bucket; a sum that wrapped stays in bounds */
			v = d->oct[o]->sum[b] / c;
			lo = lower_bound(o, b);
			hi = upper_bound(o, b);
			return v < lo ? lo : v > hi ? hi : v;
		}
	}
	return d->max;
}

void dist__free(struct dist *d)
{
	unsigned int o;

	if (!d->oct)
		return;
	for (o = 0; o < DIST_OCTAVES; o++)
		free(d->oct[o]);
	free(d->oct);
	d->oct = NULL;
}
