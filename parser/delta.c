// SPDX-License-Identifier: BSD-3-Clause
/*
 * Delta records (format in delta.h). Both directions share one model of
 * the stream: each record is first turned into a `struct rec` (from the
 * OCTF message when encoding, from the delta bytes when decoding) without
 * touching the state, then written out, then committed to the state by
 * the same function. So encoder and decoder cannot drift apart, and a
 * record that turns out to be incomplete or damaged leaves the state as
 * it was.
 *
 * The collector runs the encoder for every event: a record whose fields
 * its type already has (all but the first few of a stream) is coded
 * against the type's own slots, with no per-record layout to build.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "delta.h"
#include "framing.h"

#define MAX_TYPES 15
#define MAX_SLOTS 64
_Static_assert(DELTA_SPLIT_MAX >= MAX_SLOTS, "a decoded record fits a split");
/*
 * Recent kernel addresses. Bios come from a small slab pool and are
 * reused soon after their completion: with iodepth 32, 90% of the ids of
 * a random-read trace are among the stream's last 64, where their place
 * costs a byte instead of 10.
 */
#define RECENT_IDS 64
/* the encoder's filter of recent ids (struct delta): not part of the format */
#define ID_BUCKETS 1024
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
	R_IO_LBA,	/* predicted from the io the record refers to */
	R_IO_LEN,
};

/* Ranks of an id not in its recent list, and of one not looked for */
#define RANK_NONE (-1)
#define RANK_UNKNOWN (-2)

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
	struct recent_bytes *recent;	/* bytes; NULL (none) until the slot is committed */
};

/* Fields below this number are found through a type's table, not by a walk */
#define FIELDS_INDEXED 64

struct type {
	uint32_t field;		/* body field number in Event */
	unsigned nslots;
	struct slot slot[MAX_SLOTS];	/* by field number */
	/*
	 * Derived from the slots by index_slots() whenever they change, so
	 * that the per-record loops visit only the slots of one role: by
	 * role, the slots that have it (R_ID and R_RQ together), and the
	 * slot of each field below FIELDS_INDEXED (-1 none).
	 */
	uint64_t num, ids, io, bytes;
	int8_t slot_of[FIELDS_INDEXED];
};

/* An io (or split child) a dispatch may refer to */
struct io_entry {
	uint64_t id;
	uint64_t lba;
	uint64_t len;
};

struct delta {
	unsigned version;	/* of the format (delta.h) */
	uint64_t sid, ts;
	unsigned ntypes;
	struct type *type[MAX_TYPES];
	unsigned nids, nrqs;
	/* most recent first */
	uint64_t ids[RECENT_IDS];
	uint64_t rqs[RECENT_RQS];
	/*
	 * How many of ids[] fall in each bucket (id_bucket()): most ids the
	 * encoder looks for are not among them (a completion's id has often
	 * just fallen off the end), and an empty bucket says so without a
	 * search of all 64. Kept by both directions, like the list.
	 */
	uint8_t id_count[ID_BUCKETS];
	struct io_entry io[IO_SLOTS];	/* by io_slot(id) */
	uint8_t out[DELTA_MSG_MAX];	/* the decoded message */
};

struct value {
	uint64_t v;		/* numbers, 0 = absent */
	const uint8_t *p;	/* bytes */
	uint32_t len;
	bool present;		/* bytes */
};

/* Where a record's fields are in the walk over its slots */
struct walk {
	unsigned at;		/* the next slot */
	uint32_t last;		/* the last field number */
};

/* One record, in the terms of the model */
struct rec {
	uint64_t sid, ts;
	unsigned version;	/* the stream's */
	size_t bytes;		/* decoding: the lengths of its bytes values */
	unsigned type;		/* == d->ntypes: a new type */
	uint32_t field;
	/*
	 * The slots the record is coded in: its type's, or `grown` when the
	 * record adds fields or a type (the old slots with their state, new
	 * ones with none), which the commit makes the type's.
	 */
	const struct type *t;
	unsigned nnew;
	uint64_t fresh;		/* slots new in this record */
	uint64_t mask;		/* slots that differ from their prediction */
	/*
	 * ids: place in their recent list at the record's start, or RANK_*;
	 * bytes that differ from their prediction: place among the slot's
	 * recent values, or RANK_*
	 */
	int8_t rank[MAX_SLOTS];
	struct value val[MAX_SLOTS];
	/* allocated before the commit, so that the commit cannot fail */
	struct type *newtype;
	struct type grown;
};

struct delta *delta__new_version(unsigned version)
{
	struct delta *d = calloc(1, sizeof(struct delta));

	if (d)
		d->version = version;
	return d;
}

struct delta *delta__new(void)
{
	return delta__new_version(DELTA_VERSION);
}

