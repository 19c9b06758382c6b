// SPDX-License-Identifier: BSD-3-Clause
#include <stdbool.h>
#include <string.h>

#include "delta.h"
#include "encode.h"
#include "trace.pb-c.h"

static Octf__Proto__Trace__IoType octf_operation(uint8_t op)
{
	switch (op) {
	case IOTRACE_OP_READ:
		return OCTF__PROTO__TRACE__IO_TYPE__Read;
	case IOTRACE_OP_DISCARD:
		return OCTF__PROTO__TRACE__IO_TYPE__Discard;
	/*
	 * OCTF has no flush or write-zeroes operation: Open-CAS reports a
	 * flush as a Write with the flush flag, and so do we.
	 */
	case IOTRACE_OP_WRITE:
	case IOTRACE_OP_FLUSH:
	case IOTRACE_OP_WRITE_ZEROES:
		return OCTF__PROTO__TRACE__IO_TYPE__Write;
	default:
		return OCTF__PROTO__TRACE__IO_TYPE__UnknownIoType;
	}
}

static void fill_io(Octf__Proto__Trace__EventIo *io, const struct iotrace_event *e)
{
	io->lba = e->sector;
	io->len = e->nr_sector;
	io->deviceid = e->dev;
	io->operation = octf_operation(e->op);
	io->flush = (e->flags & IOTRACE_F_PREFLUSH) || e->op == IOTRACE_OP_FLUSH;
	io->fua = !!(e->flags & IOTRACE_F_FUA);
	io->writehint = e->write_hint;
	io->id = e->id;
	io->partitionid = e->part;
	io->sync = !!(e->flags & IOTRACE_F_SYNC);
	io->metadata = !!(e->flags & IOTRACE_F_META);
	io->readahead = !!(e->flags & IOTRACE_F_RAHEAD);
	io->requestonly = e->type == IOTRACE_EV_RQ_QUEUE;
	io->writezeroes = e->op == IOTRACE_OP_WRITE_ZEROES;
	io->pid = e->pid;
	io->tid = e->tid;
}

size_t encode__ref_event(const struct iotrace_event *e, uint8_t *buf)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__EventIoCompletion cmpl = OCTF__PROTO__TRACE__EVENT_IO_COMPLETION__INIT;
	Octf__Proto__Trace__EventIoSplit split = OCTF__PROTO__TRACE__EVENT_IO_SPLIT__INIT;
	Octf__Proto__Trace__EventIoDispatch disp = OCTF__PROTO__TRACE__EVENT_IO_DISPATCH__INIT;

	hdr.sid = e->sid;
	hdr.timestamp = e->ts;
	ev.header = &hdr;

	switch (e->type) {
	case IOTRACE_EV_QUEUE:
	case IOTRACE_EV_RQ_QUEUE:
		fill_io(&io, e);
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
		ev.io = &io;
		break;
	case IOTRACE_EV_COMPLETE:
	case IOTRACE_EV_RQ_COMPLETE:
		cmpl.lba = e->sector;
		cmpl.len = e->nr_sector;
		cmpl.error = e->error != 0;
		cmpl.status = e->error;
		cmpl.deviceid = e->dev;
		cmpl.refid = e->id;
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION;
		ev.iocompletion = &cmpl;
		break;
	case IOTRACE_EV_SPLIT:
		split.id = e->id;
		split.parentid = e->ref;
		split.deviceid = e->dev;
		split.lba = e->sector;
		split.len = e->nr_sector;
		split.parentlba = e->aux64;
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_SPLIT;
		ev.iosplit = &split;
		break;
	case IOTRACE_EV_ISSUE:
		disp.id = e->id;
		disp.deviceid = e->dev;
		disp.lba = e->sector;
		disp.len = e->nr_sector;
		disp.biocount = e->aux;
		disp.requestid = e->ref;
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_DISPATCH;
		ev.iodispatch = &disp;
		break;
	default:
		return 0;
	}
	return octf__proto__trace__event__pack(&ev, buf);
}

/*
 * Open-CAS io classes (Differentiated Storage Services numbering, as its
 * kernel module assigns them): metadata 1, directory 7, regular file
 * 11 (<= 4 KiB) .. 20 (<= 1 GiB) by file size in steps of 4x, 21 larger,
 * direct 22, other files 23; 0 = unclassified.
 */
