/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Turns kernel event records (iotrace_event.h) and device descriptions
 * into packed octf.proto.trace.Event messages, and the hot events into
 * their fields as well, for compressed streams, which need no message.
 * No allocation: messages are built on the stack and packed into the
 * caller's buffer.
 */
#ifndef IOTRACE_ENCODE_H
#define IOTRACE_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "iotrace_event.h"

/* delta.h: the fields of a message, as the compressed stream takes them */
struct delta_split;

/* Room for the largest message we encode (a device description with a long model). */
#define ENCODE_MAX 512

/*
 * The hot events, one or more per block I/O: their fields into s (struct
 * delta_split), which a compressed stream codes, and with pack also
 * their message into buf. buf has ENCODE_MAX bytes, and s's bytes values
 * may point into it (and into the record). Return the message's length
 * if packed, else ENCODE_MAX (the most it can be); 0 (s undefined) when
 * the record has no such event.
 */

/* The event of record e: 0 for a record of unknown type */
size_t encode__event(const struct iotrace_event *e, struct delta_split *s, uint8_t *buf,
		     bool pack);

/*
 * The io event of a QUEUE record with its process fields, the flags its
 * first page implies and the DSS ioClass of Open-CAS.
 */
size_t encode__io(const struct iotrace_queue_event *q, struct delta_split *s, uint8_t *buf,
		  bool pack);

/*
 * The filesystemMeta event of a QUEUE record of a regular file (sid = io
 * sid + 1, the kernel reserved it); 0 when the record names no regular
 * file.
 */
size_t encode__fs_meta(const struct iotrace_queue_event *q, struct delta_split *s, uint8_t *buf,
		       bool pack);

/*
 * The same events packed by protobuf-c's generated pack: the tests hold
 * the messages above to them, byte for byte.
 */
size_t encode__ref_event(const struct iotrace_event *e, uint8_t *buf);
size_t encode__ref_io(const struct iotrace_queue_event *q, uint8_t *buf);
size_t encode__ref_fs_meta(const struct iotrace_queue_event *q, uint8_t *buf);

/* Packs the filesystemFileName event of a FILE_NAME record. */
size_t encode__file_name(const struct iotrace_name_event *n, uint8_t *buf);

/*
 * The vfs event of a VFS record, as the hot events (--vfs makes one per
 * traced call); 0 for a call this collector does not know.
 */
size_t encode__vfs(const struct iotrace_vfs_event *v, struct delta_split *s, uint8_t *buf,
		   bool pack);
/* The same packed by protobuf-c, for the tests */
size_t encode__ref_vfs(const struct iotrace_vfs_event *v, uint8_t *buf);

/* Packs the filesystemFileEvent (Create, Delete, MoveTo, MoveFrom) of an FS record. */
size_t encode__fs_event(const struct iotrace_fs_event *f, uint8_t *buf);

/* Packs a deviceDescription event for d. */
size_t encode__device(const struct device_info *d, uint64_t sid, uint64_t ts, uint8_t *buf);

#endif
