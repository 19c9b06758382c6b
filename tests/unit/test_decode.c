// SPDX-License-Identifier: BSD-3-Clause
/*
 * The record decoder: the hand-written fast path gives what protobuf-c
 * gives, for canonical records of every type, for records it leaves to
 * protobuf-c (unknown fields, repeated messages, odd varints), for
 * damaged ones, and for thousands of random mutations; type filtering.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode.h"
#include "delta.h"

static void assert_same(const struct event *a, const struct event *b)
{
	assert_int_equal(a->type, b->type);
	assert_true(a->sid == b->sid);
	assert_true(a->ts == b->ts);
	switch (a->type) {
	case EV_IO:
		assert_true(a->io.id == b->io.id);
		assert_true(a->io.lba == b->io.lba);
		assert_true(a->io.dev == b->io.dev);
		assert_true(a->io.part == b->io.part);
		assert_true(a->io.cgroup == b->io.cgroup);
		assert_int_equal(a->io.len, b->io.len);
		assert_int_equal(a->io.io_class, b->io.io_class);
		assert_int_equal(a->io.write_hint, b->io.write_hint);
		assert_int_equal(a->io.pid, b->io.pid);
		assert_int_equal(a->io.tid, b->io.tid);
		assert_int_equal(a->io.op, b->io.op);
		assert_int_equal(a->io.flags, b->io.flags);
		assert_true(a->io.vfs_call == b->io.vfs_call);
		assert_string_equal(a->io.comm, b->io.comm);
		break;
	case EV_COMPLETION:
		assert_true(a->cpl.ref == b->cpl.ref);
		assert_true(a->cpl.lba == b->cpl.lba);
		assert_true(a->cpl.dev == b->cpl.dev);
		assert_int_equal(a->cpl.len, b->cpl.len);
		assert_int_equal(a->cpl.status, b->cpl.status);
		assert_int_equal(a->cpl.error, b->cpl.error);
		break;
	case EV_FS_META:
		assert_true(a->meta.ref == b->meta.ref);
		assert_true(a->meta.fid.part == b->meta.fid.part);
		assert_true(a->meta.fid.ino == b->meta.fid.ino);
		assert_true(a->meta.fid.sec == b->meta.fid.sec);
		assert_int_equal(a->meta.fid.nsec, b->meta.fid.nsec);
		assert_true(a->meta.offset == b->meta.offset);
		assert_true(a->meta.size == b->meta.size);
		break;
	case EV_SPLIT:
		assert_true(a->split.id == b->split.id);
		assert_true(a->split.parent == b->split.parent);
		assert_true(a->split.dev == b->split.dev);
		assert_true(a->split.lba == b->split.lba);
		assert_true(a->split.parent_lba == b->split.parent_lba);
		assert_int_equal(a->split.len, b->split.len);
		break;
	case EV_DISPATCH:
		assert_true(a->disp.id == b->disp.id);
		assert_true(a->disp.dev == b->disp.dev);
		assert_true(a->disp.lba == b->disp.lba);
		assert_true(a->disp.rq == b->disp.rq);
		assert_int_equal(a->disp.len, b->disp.len);
		assert_int_equal(a->disp.bios, b->disp.bios);
		break;
	case EV_VFS:
		assert_non_null(a->vfs);
		assert_non_null(b->vfs);
		assert_true(a->vfs->id == b->vfs->id);
		assert_true(a->vfs->size == b->vfs->size);
		assert_true(a->vfs->duration == b->vfs->duration);
		assert_true(a->vfs->dev == b->vfs->dev);
		assert_true(a->vfs->cgroup == b->vfs->cgroup);
		assert_true(a->vfs->offset == b->vfs->offset);
		assert_true(a->vfs->offset2 == b->vfs->offset2);
		assert_true(a->vfs->result == b->vfs->result);
		assert_int_equal(a->vfs->call, b->vfs->call);
		assert_int_equal(a->vfs->fd, b->vfs->fd);
		assert_int_equal(a->vfs->fd2, b->vfs->fd2);
		assert_int_equal(a->vfs->pid, b->vfs->pid);
		assert_int_equal(a->vfs->tid, b->vfs->tid);
		assert_int_equal(a->vfs->flags, b->vfs->flags);
		assert_int_equal(a->vfs->uring_op, b->vfs->uring_op);
		assert_int_equal(a->vfs->created, b->vfs->created);
		assert_int_equal(a->vfs->has_fid, b->vfs->has_fid);
		assert_int_equal(a->vfs->has_fid2, b->vfs->has_fid2);
		assert_memory_equal(&a->vfs->fid, &b->vfs->fid, sizeof(a->vfs->fid));
		assert_memory_equal(&a->vfs->fid2, &b->vfs->fid2, sizeof(a->vfs->fid2));
		assert_string_equal(a->vfs->comm, b->vfs->comm);
		break;
	default:
		assert_int_equal(a->pb != NULL, b->pb != NULL);
		break;
	}
}

/* decode__event() from a peek: the same result and event as without. */
static void same_peeked(const uint8_t *msg, size_t len, unsigned int types)
{
	struct decode_peek pk;
	struct event a, b;
	int ra, rb;

	ra = decode__event(msg, len, &a, types);
	decode__peek_record(msg, len, &pk);
	rb = decode__event_peeked(msg, len, &pk, &b, types);
	assert_int_equal(ra, rb);
	if (!ra)
		assert_same(&a, &b);
	if (!ra)
		decode__release(&a);
	if (!rb)
		decode__release(&b);
}

