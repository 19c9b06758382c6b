/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Whether another user could redirect what the tracer, run as root,
 * writes into or removes from a directory. A user who can write to a
 * directory on its path can, between the tracer's check of a trace and
 * its use, rename a name away and put a symlink to anywhere in its
 * place: the summary then overwrites, the cgroup names append to, and
 * -M -R removes a file of the user's choosing (a repository under a
 * shared /scratch, say). So every directory from / down is to be owned
 * by root or the caller and writable by no one else, but where it is
 * sticky (/tmp): there others may add names, never rename or remove
 * ours. The directory itself must not be writable by others even so:
 * they could put their names beside ours. A symlink on the path must be
 * root's or the caller's.
 */
#ifndef IOTRACE_SAFE_DIR_H
#define IOTRACE_SAFE_DIR_H

#include <stddef.h>

/*
 * Checks the absolute path, and the path it resolves to, which it
 * writes to canon (size bytes): after a 0 the caller uses canon, whose
 * names no one else can change. 0; 1 (unsafe: why says which name and
 * what is wrong, as "'/scratch' is writable by other users (mode 0777)");
 * or -errno (a name cannot be looked at, -ENAMETOOLONG).
 */
int safe_dir__resolve(const char *path, char *canon, size_t size, char *why, size_t wsize);

#endif
