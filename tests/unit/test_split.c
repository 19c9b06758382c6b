// SPDX-License-Identifier: BSD-3-Clause
/*
 * Split runs (split.h) give the result of one pass: the same events cut
 * in two at some point, the upper part joined with JOIN_DEFER, finished
 * with join__finish_split() and the views merged, must write the same
 * --statistics (JSON, CSV, table) and counts as one join over them all,
 * or give up (a request with bios on both sides: join__needs_one_pass(),
 * and split.c runs one pass). Randomized traces cut where something
 * crosses (an I/O long in flight, a split and its child, a lost
 * completion, a request with its bios and dispatch on both sides), every
 * cut of one request merged at the front, the back and in the middle,
 * and the reader's sid ranges that feed the two halves. The records are
 * compared too, to tell what differs.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "framed_buf.h"
#include "join_events.h"
#include "reader.h"
#include "shared_maps.h"
#include "sid_seek.h"
#include "split.h"
#include "stream.h"
#include "trace.h"
#include "view.h"

/* ---- running one pass or a split ---- */

/* What of a record the statistics read (not qd: per join), without padding for memcmp */
struct rec {
	uint64_t sid, ts, id, dev, lba, latency, dispatch_ts, queue_time, device_time;
	uint32_t len, flags, state, error, dispatched;
	int32_t op;
};

struct outcome {
	bool gave_up;	/* the split's upper join: join__needs_one_pass() */
	char *text;
	size_t len;
	struct join_counts c;
	struct rec *r;
	size_t n, cap;
};

struct side {
	void *view;
	struct join *j;
	struct outcome *o;
};

static void side_record(void *ctx, const struct io_rec *r)
{
	struct side *s = ctx;
	struct outcome *o = s->o;

	stats_view_ops.record(s->view, r);
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 1024;
		o->r = realloc(o->r, o->cap * sizeof(*o->r));
		assert_non_null(o->r);
	}
	o->r[o->n++] = (struct rec){ r->sid, r->ts, r->id, r->dev->id, r->lba, r->latency,
				     r->dispatch_ts, r->queue_time, r->device_time, r->len,
				     r->flags, r->state, r->error, r->dispatched, r->op };
}

static int by_sid(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->sid < y->sid ? -1 : x->sid > y->sid;
}

/*
 * ev[0, k) to the lower join and ev[k, n) to a JOIN_DEFER one, merged as
 * split.c does; k > n: one pass. The records come from both sinks, so
 * they are compared by sid.
 */
static void run(const struct event *ev, size_t n, size_t k, enum view_format fmt,
		struct outcome *o)
{
	struct view_opts opts = { .format = fmt };
	struct side lo = { .o = o }, hi = { .o = o };
	struct join_sink ls = { side_record, &lo, NULL }, hs = { side_record, &hi, NULL };
	unsigned int *map;
	size_t i, ndev;
	FILE *out;

	memset(o, 0, sizeof(*o));
	out = open_memstream(&o->text, &o->len);
	lo.view = stats_view_ops.create(out, &opts);
	lo.j = join__new(0, &ls);
	assert_true(out && lo.view && lo.j);
	if (k <= n) {
		hi.view = stats_view_ops.create(out, &opts);
		hi.j = join__new(JOIN_DEFER, &hs);
		assert_true(hi.view && hi.j);
	}
	for (i = 0; i < n; i++)
		assert_int_equal(join__event(i < k ? lo.j : hi.j, &ev[i]), 0);
	if (k <= n) {
		/* as split.c: each half settles its view when its records are in */
		stats_view_ops.settle(lo.view);
		stats_view_ops.settle(hi.view);
		o->gave_up = join__needs_one_pass(hi.j);
		ndev = join__device_count(hi.j);
		map = calloc(ndev + 1, sizeof(*map));
		assert_non_null(map);
		assert_int_equal(join__finish_split(lo.j, hi.j, map), 0);
		assert_int_equal(stats_view_ops.merge(lo.view, hi.view, map, ndev), 0);
		free(map);
		stats_view_ops.destroy(hi.view);
		join__free(hi.j);
	} else {
		assert_int_equal(join__finish(lo.j), 0);
	}
	o->c = *join__counts(lo.j);
	assert_int_equal(stats_view_ops.finish(lo.view, lo.j), 0);
	stats_view_ops.destroy(lo.view);
	join__free(lo.j);
	assert_int_equal(fclose(out), 0);
	qsort(o->r, o->n, sizeof(*o->r), by_sid);
}

static void outcome_free(struct outcome *o)
{
	free(o->text);
	free(o->r);
}

static void print_rec(const char *who, const struct rec *r)
{
	print_message("  %s: sid %llu id %#llx lba %llu len %u state %u err %u lat %llu "
		      "disp %u q %llu d %llu\n", who, (unsigned long long)r->sid,
		      (unsigned long long)r->id, (unsigned long long)r->lba, r->len, r->state,
		      r->error, (unsigned long long)r->latency, r->dispatched,
		      (unsigned long long)r->queue_time, (unsigned long long)r->device_time);
}

