// SPDX-License-Identifier: BSD-3-Clause
/*
 * Delta records: golden bytes of the format, exact round trips of every
 * kind of message (ours, protobuf-c's, unknown event types, messages only
 * verbatim can keep), records cut anywhere and damaged bytes (an answer
 * for every input, progress on every record, no crash), and a failing
 * allocator. Every message is encoded by both entry points, which must
 * agree; the records of long and random streams, and what the decoder
 * makes of damage, are frozen as the first release wrote them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "delta.h"
#include "framing.h"
#include "stream.h"
#include "trace.h"
#include "trace.pb-c.h"
#include "xorshift.h"

/* ---- a failing calloc (linked with --wrap=calloc) ---- */

void *__real_calloc(size_t n, size_t size);
static int fail_calloc;

void *__wrap_calloc(size_t n, size_t size)
{
	if (fail_calloc)
		return NULL;
	return __real_calloc(n, size);
}

/* ---- protobuf by hand: canonical, as protobuf-c writes it ---- */

struct pbuf {
	uint8_t b[2 * DELTA_MSG_MAX];
	size_t n;
};

static void put_varint(struct pbuf *m, uint64_t v)
{
	m->n += framing__put_varint(m->b + m->n, v);
}

/* a number field; proto3 leaves zero out */
static void num(struct pbuf *m, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	put_varint(m, (uint64_t)field << 3);
	put_varint(m, v);
}

/* Appends bytes as they are, protobuf or not */
static void raw(struct pbuf *m, const void *p, size_t len)
{
	memcpy(m->b + m->n, p, len);
	m->n += len;
}

static void bytes(struct pbuf *m, uint32_t field, const void *p, size_t len)
{
	put_varint(m, (uint64_t)field << 3 | 2);
	put_varint(m, len);
	raw(m, p, len);
}

/* An Event: header {sid, timestamp}, then body as field `type` */
static void event(struct pbuf *out, uint64_t sid, uint64_t ts, uint32_t type,
		  const struct pbuf *body)
{
	struct pbuf h = { .n = 0 };

	num(&h, 1, sid);
	num(&h, 2, ts);
	out->n = 0;
	bytes(out, 1, h.b, h.n);
	bytes(out, type, body->b, body->n);
}

/* ---- message sequences ---- */

struct seq {
	uint8_t *b;
	size_t len, cap;
	size_t n;
	size_t off[20000];
};

static void seq_add(struct seq *q, const uint8_t *msg, size_t len)
{
	assert_true(q->n < sizeof(q->off) / sizeof(q->off[0]) - 1);
	if (q->len + len > q->cap) {
		q->cap = (q->len + len) * 2;
		q->b = realloc(q->b, q->cap);
		assert_non_null(q->b);
	}
	q->off[q->n++] = q->len;
	memcpy(q->b + q->len, msg, len);
	q->len += len;
	q->off[q->n] = q->len;
}

static void seq_add_pb(struct seq *q, const struct pbuf *m)
{
	seq_add(q, m->b, m->n);
}

static size_t msg_len(const struct seq *q, size_t i)
{
	return q->off[i + 1] - q->off[i];
}

/* Bytes the sequence takes as raw OCTF framing */
static size_t framed_len(const struct seq *q)
{
	uint8_t v[FRAMING_VARINT_MAX];
	size_t i, n = 0;

	for (i = 0; i < q->n; i++)
		n += framing__put_varint(v, msg_len(q, i)) + msg_len(q, i);
	return n;
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	return xorshift64(&rnd_state);
}

/*
 * A trace stream as the collector writes it: ios (some with file
 * metadata) with kernel addresses from a pool, their dispatches, their
 * completions out of order, now and then a split, file names, a VFS call
 * with negative numbers and an event type this code does not know.
 */
