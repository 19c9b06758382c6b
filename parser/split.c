// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "join.h"
#include "reader.h"
#include "shared_maps.h"
#include "sid_seek.h"
#include "split.h"
#include "stream.h"
#include "trace.h"

struct split;

struct half {
	/* what to run */
	const char *dir;
	const struct view_ops *ops;
	FILE *out;
	const struct view_opts *opts;
	unsigned int join_flags;
	uint64_t events;
	bool upper;
	const struct shared_maps *maps;	/* the lower half's; NULL: the streams map their files */
	struct split *s;
	/* the lower half: it has the upper half's cut; it waits for it from this sid on */
	bool cut_taken;
	uint64_t cut_due;

	struct trace *t;	/* the lower half's is opened before the split starts */
	struct reader *rd;
	struct join *j;
	void *view;
	int ret;	/* 1 done, 0 not for a split, -errno */
};

/*
 * How the halves meet. The lower half finds the sid where they do (mid),
 * the upper one, waiting for it while it opens its own copy of the
 * trace, then finds where each stream crosses it (cut) and hands that
 * back: the lower half needs it only when its reading nears mid, so it
 * starts reading at once and never waits, unless the upper half is late
 * by most of a run.
 */
struct meet {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool mid_ready;
	uint64_t mid;		/* 0: no split */
	_Atomic bool cut_ready;
	struct reader_cut *cut;	/* NULL: none found */
	size_t ncut;
};

struct split {
	struct half h[2];
	struct shared_maps *maps;
	struct meet meet;
};

static void half_record(void *ctx, const struct io_rec *r)
{
	struct half *h = ctx;

	h->ops->record(h->view, r);
}

/*
 * The lowest first sid of t's streams, reading each stream's first record
 * and going back: 0 if some stream is not a raw file read in place, or
 * its first record has no sid at hand (one pass deals with those).
 */
static int first_sid(struct trace *t, uint64_t *first)
{
	size_t i, n = trace__stream_count(t);
	bool any = false;

	for (i = 0; i < n; i++) {
		struct stream *s = trace__stream(t, i);
		const uint8_t *msg;
		enum event_type type;
		uint64_t sid;
		size_t len;
		int r = stream__next(s, &msg, &len);

		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return 0;
		if (r == 0)
			continue;
		if (!(decode__peek(msg, len, &type, &sid) & DECODE_PEEK_SID) || stream__rewind(s))
			return 0;
		if (!any || sid < *first)
			*first = sid;
		any = true;
	}
	return any;
}

/* 0, 1 when the trace would not open, or -ENOMEM */
static int half_open(struct half *h)
{
	struct join_sink sink = { half_record, h, NULL };

	/* not there, not a trace: one pass says so */
	if (!h->t)
		h->t = trace__open(h->dir);
	if (!h->t)
		return errno == ENOMEM ? -ENOMEM : 1;
	if (h->maps)
		shared_maps__lend(h->maps, h->t);
	h->j = join__new(h->join_flags | (h->upper ? JOIN_DEFER : 0), &sink);
	h->rd = h->j ? reader__new(h->t, join__event_types(h->j), 1) : NULL;
	h->view = h->rd ? h->ops->create(h->out, h->opts) : NULL;
	return h->view ? 0 : -ENOMEM;
}

/*
 * Where t's streams cross mid, for those that read a lent map: sid_seek.h
 * guesses, READER_RANGE_SLACK early (READER_CUT_SID(): a record of the
 * upper half is rarely that far out of order). The lower half's reader
 * checks them. NULL if out of memory.
 */
static struct reader_cut *find_cut(struct trace *t, uint64_t mid, size_t *n)
{
	struct reader_cut *cut;
	size_t i, len;

	*n = trace__stream_count(t);
	cut = calloc(*n ? *n : 1, sizeof(*cut));
	for (i = 0; cut && i < *n && READER_CUT_SID(mid); i++) {
		cut[i].map = stream__lent_bytes(trace__stream(t, i), &len);
		if (cut[i].map)
			cut[i].off = sid_seek__offset(cut[i].map, len, READER_CUT_SID(mid));
	}
	return cut;
}