/* Records decode__split() decoded itself, and those it left to the message */
static unsigned int split_took, split_unsure;

/*
 * msg as our compressed traces hold it (a delta record, twice: the second
 * takes what it can from the first, comm and file ids from the recent
 * values), read back as fields: decode__split() gives what decode__event()
 * gives for the message, or leaves it to that.
 */
static void same_from_split(const uint8_t *msg, size_t len, unsigned int types)
{
	struct delta *enc = delta__new(), *dec = delta__new();
	uint8_t rec[DELTA_ENCODED_MAX(512)], back[DELTA_MSG_MAX];
	struct delta_split s;
	const uint8_t *m;
	size_t n, ml, used;
	int k, ret, rs, rm;

	assert_non_null(enc);
	assert_non_null(dec);
	assert_true(len <= 512);
	for (k = 0; k < 2; k++) {
		struct event a, b;

		n = delta__encode(enc, msg, len, rec);
		ret = delta__decode_split(dec, rec, n, &s, &m, &ml, &used);
		assert_int_equal(used, n);
		if (ret != DELTA_FIELDS) {
			/* not canonical: stored verbatim */
			assert_int_equal(ret, 1);
			break;
		}
		assert_int_equal(delta__split_msg(&s, back), len);
		assert_memory_equal(back, msg, len);
		rs = decode__split(&s, &a, types);
		rm = decode__event(msg, len, &b, types);
		if (rs == DECODE_UNSURE) {
			split_unsure++;
		} else {
			split_took++;
			assert_int_equal(rs, rm);
			if (!rs)
				assert_same(&a, &b);
		}
		if (!rs)
			decode__release(&a);
		if (!rm)
			decode__release(&b);
	}
	delta__free(enc);
	delta__free(dec);
}

/* Both paths on msg (and from a peek): same result, same event. Returns the result. */
static int both(const uint8_t *msg, size_t len, struct event *out)
{
	struct event fast, slow;
	int rf = decode__event(msg, len, &fast, EV_ALL);
	int rs = decode__event_slow(msg, len, &slow);

	assert_int_equal(rf, rs);
	if (!rf)
		assert_same(&fast, &slow);
	same_peeked(msg, len, EV_ALL);
	same_peeked(msg, len, EV_BIT(EV_COMPLETION) | EV_BIT(EV_FS_META));
	if (!rf) {
		same_from_split(msg, len, EV_ALL);
		same_from_split(msg, len, EV_BIT(EV_COMPLETION) | EV_BIT(EV_FS_META));
	}
	if (out && !rf)
		*out = fast;
	else
		decode__release(&fast);
	decode__release(&slow);
	return rf;
}

