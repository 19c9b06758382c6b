// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "join.h"
#include "reader.h"
#include "shared_maps.h"
#include "split.h"
#include "stream.h"
#include "trace.h"

/*
 * Where the upper half starts, as a share of the events: its reader also
 * skims the lower half's records, so it gets a little less to decode.
 */
#define SPLIT_SHARE_NUM 53
#define SPLIT_SHARE_DEN 100

struct half {
	/* what to run */
	const char *dir;
	const struct view_ops *ops;
	FILE *out;
	const struct view_opts *opts;
	unsigned int join_flags;
	uint64_t events;
	bool upper;
	const struct shared_maps *maps;	/* NULL: the streams map their files */

	struct trace *t;	/* the lower half's is opened before the split starts */
	struct reader *rd;
	struct join *j;
	void *view;
	int ret;	/* 1 done, 0 not for a split, -errno */
};

struct split {
	struct half h[2];
	struct shared_maps *maps;
	struct merge_error *errs;
	size_t nerr;
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
 * Opens its own copy of the trace, finds where the halves meet and reads,
 * joins and counts its half. Both halves find the same place from the
 * same files, so neither waits for the other: a thread's first run on an
 * idle virtual CPU can take milliseconds to come.
 */
static void *half_main(void *p)
{
	struct half *h = p;
	const struct event *ev;
	uint64_t first = 0, mid;
	int r;

	r = half_open(h);
	if (r > 0)
		r = 0;
	else if (!r)
		r = first_sid(h->t, &first);
	if (r <= 0) {
		h->ret = r;
		return NULL;
	}
	mid = first + h->events / SPLIT_SHARE_DEN * SPLIT_SHARE_NUM +
	      h->events % SPLIT_SHARE_DEN * SPLIT_SHARE_NUM / SPLIT_SHARE_DEN;
	if (mid < first)
		mid = UINT64_MAX;
	if (h->upper)
		reader__set_range(h->rd, mid, UINT64_MAX);
	else
		reader__set_range(h->rd, 0, mid);
	while ((r = reader__next(h->rd, &ev)) == 1) {
		r = join__event(h->j, ev);
		if (r)
			break;
	}
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

static bool same_error(const struct merge_error *a, const struct merge_error *b)
{
	return a->offset == b->offset && a->err == b->err && !strcmp(a->path, b->path);
}

/* Each half's damage; what both found (the upper half reads the lower's streams too) once. */
static int collect_errors(struct split *s)
{
	size_t na = reader__error_count(s->h[0].rd), nb = reader__error_count(s->h[1].rd), i, k;

	s->errs = calloc(na + nb + 1, sizeof(*s->errs));
	if (!s->errs)
		return -ENOMEM;
	for (i = 0; i < na; i++)
		s->errs[s->nerr++] = *reader__error(s->h[0].rd, i);
	for (i = 0; i < nb; i++) {
		const struct merge_error *e = reader__error(s->h[1].rd, i);

		for (k = 0; k < na && !same_error(&s->errs[k], e); k++)
			;
		if (k == na)
			s->errs[s->nerr++] = *e;
	}
	return 0;
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
	if (!err)
		err = collect_errors(s);
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

struct split *split__run(const char *dir, uint64_t events, const struct view_ops *ops, FILE *out,
			 const struct view_opts *opts, unsigned int join_flags, int *err)
{
	struct split *s;
	pthread_t th;
	int r, k;

	*err = 0;
	if (!ops->merge || join_flags || events < SPLIT_MIN_EVENTS)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	for (k = 0; k < 2; k++) {
		struct half *h = &s->h[k];

		h->dir = dir;
		h->ops = ops;
		h->out = out;
		h->opts = opts;
		h->join_flags = join_flags;
		h->events = events;
		h->upper = k == 1;
	}
	/* a listing for the maps, then the lower half's trace */
	s->h[0].t = trace__open(dir);
	if (s->h[0].t)
		s->maps = shared_maps__new(s->h[0].t);
	s->h[0].maps = s->h[1].maps = s->maps;
	if (start_thread(&th, &s->h[1])) {
		r = 0;
		goto out;
	}
	half_main(&s->h[0]);
	pthread_join(th, NULL);
	r = s->h[0].ret < 0 ? s->h[0].ret : s->h[1].ret < 0 ? s->h[1].ret : 1;
	if (r < 0 || !s->h[0].ret || !s->h[1].ret) {
		r = r < 0 ? r : 0;
		goto out;
	}
	/*
	 * a record of the lower half that its reader had stopped before, or
	 * a request with bios in both halves
	 */
	if (reader__stragglers(s->h[1].rd) || join__needs_one_pass(s->h[1].j)) {
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

size_t split__error_count(const struct split *s)
{
	return s->nerr;
}

const struct merge_error *split__error(const struct split *s, size_t i)
{
	return i < s->nerr ? &s->errs[i] : NULL;
}

void split__free(struct split *s)
{
	if (!s)
		return;
	half_close(&s->h[0]);
	half_close(&s->h[1]);
	shared_maps__free(s->maps);
	free(s->errs);
	free(s);
}