enum {
	DSS_UNCLASSIFIED = 0,
	DSS_METADATA = 1,
	DSS_DATA_DIR = 7,
	DSS_DATA_FILE_4KB = 11,
	DSS_DATA_FILE_BULK = 21,
	DSS_DATA_DIRECT = 22,
	DSS_MISC = 23,
};

static uint32_t dss_class(const struct iotrace_queue_event *q)
{
	uint64_t bytes, x;
	uint32_t c;

	switch (q->file_kind) {
	case IOTRACE_FILE_REG:
		/* ceil(log4(size)) above 4 KiB, as upstream's bit trick */
		bytes = q->file_size << 9;
		x = (bytes - 1) | 4095;
		c = (63 - (uint32_t)__builtin_clzll(x)) / 2 + 6;
		return c > DSS_DATA_FILE_BULK ? DSS_DATA_FILE_BULK : c;
	case IOTRACE_FILE_DIR:
		return DSS_DATA_DIR;
	case IOTRACE_FILE_BDEV:
		return DSS_METADATA;
	case IOTRACE_FILE_OTHER:
		return DSS_MISC;
	default:
		break;
	}
	if (q->io.flags & IOTRACE_F_DIRECT)
		return DSS_DATA_DIRECT;
	if (q->io.flags & IOTRACE_F_FSMETA)
		return DSS_METADATA;
	return DSS_UNCLASSIFIED;
}

size_t encode__ref_io(const struct iotrace_queue_event *q, uint8_t *buf)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	char comm[IOTRACE_COMM_LEN + 1];

	hdr.sid = q->io.sid;
	hdr.timestamp = q->io.ts;
	fill_io(&io, &q->io);
	io.metadata = !!(q->io.flags & (IOTRACE_F_META | IOTRACE_F_FSMETA));
	io.direct = !!(q->io.flags & IOTRACE_F_DIRECT);
	io.ioclass = dss_class(q);
	io.cgroupid = q->cgroup;
	io.vfscallid = q->vfs_call;
	memcpy(comm, q->comm, IOTRACE_COMM_LEN);
	comm[IOTRACE_COMM_LEN] = '\0';
	io.comm = comm;
	ev.header = &hdr;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
	ev.io = &io;
	return octf__proto__trace__event__pack(&ev, buf);
}

static void fill_file_id(Octf__Proto__Trace__FileId *fid, Octf__Proto__Trace__Timestamp *ts,
			 const struct iotrace_file_id *f)
{
	fid->partitionid = f->dev;
	fid->id = f->ino;
	ts->seconds = f->ctime_sec;
	ts->nanos = (int32_t)f->ctime_nsec;
	fid->creationdate = ts;
}

size_t encode__ref_fs_meta(const struct iotrace_queue_event *q, uint8_t *buf)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIoFilesystemMeta meta =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_META__INIT;
	Octf__Proto__Trace__FileId fid = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__Timestamp ts = OCTF__PROTO__TRACE__TIMESTAMP__INIT;

	if (q->file_kind != IOTRACE_FILE_REG || !q->file.ino)
		return 0;
	hdr.sid = q->io.sid + 1;
	hdr.timestamp = q->io.ts;
	meta.refsid = q->io.id;
	fill_file_id(&fid, &ts, &q->file);
	meta.fileid = &fid;
	meta.fileoffset = q->file_offset;
	meta.filesize = q->file_size;
	ev.header = &hdr;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_META;
	ev.filesystemmeta = &meta;
	return octf__proto__trace__event__pack(&ev, buf);
}

/*
 * The hot events (io, ioDispatch, ioCompletion, ioSplit, filesystemMeta:
 * every block I/O passes here twice or more) are not built as protobuf-c
 * messages. Their fields are noted in a struct delta_split, which is what
 * a compressed stream codes (delta__encode_fields()); for a raw stream
 * they are also packed as they are noted, straight to the wire: the same
 * bytes as octf__proto__trace__event__pack() (fields in field-number
 * order, proto3 zero values left out, bools as 1, negative int32 as
 * 10-byte varints), at a fraction of the cost. tests/unit/test_encode.c
 * checks them against the encode__ref_*() versions above byte for byte,
 * and the fields against the message.
 */
enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static inline uint8_t *wire_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* field numbers up to 2047: tags of one or two bytes */
static inline uint8_t *wire_tag(uint8_t *p, uint32_t field, uint32_t wire)
{
	return wire_varint(p, field << 3 | wire);
}

static inline uint8_t *wire_u64(uint8_t *p, uint32_t field, uint64_t v)
{
	if (!v)
		return p;
	return wire_varint(wire_tag(p, field, WIRE_VARINT), v);
}

/*
 * A sub-message: the tag, one byte kept for its length, then the body;
 * wire_end() fills the length in, moving the body up by a byte in the
 * rare case that it is 128 bytes or longer.
 */
static inline uint8_t *wire_begin(uint8_t *p, uint32_t field, uint8_t **len_at)
{
	p = wire_tag(p, field, WIRE_LEN);
	*len_at = p;
	return p + 1;
}

static inline uint8_t *wire_end(uint8_t *p, uint8_t *len_at)
{
	size_t len = (size_t)(p - len_at - 1);

	if (len < 0x80) {
		*len_at = (uint8_t)len;
		return p;
	}
	/* bodies here are far below 16 KiB: two length bytes at most */
	memmove(len_at + 2, len_at + 1, len);
	len_at[0] = (uint8_t)len | 0x80;
	len_at[1] = (uint8_t)(len >> 7);
	return p + 1;
}

/* A hot event being encoded: its fields into s, and its message at p unless p is NULL */
struct hot {
	struct delta_split *s;
	uint8_t *buf;		/* the caller's ENCODE_MAX bytes */
	uint8_t *p;
	uint8_t *len_at;	/* the body's length byte */
};

/* The header, and the start of the body, field `type` of Event */
static inline void hot_begin(struct hot *h, uint32_t type, uint64_t sid, uint64_t ts)
{
	uint8_t *len_at;

	h->s->sid = sid;
	h->s->ts = ts;
	h->s->type = type;
	h->s->n = 0;
	if (!h->p)
		return;
	h->p = wire_begin(h->buf, 1, &len_at);
	h->p = wire_u64(h->p, 1, sid);
	h->p = wire_u64(h->p, 2, ts);
	h->p = wire_begin(wire_end(h->p, len_at), type, &h->len_at);
}

/* The message's length, or without one the most it can be */
static inline size_t hot_end(struct hot *h)
{
	return h->p ? (size_t)(wire_end(h->p, h->len_at) - h->buf) : ENCODE_MAX;
}

/* no body has more than DELTA_SPLIT_MAX fields */
static inline void body_u64(struct hot *h, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	h->s->f[h->s->n++] = (struct delta_field){ .field = field, .v = v };
	if (h->p)
		h->p = wire_u64(h->p, field, v);
}

/* int32 and enums: a negative value is sign-extended to 64 bits */
static inline void body_i32(struct hot *h, uint32_t field, int32_t v)
{
	body_u64(h, field, (uint64_t)(int64_t)v);
}

/* true is 1 */
static inline void body_bool(struct hot *h, uint32_t field, bool v)
{
	body_u64(h, field, v);
}

/* A length-delimited field: the bytes b[0..len), which must outlive s */
static inline void body_bytes(struct hot *h, uint32_t field, const void *b, size_t len)
{
	if (!len)
		return;
	h->s->f[h->s->n++] = (struct delta_field){ .field = field, .v = len, .p = b };
	if (!h->p)
		return;
	h->p = wire_varint(wire_tag(h->p, field, WIRE_LEN), len);
	memcpy(h->p, b, len);
	h->p += len;
}

/*
 * The encoders below are built twice, packing and not (hot_*() and
 * body_*() test h->p for every field: a constant in each copy).
 */
#define HOT static inline __attribute__((always_inline))

