// SPDX-License-Identifier: BSD-3-Clause
/*
 * The window covers sids [base, base + window); base is a multiple of a
 * quarter, a sid's slot is sid & mask. While quarter 0 is handed out, the
 * streams are read up to base + window (a "fill"); a record for quarter 0
 * read then is late. When quarter 0 is through, the caller's thread helps
 * finish the fill, base moves on by a quarter and the next fill starts.
 * Each stream is read ahead up to the window's end, so a record still
 * unread when its quarter goes out follows, in its own stream, one that
 * is more than two quarters later.
 *
 * Fills take streams one at a time from a shared counter. Each thread
 * places records in a window of its own (slots and bitmaps written by
 * that thread alone: shared bitmaps cost a locked instruction per record
 * and bounce between the CPUs) and keeps what it found (late and
 * duplicate records, damage) in its `filler`, merged between fills.
 * Handing out scans both windows' bitmaps; a sid found twice goes out
 * through the extras, which are sorted by (sid, stream, position in the
 * stream): the result does not depend on which thread read what. The
 * threads synchronize between fills on two sequentially consistent
 * counters (fills started, fills the helper finished), which order
 * everything (slots, bitmaps, streams' pending records); during a fill
 * they write only quarters 1-3 and the caller reads only quarter 0.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "decode.h"
#include "delta.h"
#include "reader.h"
#include "stream.h"
#include "trace.h"

/* the largest window, READER_WINDOW: a reader's is r->window (r->quarter * 4) */
#define WINDOW ((uint64_t)READER_WINDOW)
#define WORDS (READER_WINDOW / 64)
/* above this, base + WINDOW could overflow: such sids wait in extras */
#define SID_WINDOWED_MAX (UINT64_MAX - 2 * WINDOW)
/* slots a scan asks the CPU for ahead of use */
#define PREFETCH_AHEAD 8

_Static_assert((READER_QUARTER & (READER_QUARTER - 1)) == 0 && READER_QUARTER % 64 == 0,
	       "quarter: a power of two, whole bitmap words");
_Static_assert((READER_RANGE_QUARTER & (READER_RANGE_QUARTER - 1)) == 0 &&
		       READER_RANGE_QUARTER % 64 == 0 && READER_RANGE_QUARTER <= READER_QUARTER,
	       "a ranged reader's quarter: a power of two, whole bitmap words, no more than one");

struct rstream {
	struct stream *s;
	struct event pending;	/* read, not placed: beyond the window */
	uint64_t pos;		/* records read */
	uint64_t records;	/* ... in the range, of any type: what the summary counts */
	uint64_t after_sid;	/* the last sid read (in the range) + 1; 0: none yet */
	uint64_t max_sid;	/* highest sid read, for reader__set_range() */
	bool skim;		/* records below the range's start come first: pass over them */
	bool cut_marked;	/* the next range's reader starts at cut_off, marked */
	uint64_t cut_off;
	uint64_t first_above;	/* offset of the first record at hi or past it, or UINT64_MAX */
	uint64_t first_near;	/* ... at READER_CUT_SID(hi) or past it */
	bool has_pending;
	bool done;
};

struct found_error {
	struct merge_error e;
	size_t stream;
};

/* One thread's window and what it found during a fill. */
struct filler {
	alignas(64) struct event *slots;	/* r->window; own cache lines: each thread writes its own */
	uint64_t bits[WORDS];	/* occupied slots */
	uint64_t dup[WORDS];	/* a second record came for the slot */
	struct event *extra;	/* late and duplicate records, in the order read */
	size_t nextra, extra_cap;
	struct found_error *errs;
	size_t nerr;
	size_t placed;
	uint64_t same_sid;	/* records that found their slot taken: reader__same_sid() */
	uint64_t late;		/* records whose quarter was out: reader__late() */
	int err;
};

struct reader {
	struct rstream *rs;
	size_t n;
	unsigned int types;

	/* the window: sids [base, base + window), a sid's slot sid & mask */
	uint64_t quarter, window, mask;
	uint64_t base;
	uint64_t scan;		/* next offset in quarter 0 to look at */
	size_t count;		/* occupied slots */
	bool started, ended, filling;

