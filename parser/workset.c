// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>

#include "workset.h"

#define BUF_MAX 4096

static int by_start(const void *a, const void *b)
{
	const struct ws_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* Appends r to out[0..*n), joining it with the last range if they touch. */
static void push(struct ws_range *out, size_t *n, const struct ws_range *r)
{
	if (*n && r->start <= out[*n - 1].end) {
		if (r->end > out[*n - 1].end)
			out[*n - 1].end = r->end;
		return;
	}
	out[(*n)++] = *r;
}

/* Merges add[0..n), sorted by start, into merged[]. */
static int merge_in(struct workset *w, const struct ws_range *add, size_t n)
{
	size_t i = 0, k = 0, m = 0, cap = w->nmerged + n;
	struct ws_range *out;

	if (!n)
		return 0;
	out = malloc(cap * sizeof(*out));
	if (!out)
		return -ENOMEM;
	while (i < w->nmerged || k < n) {
		if (k == n || (i < w->nmerged && w->merged[i].start <= add[k].start))
			push(out, &m, &w->merged[i++]);
		else
			push(out, &m, &add[k++]);
	}
	free(w->merged);
	w->merged = out;
	w->nmerged = m;
	w->merged_cap = cap;
	return 0;
}

/* Sorts the buffer and merges it into merged[]. */
static int flush(struct workset *w)
{
	int err;

	if (!w->nbuf)
		return 0;
	qsort(w->buf, w->nbuf, sizeof(*w->buf), by_start);
	err = merge_in(w, w->buf, w->nbuf);
	if (!err)
		w->nbuf = 0;
	return err;
}

void workset__add(struct workset *w, uint64_t lba, uint64_t len)
{
	struct ws_range r = { lba, lba + len };

	if (!len || w->err)
		return;
	if (r.end < r.start)
		r.end = UINT64_MAX;	/* a range past the end of the address space */
	/* sequential I/O continues the last range */
	if (w->nbuf && r.start == w->buf[w->nbuf - 1].end) {
		w->buf[w->nbuf - 1].end = r.end;
		return;
	}
	if (w->nbuf == w->buf_cap) {
		if (w->buf_cap == BUF_MAX) {
			w->err = flush(w);
			if (w->err)
				return;
		} else {
			size_t cap = w->buf_cap ? w->buf_cap * 4 : 16;
			struct ws_range *nb = realloc(w->buf, cap * sizeof(*nb));

			if (!nb) {
				w->err = -ENOMEM;
				return;
			}
			w->buf = nb;
			w->buf_cap = cap;
		}
	}
	w->buf[w->nbuf++] = r;
}

void workset__merge(struct workset *dst, const struct workset *src)
{
	size_t i;

	if (src->err)
		dst->err = src->err;
	/* sorted already: no sort for them (a split run's halves settle theirs) */
	if (!dst->err)
		dst->err = merge_in(dst, src->merged, src->nmerged);
	for (i = 0; i < src->nbuf; i++)
		workset__add(dst, src->buf[i].start, src->buf[i].end - src->buf[i].start);
}

void workset__settle(struct workset *w)
{
	if (!w->err)
		w->err = flush(w);
}

uint64_t workset__sectors(struct workset *w)
{
	uint64_t total = 0;
	size_t i;

	if (!w->err)
		w->err = flush(w);
	for (i = 0; i < w->nmerged; i++)
		total += w->merged[i].end - w->merged[i].start;
	return total;
}

void workset__free(struct workset *w)
{
	free(w->merged);
	free(w->buf);
	w->merged = w->buf = NULL;
	w->nmerged = w->nbuf = w->merged_cap = w->buf_cap = 0;
}