static void make_trace(struct seq *q, size_t nio)
{
	static const uint64_t dev = 7u << 20;
	uint64_t sid = 0, ts = 5000000000ull, inflight[8];
	size_t nin = 0, i;
	struct pbuf b, m;

	b.n = 0;
	num(&b, 1, dev);
	bytes(&b, 2, "loop0", 5);
	num(&b, 3, 2097152);
	event(&m, ++sid, ts, 3, &b);
	seq_add_pb(q, &m);

	for (i = 0; i < nio; i++) {
		uint64_t id = 0xffff888100000000ull + (rnd() % 40) * 0x100;
		uint64_t lba = (rnd() % 262144) * 8, rq = 0xffff888200000000ull + (i % 32) * 0x180;
		bool file = i % 3 == 0;

		ts += rnd() % 20000;
		b.n = 0;
		num(&b, 1, lba);
		num(&b, 2, 8);
		num(&b, 3, file ? 17 : 22);
		num(&b, 4, dev);
		num(&b, 5, 1 + (i % 5 == 0));
		num(&b, 9, id);
		num(&b, 26, 1234);
		num(&b, 27, 1234 + (i % 2));
		num(&b, 28, 1);
		bytes(&b, 29, "fio", 3);
		num(&b, 30, !file);
		sid += 1 + rnd() % 3;
		event(&m, sid, ts, 2, &b);
		seq_add_pb(q, &m);
		if (file) {
			struct pbuf fid = { .n = 0 }, tsb = { .n = 0 };

			num(&tsb, 1, 1795248325);
			num(&tsb, 2, 431418752 + i % 4);
			num(&fid, 1, dev);
			num(&fid, 2, 12 + i % 4);
			bytes(&fid, 3, tsb.b, tsb.n);
			b.n = 0;
			num(&b, 1, id);
			bytes(&b, 2, fid.b, fid.n);
			num(&b, 3, lba / 2);
			num(&b, 4, 32768);
			event(&m, ++sid, ts, 4, &b);
			seq_add_pb(q, &m);
		}
		if (i % 97 == 0) {
			b.n = 0;
			num(&b, 1, id + 0x40);
			num(&b, 2, id);
			num(&b, 3, dev);
			num(&b, 4, lba + 4);
			num(&b, 5, 4);
			num(&b, 6, lba + 4);
			event(&m, ++sid, ts + 5, 20, &b);
			seq_add_pb(q, &m);
		}
		ts += rnd() % 3000;
		b.n = 0;
		num(&b, 1, id);
		num(&b, 2, dev);
		num(&b, 3, lba);
		num(&b, 4, 8);
		num(&b, 5, 1);
		num(&b, 6, rq);
		sid += 1 + rnd() % 2;
		event(&m, sid, ts, 21, &b);
		seq_add_pb(q, &m);
		inflight[nin++] = id;
		if (nin == 8 || i + 1 == nio) {
			while (nin) {
				size_t k = rnd() % nin;

				b.n = 0;
				num(&b, 4, dev);
				num(&b, 5, inflight[k]);
				num(&b, 20, i % 500 == 0 ? 10 : 0);
				ts += rnd() % 50000;
				sid += 1 + rnd() % 4;
				event(&m, sid, ts, 5, &b);
				seq_add_pb(q, &m);
				inflight[k] = inflight[--nin];
			}
		}
		if (i % 250 == 0) {
			struct pbuf fid = { .n = 0 }, par = { .n = 0 };
			char name[300];

			num(&fid, 1, dev);
			num(&fid, 2, 100 + i);
			num(&par, 1, dev);
			num(&par, 2, 2);
			/* long names are never kept among the recent values */
			memset(name, 'a' + (int)(i % 26), sizeof(name));
			b.n = 0;
			bytes(&b, 1, fid.b, fid.n);
			bytes(&b, 2, par.b, par.n);
			bytes(&b, 3, name, i % 500 == 0 ? 255 : 5 + i % 7);
			event(&m, ++sid, ts, 6, &b);
			seq_add_pb(q, &m);
		}
		if (i % 10 == 0) {
			/* a VFS call: fd -1 and offset -1 are 10-byte varints */
			b.n = 0;
			num(&b, 1, i + 1);
			num(&b, 2, 3);
			num(&b, 5, i % 20 ? 5 : (uint64_t)-1);
			num(&b, 7, i % 30 ? i * 4096 : (uint64_t)-1);
			num(&b, 8, 4096);
			num(&b, 9, 4096);
			num(&b, 10, 1500 + rnd() % 500);
			bytes(&b, 13, "db_bench", 8);
			event(&m, ++sid, ts, 22, &b);
			seq_add_pb(q, &m);
		}
		if (i % 333 == 0) {
			/* a type from the future, with a field that appears late */
			b.n = 0;
			if (i > 1000)
				num(&b, 1, 7);
			num(&b, 3, i);
			bytes(&b, 9, &i, sizeof(i));
			event(&m, ++sid, ts, 40, &b);
			seq_add_pb(q, &m);
		}
	}
}

/* Numbers of every size: ids from a pool larger than the recent ones, the last one again */
static uint64_t rnd_num(void)
{
	static uint64_t last = 1;

	switch (rnd() % 7) {
	case 0:
	case 1:
		last = 0xffff888100000000ull + (rnd() % 100) * 0x100;
		break;
	case 2:
		last = rnd() % 4;
		break;
	case 3:
		last = rnd() % 100000;
		break;
	case 4:
		last = rnd();
		break;
	case 5:
		last = (uint64_t)-(int64_t)(1 + rnd() % 3);
		break;
	default:
		break;
	}
	return last;
}

/* Bytes from a pool larger than a slot's recent values, some too long to keep */
static void rnd_bytes(struct pbuf *b, uint32_t field)
{
	static const size_t lens[] = { 0, 1, 3, 8, 16, 47, 48, 49, 60, 127, 128, 300 };
	unsigned k = (unsigned)(rnd() % 24);
	uint8_t v[300];

	memset(v, 'a' + k, sizeof(v));
	bytes(b, field, v, lens[k % 12]);
}

/*
 * A body of some of the fields below, their wire type fixed by field and
 * type unless flip; now and then more fields than a type has slots for.
 */
static void rnd_body(struct pbuf *b, uint32_t type, bool flip)
{
	static const uint32_t fields[] = { 1, 2, 3, 4, 5, 6, 9, 20, 29, 31, 100, 1u << 20 };
	unsigned k, wide = rnd() % 300 ? 0 : 70;

	b->n = 0;
	for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
		uint32_t f = fields[k];
		bool lenfield = f == 29 || f == 100 || (f == 2 && (type == 4 || type >= 1000));

		if (rnd() % 3 == 0)
			continue;
		if (lenfield != (flip && rnd() % 4 == 0))
			rnd_bytes(b, f);
		else
			num(b, f, rnd_num());
	}
	for (k = 0; k < wide; k++)
		num(b, (1u << 20) + 1 + k, 1 + k);
}

/* A field after the body's others that only verbatim can keep */
static void odd_field(struct pbuf *b)
{
	const uint64_t tag = (uint64_t)(1u << 21) << 3;

	switch (rnd() % 5) {
	case 0:
		/* a zero written out */
		put_varint(b, tag);
		put_varint(b, 0);
		break;
	case 1:
		/* a varint longer than it needs */
		put_varint(b, tag);
		raw(b, "\x81\x80\x00", 3);
		break;
	case 2:
		/* fields out of order */
		num(b, 1, 5);
		break;
	case 3:
		/* fixed32 */
		put_varint(b, tag | 5);
		raw(b, "\x01\x02\x03\x04", 4);
		break;
	default:
		/* a 10th varint byte that holds more than bit 63 */
		put_varint(b, tag);
		raw(b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 10);
		break;
	}
}

/*
 * Messages of every shape at random: our event types and others, fields
 * that come and go, sids and timestamps that jump and go back, late in
 * the stream more types than the table holds, and now and then a message
 * only verbatim can keep (no sid or timestamp, cut short, odd fields, a
 * field of another wire type than before).
 */