	/* the fill in progress */
	uint64_t fill_limit;	/* read every stream up to here */
	uint64_t late_limit;	/* sids below are late */
	_Atomic uint64_t next_stream;	/* unclaimed streams, see take_stream() */
	struct filler *fill;	/* [0] caller's thread, [1] helper */

	struct event *extra;	/* sorted; [extra_pos, nextra) not handed out */
	size_t nextra, extra_pos, extra_cap;

	struct event *last;	/* returned by the last call */
	int err;
	uint64_t same_sid;	/* sids both fillers placed: reader__same_sid() */

	/* reader__set_range() */
	bool ranged;
	uint64_t lo, hi;	/* hi = UINT64_MAX: no end */
	uint64_t near;		/* READER_CUT_SID(hi), UINT64_MAX for none */
	uint64_t stragglers;
	struct merge_error *errs;
	size_t nerr;
	/* with cut, events past keep_upto are not handed out: reader__keep_below() */
	bool cut, past_cut;
	uint64_t keep_upto;

	/*
	 * The helper: step counts fills started (written by the caller's
	 * thread), done_step the last the helper finished (by the helper).
	 * Each side spins a while before it sleeps on cv; sleepers counts
	 * those asleep or about to be, so a waker knows to take mu.
	 */
	bool may_thread;	/* threads = 2: a helper if the streams turn out compressed */
	bool threaded;
	pthread_t helper;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic unsigned long step, done_step;
	_Atomic bool quit;
	_Atomic unsigned int sleepers;
};

/* ---- reading (either thread) ---- */

static void damaged(struct filler *f, struct rstream *rs, size_t i, int err)
{
	struct found_error *e = &f->errs[f->nerr++];

	e->e.path = stream__path(rs->s);
	e->e.offset = stream__offset(rs->s);
	e->e.err = err;
	e->e.after_sid = rs->after_sid;
	e->stream = i;
	rs->done = true;
}

/*
 * With a range: whether a record of this sid is in it. READER_RANGE_SLACK
 * past hi, the stream has nothing more for this range (it ends); below
 * lo after the stream passed lo by the slack, the lower range's reader
 * stopped before it: a straggler.
 */
static inline bool in_range(struct reader *r, struct rstream *rs, uint64_t sid)
{
	if (sid < r->lo) {
		if (rs->max_sid >= r->lo && rs->max_sid - r->lo >= READER_RANGE_SLACK)
			r->stragglers++;
		return false;
	}
	if (sid > rs->max_sid)
		rs->max_sid = sid;
	if (sid >= r->near && rs->first_near == UINT64_MAX)
		rs->first_near = stream__offset(rs->s);
	if (r->hi == UINT64_MAX || sid < r->hi)
		return true;
	if (rs->first_above == UINT64_MAX)
		rs->first_above = stream__offset(rs->s);
	if (sid - r->hi >= READER_RANGE_SLACK)
		rs->done = true;
	return false;
}

/* For stream__skip(): a record below the range's start (and one sure to be so) */
static bool below_range(const uint8_t *msg, size_t len, void *ctx)
{
	const struct reader *r = ctx;
	uint64_t sid;

	return decode__peek_sid(msg, len, &sid) && sid < r->lo;
}

/* A delta record from its fields, or from its message when they do not do */
static int decode_fields(struct stream *s, struct stream_rec *rec, struct event *ev,
			 unsigned int types)
{
	int ret = decode__split(rec->split, ev, types);

	if (ret != DECODE_UNSURE)
		return ret;
	stream__rec_msg(s, rec);
	return decode__event(rec->msg, rec->len, ev, types);
}

/*
 * Reads stream i's next wanted record. One whose sid has a free slot in
 * this filler's window is decoded straight into it (returns 2); any other
 * into the stream's pending (returns 1). 0 when the stream has no more
 * (ended, damaged, or out of memory: f->err).
 */
