/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hash map from uint64_t to uint64_t for the join's in-flight I/Os
 * (keyed by bio address) and their LBA index: open addressing with linear
 * probing and backward-shift deletion (no tombstones, so a map that sees
 * millions of inserts and deletes stays as small as its live content).
 * Every key is allowed, 0 included.
 */
#ifndef IOTRACE_U64MAP_H
#define IOTRACE_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map_slot {
	uint64_t key, val;
};

struct u64map {
	struct u64map_slot *slots;	/* cap slots; key 0 marks a free one */
	size_t cap, count;
	bool has_zero;			/* key 0 lives here, not in slots */
	uint64_t zero_val;
};

/* A zeroed struct u64map is an empty map; nothing is allocated until a put. */
bool u64map__get(const struct u64map *m, uint64_t key, uint64_t *val);
/* Inserts or replaces (which never allocates, so never fails). Returns 0 or -ENOMEM. */
int u64map__put(struct u64map *m, uint64_t key, uint64_t val);
/*
 * Inserts or replaces, in one probe: returns 1 and the value replaced in
 * *old, 0 if key is new, or -ENOMEM.
 */
int u64map__swap(struct u64map *m, uint64_t key, uint64_t val, uint64_t *old);
/*
 * The value of key, added as 0 if it was not there (*created), in one
 * probe: for a read-modify-write. Valid until the map next changes; NULL
 * if out of memory (the map is as it was).
 */
uint64_t *u64map__ref(struct u64map *m, uint64_t key, bool *created);
/* Returns whether key was there. */
bool u64map__del(struct u64map *m, uint64_t key);
/* Removes key and returns its value in *val, in one probe; false if absent. */
bool u64map__take(struct u64map *m, uint64_t key, uint64_t *val);
size_t u64map__count(const struct u64map *m);
/*
 * Iteration: *pos starts at 0; returns false at the end. The map must not
 * change meanwhile.
 */
bool u64map__next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);
void u64map__free(struct u64map *m);

#endif