static void make_random(struct seq *q, size_t n)
{
	static const uint32_t types[] = { 2, 3, 4, 5, 6, 20, 21, 22, 40, 1000, 1u << 28 };
	uint64_t sid = 1, ts = 1000000;
	struct pbuf b, m;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t type = types[rnd() % (sizeof(types) / sizeof(types[0]))];

		if (i > n / 2 && rnd() % 4 == 0)
			type = 100 + (uint32_t)(rnd() % 20);
		sid += rnd() % 50 ? 1 + rnd() % 3 : rnd() % 1000;
		if (rnd() % 100 == 0 && sid > 10)
			sid -= 10;
		ts += rnd() % 100000;
		if (rnd() % 20 == 0 && ts > 500000)
			ts -= rnd() % 500000;
		rnd_body(&b, type, i > 1000 && rnd() % 300 == 0);
		if (rnd() % 50 == 0)
			odd_field(&b);
		event(&m, rnd() % 200 ? sid : 0, rnd() % 200 ? ts : 0, type, &b);
		if (rnd() % 200 == 0)
			m.n--;
		seq_add_pb(q, &m);
	}
}

static void seq_free(struct seq *q)
{
	free(q->b);
	free(q);
}

static struct seq *seq_new(void)
{
	struct seq *q = calloc(1, sizeof(*q));

	assert_non_null(q);
	return q;
}

static bool next_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	size_t used;

	if (framing__get_varint(*p, (size_t)(end - *p), v, &used) != 1)
		return false;
	*p += used;
	return true;
}

/*
 * msg's header and body fields as delta__encode_fields() takes them, if
 * msg is what event() writes for them (the canonical form; a zero number
 * of the body is kept as written) and they are few enough; else false.
 */
static bool split_of(const uint8_t *msg, size_t len, struct delta_split *s)
{
	const uint8_t *p = msg, *end = msg + len, *hend;
	struct pbuf body = { .n = 0 }, again;
	uint64_t tag, v;

	memset(s, 0, sizeof(*s));
	/* what body and again hold */
	if (len > DELTA_MSG_MAX * 3 / 2)
		return false;
	if (!next_varint(&p, end, &tag) || tag != (1 << 3 | 2) || !next_varint(&p, end, &v) ||
	    v > (uint64_t)(end - p))
		return false;
	for (hend = p + v; p < hend;) {
		if (!next_varint(&p, hend, &tag) || (tag != 1 << 3 && tag != 2 << 3) ||
		    !next_varint(&p, hend, &v))
			return false;
		*(tag == 1 << 3 ? &s->sid : &s->ts) = v;
	}
	if (!next_varint(&p, end, &tag) || (tag & 7) != 2 || !next_varint(&p, end, &v) ||
	    v != (uint64_t)(end - p))
		return false;
	s->type = (uint32_t)(tag >> 3);
	while (p < end) {
		struct delta_field *f = &s->f[s->n];

		if (s->n == DELTA_SPLIT_MAX || !next_varint(&p, end, &tag) ||
		    ((tag & 7) != 0 && (tag & 7) != 2) || !next_varint(&p, end, &v))
			return false;
		f->field = (uint32_t)(tag >> 3);
		f->v = v;
		f->p = NULL;
		if (tag & 2) {
			if (v > (uint64_t)(end - p))
				return false;
			f->p = p;
			p += v;
			bytes(&body, f->field, f->p, v);
		} else {
			put_varint(&body, tag);
			put_varint(&body, v);
		}
		s->n++;
	}
	event(&again, s->sid, s->ts, s->type, &body);
	return again.n == len && !memcmp(again.b, msg, len);
}

/* Messages encode_all() gave to delta__encode_fields() */
static size_t split_coded;

/* The format version the helpers below code and decode in */
static unsigned coding_version = DELTA_VERSION;

/* Teardown of the tests that change it, which may end early */
static int current_version(void **state)
{
	(void)state;
	coding_version = DELTA_VERSION;
	return 0;
}

static struct delta *new_delta(void)
{
	struct delta *d = delta__new_version(coding_version);

	assert_non_null(d);
	return d;
}

/*
 * Encodes all of q; returns the buffer (caller frees) and its length.
 * A second stream gets the messages that split_of() splits through
 * delta__encode_fields(): its records must be the same bytes.
 */
static uint8_t *encode_all(const struct seq *q, size_t *len, size_t *nverbatim)
{
	struct delta *d = new_delta(), *ds = new_delta();
	size_t i, cap = 0, n = 0, nv = 0;
	struct delta_split split;
	uint8_t *out, *other;

	assert_non_null(d);
	assert_non_null(ds);
	for (i = 0; i < q->n; i++)
		cap += DELTA_ENCODED_MAX(msg_len(q, i));
	out = malloc(cap);
	other = malloc(DELTA_ENCODED_MAX(2 * DELTA_MSG_MAX));
	assert_non_null(out);
	assert_non_null(other);
	for (i = 0; i < q->n; i++) {
		const uint8_t *msg = q->b + q->off[i];
		size_t k = delta__encode(d, msg, msg_len(q, i), out + n), ks;

		assert_true(k >= 1 && k <= DELTA_ENCODED_MAX(msg_len(q, i)));
		if (msg_len(q, i) <= DELTA_MSG_MAX && split_of(msg, msg_len(q, i), &split)) {
			assert_int_equal(delta__split_len(&split), msg_len(q, i));
			ks = delta__encode_fields(ds, &split, other);
			split_coded++;
		} else {
			ks = delta__encode(ds, msg, msg_len(q, i), other);
		}
		assert_int_equal(ks, k);
		assert_memory_equal(other, out + n, k);
		if (out[n] == 0 && out[n + 1] == 0)
			nv++;
		n += k;
	}
	free(other);
	delta__free(ds);
	delta__free(d);
	*len = n;
	if (nverbatim)
		*nverbatim = nv;
	return out;
}

/* Decodes enc and checks it gives q's messages exactly, each record once */
static void expect_decodes_to(const uint8_t *enc, size_t len, const struct seq *q)
{
	struct delta *d = new_delta();
	size_t pos = 0, i;

	assert_non_null(d);
	for (i = 0; i < q->n; i++) {
		const uint8_t *msg;
		size_t mlen, used;

		assert_int_equal(delta__decode(d, enc + pos, len - pos, &msg, &mlen, &used), 1);
		assert_int_equal(mlen, msg_len(q, i));
		assert_memory_equal(msg, q->b + q->off[i], mlen);
		pos += used;
	}
	assert_int_equal(pos, len);
	delta__free(d);
}

/* FNV-1a: records and decoder answers frozen as a digest */
#define FNV_INIT 0xcbf29ce484222325ull