static int read_pending(struct reader *r, struct filler *f, size_t i)
{
	struct rstream *rs = &r->rs[i];
	uint64_t sid, idx = 0, bit = 0;
	struct decode_peek pk;
	struct stream_rec rec;
	struct event *ev;
	unsigned int peek;
	bool direct;
	int ret;

	/*
	 * A stream's first records are the lower ranges': passed over without
	 * a call each. What stream__skip() ends at (a record, the end, an
	 * error) is what stream__next() returns next.
	 */
	if (rs->skim) {
		rs->skim = false;
		(void)stream__skip(rs->s, below_range, r);
	}
	pk.sid = rs->after_sid - 1;
	while (!rs->done) {
		ret = stream__next_rec(rs->s, &rec);
		if (ret == -ENOMEM) {
			f->err = ret;
			break;
		}
		if (ret < 0) {
			damaged(f, rs, i, ret);
			break;
		}
		if (ret == 0) {
			rs->done = true;
			break;
		}
		if (rec.split) {
			/* what decoding gives: its sid, always; its type, if one of ours */
			pk.sid = rec.split->sid;
			pk.type = decode__split_type(rec.split);
			peek = DECODE_PEEK_SID | (pk.type != EV_NONE ? DECODE_PEEK_TYPE : 0);
		} else {
			peek = decode__peek_record(rec.msg, rec.len, &pk);
		}
		sid = pk.sid;
		if (r->ranged && (peek & DECODE_PEEK_SID) && !in_range(r, rs, sid)) {
			if (rs->done)
				break;
			continue;
		}
		/*
		 * without a sid (pk.sid stays the last record's) a record is
		 * counted even if a range drops it once decoded: a split then
		 * finds the count off and runs one pass
		 */
		rs->records++;
		rs->after_sid = sid + 1;
		/* a third of the records are file metadata, which most views skip */
		if ((peek & DECODE_PEEK_TYPE) && !(r->types & EV_BIT(pk.type)))
			continue;
		direct = (peek & DECODE_PEEK_SID) && sid >= r->late_limit &&
			 sid < r->fill_limit && sid <= SID_WINDOWED_MAX;
		if (direct) {
			idx = sid & r->mask;
			bit = 1ull << (idx & 63);
			direct = !(f->bits[idx >> 6] & bit);
		}
		ev = direct ? &f->slots[idx] : &rs->pending;
		ret = rec.split ? decode_fields(rs->s, &rec, ev, r->types)
				: decode__event_peeked(rec.msg, rec.len, &pk, ev, r->types);
		if (ret < 0) {
			damaged(f, rs, i, ret);
			break;
		}
		if (ret == DECODE_SKIPPED)
			continue;
		if (r->ranged && !(peek & DECODE_PEEK_SID) && !in_range(r, rs, ev->sid)) {
			decode__release(ev);
			if (rs->done)
				break;
			continue;
		}
		if (!(peek & DECODE_PEEK_SID))
			rs->after_sid = ev->sid + 1;
		ev->stream = (uint32_t)i;
		ev->pos = rs->pos++;
		if (direct && ev->sid == sid) {
			f->bits[idx >> 6] |= bit;
			f->placed++;
			return 2;
		}
		/* protobuf-c read the header otherwise (a second header field) */
		if (direct)
			rs->pending = *ev;
		rs->has_pending = true;
		return 1;
	}
	return 0;
}

static void fill_extra(struct filler *f, struct event *ev)
{
	if (f->nextra == f->extra_cap) {
		size_t cap = f->extra_cap ? f->extra_cap * 2 : 16;
		struct event *e = realloc(f->extra, cap * sizeof(*e));

		if (!e) {
			decode__release(ev);
			f->err = -ENOMEM;
			return;
		}
		f->extra = e;
		f->extra_cap = cap;
	}
	f->extra[f->nextra++] = *ev;
}

static void place(struct reader *r, struct filler *f, struct rstream *rs)
{
	uint64_t sid = rs->pending.sid, idx = sid & r->mask, bit = 1ull << (idx & 63);

	rs->has_pending = false;
	if (sid < r->late_limit || sid > SID_WINDOWED_MAX) {
		f->late += sid < r->late_limit;
		fill_extra(f, &rs->pending);
		return;
	}
	if (f->bits[idx >> 6] & bit) {
		f->dup[idx >> 6] |= bit;
		f->same_sid++;
		fill_extra(f, &rs->pending);
		return;
	}
	f->bits[idx >> 6] |= bit;
	f->slots[idx] = rs->pending;
	f->placed++;
}

/*
 * The next stream for a filler: the caller's thread takes them from the
 * front, the helper from the back, so a stream (and its buffer in the
 * CPU's cache) mostly stays with one thread from fill to fill. The two
 * ends of the unclaimed range are packed in one word: front in the low
 * half, back (one past the last) in the high half.
 */
