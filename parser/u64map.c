// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>

#include "u64map.h"

#define MIN_CAP 64

/* Fibonacci hashing: bio addresses share their low (alignment) bits. */
static inline size_t home(const struct u64map *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (m->cap - 1);
}

bool u64map__get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	size_t i;

	if (!key) {
		if (m->has_zero)
			*val = m->zero_val;
		return m->has_zero;
	}
	if (!m->cap)
		return false;
	for (i = home(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].key == key) {
			*val = m->slots[i].val;
			return true;
		}
		if (!m->slots[i].key)
			return false;
	}
}

/* The free slot key goes to, in a table that does not hold it */
static size_t free_slot(const struct u64map *m, uint64_t key)
{
	size_t i;

	for (i = home(m, key); m->slots[i].key; i = (i + 1) & (m->cap - 1))
		;
	return i;
}

/* grow()'s rehash */
static void place(struct u64map *m, uint64_t key, uint64_t val)
{
	size_t i = free_slot(m, key);

	m->slots[i].key = key;
	m->slots[i].val = val;
	m->count++;
}

/* Keeps the load at most 1/2: probes stay short. */
static int grow(struct u64map *m)
{
	struct u64map_slot *old = m->slots;
	size_t ocap = m->cap, i;

	m->cap = ocap ? ocap * 2 : MIN_CAP;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		m->cap = ocap;
		return -ENOMEM;
	}
	m->count = 0;
	for (i = 0; i < ocap; i++) {
		if (old[i].key)
			place(m, old[i].key, old[i].val);
	}
	free(old);
	return 0;
}

uint64_t *u64map__ref(struct u64map *m, uint64_t key, bool *created)
{
	size_t i;

	if (!key) {
		*created = !m->has_zero;
		if (*created)
			m->zero_val = 0;
		m->has_zero = true;
		return &m->zero_val;
	}
	if (m->cap) {
		for (i = home(m, key); m->slots[i].key; i = (i + 1) & (m->cap - 1)) {
			if (m->slots[i].key == key) {
				*created = false;
				return &m->slots[i].val;
			}
		}
		/* a key that is there never allocates: only a new one may need a bigger table */
		if ((m->count + 1) * 2 <= m->cap)
			goto claim;
	}
	if (grow(m))
		return NULL;
	i = free_slot(m, key);
claim:
	m->slots[i].key = key;
	m->slots[i].val = 0;
	m->count++;
	*created = true;
	return &m->slots[i].val;
}

int u64map__swap(struct u64map *m, uint64_t key, uint64_t val, uint64_t *old)
{
	bool created;
	uint64_t *v = u64map__ref(m, key, &created);

	if (!v)
		return -ENOMEM;
	if (!created)
		*old = *v;
	*v = val;
	return !created;
}

int u64map__put(struct u64map *m, uint64_t key, uint64_t val)
{
	uint64_t old;
	int ret = u64map__swap(m, key, val, &old);

	return ret < 0 ? ret : 0;
}

bool u64map__take(struct u64map *m, uint64_t key, uint64_t *val)
{
	size_t i, j, mask = m->cap - 1;

	if (!key) {
		bool had = m->has_zero;

		if (had)
			*val = m->zero_val;
		m->has_zero = false;
		return had;
	}
	if (!m->cap)
		return false;
	for (i = home(m, key); m->slots[i].key != key; i = (i + 1) & mask) {
		if (!m->slots[i].key)
			return false;
	}
	*val = m->slots[i].val;
	/*
	 * Backward shift: move later members of the probe run into the hole
	 * unless their home lies cyclically in (hole, their slot].
	 */
	for (j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		size_t h = home(m, m->slots[j].key);

		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].key = 0;
	m->count--;
	return true;
}

bool u64map__del(struct u64map *m, uint64_t key)
{
	uint64_t unused;

	return u64map__take(m, key, &unused);
}

size_t u64map__count(const struct u64map *m)
{
	return m->count + (m->has_zero ? 1 : 0);
}

bool u64map__next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	/* position 0 is key 0, slot i is position i + 1 */
	if (*pos == 0) {
		*pos = 1;
		if (m->has_zero) {
			*key = 0;
			*val = m->zero_val;
			return true;
		}
	}
	for (; *pos - 1 < m->cap; (*pos)++) {
		const struct u64map_slot *s = &m->slots[*pos - 1];

		if (s->key) {
			*key = s->key;
			*val = s->val;
			(*pos)++;
			return true;
		}
	}
	return false;
}

void u64map__free(struct u64map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
	m->has_zero = false;
}
