// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <fnmatch.h>
#include <string.h>

#include "filter.h"

void filter__init(struct filter *f, const char *file, uint32_t pid, const char *comm)
{
	memset(f, 0, sizeof(*f));
	f->to_ns = UINT64_MAX;
	f->max_latency = UINT64_MAX;
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

void filter__set_cgroups(struct filter *f, const struct u64map *ids)
{
	f->cgroups = ids;
}

void filter__set_device(struct filter *f, const char *device)
{
	f->device = device && *device ? device : NULL;
}

void filter__set_latency(struct filter *f, uint64_t min_ns, uint64_t max_ns)
{
	f->min_latency = min_ns;
	f->max_latency = max_ns;
	f->by_latency = true;
}

static bool by_latency(const struct filter *f)
{
	return f->by_latency;
}

bool filter__active(const struct filter *f)
{
	return f->file || f->pid || f->comm[0] || f->from_ns || f->to_ns != UINT64_MAX ||
	       f->cgroups || f->device || by_latency(f);
}

static bool in_window(const struct filter *f, uint64_t time)
{
	return time >= f->from_ns && time < f->to_ns;
}

static bool latency_in(const struct filter *f, uint64_t ns)
{
	return ns >= f->min_latency && ns <= f->max_latency;
}

/* The kernel's rule (disk_name()): sda1 of sda, nvme0n1p1 of nvme0n1, md0p1 of md0. */
static bool partition_of(const char *part, const char *disk)
{
	size_t n = strlen(disk);

	if (!n || strncmp(part, disk, n))
		return false;
	part += n;
	if (isdigit((unsigned char)disk[n - 1]) && *part++ != 'p')
		return false;
	return *part && strspn(part, "0123456789") == strlen(part);
}

bool filter__names(const struct filter *f, const struct device *d)
{
	return f->device && d && (!strcmp(d->name, f->device) || partition_of(d->name, f->device));
}

/* dev: the record's device; part: its partition (or file system) dev_t */
static bool device_matches(const struct filter *f, const struct join *j,
			   const struct device *dev, uint64_t part)
{
	if (!f->device || filter__names(f, dev))
		return true;
	return j && part && (!dev || part != dev->id) &&
	       filter__names(f, join__device_by_id(j, part));
}

unsigned int filter__join_flags(const struct filter *f)
{
	return f->file ? JOIN_FILES | JOIN_PATHS : 0;
}

static bool path_matches(const struct filter *f, const char *path)
{
	return path && !fnmatch(f->file, path, 0);
}

static bool process_matches(const struct filter *f, uint32_t pid, uint32_t tid, const char *comm,
			    uint64_t cgroup)
{
	uint64_t one;

	if (f->pid && pid != f->pid && tid != f->pid)
		return false;
	if (f->cgroups && !u64map__get(f->cgroups, cgroup, &one))
		return false;
	return !f->comm[0] || !strcmp(comm, f->comm);
}

bool filter__io(const struct filter *f, const struct join *j, const struct io_rec *r)
{
	if (!in_window(f, r->time) || !device_matches(f, j, r->dev, r->part))
		return false;
	if (f->file && !path_matches(f, r->path))
		return false;
	if (r->kind != REC_IO)
		return !f->pid && !f->comm[0] && !f->cgroups && !by_latency(f);
	if (by_latency(f) && (r->state != IO_COMPLETED || !latency_in(f, r->latency)))
		return false;
	return process_matches(f, r->pid, r->tid, r->comm, r->cgroup);
}

bool filter__vfs(const struct filter *f, const struct join *j, const struct vfs_rec *r)
{
	if (!in_window(f, r->time) || !device_matches(f, j, r->dev, r->part) ||
	    !latency_in(f, r->duration))
		return false;
	if (f->file && !path_matches(f, r->path) && !path_matches(f, r->path2))
		return false;
	return process_matches(f, r->pid, r->tid, r->comm, r->cgroup);
}

static void sink_record(void *ctx, const struct io_rec *r)
{
	struct filter_sink *fs = ctx;

	if (filter__io(fs->f, fs->join, r))
		fs->next.record(fs->next.ctx, r);
}

static void sink_vfs(void *ctx, const struct vfs_rec *r)
{
	struct filter_sink *fs = ctx;
	const struct filter *f = fs->f;
	struct vfs_rec copy;

	if (!fs->next.vfs || !filter__vfs(f, fs->join, r))
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

	/* a latency filter keeps a record only once its latency is known */
	s.in_order = next->in_order && !by_latency(f);
	fs->f = f;
	fs->next = *next;
	fs->join = NULL;
	return s;
}

void filter__sink_join(struct filter_sink *fs, const struct join *j)
{
	fs->join = j;
}