/* EventIo fields 1..27 of a record, as fill_io() sets them */
HOT void io_fields(struct hot *h, const struct iotrace_event *e, uint32_t io_class,
		      bool metadata)
{
	body_u64(h, 1, e->sector);
	body_u64(h, 2, e->nr_sector);
	body_u64(h, 3, io_class);
	body_u64(h, 4, e->dev);
	body_i32(h, 5, octf_operation(e->op));
	body_bool(h, 6, (e->flags & IOTRACE_F_PREFLUSH) || e->op == IOTRACE_OP_FLUSH);
	body_bool(h, 7, e->flags & IOTRACE_F_FUA);
	body_u64(h, 8, e->write_hint);
	body_u64(h, 9, e->id);
	body_u64(h, 20, e->part);
	body_bool(h, 21, e->flags & IOTRACE_F_SYNC);
	body_bool(h, 22, metadata);
	body_bool(h, 23, e->flags & IOTRACE_F_RAHEAD);
	body_bool(h, 24, e->type == IOTRACE_EV_RQ_QUEUE);
	body_bool(h, 25, e->op == IOTRACE_OP_WRITE_ZEROES);
	body_u64(h, 26, e->pid);
	body_u64(h, 27, e->tid);
}

HOT size_t event_hot(const struct iotrace_event *e, struct delta_split *s, uint8_t *buf,
		     bool pack)
{
	struct hot h = { .s = s, .buf = buf, .p = pack ? buf : NULL };

	switch (e->type) {
	case IOTRACE_EV_QUEUE:
	case IOTRACE_EV_RQ_QUEUE:
		hot_begin(&h, 2, e->sid, e->ts);
		io_fields(&h, e, 0, e->flags & IOTRACE_F_META);
		break;
	case IOTRACE_EV_COMPLETE:
	case IOTRACE_EV_RQ_COMPLETE:
		hot_begin(&h, 5, e->sid, e->ts);
		body_u64(&h, 1, e->sector);
		body_u64(&h, 2, e->nr_sector);
		body_bool(&h, 3, e->error != 0);
		body_u64(&h, 4, e->dev);
		body_u64(&h, 5, e->id);
		body_i32(&h, 20, e->error);
		break;
	case IOTRACE_EV_SPLIT:
		hot_begin(&h, 20, e->sid, e->ts);
		body_u64(&h, 1, e->id);
		body_u64(&h, 2, e->ref);
		body_u64(&h, 3, e->dev);
		body_u64(&h, 4, e->sector);
		body_u64(&h, 5, e->nr_sector);
		body_u64(&h, 6, e->aux64);
		break;
	case IOTRACE_EV_ISSUE:
		hot_begin(&h, 21, e->sid, e->ts);
		body_u64(&h, 1, e->id);
		body_u64(&h, 2, e->dev);
		body_u64(&h, 3, e->sector);
		body_u64(&h, 4, e->nr_sector);
		body_u64(&h, 5, e->aux);
		body_u64(&h, 6, e->ref);
		break;
	default:
		return 0;
	}
	return hot_end(&h);
}

HOT size_t io_hot(const struct iotrace_queue_event *q, struct delta_split *s, uint8_t *buf,
		  bool pack)
{
	struct hot h = { .s = s, .buf = buf, .p = pack ? buf : NULL };

	hot_begin(&h, 2, q->io.sid, q->io.ts);
	io_fields(&h, &q->io, dss_class(q), q->io.flags & (IOTRACE_F_META | IOTRACE_F_FSMETA));
	body_u64(&h, 28, q->cgroup);
	body_bytes(&h, 29, q->comm, strnlen(q->comm, IOTRACE_COMM_LEN));
	body_bool(&h, 30, q->io.flags & IOTRACE_F_DIRECT);
	body_u64(&h, 31, q->vfs_call);
	return hot_end(&h);
}

/* The most bytes a FileId takes (its Timestamp 22 at most: one length byte) */
#define FILE_ID_MAX 48

/*
 * A FileId's message, as fill_file_id() makes it, at fid: its length.
 * The caller's fid is past the message it builds in the same buffer, for
 * the split to point to.
 */
static inline size_t file_id_msg(uint8_t *fid, const struct iotrace_file_id *f)
{
	uint8_t *p = fid, *ts_at;

	p = wire_u64(p, 1, f->dev);
	p = wire_u64(p, 2, f->ino);
	p = wire_begin(p, 3, &ts_at);
	p = wire_u64(p, 1, (uint64_t)f->ctime_sec);
	p = wire_u64(p, 2, (uint64_t)(int64_t)(int32_t)f->ctime_nsec);
	return (size_t)(wire_end(p, ts_at) - fid);
}

