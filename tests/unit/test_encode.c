// SPDX-License-Identifier: BSD-3-Clause
/*
 * Kernel records to OCTF Events: golden wire bytes (computed by hand from
 * the protobuf encoding rules and the field numbers of the Open-CAS
 * sample trace), a round trip through the generated decoder, and the
 * fields the direct encoders note down for the compressed stream.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "delta.h"
#include "encode.h"
#include "trace.pb-c.h"

/* the fields the hot encoders note down besides the message */
static struct delta_split split;

/*
 * The message of e packed (0: e has none); the fields noted without
 * packing are the same, and are that message.
 */
static size_t msg_of(size_t (*enc)(const void *, struct delta_split *, uint8_t *, bool),
		     const void *rec, uint8_t *buf)
{
	uint8_t alone[ENCODE_MAX], again[ENCODE_MAX];
	struct delta_split unpacked;
	size_t len = enc(rec, &split, buf, true), k;

	assert_int_equal(enc(rec, &unpacked, alone, false), len ? ENCODE_MAX : 0);
	if (!len)
		return 0;
	assert_int_equal(unpacked.n, split.n);
	assert_int_equal(delta__split_len(&unpacked), len);
	assert_int_equal(delta__split_msg(&unpacked, again), len);
	assert_memory_equal(again, buf, len);
	for (k = 0; k < split.n; k++)
		assert_int_equal(unpacked.f[k].field, split.f[k].field);
	return len;
}

static size_t event_enc(const void *e, struct delta_split *s, uint8_t *buf, bool pack)
{
	return encode__event(e, s, buf, pack);
}

static size_t io_enc(const void *q, struct delta_split *s, uint8_t *buf, bool pack)
{
	return encode__io(q, s, buf, pack);
}

static size_t fs_meta_enc(const void *q, struct delta_split *s, uint8_t *buf, bool pack)
{
	return encode__fs_meta(q, s, buf, pack);
}

static size_t vfs_enc(const void *v, struct delta_split *s, uint8_t *buf, bool pack)
{
	return encode__vfs(v, s, buf, pack);
}

/* The vfs message of v, which protobuf-c packs byte for byte the same */
static size_t msg_vfs(const struct iotrace_vfs_event *v, uint8_t *buf)
{
	uint8_t ref[ENCODE_MAX];
	size_t len = msg_of(vfs_enc, v, buf);

	assert_int_equal(encode__ref_vfs(v, ref), len);
	assert_memory_equal(ref, buf, len);
	return len;
}

static size_t msg_event(const struct iotrace_event *e, uint8_t *buf)
{
	return msg_of(event_enc, e, buf);
}

static size_t msg_io(const struct iotrace_queue_event *q, uint8_t *buf)
{
	return msg_of(io_enc, q, buf);
}

static size_t msg_fs_meta(const struct iotrace_queue_event *q, uint8_t *buf)
{
	return msg_of(fs_meta_enc, q, buf);
}

static struct iotrace_event write_event(void)
{
	struct iotrace_event e = {
		.sid = 5,
		.ts = 1000,
		.id = 0x10,
		.sector = 2048,
		.nr_sector = 8,
		.dev = IOTRACE_MKDEV(7, 0),
		.type = IOTRACE_EV_QUEUE,
		.op = IOTRACE_OP_WRITE,
		.flags = IOTRACE_F_FUA,
	};
	return e;
}