static void meet_mid(struct meet *m, uint64_t mid)
{
	pthread_mutex_lock(&m->mu);
	m->mid = mid;
	m->mid_ready = true;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

static uint64_t meet_wait_mid(struct meet *m)
{
	uint64_t mid;

	pthread_mutex_lock(&m->mu);
	while (!m->mid_ready)
		pthread_cond_wait(&m->cv, &m->mu);
	mid = m->mid;
	pthread_mutex_unlock(&m->mu);
	return mid;
}

/* The upper half's last word to the lower one: cut (NULL for none). */
static void meet_cut(struct meet *m, struct reader_cut *cut, size_t n)
{
	pthread_mutex_lock(&m->mu);
	m->cut = cut;
	m->ncut = cut ? n : 0;
	atomic_store(&m->cut_ready, true);
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

/*
 * The lower half takes the cut, if the upper half has found it; it waits
 * for it if wait, or once the events it hands out (at sid) come near
 * where the streams cross (its streams are read ahead by a window).
 */
static void lower_take_cut(struct half *h, uint64_t sid, bool wait)
{
	struct meet *m = &h->s->meet;

	if (!wait && !atomic_load(&m->cut_ready) && sid < h->cut_due)
		return;
	pthread_mutex_lock(&m->mu);
	while (!atomic_load(&m->cut_ready))
		pthread_cond_wait(&m->cv, &m->mu);
	pthread_mutex_unlock(&m->mu);
	if (m->cut)
		reader__set_cut(h->rd, m->cut, m->ncut);
	h->cut_taken = true;
}

/* The lower half finds mid and starts; 1 to read, 0 for no split, -errno. */
static int lower_start(struct half *h, int r)
{
	struct meet *m = &h->s->meet;
	uint64_t first = 0, mid;

	if (!r)
		r = first_sid(h->t, &first);
	else
		r = r < 0 ? r : 0;
	if (r <= 0) {
		meet_mid(m, 0);
		return r;
	}
	mid = first + h->events / SPLIT_SHARE_DEN * SPLIT_SHARE_NUM +
	      h->events % SPLIT_SHARE_DEN * SPLIT_SHARE_NUM / SPLIT_SHARE_DEN;
	if (mid < first)
		mid = UINT64_MAX;
	meet_mid(m, mid);
	reader__set_range(h->rd, 0, mid);
	/* the readers read ahead a window */
	h->cut_due = READER_CUT_SID(mid) > 2 * READER_WINDOW ?
			     READER_CUT_SID(mid) - 2 * READER_WINDOW :
			     0;
	return 1;
}

/* The upper half waits for mid, then finds the cut and starts there. */
static int upper_start(struct half *h, int r)
{
	struct meet *m = &h->s->meet;
	struct reader_cut *cut = NULL;
	uint64_t mid;
	size_t n = 0;

	mid = meet_wait_mid(m);
	if (!r && mid) {
		/* not read yet: the maps can still be lent */
		if (h->s->maps)
			shared_maps__lend(h->s->maps, h->t);
		reader__set_range(h->rd, mid, UINT64_MAX);
		cut = find_cut(h->t, mid, &n);
		if (cut)
			reader__set_cut(h->rd, cut, n);
	}
	meet_cut(m, cut, n);
	if (r)
		return r < 0 ? r : 0;
	return mid ? 1 : 0;
}

/* Opens the half's own copy of the trace and, with the other half, where they meet. */
static int half_start(struct half *h)
{
	/* 1: not a trace, which one pass reports */
	int r = half_open(h);

	return h->upper ? upper_start(h, r) : lower_start(h, r);
}

static void *half_main(void *p)
{
	struct half *h = p;
	const struct event *ev;
	int r = half_start(h);

	if (r <= 0) {
		h->ret = r;
		return NULL;
	}
	while ((r = reader__next(h->rd, &ev)) == 1) {
		if (!h->upper && !h->cut_taken)
			lower_take_cut(h, ev->sid, false);
		r = join__event(h->j, ev);
		if (r)
			break;
	}
	/* the upper half's cut is checked even when read before it came */
	if (!h->upper && !h->cut_taken)
		lower_take_cut(h, 0, true);
	if (!r && h->ops->settle)
		h->ops->settle(h->view);
	h->ret = r < 0 ? r : 1;
	return NULL;
}

static void half_close(struct half *h)
{
	if (h->view)
		h->ops->destroy(h->view);
	reader__free(h->rd);
	join__free(h->j);
	trace__free(h->t);
}

/* Both halves are read: the lower one takes in the upper one. */
static int merge_halves(struct split *s)
{
	struct half *lo = &s->h[0], *hi = &s->h[1];
	size_t ndev = join__device_count(hi->j);
	unsigned int *map = calloc(ndev + 1, sizeof(*map));
	int err;

	if (!map)
		return -ENOMEM;
	err = join__finish_split(lo->j, hi->j, map);
	if (!err)
		err = lo->ops->merge(lo->view, hi->view, map, ndev);
	free(map);
	return err;
}

/*
 * Starts the upper half on another CPU than this one: left to itself,
 * the kernel first queues a new thread where its parent runs and moves it
 * only later (measured: the two halves then overlapped little).
 */
static int start_thread(pthread_t *th, struct half *h)
{
	int cpu = sched_getcpu(), c, err;
	pthread_attr_t attr;
	cpu_set_t allowed, other;

	if (pthread_attr_init(&attr))
		return -1;
	if (cpu >= 0 && !sched_getaffinity(0, sizeof(allowed), &allowed)) {
		CPU_ZERO(&other);
		for (c = 0; c < CPU_SETSIZE; c++) {
			if (c != cpu && CPU_ISSET(c, &allowed))
				CPU_SET(c, &other);
		}
		if (CPU_COUNT(&other))
			pthread_attr_setaffinity_np(&attr, sizeof(other), &other);
	}
	err = pthread_create(th, &attr, half_main, h);
	pthread_attr_destroy(&attr);
	return err;
}

static uint64_t min_events = SPLIT_MIN_EVENTS;

void split__set_min_events(uint64_t events)
{
	min_events = events;
}

struct split *split__run(const char *dir, uint64_t events, const struct view_ops *ops, FILE *out,
			 const struct view_opts *opts, unsigned int join_flags, int *err)
{
	struct split *s;
	pthread_t th;
	int r, k;

	*err = 0;
	if (!ops->merge || join_flags || events < min_events)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&s->meet.mu, NULL);
	pthread_cond_init(&s->meet.cv, NULL);
	for (k = 0; k < 2; k++) {
		struct half *h = &s->h[k];

		h->dir = dir;
		h->ops = ops;
		h->out = out;
		h->opts = opts;
		h->join_flags = join_flags;
		h->events = events;
		h->upper = k == 1;
		h->s = s;
	}
	/* the lower half's trace, a listing for the maps made while the thread starts */
	s->h[0].t = trace__open(dir);
	if (start_thread(&th, &s->h[1])) {
		r = 0;
		goto out;
	}
	if (s->h[0].t)
		s->maps = shared_maps__new(s->h[0].t);
	s->h[0].maps = s->maps;
	half_main(&s->h[0]);
	pthread_join(th, NULL);
	r = s->h[0].ret < 0 ? s->h[0].ret : s->h[1].ret < 0 ? s->h[1].ret : 1;
	if (r < 0 || !s->h[0].ret || !s->h[1].ret) {
		r = r < 0 ? r : 0;
		goto out;
	}
	/*
	 * a record of the lower half that its reader had stopped before, one
	 * of the upper half before where its reader started, damage (the
	 * bisection may start the upper half's reader past damage that one
	 * pass stops the stream at: sid_seek.h), a sid given twice (said by
	 * one pass), a record further out of order than the halves' windows
	 * take in (one pass's larger window may put it in its place), or a
	 * request with bios in both halves
	 */
	if (reader__stragglers(s->h[1].rd) || reader__stragglers(s->h[0].rd) ||
	    reader__late(s->h[0].rd) || reader__late(s->h[1].rd) ||
	    reader__error_count(s->h[0].rd) || reader__error_count(s->h[1].rd) ||
	    reader__same_sid(s->h[0].rd) || reader__same_sid(s->h[1].rd) ||
	    join__needs_one_pass(s->h[1].j)) {
		r = 0;
		goto out;
	}
	r = merge_halves(s);
	if (!r)
		return s;
out:
	*err = r < 0 ? r : 0;
	split__free(s);
	return NULL;
}

struct join *split__join(const struct split *s)
{
	return s->h[0].j;
}

void *split__view(const struct split *s)
{
	return s->h[0].view;
}

uint64_t split__records(const struct split *s)
{
	return reader__records(s->h[0].rd) + reader__records(s->h[1].rd);
}

void split__free(struct split *s)
{
	if (!s)
		return;
	half_close(&s->h[0]);
	half_close(&s->h[1]);
	shared_maps__free(s->maps);
	pthread_mutex_destroy(&s->meet.mu);
	pthread_cond_destroy(&s->meet.cv);
	free(s->meet.cut);
	free(s);
}
