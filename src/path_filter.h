/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --paths: which files' system calls a trace keeps, by glob on the full
 * path. The kernel sends a file's name chain before the first record that
 * names the file, so the collector knows the path of every FileId it is
 * asked about, up to its file system's root; the mount points under which
 * the chain is visible (from the collector's mount table) are put in
 * front. Evaluated in user space, before a record is encoded.
 */
#ifndef IOTRACE_PATH_FILTER_H
#define IOTRACE_PATH_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotrace_event.h"

#define PATH_FILTER_MAX_GLOBS 16

struct path_filter;

/*
 * globs: comma-separated fnmatch(3) patterns without FNM_PATHNAME, so
 * '/data/run42/<star>' matches everything below /data/run42. mountinfo: the
 * mount table to read ("/proc/self/mountinfo"); fs_devs[0..nfs_devs): the
 * traced file systems (fs_devs.h), whose mounts are the only ones used.
 * Returns 0, -EINVAL (an empty or relative pattern: *bad names it),
 * -E2BIG, -ENOMEM.
 */
int path_filter__new(struct path_filter **pf, const char *globs, const char *mountinfo,
		     const uint32_t *fs_devs, size_t nfs_devs, char *bad, size_t badlen);

/* Learns one link of a name chain (a FILE_NAME record). */
/*
 * Adds the mounts of fs_devs that mountinfo shows now and the filter
 * does not know (file systems mounted since it was made, new bind
 * mounts); files are then judged again.
 */
int path_filter__add_mounts(struct path_filter *pf, const char *mountinfo,
			    const uint32_t *fs_devs, size_t nfs_devs);

int path_filter__add_name(struct path_filter *pf, const struct iotrace_name_event *n);

/*
 * Whether one of the file's paths (under each mount that shows it: a
 * file below a bind mount or a mounted btrfs subvolume has several)
 * matches a pattern. A file whose chain is not
 * complete (evicted from the kernel's map, a file system not mounted in
 * the collector's namespace, or a link not learned yet) does not match;
 * only complete chains' verdicts are kept, so it is judged again next time.
 */
bool path_filter__match(struct path_filter *pf, const struct iotrace_file_id *id);

/* id's path under the nearest mount, for tests and messages; false if unknown. */
bool path_filter__path(struct path_filter *pf, const struct iotrace_file_id *id, char *out,
		       size_t size);

/*
 * Pattern i as given (*glob), and what it is matched as too: the same
 * with the symbolic links of its directories resolved, "" where that is
 * the pattern itself. NULL past the last pattern.
 */
const char *path_filter__real_glob(const struct path_filter *pf, size_t i, const char **glob);

void path_filter__free(struct path_filter *pf);

#endif
