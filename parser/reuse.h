/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LRU stack distances, exact, for sizing a cache from a trace (Mattson
 * et al., 1970): an access's distance is the block's place in the LRU
 * stack, 1 for the most recent. It hits in every LRU cache of at least
 * that many blocks and misses in every smaller one; the first access of
 * a block misses in all (cold).
 *
 * Bennett and Kruskal's way: a Fenwick tree over access times holds a 1
 * at each block's latest access, so a place is the count of ones after
 * the block's last time. Times are renumbered when the tree fills, which
 * keeps memory growing with the blocks touched (the workset), not with
 * the accesses: about 110 bytes a block at peak (the map at its load
 * factor, the tree, and a renumbering's sort).
 *
 * A block that leaves (a discard) leaves a hole in its place: a cache of
 * any size that held it has a free slot now. A block coming to the top
 * pushes the ones above it down only as far as the topmost hole above
 * its place, which it fills; its own place becomes the hole (in a cache
 * that holds it, a hit, the free slot stays free; in a smaller one, a
 * miss, it took the free slot, and nothing is evicted). Only a block not
 * in the stack fills a hole for good. Holes keep their 1 in the tree, so
 * the distances stay exact for every size at once.
 */
#ifndef IOTRACE_REUSE_H
#define IOTRACE_REUSE_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

struct reuse {
	struct u64map last;	/* block -> the time of its latest access */
	uint32_t *tree;		/* Fenwick tree over times 1..cap */
	uint64_t cap, now;	/* times 1..now are taken */
	uint64_t blocks;	/* blocks in last */
	uint64_t *holes;	/* their times, a max-heap */
	size_t nholes, holes_cap;
};

/*
 * Accesses block: *dist is its place in the stack, 0 for a cold miss.
 * 0 or -ENOMEM (r is then unchanged). A zeroed struct reuse is empty.
 */
int reuse__access(struct reuse *r, uint64_t block, uint64_t *dist);
/* The block leaves (a discard): a hole in its place; its next access is cold. 0 or -ENOMEM. */
int reuse__forget(struct reuse *r, uint64_t block);
/*
 * Blocks [first, last] leave: by block, or through the workset when it
 * is the smaller (a discard of a whole device). 0 or -ENOMEM (some may
 * not have left then).
 */
int reuse__forget_range(struct reuse *r, uint64_t first, uint64_t last);
/* Places taken in the stack: blocks and holes; no distance is larger. */
uint64_t reuse__depth(const struct reuse *r);
void reuse__free(struct reuse *r);

#endif