static size_t pack(const Octf__Proto__Trace__Event *ev, uint8_t *buf)
{
	size_t len = octf__proto__trace__event__get_packed_size(ev);

	assert_true(len <= 512);
	assert_int_equal(octf__proto__trace__event__pack(ev, buf), len);
	return len;
}

static Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;

static size_t make_io(uint8_t *buf, const char *comm)
{
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;

	hdr.sid = 123456789;
	hdr.timestamp = 14196894550578ull;
	io.lba = 1652296;
	io.len = 256;
	io.ioclass = 19;
	io.deviceid = 271581186;
	io.operation = OCTF__PROTO__TRACE__IO_TYPE__Write;
	io.flush = true;
	io.fua = true;
	io.writehint = 3;
	io.id = 0xffff9a3c12345600ull;
	io.partitionid = 271581187;
	io.sync = true;
	io.metadata = true;
	io.readahead = true;
	io.requestonly = true;
	io.writezeroes = true;
	io.pid = 4242;
	io.tid = 4243;
	io.cgroupid = 9876543210ull;
	io.comm = (char *)comm;
	io.direct = true;
	io.vfscallid = 0x123456789ull;
	ev.header = &hdr;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
	ev.io = &io;
	return pack(&ev, buf);
}

static void test_every_type(void **state)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventIoCompletion c = OCTF__PROTO__TRACE__EVENT_IO_COMPLETION__INIT;
	Octf__Proto__Trace__EventIoFilesystemMeta m =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_META__INIT;
	Octf__Proto__Trace__FileId f = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__Timestamp t = OCTF__PROTO__TRACE__TIMESTAMP__INIT;
	Octf__Proto__Trace__EventIoSplit s = OCTF__PROTO__TRACE__EVENT_IO_SPLIT__INIT;
	Octf__Proto__Trace__EventIoDispatch d = OCTF__PROTO__TRACE__EVENT_IO_DISPATCH__INIT;
	Octf__Proto__Trace__EventDeviceDescription dd =
		OCTF__PROTO__TRACE__EVENT_DEVICE_DESCRIPTION__INIT;
	unsigned int took = split_took, unsure = split_unsure;
	struct event out;
	uint8_t buf[512];
	size_t len;

	len = make_io(buf, "kworker/u8:3");
	assert_int_equal(both(buf, len, &out), 0);
	assert_int_equal(out.type, EV_IO);
	assert_true(out.io.lba == 1652296);
	assert_int_equal(out.io.flags, IOF_FLUSH | IOF_FUA | IOF_SYNC | IOF_META | IOF_READAHEAD |
					       IOF_REQUEST_ONLY | IOF_WRITE_ZEROES | IOF_DIRECT);
	assert_string_equal(out.io.comm, "kworker/u8:3");
	assert_true(out.io.vfs_call == 0x123456789ull);

	ev.header = &hdr;
	c.lba = 5;
	c.len = 8;
	c.error = true;
	c.deviceid = 7;
	c.refid = 0xffff000011112222ull;
	c.status = -5;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION;
	ev.iocompletion = &c;
	len = pack(&ev, buf);
	assert_int_equal(both(buf, len, &out), 0);
	assert_int_equal(out.cpl.status, -5);
	assert_true(out.cpl.error);

	t.seconds = -1;
	t.nanos = 999999999;
	f.partitionid = 3;
	f.id = 1ull << 40;
	f.creationdate = &t;
	m.refsid = 9;
	m.fileid = &f;
	m.fileoffset = 1ull << 33;
	m.filesize = 77;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_META;
	ev.filesystemmeta = &m;
	len = pack(&ev, buf);
	assert_int_equal(both(buf, len, &out), 0);
	assert_true(out.meta.fid.sec == -1);
	assert_int_equal(out.meta.fid.nsec, 999999999);

	s.id = 1;
	s.parentid = 2;
	s.deviceid = 3;
	s.lba = 4;
	s.len = 5;
	s.parentlba = 9;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_SPLIT;
	ev.iosplit = &s;
	len = pack(&ev, buf);
	assert_int_equal(both(buf, len, &out), 0);
	assert_true(out.split.parent_lba == 9);

	d.id = 1;
	d.deviceid = 2;
	d.lba = 3;
	d.len = 4;
	d.biocount = 5;
	d.requestid = 6;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_DISPATCH;
	ev.iodispatch = &d;
	len = pack(&ev, buf);
	assert_int_equal(both(buf, len, &out), 0);
	assert_int_equal(out.disp.bios, 5);
	/* each of the five, twice, for two sets of types, read from its fields */
	assert_int_equal(split_took - took, 5 * 2 * 2);
	assert_int_equal(split_unsure, unsure);

	/* strings: protobuf-c's message is kept */
	dd.id = 1;
	dd.name = "nvme0n1";
	dd.model = "X";
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_DEVICE_DESCRIPTION;
	ev.devicedescription = &dd;
	len = pack(&ev, buf);
	assert_int_equal(decode__event(buf, len, &out, EV_ALL), 0);
	assert_int_equal(out.type, EV_DEVICE);
	assert_non_null(out.pb);
	assert_string_equal(out.pb->devicedescription->name, "nvme0n1");
	decode__release(&out);
	assert_null(out.pb);

	/* all defaults: empty messages */
	{
		const uint8_t empty_io[] = { 0x12, 0x00 };

		assert_int_equal(both(empty_io, sizeof(empty_io), &out), 0);
		assert_int_equal(out.type, EV_IO);
		assert_true(out.sid == 0);
		assert_int_equal(both(NULL, 0, &out), 0);
		assert_int_equal(out.type, EV_NONE);
	}
}