HOT size_t fs_meta_hot(const struct iotrace_queue_event *q, struct delta_split *s, uint8_t *buf,
		       bool pack)
{
	struct hot h = { .s = s, .buf = buf, .p = pack ? buf : NULL };
	/* past the message (about 100 bytes at most) */
	uint8_t *fid = buf + ENCODE_MAX - FILE_ID_MAX;

	if (q->file_kind != IOTRACE_FILE_REG || !q->file.ino)
		return 0;
	hot_begin(&h, 4, q->io.sid + 1, q->io.ts);
	body_u64(&h, 1, q->io.id);
	body_bytes(&h, 2, fid, file_id_msg(fid, &q->file));
	body_u64(&h, 3, q->file_offset);
	body_u64(&h, 4, q->file_size);
	return hot_end(&h);
}

/*
 * EventVfs, as encode__ref_vfs() fills it. The two FileIds go past the
 * message, which is 300 bytes at most.
 */
HOT size_t vfs_hot(const struct iotrace_vfs_event *v, struct delta_split *s, uint8_t *buf,
		   bool pack)
{
	struct hot h = { .s = s, .buf = buf, .p = pack ? buf : NULL };
	uint8_t *fid = buf + ENCODE_MAX - FILE_ID_MAX, *fid2 = fid - FILE_ID_MAX;

	if (!v->call || v->call >= IOTRACE_VFS_NR_CALLS)
		return 0;
	hot_begin(&h, 22, v->hdr.sid, v->hdr.ts);
	body_u64(&h, 1, v->call_id);
	body_i32(&h, 2, (int32_t)v->call);
	body_u64(&h, 3, v->hdr.pid);
	body_u64(&h, 4, v->hdr.tid);
	body_i32(&h, 5, v->fd);
	if (v->file.ino)
		body_bytes(&h, 6, fid, file_id_msg(fid, &v->file));
	body_u64(&h, 7, (uint64_t)v->offset);
	body_u64(&h, 8, v->size);
	body_u64(&h, 9, (uint64_t)v->result);
	body_u64(&h, 10, v->hdr.ts > v->start ? v->hdr.ts - v->start : 0);
	body_u64(&h, 11, v->hdr.dev);
	body_u64(&h, 12, v->cgroup);
	body_bytes(&h, 13, v->comm, strnlen(v->comm, IOTRACE_COMM_LEN));
	body_u64(&h, 14, v->flags);
	body_bool(&h, 15, v->created);
	if (v->fd2 >= 0) {
		body_i32(&h, 16, v->fd2);
		if (v->file2.ino)
			body_bytes(&h, 17, fid2, file_id_msg(fid2, &v->file2));
		body_u64(&h, 18, (uint64_t)v->offset2);
	}
	if (v->call >= IOTRACE_VFS_URING_READ)
		body_u64(&h, 19, v->opcode);
	return hot_end(&h);
}

size_t encode__event(const struct iotrace_event *e, struct delta_split *s, uint8_t *buf,
		     bool pack)
{
	return pack ? event_hot(e, s, buf, true) : event_hot(e, s, buf, false);
}

size_t encode__io(const struct iotrace_queue_event *q, struct delta_split *s, uint8_t *buf,
		  bool pack)
{
	return pack ? io_hot(q, s, buf, true) : io_hot(q, s, buf, false);
}

size_t encode__fs_meta(const struct iotrace_queue_event *q, struct delta_split *s, uint8_t *buf,
		       bool pack)
{
	return pack ? fs_meta_hot(q, s, buf, true) : fs_meta_hot(q, s, buf, false);
}

size_t encode__vfs(const struct iotrace_vfs_event *v, struct delta_split *s, uint8_t *buf,
		   bool pack)
{
	return pack ? vfs_hot(v, s, buf, true) : vfs_hot(v, s, buf, false);
}

size_t encode__file_name(const struct iotrace_name_event *n, uint8_t *buf)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIoFilesystemFileName fn =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_FILE_NAME__INIT;
	Octf__Proto__Trace__FileId fid = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__FileId pid = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__Timestamp ts = OCTF__PROTO__TRACE__TIMESTAMP__INIT;
	Octf__Proto__Trace__Timestamp pts = OCTF__PROTO__TRACE__TIMESTAMP__INIT;
	char name[IOTRACE_NAME_LEN];

	hdr.sid = n->hdr.sid;
	hdr.timestamp = n->hdr.ts;
	fill_file_id(&fid, &ts, &n->file);
	fill_file_id(&pid, &pts, &n->parent);
	memcpy(name, n->name, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	/* protobuf strings are UTF-8; names are bytes: pass them through as they are */
	fn.fileid = &fid;
	fn.fileparentid = &pid;
	fn.filename = name;
	ev.header = &hdr;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_NAME;
	ev.filesystemfilename = &fn;
	return octf__proto__trace__event__pack(&ev, buf);
}