static bool take_stream(struct reader *r, bool back, size_t *i)
{
	uint64_t cur = atomic_load(&r->next_stream), lo, hi, nv;

	do {
		lo = cur & 0xffffffffu;
		hi = cur >> 32;
		if (lo >= hi)
			return false;
		*i = back ? hi - 1 : lo;
		nv = back ? (hi - 1) << 32 | lo : hi << 32 | (lo + 1);
	} while (!atomic_compare_exchange_weak(&r->next_stream, &cur, nv));
	return true;
}

/* Reads stream i up to the fill limit. */
static inline void fill_stream(struct reader *r, struct filler *f, size_t i)
{
	struct rstream *rs = &r->rs[i];

	for (;;) {
		if (!rs->has_pending) {
			int got = rs->done ? 0 : read_pending(r, f, i);

			if (!got)
				break;
			if (got == 2)
				continue;
		}
		if (rs->pending.sid >= r->fill_limit && rs->pending.sid <= SID_WINDOWED_MAX)
			break;
		place(r, f, rs);
		if (f->err)
			return;
	}
}

/*
 * Takes streams one by one and reads each up to the fill limit; a reader
 * without a helper takes them in turn, without the locked instruction
 * taking one costs (a ranged reader fills eight times as often).
 */
static void fill_streams(struct reader *r, struct filler *f)
{
	size_t i;

	if (!r->threaded) {
		for (i = 0; i < r->n && !f->err; i++)
			fill_stream(r, f, i);
		return;
	}
	while (!f->err && take_stream(r, f == &r->fill[1], &i))
		fill_stream(r, f, i);
}

/*
 * Fills are a few hundred microseconds apart, a trace has one per
 * READER_QUARTER sids, and waking a thread that slept takes tens of
 * microseconds on a busy kernel and up to milliseconds in a VM, whose
 * idle virtual CPU the host must first run again. So a thread waiting
 * for the other spins a while (some 0.2 ms) before it sleeps, and yields
 * the CPU now and then in case the other waits for that one. Measured on
 * 2 virtual CPUs: a longer spin gained nothing when the machine was idle
 * and cost more when it was busy.
 */
#define SPIN_LIMIT (1u << 13)
#define SPIN_YIELD_EVERY 256

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/*
 * Waits until cond(r, arg). The sleeper counts itself before its last
 * look at the condition and the waker changes the condition before it
 * looks at the count (both sequentially consistent): a wakeup is never lost.
 */
static void wait_for(struct reader *r, bool (*cond)(struct reader *, unsigned long),
		     unsigned long arg)
{
	unsigned int i;

	for (i = 1; i <= SPIN_LIMIT; i++) {
		if (cond(r, arg))
			return;
		if (i % SPIN_YIELD_EVERY == 0)
			sched_yield();
		else
			cpu_relax();
	}
	pthread_mutex_lock(&r->mu);
	atomic_fetch_add(&r->sleepers, 1);
	while (!cond(r, arg))
		pthread_cond_wait(&r->cv, &r->mu);
	atomic_fetch_sub(&r->sleepers, 1);
	pthread_mutex_unlock(&r->mu);
}

