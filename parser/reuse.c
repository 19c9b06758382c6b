// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "reuse.h"

/* the tree's size after a renumbering, in times per place, and at least */
#define ROOM_PER_PLACE 2
#define ROOM_MIN 1024

static void tree_add(struct reuse *r, uint64_t i, int32_t delta)
{
	for (; i <= r->cap; i += i & -i)
		r->tree[i] += (uint32_t)delta;
}

/* ones at times 1..i */
static uint64_t tree_prefix(const struct reuse *r, uint64_t i)
{
	uint64_t sum = 0;

	for (; i; i -= i & -i)
		sum += r->tree[i];
	return sum;
}

uint64_t reuse__depth(const struct reuse *r)
{
	return r->blocks + r->nholes;
}

/* ---- the holes' max-heap ---- */

static void heap_swap(uint64_t *h, size_t a, size_t b)
{
	uint64_t t = h[a];

	h[a] = h[b];
	h[b] = t;
}

static int hole_push(struct reuse *r, uint64_t time)
{
	size_t i = r->nholes, cap = r->holes_cap ? r->holes_cap * 2 : 64;
	uint64_t *h = r->holes;

	if (i == r->holes_cap) {
		h = realloc(h, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		r->holes = h;
		r->holes_cap = cap;
	}
	h[r->nholes++] = time;
	for (; i && h[(i - 1) / 2] < h[i]; i = (i - 1) / 2)
		heap_swap(h, i, (i - 1) / 2);
	return 0;
}

static void hole_pop(struct reuse *r)
{
	uint64_t *h = r->holes;
	size_t i = 0, c;

	h[0] = h[--r->nholes];
	for (; (c = 2 * i + 1) < r->nholes; i = c) {
		if (c + 1 < r->nholes && h[c + 1] > h[c])
			c++;
		if (h[c] <= h[i])
			break;
		heap_swap(h, i, c);
	}
}

/* ---- renumbering ---- */

struct stamp {
	uint64_t time, block;
	bool hole;
};

static int by_time(const void *a, const void *b)
{
	const struct stamp *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * Renumbers the places' times 1..depth, in their order, in a tree with
 * room for as many accesses again: each renumbering comes after at least
 * depth accesses, so its n log n is log n an access.
 */
static int renumber(struct reuse *r)
{
	uint64_t depth = reuse__depth(r);
	uint64_t cap = depth * ROOM_PER_PLACE > ROOM_MIN ? depth * ROOM_PER_PLACE : ROOM_MIN;
	struct stamp *s = depth ? malloc(depth * sizeof(*s)) : NULL;
	uint32_t *tree = calloc(cap + 1, sizeof(*tree));
	uint64_t i, n = 0, key, val, lo;
	size_t pos = 0, k = 0;

	if (!tree || (depth && !s)) {
		free(s);
		free(tree);
		return -ENOMEM;
	}
	while (u64map__next(&r->last, &pos, &key, &val))
		s[n++] = (struct stamp){ val, key, false };
	for (i = 0; i < r->nholes; i++)
		s[n++] = (struct stamp){ r->holes[i], 0, true };
	if (n)
		qsort(s, n, sizeof(*s), by_time);
	/* in time order, the holes stay a max-heap backwards: fill it from the end */
	k = r->nholes;
	for (i = 0; i < n; i++) {
		if (s[i].hole)
			r->holes[--k] = i + 1;
		else
			u64map__put(&r->last, s[i].block, i + 1); /* a replacement: never fails */
	}
	/* ones at 1..n: node i covers (i - lowbit(i), i] */
	for (i = 1; i <= cap; i++) {
		lo = i - (i & -i);
		tree[i] = (uint32_t)(i <= n ? i - lo : lo < n ? n - lo : 0);
	}
	free(s);
	free(r->tree);
	r->tree = tree;
	r->cap = cap;
	r->now = n;
	return 0;
}

int reuse__access(struct reuse *r, uint64_t block, uint64_t *dist)
{
	uint64_t *last, prev;
	bool created;
	int err;

	if (r->now == r->cap) {
		err = renumber(r);
		if (err)
			return err;
	}
	last = u64map__ref(&r->last, block, &created);
	if (!last)
		return -ENOMEM;
	prev = created ? 0 : *last;
	*dist = created ? 0 : reuse__depth(r) - tree_prefix(r, prev) + 1;
	if (r->nholes && r->holes[0] > prev) {
		/*
		 * the push down from the top stops at the topmost hole above
		 * the block's place, and its place is a hole now: what is
		 * between and below stays
		 */
		tree_add(r, r->holes[0], -1);
		hole_pop(r);
		if (!created && hole_push(r, prev))
			return -ENOMEM; /* cannot happen: a hole just went */
	} else if (!created) {
		tree_add(r, prev, -1);
	}
	if (created)
		r->blocks++;
	*last = ++r->now;
	tree_add(r, r->now, 1);
	return 0;
}

int reuse__forget(struct reuse *r, uint64_t block)
{
	uint64_t t;

	if (!u64map__get(&r->last, block, &t))
		return 0;
	if (hole_push(r, t))
		return -ENOMEM;
	u64map__del(&r->last, block);
	r->blocks--;
	return 0;
}

int reuse__forget_range(struct reuse *r, uint64_t first, uint64_t last)
{
	uint64_t b, key, val, *in;
	size_t pos = 0, n = 0, i;
	int err = 0;

	if (last < first || !r->blocks)
		return 0;
	if (last - first < r->blocks) {
		for (b = first; !err; b++) {
			err = reuse__forget(r, b);
			if (b == last)
				break;
		}
		return err;
	}
	/*
	 * a discard of more blocks than were touched: those, found first, as
	 * a removal moves entries the walk may have passed
	 */
	in = malloc(r->blocks * sizeof(*in));
	if (!in)
		return -ENOMEM;
	while (u64map__next(&r->last, &pos, &key, &val))
		if (key >= first && key <= last)
			in[n++] = key;
	for (i = 0; i < n && !err; i++)
		err = reuse__forget(r, in[i]);
	free(in);
	return err;
}

void reuse__free(struct reuse *r)
{
	u64map__free(&r->last);
	free(r->tree);
	free(r->holes);
	r->tree = NULL;
	r->holes = NULL;
	r->cap = r->now = r->blocks = 0;
	r->nholes = r->holes_cap = 0;
}
