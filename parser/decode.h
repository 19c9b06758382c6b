/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Decoding one trace record (a packed octf.proto.trace.Event) into a
 * struct event.
 *
 * protobuf-c's unpack costs more than everything else the parser does
 * per event (it allocates, and walks descriptors field by field), so the
 * hot event types are read by a hand-written decoder that accepts only
 * what it is sure of: known fields with their proper wire types, each
 * message at most once, canonical varints. Anything else - unknown
 * fields, a repeated submessage, a record that may be damaged - goes to
 * protobuf-c, which has the last word on what decodes and what a value
 * is. Both paths give the same result for every input the fast one takes
 * (the fuzz target checks this).
 */
#ifndef IOTRACE_DECODE_H
#define IOTRACE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

/*
 * Decodes msg[0..len) into *ev if its event type is in types (EV_BIT()
 * mask). Returns 0; DECODE_SKIPPED for another type (its body is not
 * decoded, only the record's top-level fields are checked, so damage
 * inside it goes unnoticed); or -EPROTO if it is not an Event (protobuf-c
 * rejects it; an allocation failure inside protobuf-c looks the same and
 * is blamed on the record). On success an EV_DEVICE, EV_FILE_NAME or
 * EV_FILE_EVENT holds its unpacked message (ev->pb), and a vfs event's
 * fields (ev->vfs) are allocated: release either with decode__release().
 */
#define DECODE_SKIPPED 1
int decode__event(const uint8_t *msg, size_t len, struct event *ev, unsigned int types);

/*
 * The sid of a record whose header comes first, sid first, as every
 * encoder writes it, read without decoding the record; false for any
 * other record (which may still decode). Lets the reader decode a record
 * straight into the slot of its sid.
 */
bool decode__peek_sid(const uint8_t *msg, size_t len, uint64_t *sid);

/*
 * The event type of a record laid out as every encoder writes it (a
 * header with a one-byte length, then one event field that ends the
 * record), read without decoding it; false for any other record, which
 * the decoder may still take. Lets a reader drop the types it does not
 * want for a few byte reads, checking no more than decode__event() checks
 * of them (their top-level fields).
 */
bool decode__peek_type(const uint8_t *msg, size_t len, enum event_type *type);

/*
 * Both at once, reading the header once: DECODE_PEEK_SID and/or
 * DECODE_PEEK_TYPE for what was set.
 */
#define DECODE_PEEK_SID 1u
#define DECODE_PEEK_TYPE 2u
unsigned int decode__peek(const uint8_t *msg, size_t len, enum event_type *type, uint64_t *sid);

/*
 * decode__peek() that keeps where it found things, so that
 * decode__event_peeked() reads the record's header and top level once.
 */
struct decode_peek {
	unsigned int got;	/* DECODE_PEEK_* */
	enum event_type type;
	uint64_t sid;
	const uint8_t *hsid;	/* in the header, after the sid */
	const uint8_t *hend;	/* the header's end */
	const uint8_t *body;	/* the event field's body, which ends the record */
};
unsigned int decode__peek_record(const uint8_t *msg, size_t len, struct decode_peek *pk);

/* decode__event() of the record pk was peeked from: the same result. */
int decode__event_peeked(const uint8_t *msg, size_t len, const struct decode_peek *pk,
			 struct event *ev, unsigned int types);

/*
 * decode__event() of the message of s, a record as delta__decode_split()
 * gives it, read from its fields: the same result (but never -EPROTO),
 * or DECODE_UNSURE when the fast path would not take the message: then
 * decode the message (delta__split_msg()) instead. Spares a reader of
 * our own traces rebuilding each message and parsing it again.
 */
#define DECODE_UNSURE 2
struct delta_split;
int decode__split(const struct delta_split *s, struct event *ev, unsigned int types);

/* The event type of s's body field, EV_NONE for one the decoder does not know */
enum event_type decode__split_type(const struct delta_split *s);

/* The protobuf-c path alone (for tests and the fuzz target). */
int decode__event_slow(const uint8_t *msg, size_t len, struct event *ev);

/*
 * Whether the hand-written path decodes msg by itself, without protobuf-c
 * (for tests: it must take every canonical record of the common types).
 */
bool decode__fast_takes(const uint8_t *msg, size_t len);

/* Frees what the event's type owns: its ev->pb, or a vfs event's fields. */
void decode__release(struct event *ev);

#endif
