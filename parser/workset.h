/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workset: how many distinct sectors a set of I/Os touched (the union of
 * their [lba, lba + len) ranges), as OCTF's "workset" metric.
 *
 * Ranges are kept as a sorted array of disjoint ranges plus a buffer of
 * new ones, sorted and merged in when it fills; a range that continues
 * the previous one (sequential I/O) just extends it. Memory grows with
 * the number of disjoint ranges touched, not with the number of I/Os.
 */
#ifndef IOTRACE_WORKSET_H
#define IOTRACE_WORKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ws_range {
	uint64_t start, end;	/* [start, end) */
};

struct workset {
	struct ws_range *merged;	/* sorted, disjoint, not adjacent */
	size_t nmerged, merged_cap;
	struct ws_range *buf;		/* not yet merged */
	size_t nbuf, buf_cap;
	struct ws_range *tmp;		/* the radix sort's other half */
	size_t tmp_cap;
	int err;			/* -ENOMEM once: the result is a lower bound */
	/*
	 * sector 2^64 - 1 was touched: no [start, end) in 64 bits holds it,
	 * so ranges stop before it (a range past it is cut there)
	 */
	bool top;
};

/* A zeroed struct workset is empty. */
void workset__add(struct workset *w, uint64_t lba, uint64_t len);
/* Adds every range of src to dst. */
void workset__merge(struct workset *dst, const struct workset *src);
/*
 * Sorts in the ranges added so far, which workset__sectors() and
 * workset__merge() would do: for a split run's half, on its own CPU.
 */
void workset__settle(struct workset *w);
/* Sectors touched (UINT64_MAX for all 2^64). */
uint64_t workset__sectors(struct workset *w);
void workset__free(struct workset *w);

#endif
