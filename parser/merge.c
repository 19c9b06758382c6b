// SPDX-License-Identifier: BSD-3-Clause
/*
 * The heap holds, for every stream, its next MERGE_WINDOW records decoded
 * (fewer near its end). The event returned last stays at the top of the
 * heap until the next call, which replaces it by its stream's next record
 * and sifts down: one sift per event.
 *
 * Each decoded event lives in a slot whose small arena serves protobuf-c's
 * allocations, so decoding an event costs no malloc and releasing it is a
 * reset. Allocations that do not fit (long file names, protobuf-c's scan
 * slabs for messages with many fields) fall back to malloc and are freed
 * at the reset.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "merge.h"
#include "stream.h"
#include "trace.h"

/* room for the largest usual event (a file name event) with its name */
#define SLOT_ARENA 640
#define ARENA_ALIGN alignof(max_align_t)

struct big_alloc {
	union {
		struct {
			struct big_alloc *prev, *next;
		};
		max_align_t align;
	};
};

struct slot {
	struct slot *next_free;
	Octf__Proto__Trace__Event *ev;
	struct big_alloc *big;
	size_t used;
	ProtobufCAllocator alloc;
	alignas(max_align_t) unsigned char arena[SLOT_ARENA];
};

struct heap_entry {
	uint64_t sid;
	uint64_t pos;		/* record index in its stream */
	size_t stream;
	struct slot *slot;
};

struct merge_stream {
	struct stream *s;
	struct slot *free;	/* released slots */
	uint64_t pos;		/* records read */
	bool done;
};

struct merge {
	struct trace *t;
	struct merge_stream *ms;
	size_t n;
	struct heap_entry *heap;
	size_t heap_len;
	bool primed;
	bool top_out;		/* heap[0] was returned by the last call */
	int err;
	struct merge_error *errs;
	size_t nerr;
	uint64_t last_sid;	/* of the event returned last, if any */
	uint64_t same_sid;	/* events whose sid was the one before's */
	bool returned;
};

static void *arena_alloc(void *data, size_t size)
{
	struct slot *sl = data;
	size_t asize = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	struct big_alloc *b;

	if (asize >= size && asize <= SLOT_ARENA - sl->used) {
		void *p = sl->arena + sl->used;

		sl->used += asize;
		return p;
	}
	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->prev = NULL;
	b->next = sl->big;
	if (sl->big)
		sl->big->prev = b;
	sl->big = b;
	return b + 1;
}

static void arena_free(void *data, void *p)
{
	struct slot *sl = data;
	struct big_alloc *b;

	if (!p)
		return;
	if ((unsigned char *)p >= sl->arena && (unsigned char *)p < sl->arena + SLOT_ARENA)
		return;	/* reclaimed at the reset */
	b = (struct big_alloc *)p - 1;
	if (b->prev)
		b->prev->next = b->next;
	else
		sl->big = b->next;
	if (b->next)
		b->next->prev = b->prev;
	free(b);
}

static void slot_reset(struct slot *sl)
{
	struct big_alloc *b = sl->big, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	sl->big = NULL;
	sl->used = 0;
	sl->ev = NULL;
}

static struct slot *slot_get(struct merge_stream *ms)
{
	struct slot *sl = ms->free;

	if (sl) {
		ms->free = sl->next_free;
		sl->next_free = NULL;
		return sl;
	}
	sl = malloc(sizeof(*sl));
	if (!sl)
		return NULL;
	sl->next_free = NULL;
	sl->ev = NULL;
	sl->big = NULL;
	sl->used = 0;
	sl->alloc.alloc = arena_alloc;
	sl->alloc.free = arena_free;
	sl->alloc.allocator_data = sl;
	return sl;
}

static void slot_put(struct merge_stream *ms, struct slot *sl)
{
	slot_reset(sl);
	sl->next_free = ms->free;
	ms->free = sl;
}

static void slot_free(struct slot *sl)
{
	if (!sl)
		return;
	slot_reset(sl);
	free(sl);
}

static void slot_list_free(struct slot *sl)
{
	struct slot *next;

	for (; sl; sl = next) {
		next = sl->next_free;
		slot_free(sl);
	}
}

static bool entry_less(const struct heap_entry *a, const struct heap_entry *b)
{
	if (a->sid != b->sid)
		return a->sid < b->sid;
	if (a->stream != b->stream)
		return a->stream < b->stream;
	return a->pos < b->pos;
}