/* After changing what the other thread waits for. */
static void wake(struct reader *r)
{
	if (!atomic_load(&r->sleepers))
		return;
	pthread_mutex_lock(&r->mu);
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

/* the helper's: a fill after the one it saw last, or the end */
static bool helper_cond(struct reader *r, unsigned long seen)
{
	return atomic_load(&r->quit) || atomic_load(&r->step) != seen;
}

/* the caller's: the helper is through the fill in progress */
static bool finish_cond(struct reader *r, unsigned long unused)
{
	(void)unused;
	return atomic_load(&r->done_step) == atomic_load(&r->step);
}

static void *helper_main(void *p)
{
	struct reader *r = p;
	unsigned long seen = 0;

	for (;;) {
		wait_for(r, helper_cond, seen);
		if (atomic_load(&r->quit))
			break;
		seen = atomic_load(&r->step);
		fill_streams(r, &r->fill[1]);
		atomic_store(&r->done_step, seen);
		wake(r);
	}
	return NULL;
}

/* ---- the caller's thread ---- */

static int by_stream(const void *a, const void *b)
{
	const struct found_error *x = a, *y = b;

	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

static bool before(const struct event *a, const struct event *b)
{
	if (a->sid != b->sid)
		return a->sid < b->sid;
	if (a->stream != b->stream)
		return a->stream < b->stream;
	return a->pos < b->pos;
}

/* Inserts ev into the extras, sorted by (sid, stream, pos). */
static int add_extra(struct reader *r, const struct event *ev)
{
	size_t i;

	if (r->extra_pos && r->extra_pos == r->nextra)
		r->extra_pos = r->nextra = 0;
	if (r->nextra == r->extra_cap) {
		size_t cap = r->extra_cap ? r->extra_cap * 2 : 16;
		struct event *e = realloc(r->extra, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		r->extra = e;
		r->extra_cap = cap;
	}
	for (i = r->nextra; i > r->extra_pos && before(ev, &r->extra[i - 1]); i--)
		r->extra[i] = r->extra[i - 1];
	r->extra[i] = *ev;
	r->nextra++;
	return 0;
}

/* Starts a fill up to limit; the helper (if any) begins at once. */
static void fill_start(struct reader *r, uint64_t limit, uint64_t late)
{
	r->fill_limit = limit;
	r->late_limit = late;
	atomic_store(&r->next_stream, (uint64_t)r->n << 32);
	r->filling = true;
	if (r->threaded) {
		atomic_fetch_add(&r->step, 1);
		wake(r);
	}
}

/* Helps the fill in progress to its end and takes in what it found. */
static int fill_finish(struct reader *r)
{
	struct found_error errs[2 * 64], *all = errs;
	size_t nerr, i, k;
	int err = 0;

	if (!r->filling)
		return 0;
	fill_streams(r, &r->fill[0]);
	if (r->threaded)
		wait_for(r, finish_cond, 0);
	r->filling = false;

	nerr = r->fill[0].nerr + r->fill[1].nerr;
	if (nerr > sizeof(errs) / sizeof(errs[0])) {
		all = malloc(nerr * sizeof(*all));
		if (!all)
			err = -ENOMEM;
	}
	for (k = 0; k < 2; k++) {
		struct filler *f = &r->fill[k];

		if (f->err)
			err = f->err;
		r->count += f->placed;
		f->placed = 0;
		for (i = 0; i < f->nextra; i++) {
			if (!err)
				err = add_extra(r, &f->extra[i]);
			if (err)
				decode__release(&f->extra[i]);
		}
		f->nextra = 0;
	}
	if (all) {
		/* damage in stream order, whichever thread found it */
		memcpy(all, r->fill[0].errs, r->fill[0].nerr * sizeof(*all));
		memcpy(all + r->fill[0].nerr, r->fill[1].errs, r->fill[1].nerr * sizeof(*all));
		qsort(all, nerr, sizeof(*all), by_stream);
		for (i = 0; i < nerr; i++)
			r->errs[r->nerr++] = all[i].e;
		if (all != errs)
			free(all);
	}
	r->fill[0].nerr = r->fill[1].nerr = 0;
	return err;
}

static bool min_pending(const struct reader *r, uint64_t *min)
{
	bool any = false;
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->rs[i].has_pending && (!any || r->rs[i].pending.sid < *min)) {
			*min = r->rs[i].pending.sid;
			any = true;
		}
	}
	return any;
}

/*
 * A helper reads ahead only when a stream is compressed. Handing a
 * decoded event (136 bytes) to the other CPU costs about as much as
 * decoding a raw record: on the 2-vCPU VM, raw traces read by one thread
 * took 0.75-0.85 of the time two took for --io and the histograms, the
 * upstream sample's --io -f csv 28.5 against 38 ms. Zstd and delta
 * records cost several times more to decode, and there a helper gains
 * (--io 0.63-0.68 against 0.72-0.77 s on a 2.4 M-event trace).
 */
static void start_helper(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->n && !stream__compressed(r->rs[i].s); i++)
		;
	if (i < r->n && pthread_create(&r->helper, NULL, helper_main, r) == 0)
		r->threaded = true;
}