static uint64_t fnv(uint64_t h, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Records that are verbatim, of a new type, of a type with new fields */
struct kinds {
	size_t verbatim, new_type, layout;
};

static struct kinds kinds_of(const uint8_t *enc, size_t len)
{
	struct delta *d = new_delta();
	struct kinds k = { 0, 0, 0 };
	size_t pos = 0;

	assert_non_null(d);
	while (pos < len) {
		const uint8_t *msg;
		size_t mlen, used;

		if (enc[pos] == 0 && pos + 1 < len && enc[pos + 1] == 0)
			k.verbatim++;
		else if (!(enc[pos] & 15))
			k.new_type++;
		if (enc[pos] & 0x80)
			k.layout++;
		assert_int_equal(delta__decode(d, enc + pos, len - pos, &msg, &mlen, &used), 1);
		pos += used;
	}
	delta__free(d);
	return k;
}

/* What the tests that freeze bytes generate does not hang on the tests run before */
#define RND_SEED 88172645463325252ull

/* ---- tests ---- */

/*
 * The format on disk, by hand from delta.h: a new type with its layout, a
 * record equal to its prediction, a record with the timestamp going back.
 */
static void test_golden(void **state)
{
	static const uint8_t want[] = {
		/* K: new type, sid +1, layout; type 21; 3 fields: id, lba, len */
		0x80, 0x15, 0x03, 0x02, 0x06, 0x08,
		/* ts zigzag(1000); mask 111; id: literal zigzag(0x100); lba 8, len 8 */
		0xd0, 0x0f, 0x07, 0x00, 0x80, 0x04, 0x10, 0x10,
		/* type 1, sid +2; ts +500; nothing mispredicted */
		0x11, 0xe8, 0x07, 0x00,
		/* type 1, sid +1; ts -100; id literal +0x40, lba +8 */
		0x01, 0xc7, 0x01, 0x03, 0x00, 0x80, 0x01, 0x10,
	};
	struct seq *q = seq_new();
	struct pbuf b, m;
	uint8_t *enc;
	size_t len;

	b.n = 0;
	num(&b, 1, 0x100);
	num(&b, 3, 8);
	num(&b, 4, 8);
	event(&m, 1, 1000, 21, &b);
	seq_add_pb(q, &m);
	event(&m, 3, 1500, 21, &b);
	seq_add_pb(q, &m);
	b.n = 0;
	num(&b, 1, 0x140);
	num(&b, 3, 16);
	num(&b, 4, 8);
	event(&m, 4, 1400, 21, &b);
	seq_add_pb(q, &m);

	enc = encode_all(q, &len, NULL);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(enc, want, sizeof(want));
	expect_decodes_to(enc, len, q);
	free(enc);
	seq_free(q);
}

/*
 * The records of a stream like the collector's and of a random one, by
 * length and FNV-1a, as the encoder of each version's first release
 * wrote them (version 1: commit 0c31bf6): no change of the code may
 * change a byte, and the decoder reads every version's. The collector's
 * stream has no completion lba/len, on which the versions differ.
 */
static void test_frozen_records(void **state)
{
	static const struct {
		unsigned version;
		void (*make)(struct seq *q, size_t n);
		size_t n, len;
		struct kinds kinds;
		uint64_t fnv;
	} want[] = {
		{ 1, make_trace, 3000, 82636, { 0, 9, 12 }, 0xe57db45e00d32f4full },
		{ 1, make_random, 19000, 2740327, { 2567, 15, 43 }, 0x2047e788e1ad1b2eull },
		{ 2, make_trace, 3000, 82636, { 0, 9, 12 }, 0xe57db45e00d32f4full },
		{ 2, make_random, 19000, 2740507, { 2567, 15, 43 }, 0x821f3ca1e69d58d1ull },
	};
	size_t i, len;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct seq *q = seq_new();
		struct kinds k;
		uint8_t *enc;

		coding_version = want[i].version;
		rnd_state = RND_SEED;
		want[i].make(q, want[i].n);
		split_coded = 0;
		enc = encode_all(q, &len, NULL);
		/* all but the odd ones and the wide ones */
		assert_true(split_coded > q->n * 9 / 10);
		k = kinds_of(enc, len);
		assert_int_equal(k.verbatim, want[i].kinds.verbatim);
		assert_int_equal(k.new_type, want[i].kinds.new_type);
		assert_int_equal(k.layout, want[i].kinds.layout);
		assert_int_equal(len, want[i].len);
		assert_int_equal(fnv(FNV_INIT, enc, len), want[i].fnv);
		expect_decodes_to(enc, len, q);
		free(enc);
		seq_free(q);
	}
}

/* A trace's messages and records, stream after stream, by FNV-1a */
struct trace_digest {
	size_t records;
	uint64_t in, out;
};

/*
 * Codes one stream of a trace as the collector does, through both entry
 * points, and decodes every record back.
 */
static void code_stream(struct stream *s, struct trace_digest *t)
{
	struct delta *e = new_delta(), *es = new_delta(), *dd = new_delta();
	uint8_t *rec = malloc(DELTA_ENCODED_MAX(FRAMING_RECORD_MAX));
	uint8_t *other = malloc(DELTA_ENCODED_MAX(FRAMING_RECORD_MAX));
	const uint8_t *msg, *back;
	struct delta_split split;
	size_t len, n, blen, used;
	uint64_t len64;

	assert_true(e && es && dd && rec && other);
	while (stream__next(s, &msg, &len) == 1) {
		n = delta__encode(e, msg, len, rec);
		if (len <= DELTA_MSG_MAX && split_of(msg, len, &split))
			assert_int_equal(delta__encode_fields(es, &split, other), n);
		else
			assert_int_equal(delta__encode(es, msg, len, other), n);
		assert_memory_equal(other, rec, n);
		assert_int_equal(delta__decode(dd, rec, n, &back, &blen, &used), 1);
		assert_int_equal(used, n);
		assert_int_equal(blen, len);
		assert_memory_equal(back, msg, len);
		len64 = len;
		t->in = fnv(fnv(t->in, &len64, sizeof(len64)), msg, len);
		t->out = fnv(t->out, rec, n);
		t->records++;
	}
	free(other);
	free(rec);
	delta__free(dd);
	delta__free(es);
	delta__free(e);
}

