/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Merges the streams of a trace into one sequence ordered by header.sid
 * (ties broken by stream index, then by position in the stream): a k-way
 * heap merge that holds a small window of decoded events per stream.
 *
 * Streams are only nearly sorted: a BPF program interrupted on one CPU by
 * another program (a completion in irq context) can emit a later sid
 * before an earlier one. The per-stream window (MERGE_WINDOW events)
 * absorbs such local inversions; memory is bounded by
 * streams x MERGE_WINDOW events, never by trace length.
 *
 * A damaged stream stops contributing at the damage; the merge goes on
 * with the others and records what happened (merge__errors).
 */
#ifndef IOTRACE_MERGE_H
#define IOTRACE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "trace.pb-c.h"

#define MERGE_WINDOW 64

struct trace;
struct merge;

struct merge_error {
	const char *path;   /* stream file */
	uint64_t offset;    /* byte offset of the damage */
	int err;            /* negative errno as from stream__next, or -EPROTO: record does not decode */
	uint64_t after_sid; /* the sid of the stream's last record read before it + 1; 0: none */
};

/* Returns NULL with errno set. The trace must outlive the merge. */
struct merge *merge__new(struct trace *t);

/*
 * Returns 1 and the next event in *ev (owned by the merge, valid until the
 * next call), 0 at the end of all streams, or a negative errno for a
 * failure that stops the whole merge (out of memory).
 */
int merge__next(struct merge *m, const Octf__Proto__Trace__Event **ev);

/* Damage met so far, one entry per damaged stream. */
size_t merge__error_count(const struct merge *m);
const struct merge_error *merge__error(const struct merge *m, size_t i);

/*
 * Events returned so far whose sid was the event's before: each sid of a
 * trace is given once, so these are damaged records or a stream file
 * there twice, not told apart by any framing check.
 */
uint64_t merge__same_sid(const struct merge *m);

/* Accepts NULL. */
void merge__free(struct merge *m);

#endif