/*
 * A window is 2 MiB, filled within the first milliseconds: as 4 KiB pages
 * that is 512 page faults (about a microsecond each, more in a VM) where
 * one transparent huge page costs one. Where the kernel gives none, the
 * advice is ignored and the pages come one by one, as with malloc.
 */
#define HUGE_PAGE (2u << 20)
#define SMALL_PAGE 4096u

static void *huge_alloc(size_t size)
{
	void *p;

	if (posix_memalign(&p, HUGE_PAGE, size))
		return NULL;
	madvise(p, size, MADV_HUGEPAGE);
	return p;
}

/*
 * The windows, at the first read, when the reader knows its window
 * (reader__set_range()) and whether it has a helper. A window smaller
 * than a huge page takes small pages: a huge one would be zeroed whole
 * all the same, which was a twentieth of a split run's CPU time.
 */
static int alloc_windows(struct reader *r)
{
	size_t size = r->window * sizeof(struct event), k;

	for (k = 0; k < (r->threaded ? 2u : 1u); k++) {
		if (size >= HUGE_PAGE) {
			r->fill[k].slots = huge_alloc(size);
		} else {
			/* in one call: a fault a page cost twice as much (Linux 5.14+) */
			r->fill[k].slots = aligned_alloc(SMALL_PAGE, size);
			if (r->fill[k].slots)
				(void)madvise(r->fill[k].slots, size, MADV_POPULATE_WRITE);
		}
		if (!r->fill[k].slots)
			return -ENOMEM;
	}
	return 0;
}

/* Fills the first three quarters of a window at base, before handing any out. */
static int fill_sync(struct reader *r, uint64_t base)
{
	r->base = base;
	fill_start(r, base + 3 * r->quarter, base);
	return fill_finish(r);
}

/*
 * Quarter 0 is through: moves the window on (or, empty, to the next
 * waiting record) and starts the next fill. Sets r->ended when only
 * extras are left.
 */
static int advance(struct reader *r)
{
	uint64_t min = 0;
	int err;
	size_t i;

	if (!r->started) {
		r->started = true;
		/* the first records go to pending: there is no window yet */
		r->fill_limit = 0;
		for (i = 0; i < r->n; i++)
			read_pending(r, &r->fill[0], i);
		/* the first reads told each stream's form */
		if (r->may_thread)
			start_helper(r);
		err = alloc_windows(r);
		if (err)
			return err;
		/* the first records' damage is taken in by the first fill */
		if (min_pending(r, &min) && min <= SID_WINDOWED_MAX)
			r->base = min & ~(r->quarter - 1);
		err = fill_sync(r, r->base);
	} else {
		err = fill_finish(r);
		r->base += r->quarter;
	}
	if (err)
		return err;
	if (!r->count) {
		if (!min_pending(r, &min)) {
			r->ended = true;
			return 0;
		}
		/* pending sids are past the window: fill places the rest */
		err = fill_sync(r, min & ~(r->quarter - 1));
		if (err)
			return err;
	}
	r->scan = 0;
	fill_start(r, r->base + r->window, r->base + r->quarter);
	return 0;
}

static void release_last(struct reader *r)
{
	if (r->last) {
		decode__release(r->last);
		r->last = NULL;
	}
}

