// SPDX-License-Identifier: BSD-3-Clause
/* One round's records of each CPU, and their merge by sid (round_batch.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "round_batch.h"

#define ENTRY_HEAD 8u

static size_t entry_len(uint32_t sz)
{
	return ENTRY_HEAD + ((sz + 7u) & ~7u);
}

int batch__push(struct batch *b, const void *rec, uint32_t sz)
{
	size_t need = entry_len(sz);

	if (b->used + need > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1u << 16;
		uint8_t *nb;

		while (cap < b->used + need)
			cap *= 2;
		nb = realloc(b->buf, cap);
		if (!nb)
			return -ENOMEM;
		b->buf = nb;
		b->cap = cap;
	}
	memcpy(b->buf + b->used, &sz, sizeof(sz));
	memcpy(b->buf + b->used + ENTRY_HEAD, rec, sz);
	b->last = b->used;
	b->used += need;
	return 0;
}

bool batch__newest(const struct batch *b, uint64_t *sid)
{
	if (b->used <= b->kept)
		return false;
	memcpy(sid, b->buf + b->last + ENTRY_HEAD, sizeof(*sid));
	return true;
}

void batch__each(const struct batch *b, void (*fn)(void *ctx, int cpu, const void *rec, uint32_t sz),
		 void *ctx, int cpu)
{
	size_t off;
	uint32_t sz;

	for (off = 0; off < b->used; off += entry_len(sz)) {
		memcpy(&sz, b->buf + off, sizeof(sz));
		fn(ctx, cpu, b->buf + off + ENTRY_HEAD, sz);
	}
}

/* A CPU's place in the merge: its next record, and that record's sid. */
struct head {
	uint64_t sid;
	size_t off;
	int cpu;
};

static void load_sid(struct head *h, const struct batch *b)
{
	memcpy(&h->sid, b[h->cpu].buf + h->off + ENTRY_HEAD, sizeof(h->sid));
}

static void sift_down(struct head *heap, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, m = i;
		struct head t;

		if (l < n && heap[l].sid < heap[m].sid)
			m = l;
		if (l + 1 < n && heap[l + 1].sid < heap[m].sid)
			m = l + 1;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

/* Keeps what b holds from off on, at its start. */
static void keep_from(struct batch *b, size_t off)
{
	size_t rest = b->used - off;

	if (rest && off)
		memmove(b->buf, b->buf + off, rest);
	b->last = rest ? b->last - off : 0;
	b->used = b->kept = rest;
}

int batch__merge(struct batch *b, int n, uint64_t upto,
		 void (*fn)(void *ctx, int cpu, const void *rec, uint32_t sz), void *ctx)
{
	struct head *heap;
	int i, live = 0;

	heap = malloc((size_t)(n > 0 ? n : 1) * sizeof(*heap));
	if (!heap)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!b[i].used)
			continue;
		heap[live] = (struct head){ .off = 0, .cpu = i };
		load_sid(&heap[live], b);
		live++;
	}
	for (i = live / 2 - 1; i >= 0; i--)
		sift_down(heap, live, i);
	while (live && heap[0].sid <= upto) {
		struct head *h = &heap[0];
		const struct batch *cb = &b[h->cpu];
		uint32_t sz;

		memcpy(&sz, cb->buf + h->off, sizeof(sz));
		fn(ctx, h->cpu, cb->buf + h->off + ENTRY_HEAD, sz);
		h->off += entry_len(sz);
		if (h->off < cb->used) {
			load_sid(h, b);
		} else {
			b[h->cpu].used = b[h->cpu].kept = b[h->cpu].last = 0;
			heap[0] = heap[--live];
		}
		sift_down(heap, live, 0);
	}
	/* the CPUs past upto, from their next record; the others were taken in whole */
	for (i = 0; i < live; i++)
		keep_from(&b[heap[i].cpu], heap[i].off);
	free(heap);
	return live;
}

void batch__clear(struct batch *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		b[i].used = b[i].kept = b[i].last = 0;
}
