/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OCTF record framing: every record in a trace stream is a protobuf
 * `octf.proto.trace.Event` preceded by its length as a base-128 varint
 * (protobuf's writeDelimitedTo). Shared by the collector (writing) and the
 * parser (reading).
 */
#ifndef IOTRACE_FRAMING_H
#define IOTRACE_FRAMING_H

#include <stddef.h>
#include <stdint.h>

/* Longest varint for a 64-bit value. */
#define FRAMING_VARINT_MAX 10

/*
 * Largest record we accept. Real events are well under 1 KiB; a length
 * above this means the stream is corrupted, not that a huge event exists.
 */
#define FRAMING_RECORD_MAX (1u << 20)

/* Writes v as a varint to buf (FRAMING_VARINT_MAX bytes room); returns bytes used. */
size_t framing__put_varint(uint8_t *buf, uint64_t v);

/*
 * Reads a varint from buf[0..avail). Returns 1 and sets *v, *used on
 * success; 0 if avail ends inside the varint (need more bytes); -EBADMSG if
 * it is longer than FRAMING_VARINT_MAX bytes or overflows 64 bits.
 */
int framing__get_varint(const uint8_t *buf, size_t avail, uint64_t *v, size_t *used);

#endif