int delta__header_version(const uint8_t *h)
{
	uint8_t v = h[DELTA_STREAM_HEADER_LEN - 1];

	if (memcmp(h, DELTA_STREAM_HEADER, DELTA_STREAM_HEADER_LEN - 1) || v < '1' || v > '9')
		return 0;
	return v - '0';
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

static inline size_t varint_len(uint64_t v)
{
	/* 7 bits a byte; the bit length without a loop (the raw writer counts every field) */
	return 1 + (size_t)(63 - __builtin_clzll(v | 1)) / 7;
}

static uint8_t role_of(unsigned version, uint32_t type_field, uint32_t field, bool lenfield)
{
	if (lenfield)
		return R_BYTES;
	switch (type_field) {
	case F_IO:
		return field == 9 ? R_ID : R_NUM;
	case F_META:
		return field == 1 ? R_ID : R_NUM;
	case F_COMPLETION:
		switch (field) {
		case 1:
			return version >= 2 ? R_IO_LBA : R_NUM;
		case 2:
			return version >= 2 ? R_IO_LEN : R_NUM;
		case 5:
			return R_ID;
		default:
			return R_NUM;
		}
	case F_SPLIT:
		return field == 1 || field == 2 ? R_ID : R_NUM;
	case F_DISPATCH:
		switch (field) {
		case 1:
			return R_ID;
		case 3:
			return R_IO_LBA;
		case 4:
			return R_IO_LEN;
		case 6:
			return R_RQ;
		default:
			return R_NUM;
		}
	default:
		return R_NUM;
	}
}

static int find(const uint64_t *list, unsigned n, uint64_t id)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (list[i] == id)
			return (int)i;
	return -1;
}

/* Fibonacci hashing: ids are addresses, alike in their low bits */
_Static_assert(ID_BUCKETS == 1 << (64 - 54) && RECENT_IDS < 256, "id_bucket(), id_count");
static inline unsigned id_bucket(uint64_t id)
{
	return (unsigned)((id * 0x9e3779b97f4a7c15ull) >> 54);
}

/* find() among the recent ids */
static int find_id(const struct delta *d, uint64_t id)
{
	return d->id_count[id_bucket(id)] ? find(d->ids, d->nids, id) : -1;
}

static unsigned io_slot(uint64_t id)
{
	/* bio addresses differ in their middle bits: Fibonacci hashing mixes them */
	return (unsigned)((id * 0x9e3779b97f4a7c15ull) >> 56) & (IO_SLOTS - 1);
}

/* A varint at o; returns the byte after it */
static inline uint8_t *put_at(uint8_t *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	return o;
}

