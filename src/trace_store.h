/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trace repository on disk:
 *
 *   <root>/kernel/YYYY-MM-DD_HH:MM:SS/octf.summary
 *                                   /octf.trace.<cpu>.zst (compressed, the default)
 *                                   /octf.trace.<cpu>     (--compress none)
 *
 * root is IOTRACE_TRACE_DIR if set, else the path saved by
 * `--trace-config --set-trace-repository-path` in the config file, else
 * /var/lib/iotrace. Directories are created 0700, files 0600: traces hold
 * file paths.
 *
 * Trace paths given by users are relative to root ("kernel/2026-...") or
 * absolute directories. Functions return 0 or a negative errno and never
 * print.
 */
#ifndef IOTRACE_TRACE_STORE_H
#define IOTRACE_TRACE_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define STORE_DEFAULT_ROOT "/var/lib/iotrace"
/* where --set-trace-repository-path saves the root; IOTRACE_CONFIG overrides it */
#define STORE_DEFAULT_CONFIG "/etc/iotrace/iotrace.conf"
#define STORE_TRACE_PREFIX "kernel"
#define STORE_SUMMARY_NAME "octf.summary"
#define STORE_STREAM_PREFIX "octf.trace."
/* the streams of a compressed trace: octf.trace.<cpu>.zst */
#define STORE_ZSTD_SUFFIX ".zst"

/* The repository root (not created). */
int store__root(char *out, size_t size);

/*
 * Called, once per process, when store__root() passes over the config
 * file for the default: with the file and its trace-repository-path (not
 * an absolute path) and err 0, or with "" and why the file could not be
 * read (a positive errno; ENOSTR: not a regular file). The command line
 * warns. NULL: no call.
 */
void store__set_config_warning(void (*warn)(const char *file, const char *value, int err));

/*
 * Whether root can be saved as the repository: 0, or -EINVAL (not an
 * absolute path), -EILSEQ (a control character, or a blank at its end:
 * the config file holds it on one line, and its reader trims blanks a
 * hand edit leaves), -ENAMETOOLONG (PATH_MAX or more), -ENOENT, -ENOTDIR,
 * -EACCES (it must be a directory that exists), -EPERM ("/" itself; or,
 * with why set (wsize bytes), a path another user could change:
 * safe_dir.h).
 */
int store__check_root(const char *root, char *why, size_t wsize);

/* Saves root as the repository in the config file, if store__check_root() takes it. */
int store__set_root(const char *root, char *why, size_t wsize);

/*
 * Resolves a user-given trace path to a directory that exists:
 * absolute -> as is; relative -> <root>/<path>. Returns -ENOENT,
 * -ENOTDIR, -EACCES (or another -errno) when the directory cannot be
 * read, or -EMEDIUMTYPE when it is not a trace.
 */
int store__resolve(const char *path, char *out, size_t size);

/*
 * Creates a new trace directory <root>/kernel/<now> (0700, parents too),
 * adding "-1", "-2", ... if a trace of the same second exists. *rel gets
 * the path relative to root ("kernel/2026-11-21_06:00:00"), *dir the
 * whole path, symlinks resolved. -EPERM, with why (wsize bytes) saying
 * which name, when another user could change the path to root or kernel/
 * (safe_dir.h): the tracer's writes there could be sent anywhere.
 */
int store__create_trace(char *dir, size_t dsize, char *rel, size_t rsize, char *why, size_t wsize);

/* Removes a trace that store__create_trace() made and that holds no event (a failed start). */
int store__discard_trace(const char *dir);

/* One trace found by store__list. */
struct store_entry {
	char rel[PATH_MAX];	/* relative to root */
	char dir[PATH_MAX];	/* absolute */
	/*
	 * 0, or why the directory could not be read (-EACCES: another
	 * user's trace): it may be a trace, and is listed so that a reader
	 * is told it was passed over, not left to take the list for whole
	 */
	int err;
};

/*
 * Whether a trace's relative path matches prefix as Open-CAS iotrace
 * matches it: NULL or "" matches every trace, "kernel/2026-11*" (a
 * trailing '*') every path that starts with the part before it, and
 * anything else only the trace of exactly that path, so that removing
 * one trace cannot take its namesakes with it.
 */
bool store__matches(const char *rel, const char *prefix);

/*
 * The traces under root matching prefix (store__matches()), sorted by
 * path, those that could not be read among them (err). *out is
 * malloc'ed; free() it.
 */
int store__list(const char *prefix, struct store_entry **out, size_t *count);

/*
 * What store__remove() tells of each trace it removes: before(), while
 * the trace can still be read (what it was), and gone() once removed;
 * or kept(), for a trace it left (after before() if it tried), with why (err, as store__remove()
 * returns it) and what: for -ENOTEMPTY, the name of what the trace holds
 * that is not a file; for -EINPROGRESS, the state its summary says; for
 * -ENOMSG, why its summary cannot be read (summary__strerror()); else
 * NULL. Any may be NULL.
 */
struct store_remove_hooks {
	void (*before)(const struct store_entry *e, void *ctx);
	void (*gone)(const struct store_entry *e, void *ctx);
	void (*kept)(const struct store_entry *e, int err, const char *what, void *ctx);
	void *ctx;
};

/*
 * Removes the traces matching prefix (store__matches()). The prefix must
 * stay inside the repository: -EPERM if it is absolute, empty, contains
 * "..", or any existing component of it is a symlink; -EPERM with why
 * (wsize bytes) if another user could change the path to the repository
 * or its kernel/ (safe_dir.h), and nothing is removed. Unless force, a
 * trace that is being recorded is not removed (-EBUSY), nor one whose
 * summary does not say it ended, COMPLETE or ERROR, with no tracer of
 * ours holding it (-EINPROGRESS: RUNNING, its tracer died or records it
 * under another lock), nor one whose summary cannot be read (-ENOMSG),
 * if no other error came. One that could not be read (store_entry.err) is not touched:
 * that error. A trace directory holding anything but files (a subdirectory,
 * a symlink) is left whole: -ENOTEMPTY, and nothing of it is unlinked.
 * hooks may be NULL. *removed counts what was removed.
 */
int store__remove(const char *prefix, bool force, const struct store_remove_hooks *hooks,
		  size_t *removed, char *why, size_t wsize);
/*
 * Whether err, of store__remove() or its kept(), left a trace on purpose
 * (-EBUSY, -EINPROGRESS, -ENOMSG: not known to be finished) rather than
 * failed to remove it.
 */
bool store__left_unfinished(int err);

/*
 * The one-tracer-at-a-time lock (flock on a file under /run/lock, or
 * IOTRACE_LOCK_FILE). store__lock returns -EBUSY with *holder_pid set when
 * another live process holds it; the lock file also records the trace
 * path being written, so readers can tell a live trace from one whose
 * tracer died.
 */
struct store_lock;
/*
 * -EPERM: the lock file is not a plain file of this user's alone (a
 * symbolic or hard link, another user's file), which is not used.
 */
int store__lock(struct store_lock **lock, int *holder_pid);
/* The lock file's path (IOTRACE_LOCK_FILE or the default), for messages. */
const char *store__lock_path(void);
int store__lock_set_trace(struct store_lock *lock, const char *dir);
void store__unlock(struct store_lock *lock);
/*
 * true if a live tracer is writing the trace in dir. A user who may not
 * open the lock is told by the summary's age: written in the last 30 s.
 */
bool store__trace_is_live(const char *dir);

#endif
