/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hand-built events for tests of the join and the views: each helper
 * feeds one event to a join, numbering sids 1, 2, ... (struct event is
 * what the reader would have decoded; the rare types carry a protobuf-c
 * message built on the stack).
 */
#ifndef IOTRACE_TEST_JOIN_EVENTS_H
#define IOTRACE_TEST_JOIN_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "join.h"

#define DEV_A 271581186u	/* 259:2 */
#define DEV_B 8388608u		/* 8:0 */

#define W OCTF__PROTO__TRACE__IO_TYPE__Write
#define R OCTF__PROTO__TRACE__IO_TYPE__Read
#define D OCTF__PROTO__TRACE__IO_TYPE__Discard

static uint64_t next_sid __attribute__((unused)) = 1;

static inline void feed(struct join *j, struct event *ev)
{
	if (!ev->sid)
		ev->sid = next_sid++;
	assert_int_equal(join__event(j, ev), 0);
}

static inline void device(struct join *j, uint64_t id, const char *name)
{
	Octf__Proto__Trace__EventDeviceDescription dd =
		OCTF__PROTO__TRACE__EVENT_DEVICE_DESCRIPTION__INIT;
	Octf__Proto__Trace__Event pb = OCTF__PROTO__TRACE__EVENT__INIT;
	struct event ev = { .type = EV_DEVICE, .ts = 5 };

	dd.id = id;
	dd.name = (char *)name;
	dd.size = 1000000;
	dd.model = "MODEL";
	pb.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_DEVICE_DESCRIPTION;
	pb.devicedescription = &dd;
	ev.pb = &pb;
	feed(j, &ev);
}

static inline void io(struct join *j, uint64_t ts, uint64_t id, uint64_t dev, uint64_t lba,
		      uint32_t len, int32_t op)
{
	struct event ev = { .type = EV_IO, .ts = ts };

	ev.io.id = id;
	ev.io.dev = dev;
	ev.io.lba = lba;
	ev.io.len = len;
	ev.io.op = op;
	feed(j, &ev);
}

static inline void io_ev(struct join *j, struct event *ev)
{
	ev->type = EV_IO;
	feed(j, ev);
}

static inline void done(struct join *j, uint64_t ts, uint64_t id, bool error)
{
	struct event ev = { .type = EV_COMPLETION, .ts = ts };

	ev.cpl.ref = id;
	ev.cpl.error = error;
	feed(j, &ev);
}

/* A completion naming its range, as both tracers write them (but discards in Open-CAS's) */
static inline void done_at(struct join *j, uint64_t ts, uint64_t id, uint64_t lba, uint32_t len)
{
	struct event ev = { .type = EV_COMPLETION, .ts = ts };

	ev.cpl.ref = id;
	ev.cpl.lba = lba;
	ev.cpl.len = len;
	feed(j, &ev);
}

static inline void split(struct join *j, uint64_t ts, uint64_t child, uint64_t parent,
			 uint64_t lba, uint32_t len, uint64_t parent_lba)
{
	struct event ev = { .type = EV_SPLIT, .ts = ts };

	ev.split.id = child;
	ev.split.parent = parent;
	ev.split.dev = DEV_A;
	ev.split.lba = lba;
	ev.split.len = len;
	ev.split.parent_lba = parent_lba;
	feed(j, &ev);
}

static inline void dispatch(struct join *j, uint64_t ts, uint64_t first, uint64_t lba,
			    uint32_t len, uint32_t bios)
{
	struct event ev = { .type = EV_DISPATCH, .ts = ts };

	ev.disp.id = first;
	ev.disp.dev = DEV_A;
	ev.disp.lba = lba;
	ev.disp.len = len;
	ev.disp.bios = bios;
	feed(j, &ev);
}

static inline struct file_id fid(uint64_t ino)
{
	struct file_id f = { .part = DEV_A + 1, .ino = ino, .sec = 1593672775, .nsec = 712990641 };

	return f;
}

