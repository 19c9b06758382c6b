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

/*
 * An id whose latest event is a submission a minute old lost its
 * completion (a kernel path no program sees: the README's PID 1 case,
 * 15,343 of 144.6 M I/Os in an hour's soak). No stop waits for it (a
 * stop waits 5 s at most, collector.c), and kept it would grow the map
 * for as long as the trace runs.
 */
#define GIVE_UP_AFTER_NS 60000000000ull

/*
 * A completion paired with its id's latest submission gives a latency,
 * and the longest sets how long a stop waits. But the submission may be
 * one that lost its completion, long ago, and the completion that of the
 * id's reuse, read before its own submission: an hour's soak read 525 s
 * for a trace whose longest I/O took 29 ms, and every stop after waited
 * its 5 s maximum. The reuse's submission then comes late, between the
 * two. So a latency longer than the longest confirmed is a candidate
 * until the records can no longer come that far out of order
 * (FORGET_AFTER_NS), and a late submission of its id shortens it.
 */
static uint64_t latency_of(const struct inflight_candidate *c)
{
	return c->completed - c->submitted;
}

static void propose(struct inflight *f, uint64_t id, uint64_t submitted, uint64_t completed)
{
	uint64_t latency = completed - submitted;
	unsigned int i, shortest = 0;

	if (latency <= f->max_latency)
		return;
	if (f->n_cand < INFLIGHT_CANDIDATES) {
		f->cand[f->n_cand++] = (struct inflight_candidate){ id, submitted, completed };
		return;
	}
	/* full: only the longest matters, so the shortest makes room */
	for (i = 1; i < f->n_cand; i++)
		if (latency_of(&f->cand[i]) < latency_of(&f->cand[shortest]))
			shortest = i;
	if (latency > latency_of(&f->cand[shortest]))
		f->cand[shortest] = (struct inflight_candidate){ id, submitted, completed };
}

static void drop_candidate(struct inflight *f, unsigned int i)
{
	f->cand[i] = f->cand[--f->n_cand];
}

/* a submission read after a later event of its id */
static void late_submission(struct inflight *f, uint64_t id, uint64_t ts)
{
	unsigned int i = 0;

	while (i < f->n_cand) {
		struct inflight_candidate *c = &f->cand[i];

		if (c->id == id && c->submitted < ts && ts <= c->completed) {
			c->submitted = ts;
			if (latency_of(c) <= f->max_latency) {
				drop_candidate(f, i);
				continue;
			}
		}
		i++;
	}
}

static void confirm(struct inflight *f)
{
	unsigned int i = 0;

	while (i < f->n_cand) {
		struct inflight_candidate *c = &f->cand[i];

		if (c->completed + FORGET_AFTER_NS <= f->newest) {
			if (latency_of(c) > f->max_latency)
				f->max_latency = latency_of(c);
			drop_candidate(f, i);
			continue;
		}
		i++;
	}
	/* a candidate no longer than the new maximum says nothing more */
	i = 0;
	while (i < f->n_cand)
		if (latency_of(&f->cand[i]) <= f->max_latency)
			drop_candidate(f, i);
		else
			i++;
}

static bool forgotten(const struct inflight *f, uint64_t v)
{
	if (v & COMPLETION_MARK)
		return (v & ~COMPLETION_MARK) < f->newest - FORGET_AFTER_NS;
	return f->newest >= GIVE_UP_AFTER_NS && v < f->newest - GIVE_UP_AFTER_NS;
}

static void prune(struct inflight *f)
{
	uint64_t *gone, id, v;
	size_t pos = 0, n = 0, i;

	confirm(f);
	if (f->newest < FORGET_AFTER_NS)
		return;
	gone = malloc(u64map__count(&f->ids) * sizeof(*gone));
	if (!gone)
		return;
	while (u64map__next(&f->ids, &pos, &id, &v))
		if (forgotten(f, v))
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
	if (follows && completion && !(old & COMPLETION_MARK))
		propose(f, id, old_ts, ts);
	else if (!created && !follows && !completion && f->n_cand)
		late_submission(f, id, ts);
	if (f->newest - f->pruned_at >= PRUNE_EVERY_NS) {
		f->pruned_at = f->newest;
		prune(f);
	}
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

uint64_t inflight__longest(const struct inflight *f)
{
	uint64_t longest = f->max_latency;
	unsigned int i;

	for (i = 0; i < f->n_cand; i++)
		if (latency_of(&f->cand[i]) > longest)
			longest = latency_of(&f->cand[i]);
	return longest;
}

uint64_t inflight__patience(const struct inflight *f, uint64_t max_ns)
{
	uint64_t longest = inflight__longest(f);
	uint64_t p = longest > max_ns / 4 ? max_ns : 4 * longest;

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
