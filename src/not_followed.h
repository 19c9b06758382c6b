/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a tracer was asked to trace and its kernel (or a limit of its own)
 * did not let it follow, nor count: tags.notFollowed in the summary, a
 * comma-separated list of words. Counted misses have counts of their own
 * (unresolvedFileEvents, uringCallsNotFollowed); these have none, so
 * without the tag a reader of the trace could not tell an event that
 * never happened from one that was never seen.
 */
#ifndef IOTRACE_NOT_FOLLOWED_H
#define IOTRACE_NOT_FOLLOWED_H

#include <stddef.h>

enum not_followed {
	/* "create", "delete", "move": the system calls' file events */
	NF_CREATE = 1u << 0,
	NF_DELETE = 1u << 1,
	NF_MOVE = 1u << 2,
	/* "io_uring-files": the Create, Delete and Move events of io_uring's requests */
	NF_URING_FILES = 1u << 3,
	/* "io_uring-vfs": --vfs records of io_uring's requests */
	NF_URING_VFS = 1u << 4,
	/*
	 * "file-systems-over-limit": file events and --vfs records on the
	 * traced devices' partitions and file systems past the programs'
	 * list (vfs__fs_devs_max()); not the kernel's doing, but as silent
	 */
	NF_FS_OVER_LIMIT = 1u << 5,
};

/* what the file-event views lack, and what the --vfs views lack */
#define NF_FILE_EVENTS (NF_CREATE | NF_DELETE | NF_MOVE | NF_URING_FILES | NF_FS_OVER_LIMIT)
#define NF_VFS (NF_URING_VFS | NF_FS_OVER_LIMIT)

/* The tag's words for the bits of nf, into buf: "delete,move" ("" for none). */
void not_followed__tag(unsigned int nf, char *buf, size_t size);

/*
 * For a note, the words of tag (a summary's, maybe a newer tracer's) that
 * are in mask, as people read them: "Delete and Move events; io_uring
 * requests' --vfs records". A word this version does not know is kept as
 * it is, whatever the mask. "" if nothing is left.
 */
void not_followed__describe(const char *tag, unsigned int mask, char *buf, size_t size);

#endif