/*
 * Whether split equals one; says where not. late_completions may differ:
 * what waits behind an I/O differs per join.
 */
static bool same(const struct outcome *one, const struct outcome *split, const char *what,
		 bool recs)
{
	const struct join_counts *a = &one->c, *b = &split->c;
	bool ok = true;
	size_t i;

	if (a->ios != b->ios || a->completed != b->completed ||
	    a->not_completed != b->not_completed || a->lost_by_reuse != b->lost_by_reuse ||
	    a->orphan_completions != b->orphan_completions ||
	    a->orphan_splits != b->orphan_splits || a->orphan_dispatches != b->orphan_dispatches ||
	    a->negative_latencies != b->negative_latencies) {
		print_message("%s: counts differ\n", what);
		ok = false;
	}
	if (recs && one->n != split->n) {
		print_message("%s: %zu records, split %zu\n", what, one->n, split->n);
		ok = false;
	}
	for (i = 0; recs && i < one->n && i < split->n; i++) {
		if (memcmp(&one->r[i], &split->r[i], sizeof(one->r[i]))) {
			print_message("%s: records differ\n", what);
			print_rec("one pass", &one->r[i]);
			print_rec("split   ", &split->r[i]);
			ok = false;
			break;
		}
	}
	if (one->len != split->len || memcmp(one->text, split->text, one->len)) {
		print_message("%s: output differs\n", what);
		ok = false;
	}
	return ok;
}

static const enum view_format fmts[] = { VIEW_JSON, VIEW_CSV, VIEW_TABLE };

/*
 * One pass against the split at each of cuts, in every format; the cuts
 * that differ are printed. A split that gave up (a request with bios on
 * both sides) is not compared: split.c runs one pass then. gave_up[c]
 * says which (NULL: not wanted).
 */
static unsigned int check_cuts(const struct event *ev, size_t n, const size_t *cuts, size_t ncuts,
			       const char *name, bool *gave_up)
{
	unsigned int bad = 0, f;
	struct outcome one, split;
	char what[96];
	size_t c;

	for (f = 0; f < 3; f++) {
		run(ev, n, SIZE_MAX, fmts[f], &one);
		for (c = 0; c < ncuts; c++) {
			run(ev, n, cuts[c], fmts[f], &split);
			snprintf(what, sizeof(what), "%s, cut at %zu of %zu, format %u", name,
				 cuts[c], n, f);
			if (gave_up)
				gave_up[c] = split.gave_up;
			if (!split.gave_up)
				bad += !same(&one, &split, what, f == 0);
			outcome_free(&split);
		}
		outcome_free(&one);
	}
	return bad;
}

/* ---- events in an array ---- */

static struct event *evs;
static size_t nev, evcap;

static struct event *push(enum event_type type, uint64_t ts)
{
	struct event *e;

	if (nev == evcap) {
		evcap = evcap ? evcap * 2 : 4096;
		evs = realloc(evs, evcap * sizeof(*evs));
		assert_non_null(evs);
	}
	e = &evs[nev++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->ts = ts;
	e->sid = nev;
	return e;
}

static void free_events(void)
{
	free(evs);
	evs = NULL;
	nev = evcap = 0;
}

/* deviceDescriptions outlive the array: the join reads their protobuf-c message */
static Octf__Proto__Trace__EventDeviceDescription dd[2];
static Octf__Proto__Trace__Event ddpb[2];

static void push_device(unsigned int i, uint64_t id, const char *name)
{
	Octf__Proto__Trace__EventDeviceDescription d =
		OCTF__PROTO__TRACE__EVENT_DEVICE_DESCRIPTION__INIT;
	Octf__Proto__Trace__Event pb = OCTF__PROTO__TRACE__EVENT__INIT;

	dd[i] = d;
	dd[i].id = id;
	dd[i].name = (char *)name;
	dd[i].size = 1u << 30;
	dd[i].model = "MODEL";
	ddpb[i] = pb;
	ddpb[i].event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_DEVICE_DESCRIPTION;
	ddpb[i].devicedescription = &dd[i];
	push(EV_DEVICE, 5)->pb = &ddpb[i];
}

/* ---- a random trace ---- */

#define TARGET 3000
#define POOL 40		/* ids: reused once completed */
#define MAXF 24		/* in flight at most: an id is always free */
#define NOTE 3		/* cuts noted of each kind */

static uint64_t rng, now;
static const uint64_t devid[2] = { DEV_A, DEV_B };
static uint64_t cursor[2];

struct gio {
	uint64_t id, dev, lba, ts;
	uint32_t len;
	size_t at;	/* index of its io event */
};
static struct gio fl[MAXF + 4];
static size_t nfl;

/* cuts where something crosses: index k = the first event of the upper part */
enum {
	CUT_LONG, CUT_LOST, CUT_SPLIT, CUT_CHILD, CUT_QUEUED, CUT_REQUEUED, CUT_FOLLOWERS,
	CUT_FRONT, CUT_KINDS
};
static size_t noted[CUT_KINDS][NOTE], nnoted[CUT_KINDS];

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void note(unsigned int kind, size_t k)
{
	if (nnoted[kind] < NOTE && k > TARGET / 5)
		noted[kind][nnoted[kind]++] = k;
}

static uint64_t free_id(void)
{
	uint64_t id = 0x1000 + rnd(POOL) * 0x200;
	size_t i;

	for (i = 0; i < nfl; i++) {
		if (fl[i].id == id)
			return free_id();
	}
	return id;
}

/* Sectors no other I/O touches: contiguous only where a request is made so. */
static uint64_t new_lba(unsigned int d, uint32_t len)
{
	uint64_t lba;

	cursor[d] += 1 + rnd(64);
	lba = cursor[d];
	cursor[d] += len;
	return lba;
}

/* flush: now and then an empty flush instead (not in a request: that needs its sectors) */
static struct gio *submit(uint64_t id, unsigned int d, uint64_t lba, uint32_t len, bool flush)
{
	static const int32_t ops[] = { W, W, R, R, D };
	struct event *e = push(EV_IO, now);
	struct gio *g;
	size_t i;