size_t encode__ref_vfs(const struct iotrace_vfs_event *v, uint8_t *buf)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventVfs vfs = OCTF__PROTO__TRACE__EVENT_VFS__INIT;
	Octf__Proto__Trace__FileId fid = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__FileId fid2 = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__Timestamp ts = OCTF__PROTO__TRACE__TIMESTAMP__INIT;
	Octf__Proto__Trace__Timestamp ts2 = OCTF__PROTO__TRACE__TIMESTAMP__INIT;
	char comm[IOTRACE_COMM_LEN + 1];

	if (!v->call || v->call >= IOTRACE_VFS_NR_CALLS)
		return 0;
	hdr.sid = v->hdr.sid;
	hdr.timestamp = v->hdr.ts;
	vfs.id = v->call_id;
	/* enum iotrace_vfs_call is numbered as VfsCall */
	vfs.call = (Octf__Proto__Trace__VfsCall)v->call;
	vfs.pid = v->hdr.pid;
	vfs.tid = v->hdr.tid;
	vfs.fd = v->fd;
	if (v->file.ino) {
		fill_file_id(&fid, &ts, &v->file);
		vfs.fileid = &fid;
	}
	vfs.offset = v->offset;
	vfs.size = v->size;
	vfs.result = v->result;
	vfs.duration = v->hdr.ts > v->start ? v->hdr.ts - v->start : 0;
	vfs.deviceid = v->hdr.dev;
	vfs.cgroupid = v->cgroup;
	memcpy(comm, v->comm, IOTRACE_COMM_LEN);
	comm[IOTRACE_COMM_LEN] = '\0';
	vfs.comm = comm;
	vfs.flags = v->flags;
	vfs.created = v->created;
	if (v->fd2 >= 0) {
		vfs.fd2 = v->fd2;
		vfs.offset2 = v->offset2;
		if (v->file2.ino) {
			fill_file_id(&fid2, &ts2, &v->file2);
			vfs.fileid2 = &fid2;
		}
	}
	if (v->call >= IOTRACE_VFS_URING_READ)
		vfs.uringopcode = v->opcode;
	ev.header = &hdr;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_VFS;
	ev.vfs = &vfs;
	return octf__proto__trace__event__pack(&ev, buf);
}

size_t encode__fs_event(const struct iotrace_fs_event *f, uint8_t *buf)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIoFilesystemFileEvent fe =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_FILE_EVENT__INIT;
	Octf__Proto__Trace__FileId fid = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__Timestamp ts = OCTF__PROTO__TRACE__TIMESTAMP__INIT;

	if (f->kind < IOTRACE_FS_CREATE || f->kind > IOTRACE_FS_MOVE_FROM)
		return 0;
	hdr.sid = f->hdr.sid;
	hdr.timestamp = f->hdr.ts;
	fill_file_id(&fid, &ts, &f->file);
	fe.fileid = &fid;
	/* enum iotrace_fs_event_kind is numbered as FsEventType */
	fe.fseventtype = (Octf__Proto__Trace__FsEventType)f->kind;
	ev.header = &hdr;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_EVENT;
	ev.filesystemfileevent = &fe;
	return octf__proto__trace__event__pack(&ev, buf);
}

size_t encode__device(const struct device_info *d, uint64_t sid, uint64_t ts, uint8_t *buf)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventDeviceDescription desc =
		OCTF__PROTO__TRACE__EVENT_DEVICE_DESCRIPTION__INIT;

	hdr.sid = sid;
	hdr.timestamp = ts;
	desc.id = d->dev;
	/* the const-less protobuf-c string fields are only read by pack */
	desc.name = (char *)d->name;
	desc.size = d->size;
	desc.model = (char *)d->model;
	ev.header = &hdr;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_DEVICE_DESCRIPTION;
	ev.devicedescription = &desc;
	return octf__proto__trace__event__pack(&ev, buf);
}
