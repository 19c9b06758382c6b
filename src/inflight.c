// SPDX-License-Identifier: BSD-3-Clause
#include <stdbool.h>
#include <stdlib.h>

#include "inflight.h"

#define MIN_PATIENCE_NS 100000000ull

/*
 * The collector reads the CPUs' records one CPU at a time, so an id's
 * submissions and completions, made on different CPUs, come in any
 * order. What the id is at present does not depend on that order: an id
 * (a bio address) is in flight once at a time, so its events alternate
 * in time, and the latest of them says whether it is in flight. So each
 * id keeps only its latest event: the time, marked if a completion (the
 * clock, CLOCK_MONOTONIC, is one for all CPUs). A completion whose
 * submission came before the trace is a completed id like any other.
 */
#define COMPLETION_MARK (1ull << 63)

/*
 * Ids whose latest event is a completion this much older than the newest
 * event seen are forgotten (prune()): records come out of order by at
 * most what the rings hold, read every 100 ms. Bio addresses are reused
 * a lot but not forever, as slab pages come and go: fio's random reads
 * on a loop device bring 3,000-5,000 new ones a second. So the horizon is
 * short, to keep the map in the CPU's cache: with 10 s it held 28,500 ids
 * (1 MiB of slots, and growing) after 8 s of them, and its lookups,
 * mostly cache misses, took 6% of the collector's time; with 1 s it
 * holds 7,000-8,000 (256-512 KiB), and they take 3.6%. An event read
 * later than the horizon (a collector stopped for seconds) can only make
 * a completed I/O look in flight, which the stop then waits for no
 * longer than its patience (inflight__waiting()).
 *
 * A prune looks at every slot of the map, so it runs by the clock, every
 * quarter of the horizon, and holds at most 1.25 s of ids. It ran every
 * 16,384 events before: at full rate 30 times a second, 3.5% of the
 * collector's instructions (bench/intake).
 */
#define FORGET_AFTER_NS 1000000000ull
#define PRUNE_EVERY_NS (FORGET_AFTER_NS / 4)

static void prune(struct inflight *f)
{
	uint64_t *gone, id, v;
	size_t pos = 0, n = 0, i;

	if (f->newest < FORGET_AFTER_NS)
		return;
	gone = malloc(u64map__count(&f->ids) * sizeof(*gone));
	if (!gone)
		return;
	while (u64map__next(&f->ids, &pos, &id, &v))
		if ((v & COMPLETION_MARK) && (v & ~COMPLETION_MARK) < f->newest - FORGET_AFTER_NS)
			gone[n++] = id;
	for (i = 0; i < n; i++)
		u64map__del(&f->ids, gone[i]);
	free(gone);
}

static void event(struct inflight *f, uint64_t id, uint64_t ts, bool completion)
{
	uint64_t val = ts | (completion ? COMPLETION_MARK : 0), old, old_ts;
	bool created, follows;
	uint64_t *v = u64map__ref(&f->ids, id, &created);

	/* out of memory: that I/O is not waited for */
	if (!v)
		return;
	old = *v;
	old_ts = old & ~COMPLETION_MARK;
	/* an older event, late, leaves the id its latest */
	follows = !created && old_ts <= ts;
	if (created || follows)
		*v = val;
	if (ts > f->newest)
		f->newest = ts;
	if (f->newest - f->pruned_at >= PRUNE_EVERY_NS) {
		f->pruned_at = f->newest;
		prune(f);
	}
	if (follows && completion && !(old & COMPLETION_MARK) && ts - old_ts > f->max_latency)
		f->max_latency = ts - old_ts;
}

void inflight__note(struct inflight *f, const struct iotrace_event *e)
{
	switch (e->type) {
	case IOTRACE_EV_QUEUE:
	case IOTRACE_EV_SPLIT:
	case IOTRACE_EV_RQ_QUEUE:
		event(f, e->id, e->ts & ~COMPLETION_MARK, false);
		break;
	case IOTRACE_EV_COMPLETE:
	case IOTRACE_EV_RQ_COMPLETE:
		event(f, e->id, e->ts & ~COMPLETION_MARK, true);
		break;
	default:
		break;
	}
}

uint64_t inflight__patience(const struct inflight *f, uint64_t max_ns)
{
	uint64_t p = f->max_latency > max_ns / 4 ? max_ns : 4 * f->max_latency;

	if (p < MIN_PATIENCE_NS)
		p = MIN_PATIENCE_NS;
	return p < max_ns ? p : max_ns;
}

size_t inflight__waiting(const struct inflight *f, uint64_t now, uint64_t patience)
{
	uint64_t id, v;
	size_t pos = 0, n = 0;

	while (u64map__next(&f->ids, &pos, &id, &v))
		if (!(v & COMPLETION_MARK) && v + patience > now)
			n++;
	return n;
}

void inflight__free(struct inflight *f)
{
	u64map__free(&f->ids);
}