	/* the one in flight under this id lost its completion */
	for (i = 0; i < nfl; i++) {
		if (fl[i].id == id) {
			fl[i] = fl[--nfl];
			note(CUT_LOST, nev - 1);
		}
	}
	e->io.id = id;
	e->io.dev = devid[d];
	e->io.lba = lba;
	e->io.len = len;
	e->io.op = ops[rnd(5)];
	if (flush && !rnd(40)) {
		e->io.lba = e->io.len = 0;
		e->io.flags = IOF_FLUSH;
	}
	g = &fl[nfl++];
	*g = (struct gio){ id, devid[d], e->io.lba, now, e->io.len, nev - 1 };
	return g;
}

static void complete(size_t i)
{
	struct event *e = push(EV_COMPLETION, now);

	/* a clock behind the submission's now and then */
	if (!rnd(200))
		e->ts = fl[i].ts - 3;
	e->cpl.ref = fl[i].id;
	e->cpl.error = !rnd(50);
	if (nev - 1 - fl[i].at > TARGET / 20)
		note(CUT_LONG, nev - 1);
	fl[i] = fl[--nfl];
}

/* The child carved off the front of a random I/O in flight. */
static void split_one(void)
{
	struct gio *p = &fl[rnd((uint32_t)nfl)], c;
	struct event *e;

	if (p->len < 2)
		return;
	c = *p;
	c.id = free_id();
	c.len = 1 + rnd(p->len - 1);
	c.at = nev;
	e = push(EV_SPLIT, now);
	e->split = (typeof(e->split)){ c.id, p->id, p->dev, p->lba, p->lba + c.len, c.len };
	p->lba += c.len;
	p->len -= c.len;
	fl[nfl++] = c;
	note(CUT_SPLIT, nev - 1);
	note(CUT_CHILD, nev);
}

/* false: traces without dispatch events, as Open-CAS writes them */
static bool with_dispatch;

static void dispatch_ev(const struct gio *first, uint64_t lba, uint32_t len, uint32_t bios)
{
	if (!with_dispatch)
		return;
	push(EV_DISPATCH, now)->disp = (typeof(evs->disp)){ .id = first->id, .dev = first->dev,
							    .lba = lba, .len = len, .bios = bios };
}

/*
 * 2-3 bios in a row on the disk, submitted in order or with the first
 * one last (front merge), then the request's dispatch (now and then
 * twice: requeued).
 */
static void request(void)
{
	unsigned int d = rnd(2), nb = 2 + rnd(2), i, o;
	bool front = !rnd(3);
	uint32_t len[3];
	uint64_t lba, at[4];
	struct gio first = { 0 };
	size_t start = nev;

	at[0] = 0;
	for (i = 0; i < nb; i++) {
		len[i] = 1 + rnd(16);
		at[i + 1] = at[i] + len[i];
	}
	lba = new_lba(d, (uint32_t)at[nb]);
	for (o = 0; o < nb; o++) {
		i = front ? (o + 1) % nb : o;
		if (i == 0)
			first = *submit(free_id(), d, lba, len[0], false);
		else
			submit(free_id(), d, lba + at[i], len[i], false);
		now += 1 + rnd(20);
	}
	/* the bios in lba order before the first, the first after them */
	note(front ? CUT_FRONT : CUT_FOLLOWERS, front ? nev - 1 : start + 1);
	/* something unrelated may come between the bios and the dispatch */
	if (!rnd(3) && nfl > nb)
		complete(rnd((uint32_t)(nfl - nb)));
	note(CUT_QUEUED, nev);
	dispatch_ev(&first, lba, (uint32_t)at[nb], nb);
	if (!rnd(8)) {
		now += 50;
		note(CUT_REQUEUED, nev);
		dispatch_ev(&first, lba, (uint32_t)at[nb], nb);
	}
}

static void generate(uint64_t seed)
{
	uint32_t len;
	unsigned int d, i;

	rng = seed;
	now = 1000000;
	nev = nfl = 0;
	cursor[0] = cursor[1] = 1000;
	memset(nnoted, 0, sizeof(nnoted));
	push_device(0, DEV_A, "nvme0n1");
	/* before the trace began: */
	for (i = 0; i < 3; i++)
		push(EV_COMPLETION, now + i)->cpl.ref = 0x9000 + i;
	push(EV_SPLIT, now)->split = (typeof(evs->split)){ 0x9100, 0x9101, DEV_A, 8, 16, 8 };
	if (with_dispatch)
		push(EV_DISPATCH, now)->disp = (typeof(evs->disp)){ .id = 0x9200, .len = 8, .bios = 1 };
	while (nev < TARGET) {
		uint32_t r = rnd(100);

		now += 1 + rnd(500);
		if (nev == TARGET * 3 / 5)
			push_device(1, DEV_B, "sda");	/* described only here */
		if (r < 45 && nfl < MAXF) {
			d = rnd(2);
			len = 1 + rnd(256);
			/* now and then an id still in flight: the first one's completion was lost */
			submit(!rnd(60) && nfl ? fl[rnd((uint32_t)nfl)].id : free_id(), d,
			       new_lba(d, len), len, true);
		} else if (r < 80 && nfl) {
			complete(rnd((uint32_t)nfl));
		} else if (r < 88 && nfl && nfl < MAXF) {
			split_one();
		} else if (r < 95 && nfl + 3 <= MAXF) {
			request();
		} else if (nfl) {
			struct gio *g = &fl[rnd((uint32_t)nfl)];

			dispatch_ev(g, g->lba, g->len, 1);
		}
	}
	/* what is left in flight never completes */
}

/*
 * Each seed twice: with dispatch events, where a cut with a request
 * across it gives up (nearly all do: requests are always in flight), and
 * without, as in Open-CAS traces, where no cut may give up.
 */
static void test_random(void **state)
{
	static const uint64_t seeds[] = { 1, 0x5eed, 0xdeadbeef, 20240611, 77 };
	size_t cuts[11 + CUT_KINDS * NOTE], ncuts, i, s, compared;
	bool gave_up[11 + CUT_KINDS * NOTE];
	unsigned int kind, bad = 0, pass;
	char name[48];

	for (pass = 0; pass < 2; pass++) {
		with_dispatch = pass == 0;
		for (s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
			generate(seeds[s]);
			ncuts = 0;
			for (i = 0; i <= 10; i++)
				cuts[ncuts++] = nev * i / 10;
			for (kind = 0; kind < CUT_KINDS; kind++) {
				for (i = 0; i < nnoted[kind]; i++)
					cuts[ncuts++] = noted[kind][i];
				/* a generator that stopped making what the test is about */
				if (!nnoted[kind])
					print_message("seed %zu: no cut of kind %u\n", s, kind);
				assert_true(nnoted[kind] > 0);
			}
			snprintf(name, sizeof(name), "seed %#llx%s", (unsigned long long)seeds[s],
				 with_dispatch ? ", dispatch" : "");
			bad += check_cuts(evs, nev, cuts, ncuts, name, gave_up);
			for (i = 0, compared = 0; i < ncuts; i++)
				compared += !gave_up[i];
			if (!with_dispatch)
				assert_int_equal(compared, ncuts);
		}
	}
	free_events();
	assert_int_equal(bad, 0);
}

/* ---- a request with bios on both sides of the cut ---- */

/*
 * 3 bios of 8 sectors at 92, 100, 108 submitted in the order of lbas[],
 * dispatched as first's; times uneven, so that an average without one of
 * them differs.
 */
static void request_trace(const uint64_t *lbas, uint64_t first)
{
	struct event *e;
	unsigned int i;

	nev = 0;
	push_device(0, DEV_A, "nvme0n1");
	for (i = 0; i < 3; i++) {
		e = push(EV_IO, 1000 + 10 * i * i);
		e->io = (typeof(e->io)){ .id = 0xa + i, .dev = DEV_A, .lba = lbas[i], .len = 8, .op = W };
	}
	e = push(EV_DISPATCH, 1100);
	e->disp = (typeof(e->disp)){ .id = first, .dev = DEV_A, .lba = 92, .len = 24, .bios = 3 };
	for (i = 0; i < 3; i++)
		push(EV_COMPLETION, 1500 + 100 * i * i)->cpl.ref = 0xa + i;
}

/* Every cut of the request's trace; one pass has all three dispatched. */
static void check_request(const char *name)
{
	size_t cuts[9], k, n = nev;
	struct outcome one;
	bool gave_up[9];
	unsigned int bad;

	run(evs, n, SIZE_MAX, VIEW_JSON, &one);
	assert_int_equal(one.n, 3);
	for (k = 0; k < 3; k++) {
		assert_true(one.r[k].dispatched);
		assert_int_equal(one.r[k].queue_time, 1100 - one.r[k].ts);
		assert_int_equal(one.r[k].device_time, 400 + 100 * k * k);
	}
	assert_non_null(strstr(one.text, "\"queueTime\""));
	outcome_free(&one);
	for (k = 0; k <= n; k++)
		cuts[k] = k;
	bad = check_cuts(evs, n, cuts, n + 1, name, gave_up);
	free_events();
	assert_int_equal(bad, 0);
	/* events 2-4 are the bios, 5 the dispatch: cut 2, 3 or 4 puts it across */
	for (k = 0; k <= n; k++) {
		if (gave_up[k] != (k >= 2 && k <= 4))
			print_message("%s: cut %zu: gave up %d\n", name, k, gave_up[k]);
		assert_int_equal(gave_up[k], k >= 2 && k <= 4);
	}
}

/*
 * A (100) and B (108) queued before the cut, C (92) merged in front of
 * them after it, the request dispatched as C's (cut 3): the upper join
 * has C and not the rest of the request, from 100 on. The other cuts put
 * other bios on either side.
 */
static void test_front_merge(void **state)
{
	static const uint64_t lbas[] = { 100, 108, 92 };

	request_trace(lbas, 0xc);
	check_request("front merge");
}

/* A (92) queued first, B (100) and C (108) merged behind it, dispatched as A's. */
static void test_back_merge(void **state)
{
	static const uint64_t lbas[] = { 92, 100, 108 };

	request_trace(lbas, 0xa);
	check_request("back merge");
}

/*
 * A (92) and C (108) queued before the cut, B (100) after it joins them
 * into one request dispatched as A's: the lower join has the bios on
 * both sides of the upper one's.
 */
static void test_gap_filled(void **state)
{
	static const uint64_t lbas[] = { 92, 108, 100 };

	request_trace(lbas, 0xa);
	check_request("gap filled");
}

/* ---- the readers of the two halves ---- */

static char dir[64];

struct buf {
	uint8_t *b;
	size_t len, cap;
};

static void add_io(struct buf *b, uint64_t sid, uint64_t id)
{
	Octf__Proto__Trace__EventHeader h = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	uint8_t msg[128];
	size_t len;

	h.sid = sid;
	h.timestamp = sid * 10;
	io.id = id;
	io.len = 8;
	ev.header = &h;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
	ev.io = &io;
	len = octf__proto__trace__event__get_packed_size(&ev);
	assert_true(len <= sizeof(msg));
	octf__proto__trace__event__pack(&ev, msg);
	framed_add(&b->b, &b->len, &b->cap, msg, len);
}

#define NSTREAMS 3
#define STEP 5		/* sparse sids: past 3 * READER_RANGE_SLACK with fewer records */
#define NREC 50000
#define MID 120003	/* where the upper range starts */

/* Moves stream s's last sid below below to after its first one from past on. */
static uint64_t move(uint64_t *sids, uint64_t below, uint64_t past)
{
	uint64_t moved;
	size_t i;

	for (i = 0; sids[i + 1] < below; i++)
		;
	moved = sids[i];
	do
		sids[i] = sids[i + 1];
	while (sids[i++] < past);
	sids[i] = moved;
	return moved;
}

/*
 * Sids STEP apart, round robin over the streams; in streams 0 and 2 one
 * below MID comes after some above it, within the slack: the lower
 * reader must still take it. straggler: in stream 1 one below MID comes
 * after one READER_RANGE_SLACK past it, which the lower reader never gets to.
 * late: in stream 1 one of the lower half comes 3,000 sids late, more than
 * a ranged reader's window takes in, less than one pass's.
 */
static void write_trace(bool straggler, uint64_t *moved, bool late)
{
	static uint64_t sids[NSTREAMS][NREC / NSTREAMS + 1];
	size_t n[NSTREAMS] = { 0 }, i, s;
	struct buf b;
	char path[128];
	FILE *f;

	for (i = 1; i <= NREC; i++)
		sids[i % NSTREAMS][n[i % NSTREAMS]++] = i * STEP;
	move(sids[0], MID, MID + READER_RANGE_SLACK * 3 / 4);	/* in the window */
	move(sids[2], MID, MID + READER_RANGE_SLACK / 2);	/* beyond it */
	if (straggler)
		*moved = move(sids[1], MID, MID + READER_RANGE_SLACK);
	if (late)
		move(sids[1], MID / 2, MID / 2 + 3000);
	for (s = 0; s < NSTREAMS; s++) {
		b = (struct buf){ NULL, 0, 0 };
		for (i = 0; i < n[s]; i++)
			add_io(&b, sids[s][i], sids[s][i] * 4 + s);
		snprintf(path, sizeof(path), "%s/octf.trace.%zu", dir, s);
		f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(b.b, 1, b.len, f), b.len);
		assert_int_equal(fclose(f), 0);
		free(b.b);
	}
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The ids (sid * 4 + stream) a reader of [lo, hi) returns (all: hi = 0), sorted. */
static uint64_t *read_ids(uint64_t lo, uint64_t hi, size_t *n, uint64_t *stragglers)
{
	uint64_t *ids = malloc(NREC * sizeof(*ids));
	const struct event *ev;
	struct reader *r;
	struct trace *t;
	int ret;

	assert_non_null(ids);
	t = trace__open(dir);
	assert_non_null(t);
	r = reader__new(t, EV_ALL, 1);
	assert_non_null(r);
	if (hi)
		reader__set_range(r, lo, hi);
	*n = 0;
	while ((ret = reader__next(r, &ev)) == 1) {
		assert_true(ev->sid >= lo && (!hi || ev->sid < hi));
		assert_true(*n < NREC);
		ids[(*n)++] = ev->io.id;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(reader__error_count(r), 0);
	*stragglers = reader__stragglers(r);
	reader__free(r);
	trace__free(t);
	qsort(ids, *n, sizeof(*ids), by_u64);
	return ids;
}

/*
 * As read_ids(), the streams reading a shared mapping and cut where
 * sid_seek.h finds sid (0: the split's guess, MID less the slack), stream
 * 1's cut moved by shift bytes, the cut given once late events are read
 * (SIZE_MAX: after the last).
 */
static uint64_t *read_ids_cut(uint64_t lo, uint64_t hi, uint64_t sid, int shift, size_t late,
			      size_t *n, uint64_t *stragglers)
{
	uint64_t *ids = malloc(NREC * sizeof(*ids));
	struct reader_cut cut[NSTREAMS + 1];
	struct shared_maps *maps;
	const struct event *ev;
	struct reader *r;
	struct trace *t;
	size_t i, len, ns;
	int ret;

	assert_non_null(ids);
	t = trace__open(dir);
	assert_non_null(t);
	maps = shared_maps__new(t);
	assert_non_null(maps);
	shared_maps__lend(maps, t);
	r = reader__new(t, EV_ALL, 1);
	assert_non_null(r);
	reader__set_range(r, lo, hi);
	ns = trace__stream_count(t);
	assert_true(ns <= NSTREAMS + 1);
	for (i = 0; i < ns; i++) {
		cut[i].map = stream__lent_bytes(trace__stream(t, i), &len);
		assert_non_null(cut[i].map);
		cut[i].off = sid_seek__offset(cut[i].map, len, sid ? sid : READER_CUT_SID(MID));
		assert_true(cut[i].off > 0 && cut[i].off <= len);
		if (i == 1)
			cut[i].off += shift;
	}
	*n = 0;
	if (!late)
		reader__set_cut(r, cut, ns);
	while ((ret = reader__next(r, &ev)) == 1) {
		assert_true(ev->sid >= lo && ev->sid < hi);
		assert_true(*n < NREC);
		ids[(*n)++] = ev->io.id;
		if (*n == late)
			reader__set_cut(r, cut, ns);
	}
	assert_int_equal(ret, 0);
	if (late == SIZE_MAX)
		reader__set_cut(r, cut, ns);
	*stragglers = reader__stragglers(r);
	reader__free(r);
	trace__free(t);
	shared_maps__free(maps);
	qsort(ids, *n, sizeof(*ids), by_u64);
	return ids;
}

static bool has(const uint64_t *ids, size_t n, uint64_t id)
{
	return bsearch(&id, ids, n, sizeof(id), by_u64) != NULL;
}

static void test_reader_ranges(void **state)
{
	uint64_t *all, *lower, *upper, st, moved, i;
	size_t n, nl, nu;

	write_trace(false, NULL, false);
	all = read_ids(0, 0, &n, &st);
	assert_int_equal(n, NREC);
	lower = read_ids(0, MID, &nl, &st);
	assert_int_equal(st, 0);
	upper = read_ids(MID, UINT64_MAX, &nu, &st);
	assert_int_equal(st, 0);
	/* each once: both sorted, the lower below MID, the upper from it */
	assert_int_equal(nl + nu, n);
	assert_memory_equal(all, lower, nl * sizeof(*all));
	assert_memory_equal(all + nl, upper, nu * sizeof(*all));
	free(all);
	free(lower);
	free(upper);

	/* stream 1 goes on below MID after the lower reader gave it up */
	write_trace(true, &moved, false);
	all = read_ids(0, 0, &n, &st);
	assert_int_equal(n, NREC);
	lower = read_ids(0, MID, &nl, &st);
	upper = read_ids(MID, UINT64_MAX, &nu, &st);
	assert_true(st > 0);
	assert_int_equal(nl + nu, n - 1);
	assert_true(has(all, n, moved * 4 + 1));
	assert_false(has(lower, nl, moved * 4 + 1));
	for (i = 0; i < nu; i++)
		assert_true(upper[i] >= MID * 4);
	free(all);
	free(lower);
	free(upper);
}

/*
 * Cut where sid_seek.h finds the ranges meet, the upper reader starts
 * each stream there and reads what it read from the start; the lower
 * reader finds the guesses right. A guess that is no record start, or
 * that a record of the upper range comes before, is a straggler.
 */
static void test_reader_cut(void **state)
{
	uint64_t *all, *lower, *upper, st;
	size_t n, nl, nu, i;

	write_trace(false, NULL, false);
	all = read_ids(0, 0, &n, &st);
	lower = read_ids_cut(0, MID, 0, 0, 0, &nl, &st);
	assert_int_equal(st, 0);
	upper = read_ids_cut(MID, UINT64_MAX, 0, 0, 0, &nu, &st);
	assert_int_equal(st, 0);
	assert_int_equal(nl + nu, n);
	assert_memory_equal(all, lower, nl * sizeof(*all));
	assert_memory_equal(all + nl, upper, nu * sizeof(*all));
	free(lower);
	free(upper);

	/* stream 1 cut a byte into a record: the lower reader passes over it */
	lower = read_ids_cut(0, MID, 0, 1, 0, &nl, &st);
	assert_true(st > 0);
	free(lower);

	/* stream 1 cut past records of the upper range: the upper reader misses them */
	lower = read_ids_cut(0, MID, MID + 1000, 0, 0, &nl, &st);
	assert_true(st > 0);
	upper = read_ids_cut(MID, UINT64_MAX, MID + 1000, 0, 0, &nu, &st);
	assert_true(nl + nu < n);
	for (i = 0; i < nu; i++)
		assert_true(upper[i] % 4 != 1 || upper[i] >= (MID + 1000) * 4);
	free(lower);
	free(upper);
	free(all);
}

/*
 * The lower reader may get the cut late: before its streams reach it,
 * the same; once they are past it, a straggler, unless it read there the
 * first record from READER_CUT_SID() on or of the upper range (a short
 * stream read to its end at once); a stream damaged before the cut never
 * reaches it, and the others are read on.
 */
static void test_reader_late_cut(void **state)
{
	uint64_t *all, *lower, st;
	size_t n, nl, i;
	struct buf b = { NULL, 0, 0 };
	char path[128];
	FILE *f;

	write_trace(false, NULL, false);
	all = read_ids(0, 0, &n, &st);
	lower = read_ids_cut(0, MID, 0, 0, 100, &nl, &st);
	assert_int_equal(st, 0);
	assert_memory_equal(all, lower, nl * sizeof(*all));
	free(lower);
	/* given after the end: the cuts are the first records from READER_CUT_SID(MID) it read */
	lower = read_ids_cut(0, MID, 0, 0, SIZE_MAX, &nl, &st);
	assert_int_equal(st, 0);
	free(lower);
	/* record starts further on: met if marked in time, else not known to be ones */
	lower = read_ids_cut(0, MID, MID - 100, 0, 0, &nl, &st);
	assert_int_equal(st, 0);
	free(lower);
	lower = read_ids_cut(0, MID, MID - 100, 0, SIZE_MAX, &nl, &st);
	assert_int_equal(st, NSTREAMS);
	free(lower);
	/* at the first record of the upper range: known to be one */
	lower = read_ids_cut(0, MID, MID, 0, SIZE_MAX, &nl, &st);
	assert_int_equal(st, 0);
	free(lower);

	/* a fourth stream of two records, the second of the upper range */
	add_io(&b, 7, 7 * 4 + 3);
	add_io(&b, MID + 10, (MID + 10) * 4 + 3);
	snprintf(path, sizeof(path), "%s/octf.trace.%d", dir, NSTREAMS);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b.b, 1, b.len, f), b.len);
	assert_int_equal(fclose(f), 0);
	free(b.b);
	lower = read_ids_cut(0, MID, 0, 0, 100, &nl, &st);
	assert_int_equal(st, 0);
	free(lower);