static void sift_down(struct heap_entry *h, size_t len, size_t i)
{
	struct heap_entry e = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= len)
			break;
		if (c + 1 < len && entry_less(&h[c + 1], &h[c]))
			c++;
		if (!entry_less(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

static void sift_up(struct heap_entry *h, size_t i)
{
	struct heap_entry e = h[i];

	while (i) {
		size_t p = (i - 1) / 2;

		if (!entry_less(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static void stream_damaged(struct merge *m, size_t i, uint64_t offset, int err)
{
	struct merge_error *e = &m->errs[m->nerr++];

	e->path = stream__path(m->ms[i].s);
	e->offset = offset;
	e->err = err;
	/* only the reader's users stop short of the end and ask */
	e->after_sid = 0;
	m->ms[i].done = true;
}

/*
 * Reads and decodes stream i's next record into *out. Returns 1, 0 when
 * the stream has nothing more (ended or damaged), or -ENOMEM.
 */
static int read_one(struct merge *m, size_t i, struct heap_entry *out)
{
	struct merge_stream *ms = &m->ms[i];
	const uint8_t *msg;
	struct slot *sl;
	size_t len;
	int r;

	if (ms->done)
		return 0;
	r = stream__next(ms->s, &msg, &len);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		stream_damaged(m, i, stream__offset(ms->s), r);
		return 0;
	}
	if (r == 0) {
		ms->done = true;
		return 0;
	}

	sl = slot_get(ms);
	if (!sl)
		return -ENOMEM;
	sl->ev = octf__proto__trace__event__unpack(&sl->alloc, len, msg);
	/*
	 * NULL can also mean a failed malloc beyond the arena; those are rare
	 * and small, so the record is what gets the blame.
	 */
	if (!sl->ev) {
		slot_put(ms, sl);
		stream_damaged(m, i, stream__offset(ms->s), -EPROTO);
		return 0;
	}
	/* an event without a header sorts first rather than being dropped */
	out->sid = sl->ev->header ? sl->ev->header->sid : 0;
	out->pos = ms->pos++;
	out->stream = i;
	out->slot = sl;
	return 1;
}

static int prime(struct merge *m)
{
	size_t i, k;
	int r;

	for (i = 0; i < m->n; i++) {
		for (k = 0; k < MERGE_WINDOW; k++) {
			r = read_one(m, i, &m->heap[m->heap_len]);
			if (r < 0)
				return r;
			if (!r)
				break;
			sift_up(m->heap, m->heap_len++);
		}
	}
	m->primed = true;
	return 0;
}

struct merge *merge__new(struct trace *t)
{
	struct merge *m;
	size_t i;

	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->t = t;
	m->n = trace__stream_count(t);
	m->ms = calloc(m->n ? m->n : 1, sizeof(*m->ms));
	m->errs = calloc(m->n ? m->n : 1, sizeof(*m->errs));
	m->heap = calloc(m->n ? m->n * MERGE_WINDOW : 1, sizeof(*m->heap));
	if (!m->ms || !m->errs || !m->heap) {
		merge__free(m);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < m->n; i++)
		m->ms[i].s = trace__stream(t, i);
	return m;
}

int merge__next(struct merge *m, const Octf__Proto__Trace__Event **ev)
{
	int r;

	if (m->err)
		return m->err;
	if (!m->primed) {
		r = prime(m);
		if (r < 0)
			goto fail;
	}
	if (m->top_out) {
		struct heap_entry *top = &m->heap[0];
		size_t i = top->stream;

		m->top_out = false;
		slot_put(&m->ms[i], top->slot);
		r = read_one(m, i, top);
		if (r < 0) {
			/* the heap must not keep an entry whose slot went back */
			m->heap[0] = m->heap[--m->heap_len];
			goto fail;
		}
		if (!r)
			m->heap[0] = m->heap[--m->heap_len];
		if (m->heap_len)
			sift_down(m->heap, m->heap_len, 0);
	}
	if (!m->heap_len)
		return 0;
	m->top_out = true;
	*ev = m->heap[0].slot->ev;
	if (m->returned && m->heap[0].sid == m->last_sid)
		m->same_sid++;
	m->last_sid = m->heap[0].sid;
	m->returned = true;
	return 1;

fail:
	m->err = r;
	return r;
}

uint64_t merge__same_sid(const struct merge *m)
{
	return m->same_sid;
}

size_t merge__error_count(const struct merge *m)
{
	return m->nerr;
}

const struct merge_error *merge__error(const struct merge *m, size_t i)
{
	return i < m->nerr ? &m->errs[i] : NULL;
}

void merge__free(struct merge *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->heap_len; i++)
		slot_free(m->heap[i].slot);
	if (m->ms) {
		for (i = 0; i < m->n; i++)
			slot_list_free(m->ms[i].free);
	}
	free(m->heap);
	free(m->errs);
	free(m->ms);
	free(m);
}