/* reader__next()'s one caller: inlined there */
static inline __attribute__((always_inline)) int next_event(struct reader *r,
							    const struct event **ev)
{
	int ret;

	if (r->err)
		return r->err;
	release_last(r);
	for (;;) {
		uint64_t hb = r->base & r->mask, o = r->scan, limit, quarter = r->quarter;

		if (!r->started) {
			ret = advance(r);
			if (ret)
				goto fail;
			continue;
		}
		/* the next slot of quarter 0 occupied in either window (one without a helper), or quarter */
		while (!r->ended && o < quarter) {
			size_t k = (size_t)((hb + o) >> 6);
			uint64_t w = (r->fill[0].bits[k] | (r->threaded ? r->fill[1].bits[k] : 0)) >>
				     (o & 63);

			if (w) {
				o += (uint64_t)__builtin_ctzll(w);
				break;
			}
			o = (o | 63) + 1;
		}
		limit = r->ended ? UINT64_MAX : r->base + o;
		if (r->extra_pos < r->nextra && (r->extra[r->extra_pos].sid < limit || r->ended)) {
			r->last = &r->extra[r->extra_pos++];
			*ev = r->last;
			return 1;
		}
		if (r->ended)
			return 0;
		if (o < quarter) {
			uint64_t idx = hb + o, bit = 1ull << (idx & 63);
			size_t k = (size_t)(idx >> 6);
			struct filler *a = &r->fill[0], *b = &r->fill[1];
			bool in_a = a->bits[k] & bit, in_b = r->threaded && (b->bits[k] & bit);

			r->scan = o + 1;
			/*
			 * The slots ahead were written on the other CPU (if any):
			 * ask for them now, they are needed in a few hundred ns.
			 */
			if (o + PREFETCH_AHEAD < quarter) {
				__builtin_prefetch(&a->slots[idx + PREFETCH_AHEAD]);
				__builtin_prefetch((char *)&a->slots[idx + PREFETCH_AHEAD] + 64);
				if (r->threaded) {
					__builtin_prefetch(&b->slots[idx + PREFETCH_AHEAD]);
					__builtin_prefetch((char *)&b->slots[idx + PREFETCH_AHEAD] + 64);
				}
			}
			if (in_a && !in_b && !(a->dup[k] & bit)) {
				a->bits[k] &= ~bit;
				r->count--;
				r->last = &a->slots[idx];
				*ev = r->last;
				return 1;
			}
			if (in_b && !in_a && !(b->dup[k] & bit)) {
				b->bits[k] &= ~bit;
				r->count--;
				r->last = &b->slots[idx];
				*ev = r->last;
				return 1;
			}
			/* the sid came more than once: all of them go out through the extras */
			r->same_sid += in_a && in_b;
			for (size_t f = 0; f < 2; f++) {
				struct filler *x = &r->fill[f];

				x->dup[k] &= ~bit;
				if (!(x->bits[k] & bit))
					continue;
				x->bits[k] &= ~bit;
				r->count--;
				ret = add_extra(r, &x->slots[idx]);
				if (ret) {
					decode__release(&x->slots[idx]);
					goto fail;
				}
			}
			continue;
		}
		ret = advance(r);
		if (ret)
			goto fail;
	}

fail:
	r->err = ret;
	return ret;
}

int reader__next(struct reader *r, const struct event **ev)
{
	int ret;

	if (r->past_cut)
		return 0;
	ret = next_event(r, ev);
	/* in sid order: the first past the cut ends the sequence */
	if (ret == 1 && r->cut && (*ev)->sid > r->keep_upto) {
		r->past_cut = true;
		return 0;
	}
	return ret;
}

void reader__keep_below(struct reader *r, uint64_t sid)
{
	r->keep_upto = sid ? sid - 1 : 0;
	r->cut = true;
}

bool reader__cut(const struct reader *r, uint64_t *last)
{
	*last = r->keep_upto;
	return r->past_cut;
}

uint64_t reader__late(const struct reader *r)
{
	return r->fill[0].late + r->fill[1].late;
}

/* counted where a slot is found taken, off the path every record takes */
uint64_t reader__same_sid(const struct reader *r)
{
	return r->same_sid + r->fill[0].same_sid + r->fill[1].same_sid;
}

uint64_t reader__records(const struct reader *r)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < r->n; i++)
		n += r->rs[i].records;
	return n;
}

/* The window of four such quarters; the mask finds a sid's slot without a division */
static void set_quarter(struct reader *r, uint64_t quarter)
{
	r->quarter = quarter;
	r->window = 4 * quarter;
	r->mask = r->window - 1;
}

struct reader *reader__new(struct trace *t, unsigned int types, unsigned int threads)
{
	struct reader *r;
	size_t i, n;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->n = n = trace__stream_count(t);
	if (n > UINT32_MAX) {
		free(r);
		errno = EMFILE;
		return NULL;
	}
	r->types = types;
	r->rs = calloc(n ? n : 1, sizeof(*r->rs));
	r->errs = calloc(n ? n : 1, sizeof(*r->errs));
	r->fill = aligned_alloc(64, 2 * sizeof(*r->fill));
	if (!r->rs || !r->errs || !r->fill)
		goto nomem;
	memset(r->fill, 0, 2 * sizeof(*r->fill));
	for (i = 0; i < 2; i++) {
		r->fill[i].errs = calloc(n ? n : 1, sizeof(*r->fill[i].errs));
		if (!r->fill[i].errs)
			goto nomem;
	}
	set_quarter(r, READER_QUARTER);
	for (i = 0; i < n; i++) {
		r->rs[i].s = trace__stream(t, i);
		r->rs[i].first_above = UINT64_MAX;
		r->rs[i].first_near = UINT64_MAX;
	}
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	/* a helper only pays off with streams to share */
	r->may_thread = threads > 1 && n > 1;
	return r;

nomem:
	for (i = 0; r->fill && i < 2; i++)
		free(r->fill[i].errs);
	free(r->fill);
	free(r->errs);
	free(r->rs);
	free(r);
	errno = ENOMEM;
	return NULL;
}