	/*
	 * stream 1's framing damaged near its start (a record's length), met
	 * before the cut came: it never meets the cut
	 */
	snprintf(path, sizeof(path), "%s/octf.trace.1", dir);
	f = fopen(path, "r+");
	assert_non_null(f);
	{
		uint8_t head[4096];
		size_t got = fread(head, 1, sizeof(head), f);

		assert_true(got == sizeof(head));
		assert_int_equal(fseek(f, (long)sid_seek__offset(head, got, 200), SEEK_SET), 0);
	}
	assert_int_equal(fwrite("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 1, 12, f), 12);
	assert_int_equal(fclose(f), 0);
	/*
	 * the cut given at the end: the damage ended stream 1 near sid 200,
	 * the other streams are read to the range's end
	 */
	lower = read_ids_cut(0, MID, 0, 0, SIZE_MAX, &nl, &st);
	assert_true(st >= 1);
	for (i = 0; i < nl; i++)
		assert_true(lower[i] % 4 != 1 || lower[i] / 4 < 200);
	for (i = 0; i < n && all[i] / 4 < MID; i++)
		assert_true(all[i] % 4 == 1 || has(lower, nl, all[i]));
	assert_true(i > NREC / 3);
	free(lower);
	free(all);
}

static void one_record(void *ctx, const struct io_rec *r)
{
	stats_view_ops.record(ctx, r);
}

/* --statistics of the trace in dir by one pass; the records it read, and whether it found damage */
static char *one_pass_text(size_t *len, uint64_t *records, bool *damaged)
{
	struct view_opts opts = { .format = VIEW_JSON };
	const struct event *ev;
	struct join_sink sink = { one_record, NULL, NULL };
	struct reader *r;
	struct trace *t;
	struct join *j;
	char *text;
	FILE *out = open_memstream(&text, len);
	int ret;

	assert_non_null(out);
	sink.ctx = stats_view_ops.create(out, &opts);
	j = join__new(0, &sink);
	t = trace__open(dir);
	assert_true(sink.ctx && j && t);
	r = reader__new(t, join__event_types(j), 1);
	assert_non_null(r);
	while ((ret = reader__next(r, &ev)) == 1)
		assert_int_equal(join__event(j, ev), 0);
	assert_int_equal(ret, 0);
	assert_int_equal(join__finish(j), 0);
	assert_int_equal(stats_view_ops.finish(sink.ctx, j), 0);
	*records = reader__records(r);
	*damaged = reader__error_count(r) > 0;
	stats_view_ops.destroy(sink.ctx);
	reader__free(r);
	join__free(j);
	trace__free(t);
	assert_int_equal(fclose(out), 0);
	return text;
}

/*
 * split__run(), the halves meeting where the lower one finds mid and the
 * upper one the streams' cut: what one pass writes, having read as many
 * records; or it gives up where it must (damage anywhere: one pass stops
 * every stream where a damaged one stops).
 */
/* the events a summary says for split.c's mid to fall at MID, for write_trace()'s first sid */
static uint64_t events_for_mid(void)
{
	uint64_t first = STEP, e;

	for (e = (MID - first) / SPLIT_SHARE_NUM * SPLIT_SHARE_DEN;; e++) {
		if (first + e / SPLIT_SHARE_DEN * SPLIT_SHARE_NUM +
			    e % SPLIT_SHARE_DEN * SPLIT_SHARE_NUM / SPLIT_SHARE_DEN >= MID)
			return e;
	}
}

static void expect_split(bool gives_up)
{
	struct view_opts opts = { .format = VIEW_JSON };
	uint64_t records;
	size_t len1, len2;
	bool damaged;
	char *one = one_pass_text(&len1, &records, &damaged), *text;
	struct split *sp;
	FILE *out;
	int err;

	out = open_memstream(&text, &len2);
	assert_non_null(out);
	sp = split__run(dir, events_for_mid(), &stats_view_ops, out, &opts, 0, &err);
	assert_int_equal(err, 0);
	if (gives_up) {
		assert_null(sp);
	} else {
		assert_non_null(sp);
		assert_int_equal(stats_view_ops.finish(split__view(sp), split__join(sp)), 0);
		assert_false(damaged);
		assert_true(split__records(sp) == records);
	}
	assert_int_equal(fclose(out), 0);
	if (!gives_up) {
		assert_int_equal(len1, len2);
		assert_memory_equal(one, text, len1);
	}
	split__free(sp);
	free(one);
	free(text);
}

static void test_split_run(void **state)
{
	static const uint8_t junk[12] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	char path[128];
	struct stat st;
	FILE *f;

	write_trace(false, NULL, false);
	expect_split(false);
	snprintf(path, sizeof(path), "%s/octf.trace.1", dir);
	assert_int_equal(stat(path, &st), 0);
	/* bytes overwritten in stream 1's lower half: the upper half would read on past them */
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, st.st_size / 4, SEEK_SET), 0);
	assert_int_equal(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	assert_int_equal(fclose(f), 0);
	expect_split(true);
	/* stream 1 cut short in its upper half, then in its lower half */
	write_trace(false, NULL, false);
	assert_int_equal(truncate(path, st.st_size * 3 / 4 + 3), 0);
	expect_split(true);
	assert_int_equal(truncate(path, st.st_size / 4 + 3), 0);
	expect_split(true);

	/*
	 * a record of the upper half that does not decode, in stream 0 before
	 * one of the lower half (write_trace() moved it there): the lower half
	 * drops the record undecoded and reads on, one pass stops there
	 */
	write_trace(false, NULL, false);
	snprintf(path, sizeof(path), "%s/octf.trace.0", dir);
	{
		uint8_t *b;
		uint64_t off;

		f = fopen(path, "r+");
		assert_non_null(f);
		assert_int_equal(stat(path, &st), 0);
		b = malloc((size_t)st.st_size);
		assert_non_null(b);
		assert_int_equal(fread(b, 1, (size_t)st.st_size, f), (size_t)st.st_size);
		off = sid_seek__offset(b, (size_t)st.st_size, MID + 1000);
		assert_true(b[off] < 0x80);
		/* its last byte (a varint's) continued: the record ends inside it */
		assert_int_equal(fseek(f, (long)(off + b[off]), SEEK_SET), 0);
		assert_int_equal(fputc(0x80, f), 0x80);
		assert_int_equal(fclose(f), 0);
		free(b);
	}
	expect_split(true);

	/* a record later than the halves' windows take in, which one pass's puts in its place */
	write_trace(false, NULL, true);
	expect_split(true);
}

static int setup(void **state)
{
	strcpy(dir, "/tmp/iotrace-split-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_front_merge),
		cmocka_unit_test(test_back_merge),
		cmocka_unit_test(test_gap_filled),
		cmocka_unit_test_setup_teardown(test_reader_ranges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_late_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_run, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
