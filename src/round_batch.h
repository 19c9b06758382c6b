/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One round's records of each CPU, copied out of its ring so that the
 * collector can look at the whole round before it writes any of it:
 * --paths learns every link of the round first, and near the size limit
 * the round is written in sid order across CPUs. Written CPU by CPU, a
 * round bigger than the room left filled the files with the first CPU's
 * records, and the limit then refused the other CPUs' from their oldest
 * on: the trace was complete only up to there, sometimes next to nothing.
 * Merged, a round is written up to the oldest of the CPUs' newest records,
 * since a ring read early in the round has newer records left in it; the
 * rest waits for the next round.
 *
 * A record starts with its sid (struct iotrace_event); each CPU's records
 * keep their order, including the few a nested program put out of sid
 * order.
 */
#ifndef IOTRACE_ROUND_BATCH_H
#define IOTRACE_ROUND_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* entries of a uint32_t size, then the record, padded to 8 bytes */
struct batch {
	uint8_t *buf;
	size_t used, cap;
	size_t last;	/* the entry pushed last */
	size_t kept;	/* the entries at the start that the last merge left */
};

/* Appends a record of sz bytes (at least a sid's); 0 or -ENOMEM. */
int batch__push(struct batch *b, const void *rec, uint32_t sz);

/* Calls fn for each record of b, in its order. */
void batch__each(const struct batch *b, void (*fn)(void *ctx, int cpu, const void *rec, uint32_t sz),
		 void *ctx, int cpu);

/* Whether b took a record since the last merge, and that record's sid. */
bool batch__newest(const struct batch *b, uint64_t *sid);

/*
 * Calls fn for each record of b[0..n) (CPU i's in b[i]), taking next the
 * CPU whose next record has the lowest sid, until that sid is past upto
 * (UINT64_MAX: all). What is left stays in b, for the next merge. The
 * number of batches left holding records, or -ENOMEM (then nothing was
 * called).
 */
int batch__merge(struct batch *b, int n, uint64_t upto,
		 void (*fn)(void *ctx, int cpu, const void *rec, uint32_t sz), void *ctx);

/* Empties b[0..n), keeping their memory for the next round. */
void batch__clear(struct batch *b, int n);

#endif