/* Trace directories given on the command line (tests/parser/delta_sample.sh) */
static char **trace_dirs;
static int ntrace_dirs;

/*
 * Real traces: a trace known by the digest of its messages must give the
 * records the encoder of each version's first release gave (version 1:
 * commit 0c31bf6). The upstream sample is known; an unknown trace fails.
 * Its completions have lba and len, which version 2 predicts.
 */
static void test_frozen_traces(void **state)
{
	static const struct {
		unsigned version;
		struct trace_digest d;
	} frozen[] = {
		/* the upstream sample trace, 2020-07-02_08:52:51 */
		{ 1, { 193615, 0xd0376d7e657c23bdull, 0x1f55ca6d81af07e8ull } },
		{ 2, { 193615, 0xd0376d7e657c23bdull, 0x5ea031fa3f7fbc1dull } },
	};
	size_t i, k;
	int d;

	assert_true(ntrace_dirs > 0);
	for (d = 0; d < 2 * ntrace_dirs; d++) {
		struct trace_digest t = { 0, FNV_INIT, FNV_INIT };
		struct trace *tr = trace__open(trace_dirs[d / 2]);

		coding_version = d % 2 ? DELTA_VERSION : 1;
		assert_non_null(tr);
		for (i = 0; i < trace__stream_count(tr); i++) {
			struct stream *s = stream__open(stream__path(trace__stream(tr, i)));

			assert_non_null(s);
			code_stream(s, &t);
			stream__free(s);
		}
		trace__free(tr);
		print_message("%s (v%u): %zu records, in %#llx, out %#llx\n", trace_dirs[d / 2],
			      coding_version, t.records, (unsigned long long)t.in,
			      (unsigned long long)t.out);
		for (k = 0; k < sizeof(frozen) / sizeof(frozen[0]); k++)
			if (frozen[k].d.in == t.in && frozen[k].version == coding_version)
				break;
		assert_true(k < sizeof(frozen) / sizeof(frozen[0]));
		assert_int_equal(t.records, frozen[k].d.records);
		assert_int_equal(t.out, frozen[k].d.out);
	}
}

/* The stream header is a zstd skippable frame whose size field is right */
static void test_stream_header(void **state)
{
	const uint8_t *h = (const uint8_t *)DELTA_STREAM_HEADER;

	assert_int_equal(sizeof(DELTA_STREAM_HEADER) - 1, DELTA_STREAM_HEADER_LEN);
	assert_int_equal(h[0] & 0xf0, 0x50);
	assert_memory_equal(h + 1, "\x2a\x4d\x18", 3);
	assert_int_equal(h[4] | h[5] << 8 | h[6] << 16 | (uint32_t)h[7] << 24,
			 DELTA_STREAM_HEADER_LEN - 8);
}

static void test_round_trip_trace(void **state)
{
	struct seq *q = seq_new();
	size_t len, nv;
	uint8_t *enc;

	make_trace(q, 3000);
	enc = encode_all(q, &len, &nv);
	expect_decodes_to(enc, len, q);
	/* the point of it all: far fewer bytes than OCTF framing, none verbatim */
	assert_int_equal(nv, 0);
	assert_true(len * 4 < framed_len(q));
	free(enc);
	seq_free(q);
}

/* A dispatch right after its io costs a few bytes: lba and len are predicted */
static void test_dispatch_predicted(void **state)
{
	struct delta *d = delta__new();
	uint8_t out[512];
	struct pbuf b, m;
	size_t n;
	int i;

	for (i = 0; i < 3; i++) {
		b.n = 0;
		num(&b, 1, 1000 + 77 * i);
		num(&b, 2, 8);
		num(&b, 9, 0xffff888100000000ull + i * 0x300);
		event(&m, 10 + 2 * i, 100000 + 20 * i, 2, &b);
		delta__encode(d, m.b, m.n, out);
		b.n = 0;
		num(&b, 1, 0xffff888100000000ull + i * 0x300);
		num(&b, 3, 1000 + 77 * i);
		num(&b, 4, 8);
		num(&b, 6, 0xffff888200000000ull);
		event(&m, 11 + 2 * i, 100010 + 20 * i, 21, &b);
		n = delta__encode(d, m.b, m.n, out);
	}
	/* K, ts, mask: id, lba, len, request all as predicted */
	assert_int_equal(n, 3);
	delta__free(d);
}

/*
 * An io (type 2) or a completion (5) of lba, len and id at sid (ts from
 * it), added to q and coded by d; returns the record's length
 */
static size_t add_ranged(struct seq *q, struct delta *d, uint32_t type, uint64_t sid,
			 uint64_t lba, uint64_t len, uint64_t id)
{
	uint8_t out[512];
	struct pbuf b, m;

	b.n = 0;
	num(&b, 1, lba);
	num(&b, 2, len);
	num(&b, type == 2 ? 9 : 5, id);
	event(&m, sid, 100000 + 10 * sid, type, &b);
	seq_add_pb(q, &m);
	return delta__encode(d, m.b, m.n, out);
}

/*
 * A completion's lba and len, which come before its refId: version 2
 * predicts them from its io (a record of K, ts and mask), version 1 from
 * the previous completion; a completion of an io the stream has not seen
 * is coded in full. Each decodes to its message.
 */
static void test_completion_predicted(void **state)
{
	static const struct {
		unsigned version;
		size_t known, unknown;
	} want[] = { { 1, 6, 12 }, { 2, 3, 12 } };
	struct seq *q;
	uint8_t *enc;
	size_t n, len, i, v;
	uint64_t id;

	for (v = 0; v < 2; v++) {
		struct delta *d;

		coding_version = want[v].version;
		d = new_delta();
		q = seq_new();
		for (i = 0; i < 4; i++) {
			id = 0xffff888100000000ull + i * 0x300;
			add_ranged(q, d, 2, 10 + 2 * i, 1000 + 7777 * i, 8 + i, id);
			n = add_ranged(q, d, 5, 11 + 2 * i, 1000 + 7777 * i, 8 + i, id);
		}
		assert_int_equal(n, want[v].known);
		/* its io was on another CPU's stream */
		n = add_ranged(q, d, 5, 20, 123456789, 16, 0xffff888100007700ull);
		assert_int_equal(n, want[v].unknown);
		delta__free(d);

		enc = encode_all(q, &len, NULL);
		expect_decodes_to(enc, len, q);
		free(enc);
		seq_free(q);
	}
}

