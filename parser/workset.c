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

/* Sorts the buffer and merges it into merged[]. */
static int flush(struct workset *w)
{
	size_t i = 0, k = 0, n = 0, cap;
	struct ws_range *out;

	if (!w->nbuf)
		return 0;
	qsort(w->buf, w->nbuf, sizeof(*w->buf), by_start);
	cap = w->nmerged + w->nbuf;
	out = malloc(cap * sizeof(*out));
	if (!out)
		return -ENOMEM;
	while (i < w->nmerged || k < w->nbuf) {
		if (k == w->nbuf || (i < w->nmerged && w->merged[i].start <= w->buf[k].start))
			push(out, &n, &w->merged[i++]);
		else
			push(out, &n, &w->buf[k++]);
	}
	free(w->merged);
	w->merged = out;
	w->nmerged = n;
	w->merged_cap = cap;
	w->nbuf = 0;
	return 0;
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
	for (i = 0; i < src->nmerged; i++)
		workset__add(dst, src->merged[i].start, src->merged[i].end - src->merged[i].start);
	for (i = 0; i < src->nbuf; i++)
		workset__add(dst, src->buf[i].start, src->buf[i].end - src->buf[i].start);
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