static size_t make_vfs(uint8_t *buf)
{
	Octf__Proto__Trace__EventVfs v = OCTF__PROTO__TRACE__EVENT_VFS__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__FileId f = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__FileId f2 = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__Timestamp t = OCTF__PROTO__TRACE__TIMESTAMP__INIT;

	hdr.sid = 99;
	hdr.timestamp = 14196894550578ull;
	t.seconds = 1593672775;
	t.nanos = 712990641;
	f.partitionid = 271581187;
	f.id = 76;
	f.creationdate = &t;
	f2 = f;
	f2.id = 77;
	v.id = 1ull << 40;
	v.call = OCTF__PROTO__TRACE__VFS_CALL__VfsCopyFileRange;
	v.pid = 4242;
	v.tid = 4243;
	v.fd = 3;
	v.fileid = &f;
	v.offset = -1;
	v.size = 1 << 20;
	v.result = -28;
	v.duration = 123456;
	v.deviceid = 271581187;
	v.cgroupid = 9876543210ull;
	v.comm = "cp";
	v.flags = 0x241;
	v.created = true;
	v.fd2 = 4;
	v.fileid2 = &f2;
	v.offset2 = 4096;
	v.uringopcode = 22;
	ev.header = &hdr;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_VFS;
	ev.vfs = &v;
	return pack(&ev, buf);
}

