/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Walks of this node's cgroup v2 tree, where a cgroup's id is the inode
 * number of its directory: the tracer's --cgroup checks an id, the
 * collector finds a cgroup's path without CAP_DAC_READ_SEARCH, the
 * parser's --cgroup takes a directory's subtree. A tree has hundreds of
 * directories, not millions; mounts below it are not entered.
 */
#ifndef IOTRACE_CGROUP_TREE_H
#define IOTRACE_CGROUP_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map;

/*
 * Whether a directory at or below root has inode number id; its path
 * into dir (size bytes) if dir is not NULL.
 */
bool cgroup_tree__find(const char *root, uint64_t id, char *dir, size_t size);

/* Whether path, resolved, is root or below it: "../../etc" is no cgroup. */
bool cgroup_tree__under(const char *path, const char *root);

/*
 * Whether dir is a directory at or below root (root NULL: wherever it
 * is), a cgroup's; its id, the directory's inode number, into *id if id
 * is not NULL.
 */
bool cgroup_tree__dir(const char *dir, const char *root, uint64_t *id);

/* Adds the ids of dir and of every directory below it to ids (values 1): 0 or -ENOMEM. */
int cgroup_tree__subtree(const char *dir, struct u64map *ids);

#endif
