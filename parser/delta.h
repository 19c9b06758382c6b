/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Delta records: the compact record form of our compressed trace files.
 *
 * An OCTF record spends most of its bytes on what the previous record of
 * the stream already said: field tags, the same device, pid and comm, a
 * 9-byte sid and timestamp that grew by a little, 10-byte varints of
 * kernel addresses seen a few records before. zstd alone finds some of it
 * (about 33 bytes per block I/O of a random-read trace); predicting each
 * field from the stream's past and writing only what was mispredicted
 * leaves zstd a few bytes per record (see README, "Trace size").
 *
 * The transform works on the protobuf wire format, not on the schema, so
 * event types added later are handled too (with the generic prediction:
 * the same field of the previous record of that type). It is exact: the
 * decoder gives back the same bytes the encoder was given. A message it
 * cannot reproduce byte for byte (not in canonical proto3 form, larger
 * than DELTA_MSG_MAX) is stored verbatim.
 *
 * Stream layout (a file octf.trace.<n>.zst): DELTA_STREAM_HEADER (a zstd
 * skippable frame that marks the variant), then zstd frames whose content
 * is a sequence of delta records. `--compress none` never uses this form;
 * plain zstd frames of OCTF framing (no header) are read as before.
 *
 * Record (all varints base 128, zigzag where signed):
 *   K        byte: bits 0-3 type index + 1 (0: see X), bits 4-6 sid code,
 *            bit 7 layout change
 *   [X]      if type bits are 0: varint 0 = verbatim (then K must be 0):
 *            varint length + that many bytes of OCTF message; else X is the
 *            body field number of a type not seen before (gets the next
 *            index; at most 15 types, later ones go verbatim)
 *   [sid]    if sid code is 7: zigzag(sid - previous sid - 1); codes 0-6
 *            are that difference itself
 *   [layout] if bit 7: varint n, then n varints (field number << 1 |
 *            length-delimited): fields this type has not had before
 *   ts       zigzag(timestamp - previous timestamp)
 *   mask     varint: bit i = field slot i (by field number) differs from
 *            its prediction
 *   values   for each set bit, the field's value coded by its role:
 *            ids (bio and request addresses): rank in the stream's
 *            move-to-front list of recent ones, or 0 and
 *            zigzag(id - most recent id); bytes (strings, sub-messages):
 *            0 absent, 1..16 rank in the slot's recent values + 1, 17 then
 *            length and bytes; other numbers: zigzag(value - prediction)
 * Predictions: the previous record's value of the slot (absent = 0);
 * ids: the most recent id; the lba/len of a dispatch and of a completion:
 * those of the io (or split child) of the record's first id, if it is
 * among the stream's recent ones (a completion's refId follows its
 * lba/len: a decoder reads their differences first and adds the
 * prediction once it has the id). All lists are updated after the
 * record, in field order.
 * Which fields have which role, and the sizes of the lists (delta.c), are
 * part of the format: changing them needs a new version in the header.
 * Versions: 1 predicts a completion's lba/len from the previous
 * completion (the collector wrote none then); 2 from its io.
 */
#ifndef IOTRACE_DELTA_H
#define IOTRACE_DELTA_H

#include <stddef.h>
#include <stdint.h>

#include "framing.h"

/*
 * A zstd skippable frame (magic 0x184D2A5E, little endian, then the
 * payload length) whose payload names the variant and its version. zstd
 * itself skips it; the parser reads it to know the frames hold delta
 * records.
 */
#define DELTA_VERSION 2
#define DELTA_STREAM_HEADER "\x5e\x2a\x4d\x18\x14\x00\x00\x00iotrace delta recs 2"
#define DELTA_STREAM_HEADER_LEN 28

/*
 * The version a stream header h[0..DELTA_STREAM_HEADER_LEN) names (its
 * last byte, '1'-'9'), which may be newer than DELTA_VERSION; 0 if h is
 * not a delta stream header.
 */
int delta__header_version(const uint8_t *h);

/* Larger messages are stored verbatim; a decoded record is never larger. */
#define DELTA_MSG_MAX 4096

