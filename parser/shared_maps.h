/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A trace's stream files mapped once, for the readers of a split run's
 * two halves (split.h), each with its own opening of the trace.
 *
 * Mapped by each half apart, the files are faulted in twice, and at the
 * start both halves touch the same pages at the same moment: the kernel
 * locks a page-cache page while it maps it, so one thread sleeps until
 * the other is through, dozens of times per run, and the sleeper's CPU
 * idles (measured on the upstream sample: --statistics took 14-16 ms so,
 * 10.5 ms with one mapping for both). Threads share page tables: a page
 * one half faulted in, the other finds mapped.
 *
 * The mappings stay whole until freed (no pages given back behind the
 * readers, who do not know of each other), so only traces up to
 * SHARED_MAPS_MAX bytes are shared; each half maps a larger one for
 * itself, as one pass does.
 */
#ifndef IOTRACE_SHARED_MAPS_H
#define IOTRACE_SHARED_MAPS_H

#include <stddef.h>

struct shared_maps;
struct trace;

#define SHARED_MAPS_MAX ((size_t)32 << 20)

/*
 * Maps the files of t's streams, read only; t must stay open while the
 * maps are lent. NULL when there is nothing to share: no mappable file,
 * more than SHARED_MAPS_MAX bytes, or no memory (the halves then map
 * their files themselves).
 */
struct shared_maps *shared_maps__new(const struct trace *t);

/*
 * Has each stream of t (an opening of the same directory, not yet read)
 * read its file through the mapping of the same path.
 */
void shared_maps__lend(const struct shared_maps *m, struct trace *t);

/* After every trace they were lent to is freed. Accepts NULL. */
void shared_maps__free(struct shared_maps *m);

#endif