/* Stream headers name their version; the decoder knows 1 and 2 */
static void test_header_version(void **state)
{
	uint8_t h[DELTA_STREAM_HEADER_LEN];
	struct delta *d;

	memcpy(h, DELTA_STREAM_HEADER, sizeof(h));
	assert_int_equal(delta__header_version(h), DELTA_VERSION);
	h[sizeof(h) - 1] = '1';
	assert_int_equal(delta__header_version(h), 1);
	h[sizeof(h) - 1] = '7';
	assert_int_equal(delta__header_version(h), 7);
	h[sizeof(h) - 1] = 'x';
	assert_int_equal(delta__header_version(h), 0);
	memcpy(h, DELTA_STREAM_HEADER, sizeof(h));
	h[10] = 'X';
	assert_int_equal(delta__header_version(h), 0);
	d = delta__new_version(1);
	assert_non_null(d);
	delta__free(d);
}

/* protobuf-c writes what the transform can rebuild byte for byte */
static void test_protobuf_c_canonical(void **state)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__EventIoCompletion cmpl = OCTF__PROTO__TRACE__EVENT_IO_COMPLETION__INIT;
	struct delta *e = delta__new(), *dd = delta__new();
	uint8_t msg[512], enc[8192];
	const uint8_t *out;
	size_t len, n, olen, used;
	int i;

	for (i = 0; i < 4; i++) {
		hdr.sid = 1 + 2 * (uint64_t)i;
		hdr.timestamp = 123456789 + 1000 * (uint64_t)i;
		ev.header = &hdr;
		io.lba = 8 * (uint64_t)i;	/* 0 first: left out */
		io.len = 8;
		io.id = 0xffff888100001000ull;
		io.operation = OCTF__PROTO__TRACE__IO_TYPE__Write;
		io.pid = 42;
		io.comm = (char *)"kworker/u8:1";
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
		ev.io = &io;
		len = octf__proto__trace__event__pack(&ev, msg);
		n = delta__encode(e, msg, len, enc);
		assert_false(enc[0] == 0 && enc[1] == 0);
		assert_int_equal(delta__decode(dd, enc, n, &out, &olen, &used), 1);
		assert_int_equal(olen, len);
		assert_memory_equal(out, msg, len);

		hdr.sid++;
		cmpl.refid = io.id;
		cmpl.deviceid = 7u << 20;
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION;
		ev.iocompletion = &cmpl;
		len = octf__proto__trace__event__pack(&ev, msg);
		n = delta__encode(e, msg, len, enc);
		assert_false(enc[0] == 0 && enc[1] == 0);
		assert_int_equal(delta__decode(dd, enc, n, &out, &olen, &used), 1);
		assert_int_equal(olen, len);
		assert_memory_equal(out, msg, len);
	}
	delta__free(e);
	delta__free(dd);
}

/*
 * What the decoder could not rebuild byte for byte is stored verbatim,
 * between ordinary records, and the stream goes on.
 */
static void test_verbatim(void **state)
{
	static const uint8_t odd[][20] = {
		/* fields out of order */
		{ 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x2a, 0x04, 0x18, 0x01, 0x08, 0x01 },
		/* a zero written out */
		{ 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x2a, 0x02, 0x08, 0x00 },
		/* a varint longer than it needs */
		{ 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x2a, 0x03, 0x08, 0x81, 0x00 },
		/* no timestamp */
		{ 0x0a, 0x02, 0x08, 0x01, 0x2a, 0x02, 0x08, 0x01 },
		/* a fixed64 field */
		{ 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x2a, 0x09, 0x09, 1, 2, 3, 4, 5, 6, 7, 8 },
		/* two bodies */
		{ 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x2a, 0x00, 0x12, 0x00 },
		/* not protobuf at all */
		{ 0xff, 0xff, 0xff },
	};
	static const size_t odd_len[] = { 12, 10, 11, 8, 17, 10, 3 };
	struct seq *q = seq_new(), *normal = seq_new();
	struct pbuf big = { .n = 0 }, body = { .n = 0 };
	size_t i, len, nv;
	uint8_t *enc;

	make_trace(normal, 20);
	for (i = 0; i < sizeof(odd_len) / sizeof(odd_len[0]); i++) {
		seq_add(q, normal->b + normal->off[i], msg_len(normal, i));
		seq_add(q, odd[i], odd_len[i]);
	}
	/* larger than DELTA_MSG_MAX */
	memset(body.b, 'x', DELTA_MSG_MAX);
	bytes(&big, 1, "\x08\x01\x10\x01", 4);
	bytes(&big, 2, body.b, DELTA_MSG_MAX);
	seq_add_pb(q, &big);
	seq_add(q, (const uint8_t *)"", 0);
	for (i = 7; i < normal->n; i++)
		seq_add(q, normal->b + normal->off[i], msg_len(normal, i));

	enc = encode_all(q, &len, &nv);
	assert_int_equal(nv, 9);
	expect_decodes_to(enc, len, q);
	free(enc);
	seq_free(q);
	seq_free(normal);
}

/*
 * Split or not, verbatim keeps a type grown to more fields than it has
 * slots for, and a field number protobuf does not have.
 */
static void test_split_limits(void **state)
{
	struct seq *q = seq_new();
	struct pbuf b, m;
	size_t len, nv;
	uint32_t f, k;
	uint8_t *enc;

	for (k = 0; k < 3; k++) {
		b.n = 0;
		for (f = 1 + 32 * k; f <= 32 * (k + 1) && f <= 65; f++)
			num(&b, f, f);
		event(&m, 1 + k, 100 + k, 3, &b);
		seq_add_pb(q, &m);
	}
	b.n = 0;
	num(&b, 1, 7);
	put_varint(&b, (uint64_t)1 << 32);
	put_varint(&b, 1);
	event(&m, 10, 200, 3, &b);
	seq_add_pb(q, &m);

	split_coded = 0;
	enc = encode_all(q, &len, &nv);
	assert_int_equal(split_coded, q->n);
	assert_int_equal(nv, 2);
	expect_decodes_to(enc, len, q);
	free(enc);
	seq_free(q);
}