void reader__set_range(struct reader *r, uint64_t lo, uint64_t hi)
{
	size_t i;

	r->ranged = true;
	r->lo = lo;
	r->hi = hi;
	set_quarter(r, READER_RANGE_QUARTER);
	r->near = hi != UINT64_MAX ? READER_CUT_SID(hi) : UINT64_MAX;
	for (i = 0; i < r->n; i++)
		r->rs[i].skim = lo > 0;
}

void reader__set_cut(struct reader *r, const struct reader_cut *cut, size_t n)
{
	size_t i, len;

	for (i = 0; i < r->n && i < n; i++) {
		struct rstream *rs = &r->rs[i];

		if (!cut[i].off)
			continue;
		/* the records passed over are the few between the guess and lo */
		if (r->lo > 0)
			(void)stream__seek(rs->s, cut[i].map, cut[i].off);
		if (r->hi != UINT64_MAX && stream__lent_bytes(rs->s, &len) == cut[i].map) {
			stream__mark(rs->s, cut[i].off);
			rs->cut_marked = true;
			rs->cut_off = cut[i].off;
		}
	}
}

uint64_t reader__stragglers(const struct reader *r)
{
	uint64_t n = r->stragglers;
	size_t i;

	/*
	 * where the reader of the next range started a stream: a record of
	 * that range before it, which neither reader took, or no record start
	 * that this reader met (marked, or the first it read of that range
	 * or from READER_CUT_SID(hi) on: it may have read past the cut before
	 * it had it, passing over records of types it does not want)
	 */
	for (i = 0; i < r->n; i++) {
		const struct rstream *rs = &r->rs[i];

		n += rs->cut_marked &&
		     (rs->first_above < rs->cut_off ||
		      (stream__mark_met(rs->s) != 1 && rs->first_above != rs->cut_off &&
		       rs->first_near != rs->cut_off));
	}
	return n;
}

size_t reader__error_count(const struct reader *r)
{
	return r->nerr;
}

const struct merge_error *reader__error(const struct reader *r, size_t i)
{
	return i < r->nerr ? &r->errs[i] : NULL;
}

void reader__forget_damage_past(struct reader *r, uint64_t sid)
{
	size_t i, kept = 0;

	for (i = 0; i < r->nerr; i++)
		if (r->errs[i].after_sid <= sid + 1)
			r->errs[kept++] = r->errs[i];
	r->nerr = kept;
}

void reader__free(struct reader *r)
{
	size_t i, k;

	if (!r)
		return;
	if (r->threaded) {
		/* a fill in progress ends before its memory goes */
		if (r->filling)
			wait_for(r, finish_cond, 0);
		atomic_store(&r->quit, true);
		wake(r);
		pthread_join(r->helper, NULL);
	}
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	release_last(r);
	for (i = r->extra_pos; i < r->nextra; i++)
		decode__release(&r->extra[i]);
	for (k = 0; k < 2; k++) {
		struct filler *f = &r->fill[k];

		for (i = 0; i < r->window; i++) {
			if (f->bits[i >> 6] & (1ull << (i & 63)))
				decode__release(&f->slots[i]);
		}
		for (i = 0; i < f->nextra; i++)
			decode__release(&f->extra[i]);
		free(f->extra);
		free(f->errs);
		free(f->slots);
	}
	free(r->fill);
	for (i = 0; i < r->n; i++) {
		if (r->rs[i].has_pending)
			decode__release(&r->rs[i].pending);
	}
	free(r->extra);
	free(r->errs);
	free(r->rs);
	free(r);
}
