// SPDX-License-Identifier: BSD-3-Clause
/*
 * Delta records (format in delta.h). Both directions share one model of
 * the stream: each record is first turned into a `struct rec` (from the
 * OCTF message when encoding, from the delta bytes when decoding) without
 * touching the state, then written out, then committed to the state by
 * the same function. So encoder and decoder cannot drift apart, and a
 * record that turns out to be incomplete or damaged leaves the state as
 * it was.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "delta.h"
#include "framing.h"

#define MAX_TYPES 15
#define MAX_SLOTS 64
/*
 * Recent kernel addresses. Bios come from a small slab pool and are
 * reused soon after their completion: with iodepth 32, 90% of the ids of
 * a random-read trace are among the stream's last 64, where their place
 * costs a byte instead of 10.
 */
#define RECENT_IDS 64
/* Recent request addresses (one per tag of the queue in use) */
#define RECENT_RQS 64
/* The lba and length of recent ios, by id, for their dispatches (a power of 2) */
#define IO_SLOTS 256
/* Recent values of a bytes field (file ids of the files in use, comm) */
#define RECENT_BYTES 16
/* Longer bytes values are always written out, never kept */
#define BYTES_KEEP 48

/* Body field numbers of Event (proto/trace.proto) that have own predictions */
enum {
	F_HEADER = 1,
	F_IO = 2,
	F_META = 4,
	F_COMPLETION = 5,
	F_SPLIT = 20,
	F_DISPATCH = 21,
};

enum role {
	R_NUM,		/* zigzag difference from the previous record's value */
	R_ID,		/* bio address: recent ids */
	R_RQ,		/* request address: recent requests */
	R_BYTES,	/* length-delimited: recent values */
	R_DISP_LBA,	/* predicted from the io being dispatched */
	R_DISP_LEN,
};

/* Codes of a bytes value (0 absent, then ranks, then a literal) */
#define BYTES_ABSENT 0
#define BYTES_LITERAL (RECENT_BYTES + 1)

struct recent_bytes {
	unsigned n;
	uint8_t len[RECENT_BYTES];
	uint8_t data[RECENT_BYTES][BYTES_KEEP];
};

struct slot {
	uint32_t field;
	bool lenfield;		/* wire type 2, else 0 (varint) */
	uint8_t role;
	/* bytes: the previous record had the field, and kept: it is recent->data[0] */
	bool present, kept;
	uint64_t prev;		/* numbers: the previous record's value, 0 = absent */
	struct recent_bytes *recent;
};

struct type {
	uint32_t field;		/* body field number in Event */
	unsigned nslots;
	struct slot slot[MAX_SLOTS];	/* by field number */
};

/* An io (or split child) a dispatch may refer to */
struct io_entry {
	uint64_t id;
	uint64_t lba;
	uint64_t len;
};

struct delta {
	uint64_t sid, ts;
	unsigned ntypes;
	struct type *type[MAX_TYPES];
	unsigned nids, nrqs;
	/* most recent first */
	uint64_t ids[RECENT_IDS];
	uint64_t rqs[RECENT_RQS];
	struct io_entry io[IO_SLOTS];	/* by io_slot(id) */
	uint8_t out[DELTA_MSG_MAX];	/* the decoded message */
};

struct value {
	uint64_t v;		/* numbers, 0 = absent */
	const uint8_t *p;	/* bytes */
	uint32_t len;
	bool present;		/* bytes */
};

/* One record, in the terms of the model */
struct rec {
	uint64_t sid, ts;
	unsigned type;		/* == d->ntypes: a new type */
	uint32_t field;
	const struct type *t;	/* NULL for a new type */
	unsigned nslots;	/* the layout: old slots and new fields merged */
	struct {
		uint32_t field;
		bool lenfield;
		uint8_t role;
		/* ids: place in their recent list at the record's start, -1 = none */
		int8_t rank;
		int old;	/* index in t->slot, -1 = new */
	} lay[MAX_SLOTS];
	unsigned nnew;
	uint64_t mask;		/* slots that differ from their prediction */
	struct value val[MAX_SLOTS];
	/* allocated before the commit, so that the commit cannot fail */
	struct type *newtype;
	struct recent_bytes *newrecent[MAX_SLOTS];
};