/*
 * Room delta__encode needs for a message of len bytes. A record is mostly
 * far shorter than its message; the bound holds for any message: each
 * field costs at least 2 bytes in the message and at most 16 in a record.
 */
#define DELTA_ENCODED_MAX(len) \
	((size_t)(len) > DELTA_MSG_MAX ? (size_t)(len) + 12 : 8 * (size_t)(len) + 64)

/*
 * No record is longer (a verbatim FRAMING_RECORD_MAX message is the
 * longest): a decoder that has this many bytes and still wants more has
 * found damage.
 */
#define DELTA_RECORD_MAX (FRAMING_RECORD_MAX + 64)

struct delta;

/* One per stream, for either direction, of DELTA_VERSION. NULL on out of memory. */
struct delta *delta__new(void);

/* The same for a stream of an older version (1..DELTA_VERSION), to read it */
struct delta *delta__new_version(unsigned version);

/* Accepts NULL. */
void delta__free(struct delta *d);

/*
 * Appends the delta record of the OCTF message msg[0..len) to out, which
 * has room for DELTA_ENCODED_MAX(len) bytes; returns the bytes written.
 * Never fails: what it cannot encode (or an allocation failure) it stores
 * verbatim.
 */
size_t delta__encode(struct delta *d, const uint8_t *msg, size_t len, uint8_t *out);

/*
 * The most body fields a split holds: as many as a type has slots, so
 * that every decoded record fits one
 */
#define DELTA_SPLIT_MAX 64

/* A body field of a message: a number (non-zero), or p[0..v) if p is set */
struct delta_field {
	uint32_t field;
	uint64_t v;
	const uint8_t *p;
};

/* A message split into its fields by the code that wrote it (or read it) */
struct delta_split {
	uint64_t sid, ts;	/* the header's */
	uint32_t type;		/* the body's field number in Event */
	unsigned n;
	struct delta_field f[DELTA_SPLIT_MAX];	/* in the message's order */
};

/*
 * delta__encode() of the message whose header and body fields are exactly
 * those of s, given only as s: the same bytes, without the message to
 * read them from (it is built from s in the rare case that the record is
 * stored verbatim). For the collector, which writes the fields of its
 * messages and needs the messages themselves only for raw streams. The
 * message of s must fit DELTA_MSG_MAX (delta__split_len()); out has room
 * for DELTA_ENCODED_MAX of its length.
 */
size_t delta__encode_fields(struct delta *d, const struct delta_split *s, uint8_t *out);

/*
 * Decodes the record at in[0..avail):
 *   1        *msg, *len hold the OCTF message (valid until the next call;
 *            it may point into in), *used the bytes the record took
 *   0        in ends inside the record: call again with more bytes
 *   -EBADMSG the bytes are not a valid record for this stream's state
 *   -ENOMEM
 * The state changes only when a record is returned, so after 0 the same
 * bytes plus more can be passed again.
 */
int delta__decode(struct delta *d, const uint8_t *in, size_t avail, const uint8_t **msg,
		  size_t *len, size_t *used);

/*
 * delta__decode() that gives a coded record as its fields instead of
 * rebuilding its message, which most readers would only parse again:
 *   2        *s holds the record: numbers, and bytes valid until the next
 *            call (they may point into in); *used as for 1
 *   1        a verbatim record: *msg, *len, *used as delta__decode() gives
 *   0, -EBADMSG, -ENOMEM as delta__decode()
 * The same records, errors and state changes as delta__decode().
 */
#define DELTA_FIELDS 2
int delta__decode_split(struct delta *d, const uint8_t *in, size_t avail, struct delta_split *s,
			const uint8_t **msg, size_t *len, size_t *used);

/*
 * The OCTF message of a split into out, which has room for
 * delta__split_len(s) bytes (a split delta__decode_split() gave fits
 * DELTA_MSG_MAX): fields in s's order, numbers as varints (proto3's
 * form of every integer type but sint and fixed), so byte for byte what
 * delta__decode() gives for that record. Returns its length.
 */
size_t delta__split_msg(const struct delta_split *s, uint8_t *out);

/* The length of the message of s, without building it */
size_t delta__split_len(const struct delta_split *s);

#endif
