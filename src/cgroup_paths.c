// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "cgroup_names.h"
#include "cgroup_paths.h"
#include "cgroup_tree.h"
#include "iotrace_event.h"

/* kernfs's file handle type: the handle is the node's 64-bit id */
#ifndef FILEID_KERNFS
#define FILEID_KERNFS 0xfe
#endif

int cgroup_paths__init(struct cgroup_paths *cp, const char *dir, const char *root)
{
	struct statfs fs;

	memset(cp, 0, sizeof(*cp));
	cp->fd = cp->root_fd = cp->gone_fd = -1;
	cp->root = strdup(root ? root : "");
	if (!cp->root || asprintf(&cp->file, "%s/%s", dir, CGROUP_NAMES_FILE) < 0) {
		free(cp->root);
		memset(cp, 0, sizeof(*cp));
		return -ENOMEM;
	}
	if (root)
		cp->root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/*
	 * the default /sys/fs/cgroup of a node with cgroup v1 alone is a
	 * tmpfs: its inode numbers are no cgroup's
	 */
	if (cp->root_fd >= 0 && (fstatfs(cp->root_fd, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC)) {
		close(cp->root_fd);
		cp->root_fd = -1;
	}
	return 0;
}

void cgroup_paths__watch_removals(struct cgroup_paths *cp, int map_fd)
{
	struct stat st;

	/* the hierarchy's root is kernfs node 1; a cgroup namespace's mount is its own cgroup */
	cp->whole = cp->root_fd >= 0 && !fstat(cp->root_fd, &st) && st.st_ino == 1;
	cp->gone_fd = map_fd;
}

/*
 * A cgroup's directory as /proc/PID/cgroup gives it, into path: false if
 * it is not the mount's root or below it (a cgroup namespace's outside).
 */
static bool cgroup_path(const struct cgroup_paths *cp, const char *dir, char *path, size_t size)
{
	size_t n = strlen(cp->root);

	if (!cgroup_names__within(dir, cp->root, n))
		return false;
	snprintf(path, size, "%s", dir[n] ? dir + n : "/");
	return true;
}

/*
 * id's path found by walking the tree (a cgroup's id is its directory's
 * inode number): what a tracer without CAP_DAC_READ_SEARCH (one given
 * CAP_SYS_ADMIN alone) does, as it may not open by handle. A node has
 * hundreds of cgroups, and an id is looked up once.
 */
static bool walk_for(const struct cgroup_paths *cp, uint64_t id, char *path, size_t size)
{
	char dir[PATH_MAX];

	return cgroup_tree__find(cp->root, id, dir, sizeof(dir)) &&
	       cgroup_path(cp, dir, path, size);
}

/*
 * id's path as /proc/PID/cgroup gives it, into path: false if the cgroup
 * is gone, or is not below the mount (a cgroup namespace's outside).
 */
static bool path_of(const struct cgroup_paths *cp, uint64_t id, char *path, size_t size)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh = { .handle_bytes = sizeof(uint64_t), .handle_type = FILEID_KERNFS } };
	char link[64], target[PATH_MAX];
	ssize_t len;
	int fd;

	memcpy(h.fh.f_handle, &id, sizeof(id));
	fd = open_by_handle_at(cp->root_fd, &h.fh, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == EPERM && walk_for(cp, id, path, size);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, target, sizeof(target) - 1);
	close(fd);
	if (len < 0)
		return false;
	target[len] = '\0';
	/* removed since it was opened: the link says so after the path */
	if ((size_t)len >= sizeof(" (deleted)") - 1 &&
	    !strcmp(target + len - (sizeof(" (deleted)") - 1), " (deleted)"))
		return false;
	return cgroup_path(cp, target, path, size);
}

/*
 * A removed cgroup's path (into path, unless NULL) and parent, as the
 * kernel kept them at its removal: false if it did not (removed before tracing, longer than
 * IOTRACE_CGROUP_PATH_LEN, pushed out by a thousand removals since, or a
 * subtree's mount, whose paths are not the kernel's).
 */