/* More event types than the table holds: the rest goes verbatim */
static void test_many_types(void **state)
{
	struct seq *q = seq_new();
	struct pbuf b, m;
	size_t len, nv;
	uint32_t t;
	uint8_t *enc;
	int round;

	for (round = 0; round < 3; round++) {
		for (t = 2; t < 40; t++) {
			b.n = 0;
			num(&b, 1, t * 1000 + (uint64_t)round);
			event(&m, 1 + round * 100 + t, 1000 + t, t, &b);
			seq_add_pb(q, &m);
		}
	}
	enc = encode_all(q, &len, &nv);
	assert_int_equal(nv, 3 * (38 - 15));
	expect_decodes_to(enc, len, q);
	free(enc);
	seq_free(q);
}

/*
 * Every prefix of a record stream: the whole records decode, the cut one
 * asks for more (never damage, never a record), and after more bytes
 * arrive the decoder goes on as if never interrupted.
 */
static void test_cut_anywhere(void **state)
{
	struct seq *q = seq_new();
	struct delta *d;
	size_t len, cut, ends[2000];
	size_t nrec = 0, pos = 0;
	uint8_t *enc;

	make_trace(q, 150);
	assert_true(q->n < 2000);
	enc = encode_all(q, &len, NULL);
	/* where each record ends */
	d = delta__new();
	while (pos < len) {
		const uint8_t *msg;
		size_t mlen, used;

		assert_int_equal(delta__decode(d, enc + pos, len - pos, &msg, &mlen, &used), 1);
		pos += used;
		ends[nrec++] = pos;
	}
	delta__free(d);
	assert_int_equal(nrec, q->n);

	for (cut = 0; cut < len; cut++) {
		const uint8_t *msg;
		size_t mlen, used, k = 0;
		int ret;

		d = delta__new();
		assert_non_null(d);
		pos = 0;
		while ((ret = delta__decode(d, enc + pos, cut - pos, &msg, &mlen, &used)) == 1) {
			assert_int_equal(pos + used, ends[k]);
			pos += used;
			k++;
		}
		assert_int_equal(ret, 0);
		assert_true(k == nrec || ends[k] > cut);
		/* the same record again, now whole */
		for (; k < nrec; k++) {
			assert_int_equal(delta__decode(d, enc + pos, len - pos, &msg, &mlen, &used), 1);
			assert_int_equal(mlen, msg_len(q, k));
			assert_memory_equal(msg, q->b + q->off[k], mlen);
			pos += used;
		}
		delta__free(d);
	}
	free(enc);
	seq_free(q);
}

/* One answer of the decoder, into the digest of all of them */
static uint64_t answer(uint64_t h, int ret, const uint8_t *msg, size_t mlen, size_t used)
{
	int64_t a[3] = { ret, ret == 1 ? (int64_t)mlen : 0, ret == 1 ? (int64_t)used : 0 };

	h = fnv(h, a, sizeof(a));
	return ret == 1 ? fnv(h, msg, mlen) : h;
}

/*
 * Damaged bytes: every answer is a record, "more" or -EBADMSG; a record
 * always moves on and is never longer than a record can be. Runs to the
 * end of the input for every damage, so a hang would show as a timeout.
 * The answers are those of the decoder of the first release (commit
 * 0c31bf6), by FNV-1a.
 */
static void test_damage(void **state)
{
	static const uint8_t masks[] = { 0x01, 0x80, 0xff, 0x10 };
	struct seq *q = seq_new();
	uint64_t h = FNV_INIT;
	size_t len, i, m;
	uint8_t *enc, *bad;

	rnd_state = RND_SEED;
	make_trace(q, 60);
	enc = encode_all(q, &len, NULL);
	bad = malloc(len);
	assert_non_null(bad);
	for (i = 0; i < len; i++) {
		for (m = 0; m < sizeof(masks); m++) {
			struct delta *d = delta__new();
			size_t pos = 0, nrec = 0;
			const uint8_t *msg = NULL;
			size_t mlen = 0, used = 0;
			int ret;

			memcpy(bad, enc, len);
			bad[i] ^= masks[m];
			while ((ret = delta__decode(d, bad + pos, len - pos, &msg, &mlen, &used)) == 1) {
				assert_true(used >= 1 && used <= len - pos);
				assert_true(mlen <= FRAMING_RECORD_MAX);
				h = answer(h, ret, msg, mlen, used);
				pos += used;
				nrec++;
			}
			h = answer(h, ret, msg, mlen, used);
			assert_true(ret == 0 || ret == -EBADMSG);
			assert_true(nrec <= len);
			delta__free(d);
		}
	}
	/* and noise */
	for (i = 0; i < 2000; i++) {
		struct delta *d = delta__new();
		size_t pos = 0, n = 1 + rnd() % 300, k;
		const uint8_t *msg = NULL;
		size_t mlen = 0, used = 0;
		int ret;

		for (k = 0; k < n; k++)
			bad[k] = (uint8_t)rnd();
		while ((ret = delta__decode(d, bad + pos, n - pos, &msg, &mlen, &used)) == 1) {
			h = answer(h, ret, msg, mlen, used);
			pos += used;
		}
		h = answer(h, ret, msg, mlen, used);
		delta__free(d);
	}
	assert_int_equal(h, 0xa4f912a5badd41f9ull);
	free(bad);
	free(enc);
	seq_free(q);
}