static void test_io_golden(void **state)
{
	struct iotrace_event e = write_event();
	static const uint8_t want[] = {
		0x0a, 0x05, 0x08, 0x05, 0x10, 0xe8, 0x07,	/* header: sid 5, timestamp 1000 */
		0x12, 0x10,					/* io (field 2), 16 bytes */
		0x08, 0x80, 0x10,				/* lba 2048 */
		0x10, 0x08,					/* len 8 */
		0x20, 0x80, 0x80, 0xc0, 0x03,			/* deviceId 7:0 = 7340032 */
		0x28, 0x02,					/* operation Write */
		0x38, 0x01,					/* fua */
		0x48, 0x10,					/* id */
	};
	uint8_t buf[ENCODE_MAX];
	size_t len = msg_event(&e, buf);

	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

static void test_completion_golden(void **state)
{
	struct iotrace_event e = {
		.sid = 6, .ts = 1500, .id = 0x10, .dev = IOTRACE_MKDEV(7, 0),
		.type = IOTRACE_EV_COMPLETE, .error = 10,
	};
	static const uint8_t want[] = {
		0x0a, 0x05, 0x08, 0x06, 0x10, 0xdc, 0x0b,	/* header: sid 6, timestamp 1500 */
		0x2a, 0x0c,					/* ioCompletion (field 5), 12 bytes */
		0x18, 0x01,					/* error */
		0x20, 0x80, 0x80, 0xc0, 0x03,			/* deviceId */
		0x28, 0x10,					/* refId */
		0xa0, 0x01, 0x0a,				/* status 10 (field 20) */
	};
	uint8_t buf[ENCODE_MAX];
	size_t len = msg_event(&e, buf);

	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

/* The first record of the upstream sample's octf.trace.0, byte for byte. */
static void test_device_matches_upstream(void **state)
{
	struct device_info d = {
		.name = "nvme0n1", .dev = 271581186, .size = 732585168,
		.model = "INTEL SSDPED1K375GA",
	};
	static const uint8_t want[] = {
		0x0a, 0x0a, 0x08, 0x01, 0x10, 0xa5, 0x8f, 0xf2, 0xa1, 0x89, 0x9d, 0x03,
		0x1a, 0x2a, 0x08, 0x82, 0x80, 0xc0, 0x81, 0x01, 0x12, 0x07, 'n', 'v', 'm', 'e',
		'0', 'n', '1', 0x18, 0xd0, 0xb9, 0xa9, 0xdd, 0x02, 0x22, 0x13, 'I', 'N', 'T',
		'E', 'L', ' ', 'S', 'S', 'D', 'P', 'E', 'D', '1', 'K', '3', '7', '5', 'G', 'A',
	};
	uint8_t buf[ENCODE_MAX];
	size_t len = encode__device(&d, 1, 14193058940837ull, buf);

	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

static void test_round_trip_all_types(void **state)
{
	static const uint8_t types[] = { IOTRACE_EV_QUEUE, IOTRACE_EV_SPLIT, IOTRACE_EV_COMPLETE,
					 IOTRACE_EV_ISSUE, IOTRACE_EV_RQ_QUEUE, IOTRACE_EV_RQ_COMPLETE };
	static const int cases[] = {
		OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO,
		OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_SPLIT,
		OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION,
		OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_DISPATCH,
		OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO,
		OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION,
	};
	uint8_t buf[ENCODE_MAX];
	size_t i, len;

	for (i = 0; i < sizeof(types); i++) {
		struct iotrace_event e = write_event();
		Octf__Proto__Trace__Event *ev;

		e.type = types[i];
		e.ref = 0x20;
		e.aux = 3;
		e.aux64 = 4096;
		e.pid = 42;
		e.flags = IOTRACE_F_PREFLUSH | IOTRACE_F_META;
		len = msg_event(&e, buf);
		assert_true(len > 0);
		ev = octf__proto__trace__event__unpack(NULL, len, buf);
		assert_non_null(ev);
		assert_int_equal(ev->header->sid, 5);
		assert_int_equal(ev->event_type_case, cases[i]);
		switch (ev->event_type_case) {
		case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO:
			assert_int_equal(ev->io->id, 0x10);
			assert_int_equal(ev->io->lba, 2048);
			assert_true(ev->io->flush);
			assert_true(ev->io->metadata);
			assert_int_equal(ev->io->pid, 42);
			assert_int_equal(ev->io->requestonly, types[i] == IOTRACE_EV_RQ_QUEUE);
			break;
		case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_SPLIT:
			assert_int_equal(ev->iosplit->id, 0x10);
			assert_int_equal(ev->iosplit->parentid, 0x20);
			assert_int_equal(ev->iosplit->parentlba, 4096);
			assert_int_equal(ev->iosplit->len, 8);
			break;
		case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION:
			assert_int_equal(ev->iocompletion->refid, 0x10);
			break;
		case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_DISPATCH:
			assert_int_equal(ev->iodispatch->id, 0x10);
			assert_int_equal(ev->iodispatch->requestid, 0x20);
			assert_int_equal(ev->iodispatch->biocount, 3);
			break;
		default:
			fail();
		}
		octf__proto__trace__event__free_unpacked(ev, NULL);
	}
}

static void test_flush_is_write_with_flag(void **state)
{
	struct iotrace_event e = write_event();
	Octf__Proto__Trace__Event *ev;
	uint8_t buf[ENCODE_MAX];
	size_t len;

	e.type = IOTRACE_EV_RQ_QUEUE;
	e.op = IOTRACE_OP_FLUSH;
	e.flags = 0;
	e.nr_sector = 0;
	len = msg_event(&e, buf);
	ev = octf__proto__trace__event__unpack(NULL, len, buf);
	assert_non_null(ev);
	assert_int_equal(ev->io->operation, OCTF__PROTO__TRACE__IO_TYPE__Write);
	assert_true(ev->io->flush);
	assert_true(ev->io->requestonly);
	octf__proto__trace__event__free_unpacked(ev, NULL);

	e.type = 99;
	assert_int_equal(msg_event(&e, buf), 0);
}

/* A QUEUE of a regular file: io with process fields, then its filesystemMeta. */
static void test_queue_file_and_process(void **state)
{
	struct iotrace_queue_event q = {};
	Octf__Proto__Trace__Event *ev;
	uint8_t buf[ENCODE_MAX];
	size_t len;

	(void)state;
	q.io.type = IOTRACE_EV_QUEUE;
	q.io.sid = 40;
	q.io.ts = 41;
	q.io.id = 42;
	q.io.op = IOTRACE_OP_WRITE;
	q.io.nr_sector = 8;
	q.io.pid = 100;
	q.io.tid = 101;
	q.cgroup = 7;
	q.vfs_call = 31;
	memcpy(q.comm, "0123456789abcdef", IOTRACE_COMM_LEN); /* no NUL: a full comm */
	q.file.ino = 12;
	q.file.dev = IOTRACE_MKDEV(7, 1);
	q.file.ctime_sec = 1700000000;
	q.file.ctime_nsec = 5;
	q.file_offset = 16;
	q.file_size = 2048;
	q.file_kind = IOTRACE_FILE_REG;

	len = msg_io(&q, buf);
	ev = octf__proto__trace__event__unpack(NULL, len, buf);
	assert_non_null(ev);
	assert_int_equal(ev->event_type_case, OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO);
	assert_int_equal(ev->header->sid, 40);
	assert_int_equal(ev->io->cgroupid, 7);
	assert_int_equal(ev->io->vfscallid, 31);
	assert_string_equal(ev->io->comm, "0123456789abcdef");
	assert_int_equal(ev->io->pid, 100);
	assert_int_equal(ev->io->ioclass, 15); /* 1 MiB file */
	assert_false(ev->io->direct);
	assert_false(ev->io->metadata);
	octf__proto__trace__event__free_unpacked(ev, NULL);

	len = msg_fs_meta(&q, buf);
	ev = octf__proto__trace__event__unpack(NULL, len, buf);
	assert_non_null(ev);
	assert_int_equal(ev->event_type_case, OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_META);
	assert_int_equal(ev->header->sid, 41);
	assert_int_equal(ev->filesystemmeta->refsid, 42);
	assert_int_equal(ev->filesystemmeta->fileid->id, 12);
	assert_int_equal(ev->filesystemmeta->fileid->partitionid, IOTRACE_MKDEV(7, 1));
	assert_int_equal(ev->filesystemmeta->fileid->creationdate->seconds, 1700000000);
	assert_int_equal(ev->filesystemmeta->fileid->creationdate->nanos, 5);
	assert_int_equal(ev->filesystemmeta->fileoffset, 16);
	assert_int_equal(ev->filesystemmeta->filesize, 2048);
	octf__proto__trace__event__free_unpacked(ev, NULL);

	/* direct I/O: no file, no filesystemMeta */
	memset(&q.file, 0, sizeof(q.file));
	q.file_kind = IOTRACE_FILE_NONE;
	q.io.flags = IOTRACE_F_DIRECT;
	assert_int_equal(msg_fs_meta(&q, buf), 0);
	len = msg_io(&q, buf);
	ev = octf__proto__trace__event__unpack(NULL, len, buf);
	assert_non_null(ev);
	assert_true(ev->io->direct);
	assert_int_equal(ev->io->ioclass, 22);
	octf__proto__trace__event__free_unpacked(ev, NULL);
}

static void test_file_name(void **state)
{
	struct iotrace_name_event n = {};
	Octf__Proto__Trace__Event *ev;
	uint8_t buf[ENCODE_MAX];
	size_t len;

	(void)state;
	n.hdr.type = IOTRACE_EV_FILE_NAME;
	n.hdr.sid = 9;
	n.file.ino = 12;
	n.parent.ino = 2;
	memset(n.name, 'x', sizeof(n.name)); /* unterminated: cut at the buffer's end */
	len = encode__file_name(&n, buf);
	assert_true(len > 0 && len <= ENCODE_MAX);
	ev = octf__proto__trace__event__unpack(NULL, len, buf);
	assert_non_null(ev);
	assert_int_equal(ev->event_type_case, OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_NAME);
	assert_int_equal(ev->filesystemfilename->fileid->id, 12);
	assert_int_equal(ev->filesystemfilename->fileparentid->id, 2);
	assert_int_equal(strlen(ev->filesystemfilename->filename), IOTRACE_NAME_LEN - 1);
	octf__proto__trace__event__free_unpacked(ev, NULL);
}

static void test_vfs(void **state)
{
	struct iotrace_vfs_event v = {};
	Octf__Proto__Trace__Event *ev;
	uint8_t buf[ENCODE_MAX];
	size_t len;

	(void)state;
	v.hdr.type = IOTRACE_EV_VFS;
	v.hdr.sid = 70;
	v.hdr.ts = 5000;
	v.hdr.pid = 300;
	v.hdr.tid = 301;
	v.hdr.dev = IOTRACE_MKDEV(259, 1);
	v.call_id = 9;
	v.start = 1200;
	v.call = IOTRACE_VFS_PWRITE64;
	v.fd = 4;
	v.fd2 = -1;
	v.offset = 8192;
	v.size = 4096;
	v.result = -28;	/* -ENOSPC */
	v.cgroup = 77;
	v.file.ino = 12;
	v.file.dev = IOTRACE_MKDEV(259, 1);
	memcpy(v.comm, "db_bench", 9);
	len = msg_vfs(&v, buf);
	ev = octf__proto__trace__event__unpack(NULL, len, buf);
	assert_non_null(ev);
	assert_int_equal(ev->event_type_case, OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_VFS);
	assert_int_equal(ev->header->sid, 70);
	assert_int_equal(ev->header->timestamp, 5000);
	assert_int_equal(ev->vfs->id, 9);
	assert_int_equal(ev->vfs->call, OCTF__PROTO__TRACE__VFS_CALL__VfsPwrite64);
	assert_int_equal(ev->vfs->duration, 3800);
	assert_int_equal(ev->vfs->offset, 8192);
	assert_int_equal(ev->vfs->size, 4096);
	assert_int_equal(ev->vfs->result, -28);
	assert_int_equal(ev->vfs->fd, 4);
	assert_int_equal(ev->vfs->pid, 300);
	assert_int_equal(ev->vfs->tid, 301);
	assert_int_equal(ev->vfs->cgroupid, 77);
	assert_int_equal(ev->vfs->deviceid, IOTRACE_MKDEV(259, 1));
	assert_string_equal(ev->vfs->comm, "db_bench");
	assert_int_equal(ev->vfs->fileid->id, 12);
	assert_null(ev->vfs->fileid2);
	assert_int_equal(ev->vfs->uringopcode, 0);
	octf__proto__trace__event__free_unpacked(ev, NULL);

	/* the output side of a copy; an io_uring request's opcode */
	v.call = IOTRACE_VFS_URING_WRITE;
	v.opcode = 23;
	v.fd2 = 5;
	v.offset2 = 64;
	v.file2.ino = 13;
	len = msg_vfs(&v, buf);
	ev = octf__proto__trace__event__unpack(NULL, len, buf);
	assert_non_null(ev);
	assert_int_equal(ev->vfs->fd2, 5);
	assert_int_equal(ev->vfs->offset2, 64);
	assert_int_equal(ev->vfs->fileid2->id, 13);
	assert_int_equal(ev->vfs->uringopcode, 23);
	octf__proto__trace__event__free_unpacked(ev, NULL);

	/*
	 * The longest message: every field at its widest, negative int32 and
	 * int64 values (ten bytes each), a 16-byte comm, both FileIds whole.
	 */
	v.hdr.sid = UINT64_MAX;
	v.hdr.ts = UINT64_MAX;
	v.hdr.pid = UINT32_MAX;
	v.hdr.tid = UINT32_MAX;
	v.hdr.dev = UINT32_MAX;
	v.call_id = UINT64_MAX;
	v.start = 1;
	v.fd = -100;	/* AT_FDCWD */
	v.offset = -1;
	v.size = UINT64_MAX;
	v.result = INT64_MIN;
	v.cgroup = UINT64_MAX;
	memcpy(v.comm, "0123456789abcdef", IOTRACE_COMM_LEN);
	v.flags = UINT32_MAX;
	v.created = 1;
	v.fd2 = INT32_MAX;
	v.offset2 = -1;
	v.file = (struct iotrace_file_id){ .dev = UINT32_MAX, .ino = UINT64_MAX,
					   .ctime_sec = -1, .ctime_nsec = 999999999 };
	v.file2 = v.file;
	v.opcode = 255;
	len = msg_vfs(&v, buf);
	assert_true(len > 250);
	ev = octf__proto__trace__event__unpack(NULL, len, buf);
	assert_non_null(ev);
	assert_int_equal(ev->vfs->fd, -100);
	assert_int_equal(ev->vfs->offset, -1);
	assert_string_equal(ev->vfs->comm, "0123456789abcdef");
	assert_int_equal(ev->vfs->fileid2->creationdate->seconds, -1);
	octf__proto__trace__event__free_unpacked(ev, NULL);

	/* no files, no comm, nothing of the output side: fields left out */
	memset(&v, 0, sizeof(v));
	v.hdr.sid = 1;
	v.hdr.ts = 2;
	v.call = IOTRACE_VFS_CLOSE;
	v.fd2 = -1;
	len = msg_vfs(&v, buf);
	ev = octf__proto__trace__event__unpack(NULL, len, buf);
	assert_non_null(ev);
	assert_null(ev->vfs->fileid);
	assert_int_equal(ev->vfs->comm[0], 0);
	octf__proto__trace__event__free_unpacked(ev, NULL);

	/* a call this collector does not know (newer BPF object) */
	v.call = IOTRACE_VFS_NR_CALLS;
	assert_int_equal(msg_vfs(&v, buf), 0);
}

static void test_fs_event(void **state)
{
	static const struct {
		uint32_t kind;
		Octf__Proto__Trace__FsEventType want;
	} kinds[] = {
		{ IOTRACE_FS_CREATE, OCTF__PROTO__TRACE__FS_EVENT_TYPE__Create },
		{ IOTRACE_FS_DELETE, OCTF__PROTO__TRACE__FS_EVENT_TYPE__Delete },
		{ IOTRACE_FS_MOVE_TO, OCTF__PROTO__TRACE__FS_EVENT_TYPE__MoveTo },
		{ IOTRACE_FS_MOVE_FROM, OCTF__PROTO__TRACE__FS_EVENT_TYPE__MoveFrom },
	};
	struct iotrace_fs_event f = {};
	Octf__Proto__Trace__Event *ev;
	uint8_t buf[ENCODE_MAX];
	size_t i, len;

	(void)state;
	f.hdr.type = IOTRACE_EV_FS;
	f.hdr.sid = 3;
	f.file.ino = 99;
	f.file.dev = IOTRACE_MKDEV(7, 0);
	f.file.ctime_sec = 1700000001;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		f.kind = kinds[i].kind;
		len = encode__fs_event(&f, buf);
		ev = octf__proto__trace__event__unpack(NULL, len, buf);
		assert_non_null(ev);
		assert_int_equal(ev->event_type_case,
				 OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_EVENT);
		assert_int_equal(ev->filesystemfileevent->fseventtype, kinds[i].want);
		assert_int_equal(ev->filesystemfileevent->fileid->id, 99);
		assert_int_equal(ev->filesystemfileevent->fileid->partitionid, IOTRACE_MKDEV(7, 0));
		assert_int_equal(ev->filesystemfileevent->fileid->creationdate->seconds, 1700000001);
		octf__proto__trace__event__free_unpacked(ev, NULL);
	}
	f.kind = 0;
	assert_int_equal(encode__fs_event(&f, buf), 0);
}

/* xorshift64*: a fixed seed keeps failures reproducible */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dull;
}

/* 0, all ones, or a value of random width: every varint length occurs */
static uint64_t rnd_value(void)
{
	switch (rnd() % 8) {
	case 0:
		return 0;
	case 1:
		return ~0ull;
	default:
		return rnd() >> (rnd() % 64);
	}
}

static void rnd_file_id(struct iotrace_file_id *f)
{
	f->ino = rnd_value();
	f->ctime_sec = (int64_t)rnd_value();
	f->ctime_nsec = (uint32_t)rnd_value();
	f->dev = (uint32_t)rnd_value();
}

static void rnd_queue(struct iotrace_queue_event *q)
{
	struct iotrace_event *e = &q->io;
	size_t i, n;

	memset(q, 0, sizeof(*q));
	e->sid = rnd_value();
	e->ts = rnd_value();
	e->id = rnd_value();
	e->ref = rnd_value();
	e->sector = rnd_value();
	e->nr_sector = (uint32_t)rnd_value();
	e->dev = (uint32_t)rnd_value();
	e->part = (uint32_t)rnd_value();
	e->pid = (uint32_t)rnd_value();
	e->tid = (uint32_t)rnd_value();
	e->aux = (uint32_t)rnd_value();
	e->aux64 = rnd_value();
	e->flags = (uint16_t)rnd();
	e->error = (int16_t)rnd_value();
	e->type = (uint8_t)(rnd() % 11);
	e->op = (uint8_t)(rnd() % 7);
	e->write_hint = (uint8_t)rnd_value();
	q->cgroup = rnd_value();
	n = rnd() % (IOTRACE_COMM_LEN + 1);
	for (i = 0; i < n; i++)
		q->comm[i] = (char)(1 + rnd() % 255);
	rnd_file_id(&q->file);
	q->file_offset = rnd_value();
	q->file_size = rnd_value();
	q->vfs_call = rnd_value();
	q->file_kind = (uint8_t)(rnd() % 6);
}

/* The direct encoders write exactly what protobuf-c's pack writes. */
static void test_fast_matches_protobuf_c(void **state)
{
	uint8_t got[ENCODE_MAX], want[ENCODE_MAX];
	struct iotrace_queue_event q;
	size_t got_len, want_len, longest = 0;
	int i;

	for (i = 0; i < 200000; i++) {
		rnd_queue(&q);
		got_len = msg_event(&q.io, got);
		want_len = encode__ref_event(&q.io, want);
		assert_int_equal(got_len, want_len);
		assert_memory_equal(got, want, want_len);

		q.io.type = IOTRACE_EV_QUEUE;
		got_len = msg_io(&q, got);
		want_len = encode__ref_io(&q, want);
		assert_int_equal(got_len, want_len);
		assert_memory_equal(got, want, want_len);
		if (want_len > longest)
			longest = want_len;

		got_len = msg_fs_meta(&q, got);
		want_len = encode__ref_fs_meta(&q, want);
		assert_int_equal(got_len, want_len);
		assert_memory_equal(got, want, want_len);
	}
	assert_true(longest > 100);

	/* the largest io event: every field at its widest, a 127-byte body */
	memset(&q, 0xff, sizeof(q));
	q.io.type = IOTRACE_EV_RQ_QUEUE;
	q.io.op = IOTRACE_OP_WRITE_ZEROES;
	q.file_kind = IOTRACE_FILE_NONE;
	memset(q.comm, 'x', sizeof(q.comm));
	got_len = msg_io(&q, got);
	want_len = encode__ref_io(&q, want);
	assert_int_equal(want_len, 2 + 22 + 2 + 127);
	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
}

/* Message kind k (event, io, filesystemMeta) of q, its fields into split */
static size_t encode_kind(int k, struct iotrace_queue_event *q, uint8_t *buf)
{
	switch (k) {
	case 0:
		return msg_event(&q->io, buf);
	case 1:
		q->io.type = IOTRACE_EV_QUEUE;
		return msg_io(q, buf);
	default:
		return msg_fs_meta(q, buf);
	}
}

/*
 * What the direct encoders note down is their message: a compressed
 * stream codes either to the same records, which decode to the message.
 */
static void test_split_is_message(void **state)
{
	struct delta *whole = delta__new(), *parts = delta__new(), *back = delta__new();
	uint8_t msg[ENCODE_MAX], a[DELTA_ENCODED_MAX(ENCODE_MAX)], b[DELTA_ENCODED_MAX(ENCODE_MAX)];
	struct iotrace_queue_event q;
	size_t len, n, coded = 0, all = 0, dlen, used;
	const uint8_t *dmsg;
	int i, k;

	assert_true(whole && parts && back);
	for (i = 0; i < 100000; i++) {
		rnd_queue(&q);
		for (k = 0; k < 3; k++) {
			len = encode_kind(k, &q, msg);
			if (!len)
				continue;
			n = delta__encode(whole, msg, len, a);
			assert_int_equal(delta__encode_fields(parts, &split, b), n);
			assert_memory_equal(a, b, n);
			assert_int_equal(delta__decode(back, a, n, &dmsg, &dlen, &used), 1);
			assert_int_equal(dlen, len);
			assert_memory_equal(dmsg, msg, len);
			coded += a[0] || a[1];
			all++;
		}
	}
	/* not verbatim but for a sid or timestamp of 0 */
	assert_true(coded > all / 2);
	delta__free(back);
	delta__free(parts);
	delta__free(whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_io_golden),
		cmocka_unit_test(test_completion_golden),
		cmocka_unit_test(test_device_matches_upstream),
		cmocka_unit_test(test_round_trip_all_types),
		cmocka_unit_test(test_flush_is_write_with_flag),
		cmocka_unit_test(test_queue_file_and_process),
		cmocka_unit_test(test_file_name),
		cmocka_unit_test(test_vfs),
		cmocka_unit_test(test_fs_event),
		cmocka_unit_test(test_fast_matches_protobuf_c),
		cmocka_unit_test(test_split_is_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