/* The same, returning its length */
static inline size_t put(uint8_t *o, uint64_t v)
{
	return (size_t)(put_at(o, v) - o);
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

static void index_slots(struct type *t)
{
	unsigned i;

	t->num = t->ids = t->io = t->bytes = 0;
	memset(t->slot_of, -1, sizeof(t->slot_of));
	for (i = 0; i < t->nslots; i++) {
		const struct slot *s = &t->slot[i];
		uint64_t bit = 1ull << i;

		if (s->field < FIELDS_INDEXED)
			t->slot_of[s->field] = (int8_t)i;
		switch (s->role) {
		case R_NUM:
			t->num |= bit;
			break;
		case R_ID:
		case R_RQ:
			t->ids |= bit;
			break;
		case R_IO_LBA:
		case R_IO_LEN:
			t->io |= bit;
			break;
		default:
			t->bytes |= bit;
			break;
		}
	}
}

/* r's slots become r->grown, a copy of its type's; the stream's stay as they are */
static struct type *grown(struct rec *r)
{
	if (r->t != &r->grown) {
		memcpy(r->grown.slot, r->t->slot, r->t->nslots * sizeof(r->t->slot[0]));
		r->grown.nslots = r->t->nslots;
		r->grown.field = r->field;
		r->t = &r->grown;
	}
	return &r->grown;
}

/* r is of a type the stream has not had: it has no slots yet */
static void new_type(struct rec *r, uint32_t field)
{
	r->field = field;
	r->grown.field = field;
	r->grown.nslots = 0;
	r->t = &r->grown;
}

/* A slot for a field r's type has not had, at index i; false if there is no room */
static bool add_slot(struct rec *r, unsigned i, uint32_t field, bool lenfield)
{
	struct type *g = grown(r);
	struct slot *s = &g->slot[i];
	uint64_t below;

	if (g->nslots == MAX_SLOTS)
		return false;
	below = (1ull << i) - 1;
	memmove(s + 1, s, (g->nslots - i) * sizeof(*s));
	memset(s, 0, sizeof(*s));
	s->field = field;
	s->lenfield = lenfield;
	s->role = role_of(r->version, r->field, field, lenfield);
	g->nslots++;
	r->fresh = (r->fresh & below) | (r->fresh & ~below) << 1 | 1ull << i;
	r->nnew++;
	return true;
}

/*
 * The number slot i of r is predicted to hold; cur_id: the record's first
 * id (not 0), which may come after the slot (a completion's refId)
 */
static inline uint64_t predict_num(const struct delta *d, const struct rec *r, unsigned i, uint64_t cur_id)
{
	const struct slot *s = &r->t->slot[i];
	uint64_t prev = s->prev;
	const struct io_entry *e;

	switch (s->role) {
	case R_NUM:
		return prev;
	case R_ID:
		return d->nids ? d->ids[0] : 0;
	case R_RQ:
		return d->nrqs ? d->rqs[0] : 0;
	case R_IO_LBA:
	case R_IO_LEN:
		e = &d->io[io_slot(cur_id)];
		if (!cur_id || e->id != cur_id)
			return prev;
		return s->role == R_IO_LBA ? e->lba : e->len;
	default:
		return prev;
	}
}

/* Bytes predictions: 1 the value is recent->data[0], 0 absent, -1 none */
static int predict_bytes(const struct rec *r, unsigned i)
{
	const struct slot *s = &r->t->slot[i];

	if (!s->present)
		return 0;
	return s->kept ? 1 : -1;
}

static bool bytes_equal(const struct recent_bytes *rb, unsigned k, const struct value *v)
{
	return rb->len[k] == v->len && !memcmp(rb->data[k], v->p, v->len);
}

/* ---- state updates, shared by both directions ---- */

/*
 * Moves id to the front of list. rank: its place at the record's start;
 * moved: ids the record has moved to the front so far, the only places
 * where one that was not in the list can be now.
 */
static void touch(uint64_t *list, unsigned *n, unsigned max, uint64_t id, int rank, unsigned moved,
		  uint8_t *count)
{
	int k = rank == RANK_NONE ? find(list, moved, id)
		: rank >= 0 && (unsigned)rank < *n && list[rank] == id ? rank
		: find(list, *n, id);

	if (k < 0) {
		if (*n < max) {
			k = (int)(*n)++;
		} else {
			k = (int)max - 1;
			if (count)
				count[id_bucket(list[k])]--;
		}
		if (count)
			count[id_bucket(id)]++;
	}
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

/* The place of v among rb's values (rb may be NULL), or RANK_NONE */
static int bytes_rank(const struct recent_bytes *rb, const struct value *v)
{
	unsigned k;

	for (k = 0; rb && k < rb->n; k++)
		if (bytes_equal(rb, k, v))
			return (int)k;
	return RANK_NONE;
}

/* Moves v to the front of rb; rank: its place there, as bytes_rank() gives it, or RANK_UNKNOWN */
static void keep_bytes(struct recent_bytes *rb, const struct value *v, int rank)
{
	uint8_t len, tmp[BYTES_KEEP];
	unsigned k;

	if (rank == RANK_UNKNOWN)
		rank = bytes_rank(rb, v);
	k = rank == RANK_NONE ? rb->n : (unsigned)rank;
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

/* The number r holds in field (< FIELDS_INDEXED) of t, r's slots */
static uint64_t rec_num(const struct type *t, const struct rec *r, uint32_t field)
{
	int i = t->slot_of[field];

	return i < 0 || t->slot[i].lenfield ? 0 : r->val[i].v;
}

/* Allocates what the commit of r needs; false (nothing kept) on failure */
static bool prepare(const struct delta *d, struct rec *r)
{
	unsigned i;

	r->newtype = NULL;
	if (r->type == d->ntypes) {
		r->newtype = calloc(1, sizeof(*r->newtype));
		if (!r->newtype)
			return false;
	}
	if (!r->nnew)
		return true;
	for (i = 0; i < r->grown.nslots; i++) {
		struct slot *s = &r->grown.slot[i];

		if (!(r->fresh & (1ull << i)) || !s->lenfield)
			continue;
		s->recent = calloc(1, sizeof(*s->recent));
		if (!s->recent)
			goto fail;
	}
	return true;
fail:
	while (i-- > 0)
		if (r->fresh & (1ull << i))
			free(r->grown.slot[i].recent);
	free(r->newtype);
	return false;
}

static void commit(struct delta *d, const struct rec *r)
{
	unsigned i, nid = 0, nrq = 0;
	struct type *t;
	uint64_t m;

	d->sid = r->sid;
	d->ts = r->ts;
	if (r->type == d->ntypes) {
		t = d->type[d->ntypes++] = r->newtype;
		t->field = r->field;
	} else {
		t = d->type[r->type];
	}
	/* only the slots' layout changed since they were copied into r->grown */
	if (r->t == &r->grown) {
		memcpy(t->slot, r->grown.slot, r->grown.nslots * sizeof(t->slot[0]));
		t->nslots = r->grown.nslots;
		index_slots(t);
	}
	/* a bytes slot's prev is never read, and its value's v is 0 */
	for (i = 0; i < t->nslots; i++)
		t->slot[i].prev = r->val[i].v;
	for (m = t->ids; m; m &= m - 1) {
		const struct slot *s;
		uint64_t v;

		i = (unsigned)__builtin_ctzll(m);
		s = &t->slot[i];
		v = r->val[i].v;
		if (!v)
			continue;
		if (s->role == R_RQ) {
			touch(d->rqs, &d->nrqs, RECENT_RQS, v, r->rank[i], nrq++, NULL);
			continue;
		}
		touch(d->ids, &d->nids, RECENT_IDS, v, r->rank[i], nid++, d->id_count);
		/* what a dispatch of this bio will be predicted from */
		if (r->field == F_IO && s->field == 9)
			remember_io(d, v, rec_num(t, r, 1), rec_num(t, r, 2));
		else if (r->field == F_SPLIT && s->field == 1)
			remember_io(d, v, rec_num(t, r, 4), rec_num(t, r, 5));
	}
	/* as predicted: present and kept are what they were */
	for (m = t->bytes & r->mask; m; m &= m - 1) {
		struct slot *s;
		const struct value *v;

		i = (unsigned)__builtin_ctzll(m);
		s = &t->slot[i];
		v = &r->val[i];
		s->present = v->present;
		if (!v->present)
			continue;
		s->kept = v->len <= BYTES_KEEP;
		if (s->kept)
			keep_bytes(s->recent, v, r->rank[i]);
	}
}

/* ---- encoding ---- */

/* canonical() past its one-byte case: the first byte has bit 7 set, or there is none */
static const uint8_t *canonical_long(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift;

	for (shift = 0; shift < 63 && p < end; shift += 7) {
		uint8_t b = *p++;

		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return b ? p : NULL;
		}
	}
	/* the 10th byte holds bit 63 only, and is not 0 in the shortest form */
	if (p < end && *p == 1) {
		*v = r | 1ull << 63;
		return p + 1;
	}
	return NULL;
}

/*
 * A protobuf varint as protobuf-c writes it (shortest form): where it
 * ends, else NULL
 */
static inline const uint8_t *canonical(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	/* tags, lengths, small numbers */
	if (p < end && *p < 0x80) {
		*v = *p;
		return p + 1;
	}
	return canonical_long(p, end, v);
}

/* The body field number of r's type, its index and its slots */
static bool find_type(const struct delta *d, uint32_t field, struct rec *r)
{
	unsigned i;

	r->version = d->version;
	for (i = 0; i < d->ntypes; i++) {
		if (d->type[i]->field == field) {
			r->type = i;
			r->field = field;
			r->t = d->type[i];
			return true;
		}
	}
	if (d->ntypes == MAX_TYPES)
		return false;
	r->type = d->ntypes;
	new_type(r, field);
	return true;
}

/* Before a record's first field: no slot added yet, the walk at the first slot */
static void fields_begin(struct rec *r, struct walk *w)
{
	r->nnew = 0;
	r->fresh = 0;
	w->at = 0;
	w->last = 0;
}

static inline void absent(struct value *v)
{
	v->v = 0;
	v->present = false;
}

/*
 * Where the value of field fn goes, the record's fields coming in
 * increasing order; a field the type has not had gets a slot. NULL if the
 * decoder could not rebuild it: out of order, another wire type than its
 * slot's, no room.
 */
static inline struct value *field_value(struct rec *r, struct walk *w, uint64_t fn, bool lenfield)
{
	unsigned i = w->at;

	if (fn <= w->last || fn >= (1u << 29))
		return NULL;
	w->last = (uint32_t)fn;
	/* the slots passed over are absent from the record */
	for (; i < r->t->nslots && r->t->slot[i].field < fn; i++)
		absent(&r->val[i]);
	if (i == r->t->nslots || r->t->slot[i].field != fn) {
		if (!add_slot(r, i, (uint32_t)fn, lenfield))
			return NULL;
	} else if (r->t->slot[i].lenfield != lenfield) {
		return NULL;
	}
	w->at = i + 1;
	return &r->val[i];
}

static void fields_end(struct rec *r, const struct walk *w)
{
	unsigned i;

	for (i = w->at; i < r->t->nslots; i++)
		absent(&r->val[i]);
}

static void set_num(struct value *v, uint64_t x)
{
	v->v = x;
	v->present = false;
}

static void set_bytes(struct value *v, const uint8_t *p, uint32_t len)
{
	v->v = 0;
	v->p = p;
	v->len = len;
	v->present = true;
}

/*
 * The body fields of a message into r->val, by slot. False if the
 * decoder could not rebuild them (see field_value), or for a zero number
 * (proto3 leaves them out) or another wire type.
 */
static bool read_fields(struct rec *r, const uint8_t *p, const uint8_t *end)
{
	struct walk w;
	uint64_t tag, x;

	fields_begin(r, &w);
	while (p < end) {
		struct value *v;

		p = canonical(p, end, &tag);
		if (!p || ((tag & 7) != 0 && (tag & 7) != 2))
			return false;
		v = field_value(r, &w, tag >> 3, tag & 2);
		if (!v || !(p = canonical(p, end, &x)))
			return false;
		if (!(tag & 2)) {
			if (!x)
				return false;
			set_num(v, x);
		} else {
			if (x > (uint64_t)(end - p))
				return false;
			set_bytes(v, p, (uint32_t)x);
			p += x;
		}
	}
	fields_end(r, &w);
	return true;
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
	uint64_t x, tag;

	if (!(p = canonical(p, end, &tag)) || tag != (F_HEADER << 3 | 2) ||
	    !(p = canonical(p, end, &x)) || x > (uint64_t)(end - p))
		return false;
	hend = p + x;
	if (!(p = canonical(p, hend, &tag)) || tag != (1 << 3) ||
	    !(p = canonical(p, hend, &r->sid)) || !r->sid ||
	    !(p = canonical(p, hend, &tag)) || tag != (2 << 3) ||
	    !(p = canonical(p, hend, &r->ts)) || !r->ts || p != hend)
		return false;
	if (!(p = canonical(p, end, &tag)) || (tag & 7) != 2 || (tag >> 3) <= F_HEADER ||
	    (tag >> 3) >= (1u << 29) || !(p = canonical(p, end, &x)) || x != (uint64_t)(end - p))
		return false;
	return find_type(d, (uint32_t)(tag >> 3), r) && read_fields(r, p, end);
}

/* The value of r's first id slot that holds one; 0 if none does */
static uint64_t first_id(const struct rec *r)
{
	uint64_t m;

	for (m = r->t->ids; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctzll(m);

		if (r->t->slot[i].role == R_ID && r->val[i].v)
			return r->val[i].v;
	}
	return 0;
}

/* Sets r->mask, the ids' ranks and pred[] (the number predictions) */
static void find_mispredicted(const struct delta *d, struct rec *r, uint64_t *pred)
{
	const struct type *t = r->t;
	uint64_t cur_id = 0, ahead = 0, miss = 0, m;
	unsigned i;

	if (r->t == &r->grown)
		index_slots(&r->grown);
	/* most slots are plain numbers, predicted by their previous value */
	for (i = 0; i < t->nslots; i++) {
		pred[i] = t->slot[i].prev;
		miss |= (uint64_t)(r->val[i].v != pred[i]) << i;
	}
	miss &= t->num;
	/* in slot order: an io's lba or len is predicted from the first id before it */
	for (m = t->ids | t->io; m; m &= m - 1) {
		const struct value *v;
		uint8_t role;
		bool differs;

		i = (unsigned)__builtin_ctzll(m);
		v = &r->val[i];
		role = t->slot[i].role;
		if (!cur_id && (role == R_IO_LBA || role == R_IO_LEN)) {
			/* an io's lba or len ahead of the id it belongs to */
			if (!ahead)
				ahead = first_id(r);
			pred[i] = predict_num(d, r, i, ahead);
		} else {
			pred[i] = predict_num(d, r, i, cur_id);
		}
		differs = v->v != pred[i];
		if (role == R_ID && !cur_id)
			cur_id = v->v;
		if (role == R_ID || role == R_RQ)
			r->rank[i] = !v->v ? RANK_NONE
				     : !differs ? 0
				     : role == R_ID ? (int8_t)find_id(d, v->v)
						    : (int8_t)find(d->rqs, d->nrqs, v->v);
		miss |= (uint64_t)differs << i;
	}
	for (m = t->bytes; m; m &= m - 1) {
		const struct value *v;
		int p;
		bool differs;

		i = (unsigned)__builtin_ctzll(m);
		v = &r->val[i];
		p = predict_bytes(r, i);
		if (p < 0)
			differs = true;
		else if (!p)
			differs = v->present;
		else
			differs = !v->present || !bytes_equal(t->slot[i].recent, 0, v);
		if (differs && v->present)
			r->rank[i] = (int8_t)bytes_rank(t->slot[i].recent, v);
		miss |= (uint64_t)differs << i;
	}
	r->mask = miss;
}

static size_t verbatim(const uint8_t *msg, size_t len, uint8_t *out)
{
	size_t n;

	out[0] = 0;
	out[1] = 0;
	n = 2 + put(out + 2, len);
	/* an empty message may come as NULL, which memcpy() may not be given */
	if (len)
		memcpy(out + n, msg, len);
	return n + len;
}

/* A bytes value: its rank among the slot's recent values + 1, else a literal */
static size_t put_bytes(const struct value *v, int rank, uint8_t *out)
{
	size_t n = 0;

	if (!v->present) {
		out[n++] = BYTES_ABSENT;
		return n;
	}
	if (rank >= 0) {
		out[n++] = (uint8_t)(rank + 1);
		return n;
	}
	out[n++] = BYTES_LITERAL;
	n += put(out + n, v->len);
	memcpy(out + n, v->p, v->len);
	return n + v->len;
}

/* The value of mispredicted slot i; pred: its prediction if a number */
static size_t put_value(const struct rec *r, unsigned i, uint64_t pred, uint8_t *out)
{
	const struct value *v = &r->val[i];
	size_t n = 0;

	switch (r->t->slot[i].role) {
	case R_BYTES:
		return put_bytes(v, r->rank[i], out);
	case R_ID:
	case R_RQ:
		/* rank 0 is the prediction: a miss is never there */
		if (r->rank[i] > 0) {
			out[n++] = (uint8_t)r->rank[i];
			return n;
		}
		out[n++] = 0;
		break;
	default:
		break;
	}
	return n + put(out + n, zigzag(v->v - pred));
}

/* K, the type, sid, layout change, timestamp and mask of r */
static size_t put_head(const struct delta *d, const struct rec *r, uint8_t *out)
{
	uint64_t sdiff = r->sid - d->sid - 1;
	size_t n = 0;
	unsigned i;

	out[n++] = (uint8_t)((r->type < d->ntypes ? r->type + 1 : 0) |
			     (sdiff < 7 ? sdiff : 7) << 4 | (r->nnew ? 0x80 : 0));
	if (r->type == d->ntypes)
		n += put(out + n, r->field);
	if (sdiff >= 7)
		n += put(out + n, zigzag(sdiff));
	if (r->nnew) {
		n += put(out + n, r->nnew);
		for (i = 0; i < r->t->nslots; i++)
			if (r->fresh & (1ull << i))
				n += put(out + n, (uint64_t)r->t->slot[i].field << 1 |
							  r->t->slot[i].lenfield);
	}
	n += put(out + n, zigzag(r->ts - d->ts));
	return n + put(out + n, r->mask);
}

/* r as a delta record into out: its length, or 0 if r cannot be committed (store it verbatim) */
static size_t encode_rec(struct delta *d, struct rec *r, uint8_t *out)
{
	uint64_t pred[MAX_SLOTS], m;
	size_t n;

	find_mispredicted(d, r, pred);
	/* the usual record adds nothing to the model */
	if (r->t == &r->grown && !prepare(d, r))
		return 0;
	n = put_head(d, r, out);
	for (m = r->mask; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctzll(m);

		n += put_value(r, i, pred[i], out + n);
	}
	commit(d, r);
	return n;
}

size_t delta__encode(struct delta *d, const uint8_t *msg, size_t len, uint8_t *out)
{
	struct rec r;
	size_t n;

	if (len <= DELTA_MSG_MAX && rec_from_msg(d, msg, len, &r) && (n = encode_rec(d, &r, out)))
		return n;
	return verbatim(msg, len, out);
}

/*
 * The fields of s into r->val, as the walk in field_value() puts them,
 * when they are all fields of r's type (almost every record): found by
 * the type's table instead. False, with r half-filled, for the first one
 * it does not take.
 */
static bool known_fields(struct rec *r, const struct delta_split *s)
{
	const struct type *t = r->t;
	unsigned at = 0, k;

	for (k = 0; k < s->n; k++) {
		const struct delta_field *f = &s->f[k];
		int i;

		/* an unknown field is -1, below at */
		if (f->field >= FIELDS_INDEXED || (i = t->slot_of[f->field]) < (int)at ||
		    t->slot[i].lenfield != (f->p != NULL) || (!f->p && !f->v))
			return false;
		for (; at < (unsigned)i; at++)
			absent(&r->val[at]);
		if (f->p)
			set_bytes(&r->val[i], f->p, (uint32_t)f->v);
		else
			set_num(&r->val[i], f->v);
		at = (unsigned)i + 1;
	}
	for (; at < t->nslots; at++)
		absent(&r->val[at]);
	r->nnew = 0;
	r->fresh = 0;
	return true;
}

/* r from a split message: rec_from_msg() without the parsing */
static bool rec_from_split(const struct delta *d, const struct delta_split *s, struct rec *r)
{
	const struct delta_field *f;
	struct walk w;

	if (!s->sid || !s->ts || s->type <= F_HEADER || s->type >= (1u << 29) ||
	    !find_type(d, s->type, r))
		return false;
	r->sid = s->sid;
	r->ts = s->ts;
	if (r->t != &r->grown && known_fields(r, s))
		return true;
	fields_begin(r, &w);
	for (f = s->f; f < s->f + s->n; f++) {
		struct value *v = field_value(r, &w, f->field, f->p);

		if (!v || (!f->p && !f->v))
			return false;
		if (f->p)
			set_bytes(v, f->p, (uint32_t)f->v);
		else
			set_num(v, f->v);
	}
	fields_end(r, &w);
	return true;
}

/* The rare record the model cannot take: only it pays for building its message */
static __attribute__((noinline)) size_t verbatim_split(const struct delta_split *s, uint8_t *out)
{
	uint8_t msg[DELTA_MSG_MAX];

	return verbatim(msg, delta__split_msg(s, msg), out);
}

size_t delta__encode_fields(struct delta *d, const struct delta_split *s, uint8_t *out)
{
	struct rec r;
	size_t n;

	if (rec_from_split(d, s, &r) && (n = encode_rec(d, &r, out)))
		return n;
	return verbatim_split(s, out);
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
	unsigned i = 0, j;
	uint64_t n, x;
	uint32_t last = 0;

	GET(&n);
	if (!n || n > MAX_SLOTS - r->t->nslots)
		return -EBADMSG;
	for (j = 0; j < n; j++) {
		uint32_t fn;

		GET(&x);
		fn = (uint32_t)(x >> 1);
		if ((x >> 1) >= (1u << 29) || !fn || fn <= last)
			return -EBADMSG;
		last = fn;
		for (; i < r->t->nslots && r->t->slot[i].field < fn; i++)
			;
		if (i < r->t->nslots && r->t->slot[i].field == fn)
			return -EBADMSG;
		/* never full: n fits */
		add_slot(r, i++, fn, x & 1);
	}
	*pp = p;
	return 1;
}

/* r from delta bytes: 1, 0 (need more), -EBADMSG; *pp moves past the record */
static int rec_from_delta(const struct delta *d, struct rec *r, const uint8_t **pp,
			  const uint8_t *end)
{
	const uint8_t *p = *pp;
	uint64_t x, cur_id = 0, deferred = 0, m;
	unsigned code, i;
	uint8_t k;
	int ret;

	r->version = d->version;
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
		new_type(r, (uint32_t)x);
	}
	if (((k >> 4) & 7) == 7) {
		GET(&x);
		r->sid = d->sid + 1 + unzigzag(x);
	} else {
		r->sid = d->sid + 1 + ((k >> 4) & 7);
	}
	r->nnew = 0;
	r->fresh = 0;
	r->bytes = 0;
	if (k & 0x80) {
		ret = read_layout(r, &p, end);
		if (ret <= 0)
			return ret;
	}
	GET(&x);
	r->ts = d->ts + unzigzag(x);
	GET(&r->mask);
	if (r->t->nslots < 64 && r->mask >> r->t->nslots)
		return -EBADMSG;

	for (i = 0; i < r->t->nslots; i++) {
		struct value *v = &r->val[i];
		const struct slot *s = &r->t->slot[i];
		uint8_t role = s->role;
		bool miss = r->mask & (1ull << i);
		uint64_t pred;

		v->v = 0;
		v->present = false;
		r->rank[i] = RANK_UNKNOWN;
		if (role == R_BYTES) {
			int pb = predict_bytes(r, i);

			if (!miss) {
				if (pb < 0)
					return -EBADMSG;
				if (pb) {
					v->present = true;
					v->p = s->recent->data[0];
					v->len = s->recent->len[0];
					r->bytes += v->len;
				}
				continue;
			}
			GET(&x);
			if (x == BYTES_ABSENT)
				continue;
			v->present = true;
			if (x < BYTES_LITERAL) {
				if (!s->recent || x > s->recent->n)
					return -EBADMSG;
				v->p = s->recent->data[x - 1];
				v->len = s->recent->len[x - 1];
				r->rank[i] = (int8_t)(x - 1);
				r->bytes += v->len;
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
			r->bytes += v->len;
			p += x;
			continue;
		}
		if (!cur_id && (role == R_IO_LBA || role == R_IO_LEN)) {
			/* the id of its io comes later: the difference now, the prediction below */
			if (miss) {
				GET(&x);
				v->v = unzigzag(x);
			}
			deferred |= 1ull << i;
			continue;
		}
		pred = predict_num(d, r, i, cur_id);
		if (!miss) {
			v->v = pred;
			if ((role == R_ID || role == R_RQ) && pred)
				r->rank[i] = 0;
		} else if (role == R_ID || role == R_RQ) {
			GET(&x);
			if (!x) {
				GET(&x);
				v->v = pred + unzigzag(x);
				/*
				 * written out: not among the recent ids, which the
				 * counts say at once, unless the bytes are damaged;
				 * touch() would search all of them
				 */
				if (role == R_ID)
					r->rank[i] = (int8_t)find_id(d, v->v);
			} else if (x < (role == R_ID ? d->nids : d->nrqs)) {
				v->v = role == R_ID ? d->ids[x] : d->rqs[x];
				r->rank[i] = (int8_t)x;
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
	for (m = deferred; m; m &= m - 1) {
		i = (unsigned)__builtin_ctzll(m);
		r->val[i].v += predict_num(d, r, i, cur_id);
	}
	*pp = p;
	return 1;
}

/* The lengths of the header and body of the message of s */
static void split_lens(const struct delta_split *s, size_t *hlen, size_t *blen)
{
	unsigned i;

	*hlen = (s->sid ? 1 + varint_len(s->sid) : 0) + (s->ts ? 1 + varint_len(s->ts) : 0);
	*blen = 0;
	for (i = 0; i < s->n; i++) {
		const struct delta_field *f = &s->f[i];
		uint64_t tag = (uint64_t)f->field << 3;

		*blen += f->p ? varint_len(tag | 2) + varint_len(f->v) + f->v
			      : varint_len(tag) + varint_len(f->v);
	}
}

/*
 * The split of record r whose slots are t: the fields of its message, in
 * order. Once r is committed, a bytes value the commit kept is the first
 * of its slot's recent values; others still point into the record.
 */
static void split_of(const struct type *t, const struct rec *r, bool committed,
		     struct delta_split *s)
{
	unsigned i, n = 0;

	s->sid = r->sid;
	s->ts = r->ts;
	s->type = r->field;
	for (i = 0; i < t->nslots; i++) {
		const struct value *v = &r->val[i];
		const struct slot *sl = &t->slot[i];
		struct delta_field *f = &s->f[n];

		if (sl->lenfield) {
			if (!v->present)
				continue;
			f->p = committed && sl->kept ? sl->recent->data[0] : v->p;
			f->v = v->len;
		} else {
			if (!v->v)
				continue;
			f->p = NULL;
			f->v = v->v;
		}
		f->field = sl->field;
		n++;
	}
	s->n = n;
}

/*
 * Whether the message of r (not yet committed) fits DELTA_MSG_MAX.
 * Without its bytes a message is far shorter (a header of two 10-byte
 * varints, at most MAX_SLOTS fields of a tag and a 10-byte varint or
 * length), so it is counted only when the bytes are long.
 */
_Static_assert(1 + 1 + 22 + 5 + 3 + MAX_SLOTS * (5 + 10) <= 1024, "the bound below");
static bool rec_fits(const struct rec *r)
{
	struct delta_split s;

	if (r->bytes <= DELTA_MSG_MAX - 1024)
		return true;
	split_of(r->t, r, false, &s);
	return delta__split_len(&s) <= DELTA_MSG_MAX;
}

size_t delta__split_len(const struct delta_split *s)
{
	size_t hlen, blen;

	split_lens(s, &hlen, &blen);
	return 1 + varint_len(hlen) + hlen + varint_len((uint64_t)s->type << 3 | 2) +
	       varint_len(blen) + blen;
}

size_t delta__split_msg(const struct delta_split *s, uint8_t *out)
{
	const struct delta_field *f, *end = s->f + s->n;
	uint8_t *p = out + 2, *body;
	size_t blen, k;

	/* one pass: the header (22 bytes at most) and the body get their lengths after it */
	out[0] = F_HEADER << 3 | 2;
	if (s->sid) {
		*p++ = 1 << 3;
		p = put_at(p, s->sid);
	}
	if (s->ts) {
		*p++ = 2 << 3;
		p = put_at(p, s->ts);
	}
	out[1] = (uint8_t)(p - out - 2);
	p = put_at(p, (uint64_t)s->type << 3 | 2);
	body = ++p;
	for (f = s->f; f < end; f++) {
		uint64_t tag = (uint64_t)f->field << 3 | (f->p ? 2 : 0);

		p = tag < 0x80 ? (*p = (uint8_t)tag, p + 1) : put_at(p, tag);
		p = put_at(p, f->v);
		if (f->p) {
			memcpy(p, f->p, f->v);
			p += f->v;
		}
	}
	blen = (size_t)(p - body);
	k = varint_len(blen);
	/* a body of 128 bytes or more moves up for its longer length */
	if (k > 1)
		memmove(body + k - 1, body, blen);
	put(body - 1, blen);
	return (size_t)(p - out) + k - 1;
}

/* A verbatim record at in[0..avail), which starts with its two zero bytes: as delta__decode() */
static int verbatim_rec(const uint8_t *in, size_t avail, const uint8_t **msg, size_t *len,
			size_t *used)
{
	const uint8_t *p = in + 2;
	uint64_t x;
	int ret;

	/* no state change */
	ret = get(&p, in + avail, &x);
	if (ret == 0 && avail >= DELTA_RECORD_MAX)
		return -EBADMSG;
	if (ret <= 0)
		return ret;
	if (x > FRAMING_RECORD_MAX)
		return -EBADMSG;
	if (x > (uint64_t)(in + avail - p))
		return 0;
	*msg = p;
	*len = (size_t)x;
	*used = (size_t)(p - in) + (size_t)x;
	return 1;
}

int delta__decode_split(struct delta *d, const uint8_t *in, size_t avail, struct delta_split *s,
			const uint8_t **msg, size_t *len, size_t *used)
{
	const uint8_t *p = in;
	struct rec r;
	int ret;

	if (!avail)
		return 0;
	if (in[0] == 0 && avail >= 2 && in[1] == 0)
		return verbatim_rec(in, avail, msg, len, used);
	ret = rec_from_delta(d, &r, &p, in + avail);
	if (ret == 0 && avail >= DELTA_RECORD_MAX)
		return -EBADMSG;
	if (ret <= 0)
		return ret;
	if (!rec_fits(&r))
		return -EBADMSG;
	if (!prepare(d, &r))
		return -ENOMEM;
	commit(d, &r);
	split_of(d->type[r.type], &r, true, s);
	*used = (size_t)(p - in);
	return DELTA_FIELDS;
}

int delta__decode(struct delta *d, const uint8_t *in, size_t avail, const uint8_t **msg,
		  size_t *len, size_t *used)
{
	struct delta_split s;
	int ret = delta__decode_split(d, in, avail, &s, msg, len, used);

	if (ret != DELTA_FIELDS)
		return ret;
	*len = delta__split_msg(&s, d->out);
	*msg = d->out;
	return 1;
}
