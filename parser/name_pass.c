// SPDX-License-Identifier: BSD-3-Clause
/*
 * Each thread takes streams one at a time and keeps the name events it
 * finds in a list of its own. At the end the lists are sorted together by
 * (sid, stream, record) and applied in that order: the last name of a
 * file wins, whichever thread read which stream.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "file_names.h"
#include "name_pass.h"
#include "stream.h"
#include "trace.h"

struct name_ev {
	uint64_t sid, pos;
	uint32_t stream;
	struct file_id id, parent;
	char *name;
};

struct worker {
	struct name_ev *ev;
	size_t n, cap;
	int err;
};

struct scan {
	struct trace *t;
	size_t n;
	_Atomic size_t next;	/* the next stream nobody took */
	struct worker w[2];
};

static int keep(struct worker *w, const struct event *ev, uint32_t stream, uint64_t pos)
{
	const Octf__Proto__Trace__EventIoFilesystemFileName *fnm = ev->pb->filesystemfilename;
	struct name_ev *e;

	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct name_ev *ne = realloc(w->ev, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		w->ev = ne;
		w->cap = cap;
	}
	e = &w->ev[w->n];
	e->name = strdup(fnm->filename ? fnm->filename : "");
	if (!e->name)
		return -ENOMEM;
	e->sid = ev->sid;
	e->pos = pos;
	e->stream = stream;
	event__file_id(fnm->fileid, &e->id);
	event__file_id(fnm->fileparentid, &e->parent);
	w->n++;
	return 0;
}

static int scan_stream(struct worker *w, struct stream *s, uint32_t stream)
{
	struct stream_rec rec;
	enum event_type type;
	struct event ev;
	uint64_t pos;
	int r;

	for (pos = 0; (r = stream__next_rec(s, &rec)) == 1; pos++) {
		/* a delta record's type is at hand: only names are made into messages */
		if (rec.split) {
			if (decode__split_type(rec.split) != EV_FILE_NAME)
				continue;
			stream__rec_msg(s, &rec);
		} else if (decode__peek_type(rec.msg, rec.len, &type) && type != EV_FILE_NAME) {
			continue;
		}
		r = decode__event(rec.msg, rec.len, &ev, EV_BIT(EV_FILE_NAME));
		if (r < 0)
			return 0;
		if (r == DECODE_SKIPPED)
			continue;
		r = keep(w, &ev, stream, pos);
		decode__release(&ev);
		if (r)
			return r;
	}
	return r == -ENOMEM ? r : 0;
}

static void run_worker(struct scan *sc, struct worker *w)
{
	size_t i;

	while (!w->err && (i = atomic_fetch_add(&sc->next, 1)) < sc->n)
		w->err = scan_stream(w, trace__stream(sc->t, i), (uint32_t)i);
}

static void *helper_main(void *p)
{
	struct scan *sc = p;

	run_worker(sc, &sc->w[1]);
	return NULL;
}

static int by_order(const void *a, const void *b)
{
	const struct name_ev *x = a, *y = b;

	if (x->sid != y->sid)
		return x->sid < y->sid ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int name_pass__run(struct trace *t, struct file_names *fn, unsigned int threads)
{
	struct scan sc = { .t = t, .n = trace__stream_count(t) };
	struct name_ev *all = NULL;
	pthread_t helper;
	bool threaded = false;
	size_t i, k, n = 0;
	int err = 0;

	atomic_init(&sc.next, 0);
	/* a second thread only pays off with streams to share */
	if (threads > 1 && sc.n > 1)
		threaded = !pthread_create(&helper, NULL, helper_main, &sc);
	run_worker(&sc, &sc.w[0]);
	if (threaded)
		pthread_join(helper, NULL);

	for (k = 0; k < 2; k++) {
		if (sc.w[k].err)
			err = sc.w[k].err;
		n += sc.w[k].n;
	}
	if (!err && n) {
		all = malloc(n * sizeof(*all));
		if (!all)
			err = -ENOMEM;
	}
	if (!err && n) {
		/* a worker that found nothing has no array: memcpy(NULL, 0) is UB */
		for (k = 0; k < 2; k++)
			if (sc.w[k].n)
				memcpy(all + (k ? sc.w[0].n : 0), sc.w[k].ev, sc.w[k].n * sizeof(*all));
		qsort(all, n, sizeof(*all), by_order);
		for (i = 0; i < n && !err; i++)
			err = file_names__set_name(fn, &all[i].id, &all[i].parent, all[i].name);
	}
	for (k = 0; k < 2; k++) {
		for (i = 0; i < sc.w[k].n; i++)
			free(sc.w[k].ev[i].name);
		free(sc.w[k].ev);
	}
	free(all);
	return err;
}
