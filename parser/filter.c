// SPDX-License-Identifier: BSD-3-Clause
#include <fnmatch.h>
#include <string.h>

#include "filter.h"

void filter__init(struct filter *f, const char *file, uint32_t pid, const char *comm)
{
	memset(f, 0, sizeof(*f));
	f->to_ns = UINT64_MAX;
	f->file = file && *file ? file : NULL;
	f->pid = pid;
	/* the kernel keeps TASK_COMM_LEN - 1 bytes: a longer name is cut there */
	if (comm)
		memcpy(f->comm, comm, strnlen(comm, sizeof(f->comm) - 1));
}

void filter__set_window(struct filter *f, uint64_t from_ns, uint64_t to_ns)
{
	f->from_ns = from_ns;
	f->to_ns = to_ns;
}

bool filter__active(const struct filter *f)
{
	return f->file || f->pid || f->comm[0] || f->from_ns || f->to_ns != UINT64_MAX;
}

static bool in_window(const struct filter *f, uint64_t time)
{
	return time >= f->from_ns && time < f->to_ns;
}

unsigned int filter__join_flags(const struct filter *f)
{
	return f->file ? JOIN_FILES | JOIN_PATHS : 0;
}

static bool path_matches(const struct filter *f, const char *path)
{
	return path && !fnmatch(f->file, path, 0);
}

static bool process_matches(const struct filter *f, uint32_t pid, uint32_t tid, const char *comm)
{
	if (f->pid && pid != f->pid && tid != f->pid)
		return false;
	return !f->comm[0] || !strcmp(comm, f->comm);
}

bool filter__io(const struct filter *f, const struct io_rec *r)
{
	if (!in_window(f, r->time))
		return false;
	if (f->file && !path_matches(f, r->path))
		return false;
	if (r->kind != REC_IO)
		return !f->pid && !f->comm[0];
	return process_matches(f, r->pid, r->tid, r->comm);
}

bool filter__vfs(const struct filter *f, const struct vfs_rec *r)
{
	if (!in_window(f, r->time))
		return false;
	if (f->file && !path_matches(f, r->path) && !path_matches(f, r->path2))
		return false;
	return process_matches(f, r->pid, r->tid, r->comm);
}

static void sink_record(void *ctx, const struct io_rec *r)
{
	struct filter_sink *fs = ctx;

	if (filter__io(fs->f, r))
		fs->next.record(fs->next.ctx, r);
}

static void sink_vfs(void *ctx, const struct vfs_rec *r)
{
	struct filter_sink *fs = ctx;
	const struct filter *f = fs->f;
	struct vfs_rec copy;

	if (!fs->next.vfs || !filter__vfs(f, r))
		return;
	/* a copy matched through one of its files: totals count only that one */
	if (f->file && ((r->has_file && !path_matches(f, r->path)) ||
			(r->has_file2 && !path_matches(f, r->path2)))) {
		copy = *r;
		if (r->has_file && !path_matches(f, r->path))
			copy.unmatched |= VFS_IN;
		if (r->has_file2 && !path_matches(f, r->path2))
			copy.unmatched |= VFS_OUT;
		r = &copy;
	}
	fs->next.vfs(fs->next.ctx, r);
}

struct join_sink filter__sink(struct filter_sink *fs, const struct filter *f,
			      const struct join_sink *next)
{
	struct join_sink s = { sink_record, fs, next->vfs ? sink_vfs : NULL };

	fs->f = f;
	fs->next = *next;
	return s;
}
