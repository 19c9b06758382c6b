// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>

#include "vfs_rec.h"

void vfs_rec__fill(struct vfs_rec *r, const struct event *ev)
{
	const Octf__Proto__Trace__EventVfs *v = ev->pb->vfs;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->sid = ev->sid;
	r->ts = ev->ts;
	r->id = v->id;
	r->call = (int32_t)v->call;
	r->uring_op = v->uringopcode;
	r->pid = v->pid;
	r->tid = v->tid;
	r->cgroup = v->cgroupid;
	/* cut as the io event's comm is, so that the two group together */
	if (v->comm) {
		n = strnlen(v->comm, EVENT_COMM_MAX - 1);
		memcpy(r->comm, v->comm, n);
	}
	r->fd = v->fd;
	r->fd2 = v->fd2;
	r->offset = v->offset;
	r->offset2 = v->offset2;
	r->size = v->size;
	r->result = v->result;
	r->duration = v->duration;
	r->flags = v->flags;
	r->created = v->created;
	r->has_file = v->fileid != NULL;
	r->has_file2 = v->fileid2 != NULL;
	r->part = v->deviceid;
}