/* vfs records: their fields (two FileIds and a comm) apart from the event, on every path. */
static void test_vfs(void **state)
{
	const struct event_vfs *v;
	struct event out;
	uint8_t buf[512];
	size_t len = make_vfs(buf);

	assert_int_equal(both(buf, len, &out), 0);
	assert_int_equal(out.type, EV_VFS);
	assert_true(out.sid == 99);
	v = out.vfs;
	assert_non_null(v);
	assert_true(v->id == 1ull << 40);
	assert_int_equal(v->call, OCTF__PROTO__TRACE__VFS_CALL__VfsCopyFileRange);
	assert_int_equal(v->pid, 4242);
	assert_int_equal(v->tid, 4243);
	assert_int_equal(v->fd, 3);
	assert_true(v->offset == -1);
	assert_true(v->size == 1 << 20);
	assert_true(v->result == -28);
	assert_true(v->duration == 123456);
	assert_true(v->dev == 271581187);
	assert_true(v->cgroup == 9876543210ull);
	assert_int_equal(v->flags, 0x241);
	assert_true(v->created);
	assert_int_equal(v->fd2, 4);
	assert_true(v->offset2 == 4096);
	assert_true(v->has_fid && v->fid.ino == 76 && v->fid.part == 271581187);
	assert_true(v->fid.sec == 1593672775 && v->fid.nsec == 712990641);
	assert_true(v->has_fid2 && v->fid2.ino == 77);
	assert_string_equal(v->comm, "cp");
	assert_int_equal(v->uring_op, 22);
	decode__release(&out);
	assert_null(out.vfs);

	/* the hand-written decoder reads it by itself, from the message */
	assert_true(decode__fast_takes(buf, len));

	/* from a delta record, by decode__split() itself, the same */
	split_took = 0;
	same_from_split(buf, len, EV_ALL);
	assert_int_equal(split_took, 2);

	/* not asked for: skipped without decoding */
	assert_int_equal(decode__event(buf, len, &out, EV_BIT(EV_IO)), DECODE_SKIPPED);
	assert_null(out.vfs);	/* a skipped record owns nothing */
	assert_int_equal(decode__event(buf, len, &out, EV_BIT(EV_VFS)), 0);
	assert_int_equal(out.type, EV_VFS);
	decode__release(&out);
}

/* What the fast path leaves to protobuf-c comes out the same. */
static void test_unusual_records(void **state)
{
	/* io with an unknown field 15 (varint) after the known ones */
	const uint8_t unknown[] = { 0x0a, 0x02, 0x08, 0x07, 0x12, 0x04, 0x08, 0x05, 0x78, 0x01 };
	/* the same with a timestamp, as the delta records code it */
	const uint8_t unknown_ts[] = { 0x0a, 0x04, 0x08, 0x07, 0x10, 0x09,
				       0x12, 0x04, 0x08, 0x05, 0x78, 0x01 };
	/* two headers */
	const uint8_t two_headers[] = { 0x0a, 0x02, 0x08, 0x07, 0x0a, 0x02, 0x10, 0x09,
					0x12, 0x02, 0x08, 0x05 };
	/* io then completion: the last member of the oneof wins */
	const uint8_t two_events[] = { 0x12, 0x02, 0x08, 0x05, 0x2a, 0x02, 0x28, 0x06 };
	/* len (uint32) as a 10-byte varint with bits above 32 set */
	const uint8_t big_len[] = { 0x12, 0x0b, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff,
				    0xff, 0xff, 0xff, 0xff, 0x01 };
	/* a field in the header out of order: timestamp before sid */
	const uint8_t reordered[] = { 0x0a, 0x04, 0x10, 0x09, 0x08, 0x07, 0x12, 0x02, 0x08, 0x05 };
	/* comm with a NUL inside, and one longer than the kernel's */
	const uint8_t comm_nul[] = { 0x12, 0x06, 0xea, 0x01, 0x03, 'a', 0x00, 'b' };
	unsigned int unsure = split_unsure;
	struct event out;
	uint8_t buf[512];
	size_t len;

	assert_int_equal(both(unknown, sizeof(unknown), &out), 0);
	assert_true(out.io.lba == 5);
	/* a field decode__split() does not know: the message decides (when io is asked for) */
	assert_int_equal(both(unknown_ts, sizeof(unknown_ts), &out), 0);
	assert_true(out.io.lba == 5 && out.ts == 9);
	assert_int_equal(split_unsure - unsure, 2);
	assert_int_equal(both(two_headers, sizeof(two_headers), &out), 0);
	/* protobuf-c 1.4 keeps the last (no merge); the fast path left it to it */
	assert_true(out.sid == 0 && out.ts == 9);
	assert_int_equal(both(two_events, sizeof(two_events), &out), 0);
	assert_int_equal(out.type, EV_COMPLETION);
	assert_int_equal(both(big_len, sizeof(big_len), &out), 0);
	assert_int_equal(out.io.len, 0xffffffffu);
	assert_int_equal(both(reordered, sizeof(reordered), &out), 0);
	assert_true(out.sid == 7);
	assert_int_equal(both(comm_nul, sizeof(comm_nul), &out), 0);
	assert_string_equal(out.io.comm, "a");
	len = make_io(buf, "a-thread-name-longer-than-sixteen");
	assert_int_equal(both(buf, len, &out), 0);
	assert_int_equal(strlen(out.io.comm), EVENT_COMM_MAX - 1);
}