/* A decoder holding DELTA_RECORD_MAX bytes that still wants more has found damage */
static void test_record_bound(void **state)
{
	struct delta *d = delta__new();
	uint8_t *buf = calloc(1, DELTA_RECORD_MAX);
	const uint8_t *msg;
	size_t mlen, used, n;

	assert_non_null(buf);
	/* verbatim, longer than any record may be */
	n = 2 + framing__put_varint(buf + 2, FRAMING_RECORD_MAX + 1);
	assert_int_equal(delta__decode(d, buf, n, &msg, &mlen, &used), -EBADMSG);
	/* verbatim of the largest size: wants all of it, then gives it */
	n = 2 + framing__put_varint(buf + 2, FRAMING_RECORD_MAX);
	assert_int_equal(delta__decode(d, buf, n + 1000, &msg, &mlen, &used), 0);
	assert_int_equal(delta__decode(d, buf, n + FRAMING_RECORD_MAX, &msg, &mlen, &used), 1);
	assert_int_equal(mlen, FRAMING_RECORD_MAX);
	assert_int_equal(used, n + FRAMING_RECORD_MAX);
	/* its length cut */
	buf[2] = 0x80;
	assert_int_equal(delta__decode(d, buf, 3, &msg, &mlen, &used), 0);
	/* a type the stream never introduced */
	buf[0] = 0x01;
	assert_int_equal(delta__decode(d, buf, 3, &msg, &mlen, &used), -EBADMSG);
	free(buf);
	delta__free(d);
}

/*
 * A coded record of a new type with two bytes fields given as literals:
 * its message is longer than DELTA_MSG_MAX by one byte or fits exactly.
 * The long one is damage and changes nothing: the next record is read
 * as the stream's first.
 */
static size_t two_literals(uint8_t *b, size_t len1)
{
	size_t n = 0;

	b[n++] = 0x80;		/* a new type, sid + 1, a layout change */
	n += framing__put_varint(b + n, 2);	/* io */
	b[n++] = 2;		/* two fields, both length-delimited: */
	b[n++] = 1 << 1 | 1;
	b[n++] = 2 << 1 | 1;
	b[n++] = 2;		/* ts = 1 */
	b[n++] = 3;		/* both fields differ */
	b[n++] = 17;		/* a literal */
	n += framing__put_varint(b + n, len1);
	memset(b + n, 'a', len1);
	n += len1;
	b[n++] = 17;
	n += framing__put_varint(b + n, 1000);
	memset(b + n, 'b', 1000);
	return n + 1000;
}

static void test_message_bound(void **state)
{
	struct delta *d = delta__new();
	uint8_t *buf = malloc(2 * DELTA_MSG_MAX);
	const uint8_t *msg;
	size_t mlen, used, n, fit;

	assert_non_null(d);
	assert_non_null(buf);
	/* header 0a 04 08 01 10 01, body tag 12 and a 2-byte length; 3 + 1000 for b */
	fit = DELTA_MSG_MAX - 6 - 3 - (3 + 1000) - 3;
	n = two_literals(buf, fit + 1);
	assert_int_equal(delta__decode(d, buf, n, &msg, &mlen, &used), -EBADMSG);
	n = two_literals(buf, fit);
	assert_int_equal(delta__decode(d, buf, n, &msg, &mlen, &used), 1);
	assert_int_equal(used, n);
	assert_int_equal(mlen, DELTA_MSG_MAX);
	/* sid 1: the refused record moved nothing */
	assert_memory_equal(msg, "\x0a\x04\x08\x01\x10\x01", 6);
	free(buf);
	delta__free(d);
}

/*
 * Without memory the encoder stores verbatim, the decoder says -ENOMEM
 * and keeps its state: the same bytes decode once memory is back.
 */
static void test_no_memory(void **state)
{
	struct seq *q = seq_new();
	struct delta *d;
	size_t len, nv, pos = 0, i, nomem = 0;
	uint8_t *enc, hdr[FRAMING_VARINT_MAX];

	make_trace(q, 30);
	d = delta__new();
	assert_non_null(d);
	enc = malloc(DELTA_ENCODED_MAX(DELTA_MSG_MAX));
	assert_non_null(enc);
	/* no type can be set up: every message goes verbatim */
	for (i = 0; i < q->n; i++) {
		fail_calloc = 1;
		len = delta__encode(d, q->b + q->off[i], msg_len(q, i), enc);
		fail_calloc = 0;
		assert_int_equal(enc[0] | enc[1], 0);
		assert_int_equal(len, 2 + framing__put_varint(hdr, msg_len(q, i)) + msg_len(q, i));
		assert_memory_equal(enc + len - msg_len(q, i), q->b + q->off[i], msg_len(q, i));
	}
	free(enc);

	enc = encode_all(q, &len, &nv);
	for (i = 0; i < q->n; i++) {
		const uint8_t *msg;
		size_t mlen, used;

		fail_calloc = 1;
		if (delta__decode(d, enc + pos, len - pos, &msg, &mlen, &used) == -ENOMEM) {
			fail_calloc = 0;
			nomem++;
		} else {
			fail_calloc = 0;
			assert_int_equal(mlen, msg_len(q, i));
			pos += used;
			continue;
		}
		assert_int_equal(delta__decode(d, enc + pos, len - pos, &msg, &mlen, &used), 1);
		assert_int_equal(mlen, msg_len(q, i));
		assert_memory_equal(msg, q->b + q->off[i], mlen);
		pos += used;
	}
	assert_int_equal(pos, len);
	/* new types and new bytes fields need memory */
	assert_true(nomem >= 6);
	free(enc);
	delta__free(d);
	seq_free(q);
}

/* test_delta [TRACE_DIR...]: with directories, only the frozen traces' test */
int main(int argc, char **argv)
{
	const struct CMUnitTest traces[] = {
		cmocka_unit_test_teardown(test_frozen_traces, current_version),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test_teardown(test_frozen_records, current_version),
		cmocka_unit_test(test_stream_header),
		cmocka_unit_test(test_round_trip_trace),
		cmocka_unit_test(test_dispatch_predicted),
		cmocka_unit_test_teardown(test_completion_predicted, current_version),
		cmocka_unit_test(test_header_version),
		cmocka_unit_test(test_protobuf_c_canonical),
		cmocka_unit_test(test_verbatim),
		cmocka_unit_test(test_many_types),
		cmocka_unit_test(test_split_limits),
		cmocka_unit_test(test_cut_anywhere),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_record_bound),
		cmocka_unit_test(test_message_bound),
		cmocka_unit_test(test_no_memory),
	};

	if (argc > 1) {
		trace_dirs = argv + 1;
		ntrace_dirs = argc - 1;
		return cmocka_run_group_tests(traces, NULL, NULL);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
