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
	meta.refid = q->io.id;
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
 * every block I/O passes here three times or more) are written straight
 * to the wire, without building protobuf-c messages and walking their
 * descriptors: the same bytes as octf__proto__trace__event__pack()
 * (fields in field-number order, proto3 zero values left out, bools as
 * 1, negative int32 as 10-byte varints), at a fraction of the cost.
 * tests/unit/test_encode.c checks them against the encode__ref_*()
 * versions above byte for byte.
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

/* int32 and enums: a negative value is sign-extended to 64 bits */
static inline uint8_t *wire_i32(uint8_t *p, uint32_t field, int32_t v)
{
	return wire_u64(p, field, (uint64_t)(int64_t)v);
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

/* Event.header (1) */
static inline uint8_t *wire_header(uint8_t *p, uint64_t sid, uint64_t ts)
{
	uint8_t *len_at;

	p = wire_begin(p, 1, &len_at);
	p = wire_u64(p, 1, sid);
	p = wire_u64(p, 2, ts);
	return wire_end(p, len_at);
}

/*
 * The header and the start of the body, field `type` of Event. The body's
 * fields are written by body_*(), which note them in s as well: the
 * compressed stream codes them from there without parsing the message.
 */
static inline uint8_t *body_begin(uint8_t *p, struct delta_split *s, uint32_t type, uint64_t sid,
				  uint64_t ts, uint8_t **len_at)
{
	s->sid = sid;
	s->ts = ts;
	s->type = type;
	s->n = 0;
	return wire_begin(wire_header(p, sid, ts), type, len_at);
}

/* no body has more than DELTA_SPLIT_MAX fields */
static inline uint8_t *body_u64(uint8_t *p, struct delta_split *s, uint32_t field, uint64_t v)
{
	if (!v)
		return p;
	s->f[s->n++] = (struct delta_field){ .field = field, .v = v };
	return wire_u64(p, field, v);
}

/* as wire_i32() */
static inline uint8_t *body_i32(uint8_t *p, struct delta_split *s, uint32_t field, int32_t v)
{
	return body_u64(p, s, field, (uint64_t)(int64_t)v);
}

/* true is 1 */
static inline uint8_t *body_bool(uint8_t *p, struct delta_split *s, uint32_t field, bool v)
{
	return body_u64(p, s, field, v);
}

/*
 * A length-delimited field of the body (bytes, a sub-message) begun with
 * wire_begin(). The pointer noted stays good: wire_end() of the body
 * itself would move it, but only a body of 128 bytes or more moves, and
 * the widest io is 127 (test_encode checks it).
 */
static inline uint8_t *body_end_len(uint8_t *p, struct delta_split *s, uint32_t field,
				    uint8_t *len_at)
{
	size_t len = (size_t)(p - len_at - 1);

	p = wire_end(p, len_at);
	s->f[s->n++] = (struct delta_field){ .field = field, .v = len, .p = p - len };
	return p;
}

/* EventIo fields 1..27 of a record, as fill_io() sets them */
static uint8_t *wire_io_fields(uint8_t *p, struct delta_split *s, const struct iotrace_event *e,
			       uint32_t io_class, bool metadata)
{
	p = body_u64(p, s, 1, e->sector);
	p = body_u64(p, s, 2, e->nr_sector);
	p = body_u64(p, s, 3, io_class);
	p = body_u64(p, s, 4, e->dev);
	p = body_i32(p, s, 5, octf_operation(e->op));
	p = body_bool(p, s, 6, (e->flags & IOTRACE_F_PREFLUSH) || e->op == IOTRACE_OP_FLUSH);
	p = body_bool(p, s, 7, e->flags & IOTRACE_F_FUA);
	p = body_u64(p, s, 8, e->write_hint);
	p = body_u64(p, s, 9, e->id);
	p = body_u64(p, s, 20, e->part);
	p = body_bool(p, s, 21, e->flags & IOTRACE_F_SYNC);
	p = body_bool(p, s, 22, metadata);
	p = body_bool(p, s, 23, e->flags & IOTRACE_F_RAHEAD);
	p = body_bool(p, s, 24, e->type == IOTRACE_EV_RQ_QUEUE);
	p = body_bool(p, s, 25, e->op == IOTRACE_OP_WRITE_ZEROES);
	p = body_u64(p, s, 26, e->pid);
	p = body_u64(p, s, 27, e->tid);
	return p;
}

size_t encode__event(const struct iotrace_event *e, uint8_t *buf, struct delta_split *s)
{
	uint8_t *p, *len_at;

	switch (e->type) {
	case IOTRACE_EV_QUEUE:
	case IOTRACE_EV_RQ_QUEUE:
		p = body_begin(buf, s, 2, e->sid, e->ts, &len_at);
		p = wire_io_fields(p, s, e, 0, e->flags & IOTRACE_F_META);
		break;
	case IOTRACE_EV_COMPLETE:
	case IOTRACE_EV_RQ_COMPLETE:
		p = body_begin(buf, s, 5, e->sid, e->ts, &len_at);
		p = body_u64(p, s, 1, e->sector);
		p = body_u64(p, s, 2, e->nr_sector);
		p = body_bool(p, s, 3, e->error != 0);
		p = body_u64(p, s, 4, e->dev);
		p = body_u64(p, s, 5, e->id);
		p = body_i32(p, s, 20, e->error);
		break;
	case IOTRACE_EV_SPLIT:
		p = body_begin(buf, s, 20, e->sid, e->ts, &len_at);
		p = body_u64(p, s, 1, e->id);
		p = body_u64(p, s, 2, e->ref);
		p = body_u64(p, s, 3, e->dev);
		p = body_u64(p, s, 4, e->sector);
		p = body_u64(p, s, 5, e->nr_sector);
		p = body_u64(p, s, 6, e->aux64);
		break;
	case IOTRACE_EV_ISSUE:
		p = body_begin(buf, s, 21, e->sid, e->ts, &len_at);
		p = body_u64(p, s, 1, e->id);
		p = body_u64(p, s, 2, e->dev);
		p = body_u64(p, s, 3, e->sector);
		p = body_u64(p, s, 4, e->nr_sector);
		p = body_u64(p, s, 5, e->aux);
		p = body_u64(p, s, 6, e->ref);
		break;
	default:
		return 0;
	}
	return (size_t)(wire_end(p, len_at) - buf);
}

size_t encode__io(const struct iotrace_queue_event *q, uint8_t *buf, struct delta_split *s)
{
	size_t comm_len = strnlen(q->comm, IOTRACE_COMM_LEN);
	uint8_t *p, *len_at, *comm_at;

	p = body_begin(buf, s, 2, q->io.sid, q->io.ts, &len_at);
	p = wire_io_fields(p, s, &q->io, dss_class(q),
			   q->io.flags & (IOTRACE_F_META | IOTRACE_F_FSMETA));
	p = body_u64(p, s, 28, q->cgroup);
	if (comm_len) {
		p = wire_begin(p, 29, &comm_at);
		memcpy(p, q->comm, comm_len);
		p = body_end_len(p + comm_len, s, 29, comm_at);
	}
	p = body_bool(p, s, 30, q->io.flags & IOTRACE_F_DIRECT);
	p = body_u64(p, s, 31, q->vfs_call);
	return (size_t)(wire_end(p, len_at) - buf);
}

size_t encode__fs_meta(const struct iotrace_queue_event *q, uint8_t *buf, struct delta_split *s)
{
	uint8_t *p, *meta_at, *fid_at, *ts_at;

	if (q->file_kind != IOTRACE_FILE_REG || !q->file.ino)
		return 0;
	p = body_begin(buf, s, 4, q->io.sid + 1, q->io.ts, &meta_at);
	p = body_u64(p, s, 1, q->io.id);
	p = wire_begin(p, 2, &fid_at);
	p = wire_u64(p, 1, q->file.dev);
	p = wire_u64(p, 2, q->file.ino);
	p = wire_begin(p, 3, &ts_at);
	p = wire_u64(p, 1, (uint64_t)q->file.ctime_sec);
	p = wire_i32(p, 2, (int32_t)q->file.ctime_nsec);
	p = wire_end(p, ts_at);
	p = body_end_len(p, s, 2, fid_at);
	p = body_u64(p, s, 3, q->file_offset);
	p = body_u64(p, s, 4, q->file_size);
	return (size_t)(wire_end(p, meta_at) - buf);
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

size_t encode__vfs(const struct iotrace_vfs_event *v, uint8_t *buf)
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