/* Records that are not Events fail both ways, with -EPROTO. */
static void test_damaged(void **state)
{
	const uint8_t cut_header[] = { 0x0a, 0x05, 0x08 };
	const uint8_t wrong_wire[] = { 0x12, 0x02, 0x0a, 0x00 };	/* lba as bytes */
	const uint8_t bad_varint[] = { 0x12, 0x02, 0x08, 0x80 };
	const uint8_t group[] = { 0x0b, 0x0c };
	uint8_t buf[512];
	size_t len;

	assert_int_equal(both(cut_header, sizeof(cut_header), NULL), -EPROTO);
	assert_int_equal(both(wrong_wire, sizeof(wrong_wire), NULL), -EPROTO);
	assert_int_equal(both(bad_varint, sizeof(bad_varint), NULL), -EPROTO);
	assert_int_equal(both(group, sizeof(group), NULL), -EPROTO);
	len = make_io(buf, "x");
	assert_int_equal(both(buf, len - 1, NULL), -EPROTO);
}

/* Random mutations of valid records: both paths agree on every one. */
static void test_mutations(void **state)
{
	uint8_t base[512], buf[512];
	size_t len, n, i, k;
	unsigned int took;
	int ok = 0;

	srand(42);
	len = make_io(base, "fio");
	for (n = 0; n < 20000; n++) {
		size_t l = len;

		memcpy(buf, base, len);
		for (k = 0; k < 1 + (size_t)rand() % 3; k++) {
			i = (size_t)rand() % l;
			switch (rand() % 3) {
			case 0:
				buf[i] = (uint8_t)rand();
				break;
			case 1:
				buf[i] ^= (uint8_t)(1u << (rand() % 8));
				break;
			default:
				l = i + 1;
				break;
			}
		}
		if (!both(buf, l, NULL))
			ok++;
	}
	/* many still decode: the comparison was made on real events */
	assert_true(ok > 1000);
	assert_true(split_took > 1000);

	/* and of a vfs record: its type found, or the record refused, alike */
	len = make_vfs(base);
	took = split_took;
	for (ok = 0, n = 0; n < 5000; n++) {
		size_t l = len;

		memcpy(buf, base, len);
		i = (size_t)rand() % l;
		if (rand() % 2)
			buf[i] = (uint8_t)rand();
		else
			l = i + 1;
		if (!both(buf, l, NULL))
			ok++;
	}
	assert_true(ok > 500);
	/* decode__split() read the fields of many of them itself */
	assert_true(split_took > took + 500);
}

/* A type not asked for is skipped, by either path. */
static void test_skipped(void **state)
{
	const uint8_t cpl_unknown[] = { 0x2a, 0x02, 0x78, 0x01 };	/* unknown field: slow path */
	struct event out;
	uint8_t buf[512];
	size_t len = make_io(buf, "x");

	assert_int_equal(decode__event(buf, len, &out, EV_BIT(EV_COMPLETION)), DECODE_SKIPPED);
	assert_int_equal(decode__event(buf, len, &out, EV_BIT(EV_IO)), 0);
	{
		struct decode_peek pk;

		assert_int_equal(decode__peek_record(buf, len, &pk),
				 DECODE_PEEK_SID | DECODE_PEEK_TYPE);
		assert_int_equal(decode__event_peeked(buf, len, &pk, &out, EV_BIT(EV_COMPLETION)),
				 DECODE_SKIPPED);
		assert_int_equal(decode__event_peeked(buf, len, &pk, &out, EV_BIT(EV_IO)), 0);
		assert_true(out.sid == 123456789 && out.ts == 14196894550578ull);
		assert_true(out.io.lba == 1652296);
	}
	assert_int_equal(decode__event(cpl_unknown, sizeof(cpl_unknown), &out, EV_BIT(EV_IO)),
			 DECODE_SKIPPED);
	assert_int_equal(decode__event(cpl_unknown, sizeof(cpl_unknown), &out,
				       EV_BIT(EV_COMPLETION)),
			 0);
	assert_int_equal(out.type, EV_COMPLETION);
}

