/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The files a trace names: for each FileId (partition, inode, creation
 * time) its name, its parent's FileId and its last known size, from
 * filesystemFileName and filesystemMeta events. Paths are the names
 * joined up the parent chain, as OCTF builds them: the root is the file
 * that is its own parent (its name is "/"), so "/dir/file".
 *
 * When the chain breaks (a parent whose name the trace never gave, a
 * cycle, more than FILE_PATH_MAX bytes) the path is what is known below
 * the break, without a leading "/": "dir/file". OCTF prints "" there; the
 * tail is more use and the missing "/" says it is partial.
 *
 * Memory grows with the number of files the trace names. A path is built
 * once and cached in its file until a name changes: renaming a directory
 * changes its descendants' paths, and a new name can complete a partial
 * one, so each kind of change has a generation counter the cache checks.
 */
#ifndef IOTRACE_FILE_NAMES_H
#define IOTRACE_FILE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

#define FILE_PATH_MAX 4096

struct file_names;
struct file_node;

struct file_names *file_names__new(void);
void file_names__free(struct file_names *fn);

/* The file with this id, created (nameless) if new; NULL when out of memory. */
struct file_node *file_names__get(struct file_names *fn, const struct file_id *id);

/*
 * Whether that filesystemFileName event would change the name or parent
 * of a file already named: a rename, which changes the paths of the file
 * and of all below it.
 */
bool file_names__is_rename(const struct file_names *fn, const struct file_id *id,
			   const struct file_id *parent, const char *name);

/* A filesystemFileName event. Returns 0 or -ENOMEM. */
int file_names__set_name(struct file_names *fn, const struct file_id *id,
			 const struct file_id *parent, const char *name);

const struct file_id *file_node__id(const struct file_node *f);
uint64_t file_node__size(const struct file_node *f);
void file_node__set_size(struct file_node *f, uint64_t sectors);

/*
 * The file's path (NUL-terminated, *len set), or NULL if the trace never
 * named the file (or out of memory). Valid until the next call that
 * changes names.
 */
const char *file_names__path(struct file_names *fn, struct file_node *f, size_t *len);

#endif
