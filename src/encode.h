/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Turns kernel event records (iotrace_event.h) and device descriptions
 * into packed octf.proto.trace.Event messages. No allocation: messages are
 * built on the stack and packed into the caller's buffer.
 */
#ifndef IOTRACE_ENCODE_H
#define IOTRACE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "iotrace_event.h"

/* delta.h: the fields of a message, as the compressed stream takes them */
struct delta_split;

/* Room for the largest message we encode (a device description with a long model). */
#define ENCODE_MAX 512

/*
 * Packs e into buf (ENCODE_MAX bytes) and its fields into s, for
 * delta__encode_split(). Returns the length, or 0 (s undefined) for a
 * record of unknown type (a newer BPF object than this collector).
 */
size_t encode__event(const struct iotrace_event *e, uint8_t *buf, struct delta_split *s);

/*
 * Packs the io event of a QUEUE record with its process fields, the
 * flags its first page implies and the DSS ioClass of Open-CAS; its
 * fields into s.
 */
size_t encode__io(const struct iotrace_queue_event *q, uint8_t *buf, struct delta_split *s);

/*
 * Packs the filesystemMeta event of a QUEUE record of a regular file
 * (sid = io sid + 1, the kernel reserved it), its fields into s. Returns
 * 0 when the record names no regular file.
 */
size_t encode__fs_meta(const struct iotrace_queue_event *q, uint8_t *buf, struct delta_split *s);

/*
 * encode__event(), encode__io() and encode__fs_meta() write the wire
 * format directly (they run for every block I/O). These do the same with
 * protobuf-c's generated pack; the tests hold the two to the same bytes,
 * and the split to the message.
 */
size_t encode__ref_event(const struct iotrace_event *e, uint8_t *buf);
size_t encode__ref_io(const struct iotrace_queue_event *q, uint8_t *buf);
size_t encode__ref_fs_meta(const struct iotrace_queue_event *q, uint8_t *buf);

/* Packs the filesystemFileName event of a FILE_NAME record. */
size_t encode__file_name(const struct iotrace_name_event *n, uint8_t *buf);

/*
 * Packs the vfs event of a VFS record. Returns 0 for a call this
 * collector does not know.
 */
size_t encode__vfs(const struct iotrace_vfs_event *v, uint8_t *buf);

/* Packs the filesystemFileEvent (Create, Delete, MoveTo, MoveFrom) of an FS record. */
size_t encode__fs_event(const struct iotrace_fs_event *f, uint8_t *buf);

/* Packs a deviceDescription event for d. */
size_t encode__device(const struct device_info *d, uint64_t sid, uint64_t ts, uint8_t *buf);

#endif