/* The type read without decoding: only from the layout every encoder writes. */
static void test_peek_type(void **state)
{
	/* header {sid 7}, completion {refId 6} */
	const uint8_t cpl[] = { 0x0a, 0x02, 0x08, 0x07, 0x2a, 0x02, 0x28, 0x06 };
	/* the same, then an io: the last member of the oneof wins, not the first */
	const uint8_t two_events[] = { 0x0a, 0x02, 0x08, 0x07, 0x2a, 0x02, 0x28, 0x06,
				       0x12, 0x02, 0x08, 0x05 };
	/* no header first */
	const uint8_t no_header[] = { 0x2a, 0x02, 0x28, 0x06 };
	/* the event's length runs past the record */
	const uint8_t cut[] = { 0x0a, 0x02, 0x08, 0x07, 0x2a, 0x03, 0x28, 0x06 };
	enum event_type t = EV_NONE;
	uint8_t buf[512];
	size_t len = make_io(buf, "x");

	assert_true(decode__peek_type(buf, len, &t));
	assert_int_equal(t, EV_IO);
	assert_true(decode__peek_type(cpl, sizeof(cpl), &t));
	assert_int_equal(t, EV_COMPLETION);
	assert_false(decode__peek_type(two_events, sizeof(two_events), &t));
	assert_false(decode__peek_type(no_header, sizeof(no_header), &t));
	assert_false(decode__peek_type(cut, sizeof(cut), &t));
}

/*
 * Varints of every length (1-10 bytes) where the fast path loads 8 bytes
 * around them: the timestamp that ends the header, a refId that ends the
 * record, and the same cut one byte short.
 */
static void test_varint_lengths(void **state)
{
	Octf__Proto__Trace__EventIoCompletion cpl = OCTF__PROTO__TRACE__EVENT_IO_COMPLETION__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	struct event out;
	uint8_t buf[512];
	unsigned int bytes;
	size_t len;
	int hi;

	ev.header = &hdr;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION;
	ev.iocompletion = &cpl;
	cpl.deviceid = 271581186;
	for (bytes = 1; bytes <= 10; bytes++) {
		/* the smallest and the largest value of that many bytes */
		for (hi = 0; hi < 2; hi++) {
			uint64_t lo_v = bytes == 1 ? 1 : 1ull << (7 * (bytes - 1));
			uint64_t v = !hi ? lo_v : bytes == 10 ? UINT64_MAX : (1ull << (7 * bytes)) - 1;

			hdr.sid = 5;
			hdr.timestamp = v;
			cpl.refid = v;
			len = pack(&ev, buf);
			assert_true(decode__fast_takes(buf, len));
			assert_int_equal(both(buf, len, &out), 0);
			assert_true(out.ts == v && out.cpl.ref == v);
			/* the last varint cut short: refused alike */
			assert_int_equal(both(buf, len - 1, NULL), -EPROTO);
		}
	}
	/* a 10-byte varint whose last byte holds more than bit 63 */
	hdr.timestamp = 1;
	cpl.refid = UINT64_MAX;
	len = pack(&ev, buf);
	buf[len - 1] = 0x03;
	assert_int_equal(both(buf, len, &out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_unusual_records),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_vfs),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_peek_type),
		cmocka_unit_test(test_varint_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
