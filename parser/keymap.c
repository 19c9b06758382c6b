// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"

/* FNV-1a, its high bits folded down: the table takes the low ones */
static uint64_t hash(const unsigned char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 31);
}

static int grow(struct keymap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i;
	struct keymap_item **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (i = 0; i < m->count; i++) {
		struct keymap_item *it = m->items[i];
		size_t k = it->hash & (ncap - 1);

		it->next = nt[k];
		nt[k] = it;
	}
	free(m->tab);
	m->tab = nt;
	m->cap = ncap;
	return 0;
}

struct keymap_item *keymap__get(struct keymap *m, const void *key, size_t len)
{
	uint64_t h = hash(key, len);
	struct keymap_item *it;

	if (m->cap) {
		for (it = m->tab[h & (m->cap - 1)]; it; it = it->next) {
			if (it->hash == h && it->len == len && !memcmp(it->key, key, len))
				return it;
		}
	}
	if (m->count == m->items_cap) {
		size_t cap = m->items_cap ? m->items_cap * 2 : 64;
		struct keymap_item **ni = realloc(m->items, cap * sizeof(*ni));

		if (!ni)
			return NULL;
		m->items = ni;
		m->items_cap = cap;
	}
	if (m->count >= m->cap && grow(m))
		return NULL;
	it = malloc(sizeof(*it) + len);
	if (!it)
		return NULL;
	it->hash = h;
	it->value = NULL;
	it->len = len;
	memcpy(it->key, key, len);
	it->next = m->tab[h & (m->cap - 1)];
	m->tab[h & (m->cap - 1)] = it;
	m->items[m->count++] = it;
	return it;
}

void keymap__sort(struct keymap *m, int (*cmp)(const void *, const void *))
{
	/* an empty map has no array to hand qsort() */
	if (m->count)
		qsort(m->items, m->count, sizeof(*m->items), cmp);
}

void keymap__free(struct keymap *m, void (*free_value)(void *))
{
	size_t i;

	for (i = 0; i < m->count; i++) {
		if (free_value)
			free_value(m->items[i]->value);
		free(m->items[i]);
	}
	free(m->items);
	free(m->tab);
	memset(m, 0, sizeof(*m));
}