static inline void meta(struct join *j, uint64_t ts, uint64_t ref, uint64_t ino, uint64_t offset,
		 uint64_t size)
{
	struct event ev = { .type = EV_FS_META, .ts = ts };

	ev.meta.ref = ref;
	ev.meta.fid = fid(ino);
	ev.meta.offset = offset;
	ev.meta.size = size;
	feed(j, &ev);
}

static inline void set_pb_fid(Octf__Proto__Trace__FileId *f, Octf__Proto__Trace__Timestamp *t,
		       uint64_t ino)
{
	struct file_id x = fid(ino);

	f->partitionid = x.part;
	f->id = x.ino;
	t->seconds = x.sec;
	t->nanos = x.nsec;
	f->creationdate = t;
}

static inline void name(struct join *j, uint64_t ino, uint64_t parent, const char *n)
{
	Octf__Proto__Trace__EventIoFilesystemFileName fn =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_FILE_NAME__INIT;
	Octf__Proto__Trace__FileId a = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__FileId b = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__Timestamp ta = OCTF__PROTO__TRACE__TIMESTAMP__INIT;
	Octf__Proto__Trace__Timestamp tb = OCTF__PROTO__TRACE__TIMESTAMP__INIT;
	Octf__Proto__Trace__Event pb = OCTF__PROTO__TRACE__EVENT__INIT;
	struct event ev = { .type = EV_FILE_NAME, .ts = 1 };

	set_pb_fid(&a, &ta, ino);
	set_pb_fid(&b, &tb, parent);
	fn.fileid = &a;
	fn.fileparentid = &b;
	fn.filename = (char *)n;
	pb.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_NAME;
	pb.filesystemfilename = &fn;
	ev.pb = &pb;
	feed(j, &ev);
}

static inline void file_event(struct join *j, uint64_t ts, uint64_t ino, int type)
{
	Octf__Proto__Trace__EventIoFilesystemFileEvent fe =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_FILE_EVENT__INIT;
	Octf__Proto__Trace__FileId a = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__Timestamp ta = OCTF__PROTO__TRACE__TIMESTAMP__INIT;
	Octf__Proto__Trace__Event pb = OCTF__PROTO__TRACE__EVENT__INIT;
	struct event ev = { .type = EV_FILE_EVENT, .ts = ts };

	set_pb_fid(&a, &ta, ino);
	fe.fileid = &a;
	fe.fseventtype = type;
	pb.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_EVENT;
	pb.filesystemfileevent = &fe;
	ev.pb = &pb;
	feed(j, &ev);
}

/* A VFS call (EventVfs); files by inode (fid()), 0 = none. */
struct vfs_call {
	uint64_t id;
	int call;	/* Octf__Proto__Trace__VfsCall */
	uint32_t pid, tid, flags, uring_op;
	const char *comm;
	uint64_t cgroup;
	int32_t fd, fd2;
	uint64_t ino, ino2;
	int64_t offset, offset2, result;
	uint64_t size, duration;
	bool created;
};

#define VFS(x) OCTF__PROTO__TRACE__VFS_CALL__Vfs##x

/* The call, ending at ts, on the partition of fid(). */
static inline void vfs_ev(struct join *j, uint64_t ts, const struct vfs_call *c)
{
	struct event_vfs v = { 0 };
	struct event ev = { .type = EV_VFS, .ts = ts };

	v.id = c->id;
	v.call = c->call;
	v.pid = c->pid;
	v.tid = c->tid ? c->tid : c->pid;
	v.fd = c->fd;
	if (c->ino) {
		v.fid = fid(c->ino);
		v.has_fid = true;
	}
	v.offset = c->offset;
	v.size = c->size;
	v.result = c->result;
	v.duration = c->duration;
	v.dev = fid(1).part;
	v.cgroup = c->cgroup;
	if (c->comm)
		snprintf(v.comm, sizeof(v.comm), "%s", c->comm);
	v.flags = c->flags;
	v.created = c->created;
	v.fd2 = c->fd2;
	if (c->ino2) {
		v.fid2 = fid(c->ino2);
		v.has_fid2 = true;
	}
	v.offset2 = c->offset2;
	v.uring_op = c->uring_op;
	ev.vfs = &v;
	feed(j, &ev);
}

#endif