struct delta *delta__new(void)
{
	return calloc(1, sizeof(struct delta));
}

void delta__free(struct delta *d)
{
	unsigned i, j;

	if (!d)
		return;
	for (i = 0; i < d->ntypes; i++) {
		for (j = 0; j < d->type[i]->nslots; j++)
			free(d->type[i]->slot[j].recent);
		free(d->type[i]);
	}
	free(d);
}

static uint64_t zigzag(uint64_t v)
{
	return (v << 1) ^ (uint64_t)((int64_t)v >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static uint8_t role_of(uint32_t type_field, uint32_t field, bool lenfield)
{
	if (lenfield)
		return R_BYTES;
	switch (type_field) {
	case F_IO:
		return field == 9 ? R_ID : R_NUM;
	case F_META:
		return field == 1 ? R_ID : R_NUM;
	case F_COMPLETION:
		return field == 5 ? R_ID : R_NUM;
	case F_SPLIT:
		return field == 1 || field == 2 ? R_ID : R_NUM;
	case F_DISPATCH:
		switch (field) {
		case 1:
			return R_ID;
		case 3:
			return R_DISP_LBA;
		case 4:
			return R_DISP_LEN;
		case 6:
			return R_RQ;
		default:
			return R_NUM;
		}
	default:
		return R_NUM;
	}
}

static const struct slot *old_slot(const struct rec *r, unsigned i)
{
	return r->lay[i].old >= 0 ? &r->t->slot[r->lay[i].old] : NULL;
}

static int find(const uint64_t *list, unsigned n, uint64_t id)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (list[i] == id)
			return (int)i;
	return -1;
}

static unsigned io_slot(uint64_t id)
{
	/* bio addresses differ in their middle bits: Fibonacci hashing mixes them */
	return (unsigned)((id * 0x9e3779b97f4a7c15ull) >> 56) & (IO_SLOTS - 1);
}

static inline size_t put(uint8_t *o, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		o[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	o[n++] = (uint8_t)v;
	return n;
}

/* Reads a varint as framing__get_varint does: 1, 0 (input ends inside it), -EBADMSG */
static inline int get(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	unsigned shift = 0;
	uint64_t r = 0;

	while (p < end) {
		uint8_t b = *p++;

		/* the 10th byte holds bit 63 only */
		if (shift == 63 && b > 1)
			return -EBADMSG;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			*pp = p;
			return 1;
		}
		shift += 7;
		if (shift > 63)
			return -EBADMSG;
	}
	return 0;
}

static inline void lay_slot(struct rec *r, unsigned n, uint32_t field, bool lenfield, int old)
{
	r->lay[n].field = field;
	r->lay[n].lenfield = lenfield;
	r->lay[n].old = old;
	r->lay[n].role = old >= 0 ? r->t->slot[old].role : role_of(r->field, field, lenfield);
	r->lay[n].rank = -1;
}

/* The number slot i of r is predicted to hold; cur_id: the record's first id */
static inline uint64_t predict_num(const struct delta *d, const struct rec *r, unsigned i, uint64_t cur_id)
{
	const struct slot *s = old_slot(r, i);
	uint64_t prev = s ? s->prev : 0;
	const struct io_entry *e;

	switch (r->lay[i].role) {
	case R_NUM:
		return prev;
	case R_ID:
		return d->nids ? d->ids[0] : 0;
	case R_RQ:
		return d->nrqs ? d->rqs[0] : 0;
	case R_DISP_LBA:
	case R_DISP_LEN:
		e = &d->io[io_slot(cur_id)];
		if (!cur_id || e->id != cur_id)
			return prev;
		return r->lay[i].role == R_DISP_LBA ? e->lba : e->len;
	default:
		return prev;
	}
}

/* Bytes predictions: 1 the value is recent->data[0], 0 absent, -1 none */
static int predict_bytes(const struct rec *r, unsigned i)
{
	const struct slot *s = old_slot(r, i);

	if (!s || !s->present)
		return 0;
	return s->kept ? 1 : -1;
}

static bool bytes_equal(const struct recent_bytes *rb, unsigned k, const struct value *v)
{
	return rb->len[k] == v->len && !memcmp(rb->data[k], v->p, v->len);
}

/* ---- state updates, shared by both directions ---- */

/* Moves id to the front of list; hint: where it probably is */
static void touch(uint64_t *list, unsigned *n, unsigned max, uint64_t id, int hint)
{
	int k = hint >= 0 && (unsigned)hint < *n && list[hint] == id ? hint : find(list, *n, id);

	if (k < 0)
		k = *n < max ? (int)(*n)++ : (int)max - 1;
	memmove(&list[1], &list[0], (size_t)k * sizeof(list[0]));
	list[0] = id;
}

static void remember_io(struct delta *d, uint64_t id, uint64_t lba, uint64_t len)
{
	struct io_entry *e = &d->io[io_slot(id)];

	e->id = id;
	e->lba = lba;
	e->len = len;
}

static void keep_bytes(struct recent_bytes *rb, const struct value *v)
{
	uint8_t len, tmp[BYTES_KEEP];
	unsigned k;

	for (k = 0; k < rb->n; k++)
		if (bytes_equal(rb, k, v))
			break;
	if (k == rb->n) {
		/* not among them: v->p is not inside rb, evict the oldest */
		if (rb->n < RECENT_BYTES)
			rb->n++;
		else
			k = RECENT_BYTES - 1;
		len = (uint8_t)v->len;
		memcpy(tmp, v->p, v->len);
	} else if (!k) {
		return;
	} else {
		len = rb->len[k];
		memcpy(tmp, rb->data[k], len);
	}
	memmove(&rb->len[1], &rb->len[0], k);
	memmove(&rb->data[1], &rb->data[0], (size_t)k * BYTES_KEEP);
	rb->len[0] = len;
	memcpy(rb->data[0], tmp, len);
}

static uint64_t rec_num(const struct rec *r, uint32_t field)
{
	unsigned i;

	for (i = 0; i < r->nslots; i++)
		if (r->lay[i].field == field)
			return r->lay[i].lenfield ? 0 : r->val[i].v;
	return 0;
}

/* Allocates what the commit of r needs; false (nothing kept) on failure */
static bool prepare(struct rec *r)
{
	unsigned i;

	r->newtype = NULL;
	if (!r->t) {
		r->newtype = calloc(1, sizeof(*r->newtype));
		if (!r->newtype)
			return false;
	}
	if (!r->nnew)
		return true;
	for (i = 0; i < r->nslots; i++) {
		r->newrecent[i] = NULL;
		if (r->lay[i].old >= 0 || !r->lay[i].lenfield)
			continue;
		r->newrecent[i] = calloc(1, sizeof(*r->newrecent[i]));
		if (!r->newrecent[i])
			goto fail;
	}
	return true;
fail:
	while (i-- > 0)
		free(r->newrecent[i]);
	free(r->newtype);
	return false;
}

static void commit(struct delta *d, const struct rec *r)
{
	struct type *t;
	unsigned i;

	d->sid = r->sid;
	d->ts = r->ts;
	if (r->type == d->ntypes) {
		t = d->type[d->ntypes++] = r->newtype;
		t->field = r->field;
	} else {
		t = d->type[r->type];
	}
	if (r->nnew) {
		/* merged indices are >= old ones: fill from the end */
		for (i = r->nslots; i-- > 0;) {
			struct slot *s = &t->slot[i];

			if (r->lay[i].old >= 0) {
				*s = t->slot[r->lay[i].old];
				continue;
			}
			memset(s, 0, sizeof(*s));
			s->field = r->lay[i].field;
			s->lenfield = r->lay[i].lenfield;
			s->role = r->lay[i].role;
			s->recent = r->newrecent[i];
		}
		t->nslots = r->nslots;
	}
	for (i = 0; i < r->nslots; i++) {
		struct slot *s = &t->slot[i];
		const struct value *v = &r->val[i];

		if (!s->lenfield) {
			s->prev = v->v;
			if (!v->v)
				continue;
			if (s->role == R_ID) {
				touch(d->ids, &d->nids, RECENT_IDS, v->v, r->lay[i].rank);
				/* what a dispatch of this bio will be predicted from */
				if (r->field == F_IO && s->field == 9)
					remember_io(d, v->v, rec_num(r, 1), rec_num(r, 2));
				else if (r->field == F_SPLIT && s->field == 1)
					remember_io(d, v->v, rec_num(r, 4), rec_num(r, 5));
			} else if (s->role == R_RQ) {
				touch(d->rqs, &d->nrqs, RECENT_RQS, v->v, r->lay[i].rank);
			}
			continue;
		}
		/* as predicted: present and kept are what they were */
		if (!(r->mask & (1ull << i)))
			continue;
		s->present = v->present;
		if (!v->present)
			continue;
		s->kept = v->len <= BYTES_KEEP;
		if (s->kept)
			keep_bytes(s->recent, v);
	}
}

/* ---- encoding ---- */

/* A protobuf varint as protobuf-c writes it (shortest form), else false */
static inline bool get_canonical(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;

	if (get(p, end, v) != 1)
		return false;
	return *p - q == 1 || (*p)[-1];
}

/*
 * r from an OCTF message, if the decoder would rebuild it byte for byte:
 * a header of sid and timestamp (both non-zero), one body field, body
 * fields in increasing order, no zero numbers (proto3 leaves them out),
 * no wire types but varint and length-delimited.
 */
static bool rec_from_msg(const struct delta *d, const uint8_t *msg, size_t len, struct rec *r)
{
	const uint8_t *p = msg, *end = msg + len, *hend;
	unsigned oldn, i = 0, n = 0;
	uint32_t last = 0;
	uint64_t x, tag;

	if (!get_canonical(&p, end, &tag) || tag != (F_HEADER << 3 | 2) ||
	    !get_canonical(&p, end, &x) || x > (uint64_t)(end - p))
		return false;
	hend = p + x;
	if (!get_canonical(&p, hend, &tag) || tag != (1 << 3) || !get_canonical(&p, hend, &r->sid) ||
	    !r->sid || !get_canonical(&p, hend, &tag) || tag != (2 << 3) ||
	    !get_canonical(&p, hend, &r->ts) || !r->ts || p != hend)
		return false;
	if (!get_canonical(&p, end, &tag) || (tag & 7) != 2 || (tag >> 3) <= F_HEADER ||
	    (tag >> 3) >= (1u << 29) || !get_canonical(&p, end, &x) || x != (uint64_t)(end - p))
		return false;
	r->field = (uint32_t)(tag >> 3);

	r->type = d->ntypes;
	for (i = 0; i < d->ntypes; i++)
		if (d->type[i]->field == r->field)
			r->type = i;
	if (r->type == d->ntypes && d->ntypes == MAX_TYPES)
		return false;
	r->t = r->type < d->ntypes ? d->type[r->type] : NULL;
	oldn = r->t ? r->t->nslots : 0;

	/* the message's fields merged with the type's slots, in one pass */
	r->nnew = 0;
	i = 0;
	while (p < end) {
		struct value *v;
		uint32_t fn;

		if (!get_canonical(&p, end, &tag) || (tag >> 3) >= (1u << 29))
			return false;
		fn = (uint32_t)(tag >> 3);
		if (fn <= last)
			return false;
		last = fn;
		for (; i < oldn && r->t->slot[i].field < fn; i++, n++) {
			if (n == MAX_SLOTS)
				return false;
			lay_slot(r, n, r->t->slot[i].field, r->t->slot[i].lenfield, (int)i);
			r->val[n].v = 0;
			r->val[n].present = false;
		}
		if (n == MAX_SLOTS || ((tag & 7) != 0 && (tag & 7) != 2))
			return false;
		if (i < oldn && r->t->slot[i].field == fn) {
			if (r->t->slot[i].lenfield != ((tag & 7) == 2))
				return false;
			lay_slot(r, n, fn, (tag & 7) == 2, (int)i++);
		} else {
			lay_slot(r, n, fn, (tag & 7) == 2, -1);
			r->nnew++;
		}
		v = &r->val[n++];
		if (!(tag & 7)) {
			if (!get_canonical(&p, end, &v->v) || !v->v)
				return false;
			v->present = false;
		} else {
			if (!get_canonical(&p, end, &x) || x > (uint64_t)(end - p))
				return false;
			v->v = 0;
			v->p = p;
			v->len = (uint32_t)x;
			v->present = true;
			p += x;
		}
	}
	for (; i < oldn; i++, n++) {
		if (n == MAX_SLOTS)
			return false;
		lay_slot(r, n, r->t->slot[i].field, r->t->slot[i].lenfield, (int)i);
		r->val[n].v = 0;
		r->val[n].present = false;
	}
	r->nslots = n;
	return true;
}

/* Sets r->mask, the ids' ranks and pred[] (the number predictions) */
static void find_mispredicted(const struct delta *d, struct rec *r, uint64_t *pred)
{
	uint64_t cur_id = 0;
	unsigned i;

	r->mask = 0;
	for (i = 0; i < r->nslots; i++) {
		const struct value *v = &r->val[i];
		uint8_t role = r->lay[i].role;
		bool miss;

		if (role == R_BYTES) {
			int p = predict_bytes(r, i);

			if (p < 0)
				miss = true;
			else if (!p)
				miss = v->present;
			else
				miss = !v->present || !bytes_equal(old_slot(r, i)->recent, 0, v);
		} else {
			pred[i] = predict_num(d, r, i, cur_id);
			miss = v->v != pred[i];
			if (role == R_ID && !cur_id)
				cur_id = v->v;
			if ((role == R_ID || role == R_RQ) && v->v)
				r->lay[i].rank = !miss ? 0 : role == R_ID ? (int8_t)find(d->ids, d->nids, v->v)
									  : (int8_t)find(d->rqs, d->nrqs, v->v);
		}
		if (miss)
			r->mask |= 1ull << i;
	}
}

static size_t verbatim(const uint8_t *msg, size_t len, uint8_t *out)
{
	size_t n;

	out[0] = 0;
	out[1] = 0;
	n = 2 + put(out + 2, len);
	memcpy(out + n, msg, len);
	return n + len;
}

size_t delta__encode(struct delta *d, const uint8_t *msg, size_t len, uint8_t *out)
{
	struct rec r;
	uint64_t pred[MAX_SLOTS], sdiff;
	size_t n = 0;
	unsigned i;
	int k;

	if (len > DELTA_MSG_MAX || !rec_from_msg(d, msg, len, &r))
		return verbatim(msg, len, out);
	find_mispredicted(d, &r, pred);
	if (!prepare(&r))
		return verbatim(msg, len, out);

	sdiff = r.sid - d->sid - 1;
	out[n++] = (uint8_t)((r.type < d->ntypes ? r.type + 1 : 0) | (sdiff < 7 ? sdiff : 7) << 4 |
			     (r.nnew ? 0x80 : 0));
	if (r.type == d->ntypes)
		n += put(out + n, r.field);
	if (sdiff >= 7)
		n += put(out + n, zigzag(sdiff));
	if (r.nnew) {
		n += put(out + n, r.nnew);
		for (i = 0; i < r.nslots; i++)
			if (r.lay[i].old < 0)
				n += put(out + n, (uint64_t)r.lay[i].field << 1 |
								  r.lay[i].lenfield);
	}
	n += put(out + n, zigzag(r.ts - d->ts));
	n += put(out + n, r.mask);

	for (i = 0; i < r.nslots; i++) {
		const struct value *v = &r.val[i];

		if (!(r.mask & (1ull << i)))
			continue;
		switch (r.lay[i].role) {
		case R_BYTES: {
			const struct slot *s = old_slot(&r, i);

			if (!v->present) {
				out[n++] = BYTES_ABSENT;
				break;
			}
			for (k = 0; s && k < (int)s->recent->n; k++)
				if (bytes_equal(s->recent, (unsigned)k, v))
					break;
			if (s && k < (int)s->recent->n) {
				out[n++] = (uint8_t)(k + 1);
				break;
			}
			out[n++] = BYTES_LITERAL;
			n += put(out + n, v->len);
			memcpy(out + n, v->p, v->len);
			n += v->len;
			break;
		}
		case R_ID:
		case R_RQ:
			/* rank 0 is the prediction: a miss is never there */
			if (r.lay[i].rank > 0) {
				out[n++] = (uint8_t)r.lay[i].rank;
				break;
			}
			out[n++] = 0;
			n += put(out + n, zigzag(v->v - pred[i]));
			break;
		default:
			n += put(out + n, zigzag(v->v - pred[i]));
			break;
		}
	}
	commit(d, &r);
	return n;
}

/* ---- decoding ---- */

#define GET(v)                                       \
	do {                                         \
		int ret_ = get(&p, end, (v));        \
		if (ret_ <= 0)                       \
			return ret_;                 \
	} while (0)

/* The fields a layout change adds, merged with the type's slots */
static int read_layout(struct rec *r, const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *p = *pp;
	unsigned oldn = r->t ? r->t->nslots : 0, i = 0, j;
	uint64_t n, x;
	uint32_t last = 0;

	GET(&n);
	if (!n || n > MAX_SLOTS - oldn)
		return -EBADMSG;
	r->nnew = (unsigned)n;
	r->nslots = 0;
	for (j = 0; j < n; j++) {
		uint32_t fn;

		GET(&x);
		fn = (uint32_t)(x >> 1);
		if ((x >> 1) >= (1u << 29) || !fn || fn <= last)
			return -EBADMSG;
		last = fn;
		for (; i < oldn && r->t->slot[i].field < fn; i++)
			lay_slot(r, r->nslots++, r->t->slot[i].field, r->t->slot[i].lenfield, (int)i);
		if (i < oldn && r->t->slot[i].field == fn)
			return -EBADMSG;
		lay_slot(r, r->nslots++, fn, x & 1, -1);
	}
	for (; i < oldn; i++)
		lay_slot(r, r->nslots++, r->t->slot[i].field, r->t->slot[i].lenfield, (int)i);
	*pp = p;
	return 1;
}

/* r from delta bytes: 1, 0 (need more), -EBADMSG; *pp moves past the record */
static int rec_from_delta(const struct delta *d, struct rec *r, const uint8_t **pp,
			  const uint8_t *end)
{
	const uint8_t *p = *pp;
	uint64_t x, cur_id = 0;
	unsigned code, i;
	uint8_t k;
	int ret;

	k = *p++;
	code = k & 15;
	if (code) {
		if (code > d->ntypes)
			return -EBADMSG;
		r->type = code - 1;
		r->t = d->type[r->type];
		r->field = r->t->field;
	} else {
		GET(&x);
		/* verbatim records are the caller's */
		if (x <= F_HEADER || x >= (1u << 29) || d->ntypes == MAX_TYPES)
			return -EBADMSG;
		for (i = 0; i < d->ntypes; i++)
			if (d->type[i]->field == x)
				return -EBADMSG;
		r->type = d->ntypes;
		r->t = NULL;
		r->field = (uint32_t)x;
	}
	if (((k >> 4) & 7) == 7) {
		GET(&x);
		r->sid = d->sid + 1 + unzigzag(x);
	} else {
		r->sid = d->sid + 1 + ((k >> 4) & 7);
	}
	r->nnew = 0;
	if (k & 0x80) {
		ret = read_layout(r, &p, end);
		if (ret <= 0)
			return ret;
	} else {
		r->nslots = r->t ? r->t->nslots : 0;
		for (i = 0; i < r->nslots; i++)
			lay_slot(r, i, r->t->slot[i].field, r->t->slot[i].lenfield, (int)i);
	}
	GET(&x);
	r->ts = d->ts + unzigzag(x);
	GET(&r->mask);
	if (r->nslots < 64 && r->mask >> r->nslots)
		return -EBADMSG;

	for (i = 0; i < r->nslots; i++) {
		struct value *v = &r->val[i];
		const struct slot *s = old_slot(r, i);
		uint8_t role = r->lay[i].role;
		bool miss = r->mask & (1ull << i);
		uint64_t pred;

		v->v = 0;
		v->present = false;
		if (role == R_BYTES) {
			int pb = predict_bytes(r, i);

			if (!miss) {
				if (pb < 0)
					return -EBADMSG;
				if (pb) {
					v->present = true;
					v->p = s->recent->data[0];
					v->len = s->recent->len[0];
				}
				continue;
			}
			GET(&x);
			if (x == BYTES_ABSENT)
				continue;
			v->present = true;
			if (x < BYTES_LITERAL) {
				if (!s || x > s->recent->n)
					return -EBADMSG;
				v->p = s->recent->data[x - 1];
				v->len = s->recent->len[x - 1];
				continue;
			}
			if (x > BYTES_LITERAL)
				return -EBADMSG;
			GET(&x);
			if (x > DELTA_MSG_MAX)
				return -EBADMSG;
			if (x > (uint64_t)(end - p))
				return 0;
			v->p = p;
			v->len = (uint32_t)x;
			p += x;
			continue;
		}
		pred = predict_num(d, r, i, cur_id);
		if (!miss) {
			v->v = pred;
			if ((role == R_ID || role == R_RQ) && pred)
				r->lay[i].rank = 0;
		} else if (role == R_ID || role == R_RQ) {
			GET(&x);
			if (!x) {
				GET(&x);
				v->v = pred + unzigzag(x);
			} else if (x < (role == R_ID ? d->nids : d->nrqs)) {
				v->v = role == R_ID ? d->ids[x] : d->rqs[x];
				r->lay[i].rank = (int8_t)x;
			} else {
				return -EBADMSG;
			}
		} else {
			GET(&x);
			v->v = pred + unzigzag(x);
		}
		if (role == R_ID && !cur_id)
			cur_id = v->v;
	}
	*pp = p;
	return 1;
}

/* Writes r as an OCTF message into d->out; its length, or -EBADMSG if too long */
static int rec_to_msg(struct delta *d, const struct rec *r)
{
	size_t hlen, blen = 0, total, n = 0;
	uint8_t *o = d->out;
	unsigned i;

	hlen = (r->sid ? 1 + varint_len(r->sid) : 0) + (r->ts ? 1 + varint_len(r->ts) : 0);
	for (i = 0; i < r->nslots; i++) {
		const struct value *v = &r->val[i];
		uint64_t tag = (uint64_t)r->lay[i].field << 3;

		if (r->lay[i].lenfield && v->present)
			blen += varint_len(tag | 2) + varint_len(v->len) + v->len;
		else if (!r->lay[i].lenfield && v->v)
			blen += varint_len(tag) + varint_len(v->v);
	}
	total = 1 + varint_len(hlen) + hlen + varint_len((uint64_t)r->field << 3 | 2) +
		varint_len(blen) + blen;
	if (total > DELTA_MSG_MAX)
		return -EBADMSG;

	o[n++] = F_HEADER << 3 | 2;
	n += put(o + n, hlen);
	if (r->sid) {
		o[n++] = 1 << 3;
		n += put(o + n, r->sid);
	}
	if (r->ts) {
		o[n++] = 2 << 3;
		n += put(o + n, r->ts);
	}
	n += put(o + n, (uint64_t)r->field << 3 | 2);
	n += put(o + n, blen);
	for (i = 0; i < r->nslots; i++) {
		const struct value *v = &r->val[i];
		uint64_t tag = (uint64_t)r->lay[i].field << 3;

		if (r->lay[i].lenfield && v->present) {
			n += put(o + n, tag | 2);
			n += put(o + n, v->len);
			memcpy(o + n, v->p, v->len);
			n += v->len;
		} else if (!r->lay[i].lenfield && v->v) {
			n += put(o + n, tag);
			n += put(o + n, v->v);
		}
	}
	return (int)n;
}

int delta__decode(struct delta *d, const uint8_t *in, size_t avail, const uint8_t **msg,
		  size_t *len, size_t *used)
{
	const uint8_t *p = in, *end = in + avail;
	struct rec r;
	uint64_t x;
	int ret;

	if (!avail)
		return 0;
	if (in[0] == 0 && avail >= 2 && in[1] == 0) {
		/* verbatim: no state change */
		p += 2;
		ret = get(&p, end, &x);
		if (ret == 0 && avail >= DELTA_RECORD_MAX)
			return -EBADMSG;
		if (ret <= 0)
			return ret;
		if (x > FRAMING_RECORD_MAX)
			return -EBADMSG;
		if (x > (uint64_t)(end - p))
			return 0;
		*msg = p;
		*len = (size_t)x;
		*used = (size_t)(p - in) + (size_t)x;
		return 1;
	}
	ret = rec_from_delta(d, &r, &p, end);
	if (ret == 0 && avail >= DELTA_RECORD_MAX)
		return -EBADMSG;
	if (ret <= 0)
		return ret;
	ret = rec_to_msg(d, &r);
	if (ret < 0)
		return ret;
	if (!prepare(&r))
		return -ENOMEM;
	commit(d, &r);
	*msg = d->out;
	*len = (size_t)ret;
	*used = (size_t)(p - in);
	return 1;
}
