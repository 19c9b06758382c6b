// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>

#include "vfs_rec.h"

void vfs_rec__fill(struct vfs_rec *r, const struct event *ev)
{
	const struct event_vfs *v = ev->vfs;

	memset(r, 0, sizeof(*r));
	r->sid = ev->sid;
	r->ts = ev->ts;
	r->id = v->id;
	r->call = v->call;
	r->uring_op = v->uring_op;
	r->pid = v->pid;
	r->tid = v->tid;
	r->cgroup = v->cgroup;
	/* cut as the io event's comm is, so that the two group together */
	memcpy(r->comm, v->comm, sizeof(r->comm));
	r->fd = v->fd;
	r->fd2 = v->fd2;
	r->offset = v->offset;
	r->offset2 = v->offset2;
	r->size = v->size;
	r->result = v->result;
	r->duration = v->duration;
	r->flags = v->flags;
	r->created = v->created;
	r->has_file = v->has_fid;
	r->has_file2 = v->has_fid2;
	r->part = v->dev;
}
