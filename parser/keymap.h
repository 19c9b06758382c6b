/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hash map from byte strings to the summary views' entries (a file by
 * its path, a process by pid and comm, a cgroup by id): chained, grown
 * at load 1, entries in one array for sorting at the end. Memory grows
 * with the number of distinct keys.
 */
#ifndef IOTRACE_KEYMAP_H
#define IOTRACE_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

struct keymap_item {
	struct keymap_item *next;	/* hash chain */
	uint64_t hash;
	void *value;
	size_t len;
	unsigned char key[];
};

struct keymap {
	struct keymap_item **tab;
	size_t cap;
	struct keymap_item **items;	/* in order of insertion */
	size_t count, items_cap;
};

/*
 * The item of key, added with value NULL if new (the caller sets it); NULL
 * on ENOMEM. A zeroed struct keymap is empty.
 */
struct keymap_item *keymap__get(struct keymap *m, const void *key, size_t len);
/* Puts the items in cmp's order (cmp gets pointers to struct keymap_item *), for a report. */
void keymap__sort(struct keymap *m, int (*cmp)(const void *, const void *));
/* Frees the map; free_value (if not NULL) gets every value. */
void keymap__free(struct keymap *m, void (*free_value)(void *));

#endif