static bool gone_path(const struct cgroup_paths *cp, uint64_t id, char *path, size_t size,
		      uint64_t *parent)
{
	struct iotrace_cgroup_gone g;

	if (cp->gone_fd < 0 || !cp->whole || bpf_map_lookup_elem(cp->gone_fd, &id, &g))
		return false;
	g.path[sizeof(g.path) - 1] = '\0';
	if (path)
		snprintf(path, size, "%s", g.path);
	*parent = g.parent;
	return true;
}

static void write_line(struct cgroup_paths *cp, const char *line, size_t len)
{
	ssize_t n;

	if (cp->err)
		return;
	if (cp->fd < 0) {
		cp->fd = open(cp->file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (cp->fd < 0) {
			cp->err = -errno;
			return;
		}
		write_line(cp, CGROUP_NAMES_HEAD, strlen(CGROUP_NAMES_HEAD));
		if (cp->err)
			return;
	}
	/* one write a line, so a reader never sees half of one but at a crash */
	n = write(cp->fd, line, len);
	if (n != (ssize_t)len)
		cp->err = n < 0 ? -errno : -ENOSPC;
}

/* Writes id's line, unless it has one: whether it was new. */
static bool put(struct cgroup_paths *cp, uint64_t id, const char *path)
{
	char line[PATH_MAX + 32];
	bool created;
	size_t len;

	/* out of memory: looked up again next time, which is all it costs */
	if (!u64map__ref(&cp->seen, id, &created) || !created)
		return false;
	len = cgroup_names__line(line, sizeof(line), id, path);
	if (len)
		write_line(cp, line, len);
	return true;
}

/*
 * The cgroups above path, each with its line: a job's id then takes the
 * job's tasks, which run in cgroups below it, and names it after it is
 * gone. An existing one's id is its directory's inode number; parent is
 * the id the kernel kept for a removed cgroup's parent (0: none kept),
 * truer than a directory of that name, which may be a new one.
 */
static void put_ancestors(struct cgroup_paths *cp, char *path, uint64_t parent)
{
	char dir[PATH_MAX];
	struct stat st;
	uint64_t id;
	char *slash;

	while ((slash = strrchr(path, '/')) && slash != path) {
		*slash = '\0';
		if (parent) {
			id = parent;
			/* gone too: its own parent kept with it; else it is still there */
			if (!gone_path(cp, id, NULL, 0, &parent))
				parent = 0;
		} else if (snprintf(dir, sizeof(dir), "%s%s", cp->root, path) < (int)sizeof(dir) &&
			   !stat(dir, &st)) {
			id = (uint64_t)st.st_ino;
		} else {
			return;
		}
		if (!put(cp, id, path))
			return;
	}
}

void cgroup_paths__look_up(struct cgroup_paths *cp, uint64_t id)
{
	uint64_t one, parent = 0;
	char path[PATH_MAX];

	cp->last = id;
	/* zeroed (not set up: root_fd 0 is no mount), or no mount to look in */
	if (!id || !cp->file || cp->root_fd < 0)
		return;
	if (u64map__get(&cp->seen, id, &one))
		return;
	if (!path_of(cp, id, path, sizeof(path)) &&
	    !gone_path(cp, id, path, sizeof(path), &parent)) {
		/* gone without a trace, or outside the mount: not looked up again */
		(void)u64map__put(&cp->seen, id, 1);
		return;
	}
	if (put(cp, id, path))
		put_ancestors(cp, path, parent);
}

int cgroup_paths__close(struct cgroup_paths *cp)
{
	int err = cp->err;

	/* a zeroed one was never set up: its 0s are no fds */
	if (!cp->file)
		return 0;
	if (cp->fd >= 0 && close(cp->fd) && !err)
		err = -errno;
	if (cp->root_fd >= 0)
		close(cp->root_fd);
	u64map__free(&cp->seen);
	free(cp->root);
	free(cp->file);
	memset(cp, 0, sizeof(*cp));
	return err;
}
