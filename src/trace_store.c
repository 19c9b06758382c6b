// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "regular_file.h"
#include "safe_dir.h"
#include "summary.h"
#include "trace_store.h"

#define LOCK_DEFAULT "/run/lock/iotrace.lock"

static int copy_str(char *out, size_t size, const char *s)
{
	if (strlen(s) >= size)
		return -ENAMETOOLONG;
	strcpy(out, s);
	return 0;
}

static const char *config_path(void)
{
	const char *p = getenv("IOTRACE_CONFIG");

	return p && *p ? p : STORE_DEFAULT_CONFIG;
}

/*
 * The config file holds one line: "trace-repository-path=<dir>". -ENOENT
 * for a file without it, as for no file.
 */
static int read_config_root(char *out, size_t size)
{
	char line[PATH_MAX + 64];
	const char *key = "trace-repository-path=";
	FILE *f = regular_file__open(config_path());
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *end;

		line[strcspn(line, "\n")] = 0;
		/* "key = value" as written by hand, too */
		if (strncmp(p, key, strlen(key) - 1))
			continue;
		p += strlen(key) - 1;
		p += strspn(p, " \t");
		if (*p++ != '=')
			continue;
		p += strspn(p, " \t");
		end = p + strlen(p);
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = 0;
		err = copy_str(out, size, p);
		break;
	}
	if (err == -ENOENT && ferror(f))
		err = -EIO;
	fclose(f);
	return err;
}

static void (*config_warning)(const char *file, const char *value, int err);

void store__set_config_warning(void (*warn)(const char *file, const char *value, int err))
{
	config_warning = warn;
}

int store__root(char *out, size_t size)
{
	const char *env = getenv("IOTRACE_TRACE_DIR");
	int err;

	if (env && *env)
		return copy_str(out, size, env);
	err = read_config_root(out, size);
	if (!err && out[0] == '/')
		return 0;
	/* no file, or no line for it: the default, as a fresh install has it */
	if (err != -ENOENT && config_warning) {
		void (*warn)(const char *, const char *, int) = config_warning;

		/* once: a command may look the root up several times */
		config_warning = NULL;
		warn(config_path(), err ? "" : out, -err);
	}
	return copy_str(out, size, STORE_DEFAULT_ROOT);
}

static int mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	char *p;

	if (copy_str(buf, sizeof(buf), path))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * root made the path to it that no other user can change, and kernel/
 * in it checked the same way where it exists (safe_dir.h): -EPERM with
 * why when they could.
 */
static int safe_root(char *root, size_t size, char *why, size_t wsize)
{
	char canon[PATH_MAX], kdir[PATH_MAX];
	int r;

	r = safe_dir__resolve(root, canon, sizeof(canon), why, wsize);
	if (!r) {
		if (snprintf(kdir, sizeof(kdir), "%s/%s", canon, STORE_TRACE_PREFIX) >= (int)sizeof(kdir))
			return -ENAMETOOLONG;
		r = safe_dir__resolve(kdir, kdir, sizeof(kdir), why, wsize);
		if (r == -ENOENT)
			r = 0;
	}
	if (r)
		return r > 0 ? -EPERM : r;
	return copy_str(root, size, canon);
}

int store__check_root(const char *root, char *why, size_t wsize)
{
	size_t n = strlen(root), i;
	struct stat st, top;
	char canon[PATH_MAX];

	why[0] = '\0';
	if (root[0] != '/')
		return -EINVAL;
	/* read_config_root() trims the blanks a hand edit leaves; a newline would end the line */
	for (i = 0; i < n; i++)
		if (iscntrl((unsigned char)root[i]))
			return -EILSEQ;
	if (root[n - 1] == ' ')
		return -EILSEQ;
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	if (stat(root, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/* "/", "//", "/tmp/..": traces would sit among the system's directories */
	if (!stat("/", &top) && st.st_dev == top.st_dev && st.st_ino == top.st_ino)
		return -EPERM;
	if (copy_str(canon, sizeof(canon), root))
		return -ENAMETOOLONG;
	return safe_root(canon, sizeof(canon), why, wsize);
}

int store__set_root(const char *root, char *why, size_t wsize)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	const char *cfg = config_path();
	char *slash;
	FILE *f;
	int fd, err;

	err = store__check_root(root, why, wsize);
	if (err)
		return err;
	if (copy_str(dir, sizeof(dir), cfg))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		err = mkdir_p(dir, 0755);
		if (err)
			return err;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", cfg) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/* a name another user put there (a link to a file of root's) is not written through */
	if (unlink(tmp) && errno != ENOENT)
		return -errno;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		return err;
	}
	fprintf(f, "trace-repository-path=%s\n", root);
	if (fclose(f)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	if (rename(tmp, cfg)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

/* 1 if dir holds a summary or a stream, 0 if not, -errno if it cannot be read */
static int dir_has_trace_files(const char *dir)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while (!found && (de = readdir(d))) {
		found = !strcmp(de->d_name, STORE_SUMMARY_NAME) ||
			!strncmp(de->d_name, STORE_STREAM_PREFIX, strlen(STORE_STREAM_PREFIX));
	}
	closedir(d);
	return found;
}

int store__resolve(const char *path, char *out, size_t size)
{
	char root[PATH_MAX];
	struct stat st;
	int err;

	if (!path || !*path)
		return -EINVAL;
	if (path[0] == '/') {
		err = copy_str(out, size, path);
	} else {
		err = store__root(root, sizeof(root));
		if (err)
			return err;
		err = snprintf(out, size, "%s/%s", root, path) >= (int)size ? -ENAMETOOLONG : 0;
	}
	if (err)
		return err;
	if (stat(out, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	err = dir_has_trace_files(out);
	return err < 0 ? err : err ? 0 : -EMEDIUMTYPE;
}

int store__create_trace(char *dir, size_t dsize, char *rel, size_t rsize, char *why, size_t wsize)
{
	char root[PATH_MAX], base[64], parent[PATH_MAX];
	time_t now = time(NULL);
	struct tm tm;
	int err, i;

	why[0] = '\0';
	err = store__root(root, sizeof(root));
	if (err)
		return err;
	if (!localtime_r(&now, &tm))
		return -EINVAL;
	strftime(base, sizeof(base), "%Y-%m-%d_%H:%M:%S", &tm);
	err = safe_root(root, sizeof(root), why, wsize);
	/* the first trace makes the repository */
	if (err == -ENOENT) {
		err = mkdir_p(root, 0700);
		if (!err)
			err = safe_root(root, sizeof(root), why, wsize);
	}
	if (err)
		return err;
	if (snprintf(parent, sizeof(parent), "%s/%s", root, STORE_TRACE_PREFIX) >= (int)sizeof(parent))
		return -ENAMETOOLONG;
	if (mkdir(parent, 0700) && errno != EEXIST)
		return -errno;
	for (i = 0; i < 100; i++) {
		int n = i ? snprintf(rel, rsize, "%s/%s-%d", STORE_TRACE_PREFIX, base, i)
			  : snprintf(rel, rsize, "%s/%s", STORE_TRACE_PREFIX, base);

		if (n >= (int)rsize || snprintf(dir, dsize, "%s/%s", root, rel) >= (int)dsize)
			return -ENAMETOOLONG;
		if (!mkdir(dir, 0700))
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * 1 if name, in the directory dfd at path dir, is a trace, 0 if it is
 * not, -errno if that cannot be told (a trace directory another user's,
 * mode 0700).
 */
static int is_trace(int dfd, const char *name, const char *dir)
{
	struct stat st;
	int err;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	/* a symlink in the repository could point anywhere: not a trace of ours */
	if (!S_ISDIR(st.st_mode))
		return 0;
	err = dir_has_trace_files(dir);
	return err == -ENOENT ? 0 : err;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct store_entry *)a)->rel, ((const struct store_entry *)b)->rel);
}

bool store__matches(const char *rel, const char *prefix)
{
	size_t n;

	if (!prefix || !*prefix)
		return true;
	n = strlen(prefix);
	if (prefix[n - 1] == '*')
		return !strncmp(rel, prefix, n - 1);
	return !strcmp(rel, prefix);
}

/*
 * prefix as -P and -G take a path: "kernel/T/", "./kernel/T" and
 * "kernel//T" are "kernel/T". Empty and "." components go, ".." stays
 * (check_prefix() refuses it), and so does a leading '/'. A '*' is a
 * wildcard only where the user put it last: "kernel/<star>/" keeps its
 * '/' and matches nothing, as before, rather than every trace.
 */
static int normalize_prefix(const char *prefix, char *out, size_t size)
{
	const char *p = prefix;
	size_t len = 0, n;

	if (strlen(prefix) >= size)
		return -ENAMETOOLONG;
	if (*p == '/')
		out[len++] = '/';
	for (; *p; p += n) {
		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (!n || (n == 1 && *p == '.'))
			continue;
		if (len && out[len - 1] != '/')
			out[len++] = '/';
		memcpy(out + len, p, n);
		len += n;
	}
	if (len && out[len - 1] == '*' && prefix[strlen(prefix) - 1] != '*')
		out[len++] = '/';
	out[len] = 0;
	return 0;
}

/* The traces of repository root whose path matches prefix (normalized, or NULL). */
static int list_in(const char *root, const char *prefix, struct store_entry **out, size_t *count)
{
	char kdir[PATH_MAX];
	struct store_entry *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int err = 0;

	*out = NULL;
	*count = 0;
	if (snprintf(kdir, sizeof(kdir), "%s/%s", root, STORE_TRACE_PREFIX) >= (int)sizeof(kdir))
		return -ENAMETOOLONG;
	d = opendir(kdir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct store_entry e;
		int t;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(e.rel, sizeof(e.rel), "%s/%s", STORE_TRACE_PREFIX, de->d_name) >= (int)sizeof(e.rel) ||
		    snprintf(e.dir, sizeof(e.dir), "%s/%s", root, e.rel) >= (int)sizeof(e.dir))
			continue;
		if (!store__matches(e.rel, prefix))
			continue;
		t = is_trace(dirfd(d), de->d_name, e.dir);
		if (!t)
			continue;
		e.err = t < 0 ? t : 0;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				err = -ENOMEM;
				goto cleanup;
			}
			v = nv;
		}
		v[n++] = e;
	}
	if (n)
		qsort(v, n, sizeof(*v), entry_cmp);
	*out = v;
	*count = n;
	v = NULL;
cleanup:
	closedir(d);
	free(v);
	return err;
}

int store__list(const char *prefix, struct store_entry **out, size_t *count)
{
	char root[PATH_MAX], norm[PATH_MAX];
	int err;

	*out = NULL;
	*count = 0;
	if (prefix) {
		err = normalize_prefix(prefix, norm, sizeof(norm));
		if (err)
			return err;
		prefix = norm;
	}
	err = store__root(root, sizeof(root));
	return err ? err : list_in(root, prefix, out, count);
}

/*
 * A removal prefix names traces by their path relative to the repository.
 * It may not leave it: no absolute path, no "..", and no symlinked
 * component on the way (a symlink could point anywhere).
 */
static int check_prefix(const char *root, const char *prefix)
{
	char path[PATH_MAX], part[PATH_MAX];
	const char *p = prefix;
	struct stat st;
	size_t n;

	if (!*prefix || prefix[0] == '/')
		return -EPERM;
	for (;;) {
		n = strcspn(p, "/");
		if (n == 2 && !strncmp(p, "..", 2))
			return -EPERM;
		if (!p[n])
			break;
		p += n + 1;
	}
	/* every full component that exists must be a real directory or file */
	p = prefix;
	while ((p = strchr(p, '/'))) {
		n = (size_t)(p - prefix);
		memcpy(part, prefix, n);
		part[n] = 0;
		if (snprintf(path, sizeof(path), "%s/%s", root, part) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		if (!lstat(path, &st) && S_ISLNK(st.st_mode))
			return -EPERM;
		p++;
	}
	if (snprintf(path, sizeof(path), "%s/%s", root, prefix) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode))
		return -EPERM;
	if (snprintf(path, sizeof(path), "%s/%s", root, STORE_TRACE_PREFIX) < (int)sizeof(path) &&
	    !lstat(path, &st) && S_ISLNK(st.st_mode))
		return -EPERM;
	return 0;
}

/*
 * 0 if every entry of d is a regular file; else, before anything is
 * unlinked, -ENOTEMPTY with the name of the first that is not (a
 * directory of someone's analysis, a symlink) in what, or -errno.
 */
static int only_files(DIR *d, char *what, size_t wsize)
{
	struct dirent *de;
	struct stat st;

	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			return -errno;
		if (!S_ISREG(st.st_mode)) {
			if (wsize)
				snprintf(what, wsize, "%s", de->d_name);
			return -ENOTEMPTY;
		}
	}
	return 0;
}

/*
 * Removes the files of one trace directory, then the directory. Traces
 * hold only flat files; one that holds anything else is left whole
 * (only_files()) rather than half deleted. Something put in it between
 * the check and the unlinks still stops the unlinks at its name.
 */
static int remove_trace_dir(const char *dir, char *what, size_t wsize)
{
	struct dirent *de;
	int err, fd;
	DIR *d;

	/* O_NOFOLLOW: the directory may have been swapped for a symlink since listing */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		err = -errno;
		close(fd);
		return err;
	}
	err = only_files(d, what, wsize);
	if (!err)
		rewinddir(d);
	while (!err && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    unlinkat(dirfd(d), de->d_name, 0))
			err = -errno;
	}
	closedir(d);
	if (!err && rmdir(dir))
		err = -errno;
	return err;
}

int store__discard_trace(const char *dir)
{
	return remove_trace_dir(dir, NULL, 0);
}

/*
 * Only a trace whose summary says it ended (COMPLETE or ERROR) goes
 * without --force, as in Open-CAS (TraceBase::isTracingEnd): the lock
 * tells only of tracers that use the same lock file, and one run with
 * another IOTRACE_LOCK_FILE or in a mount namespace with its own /run
 * holds none we can see. -EINPROGRESS if the summary says otherwise
 * (RUNNING), with that state in what, -ENOMSG if it cannot be read, with
 * why in what; 0 if it ended.
 */
static int summary_unfinished(const char *dir, char *what, size_t wsize)
{
	struct summary s;
	int err = summary__read(dir, &s);

	if (err) {
		snprintf(what, wsize, "%s", summary__strerror(&s, err));
		return -ENOMSG;
	}
	if (!strcmp(s.state, "COMPLETE") || !strcmp(s.state, "ERROR"))
		return 0;
	snprintf(what, wsize, "%s", s.state);
	return -EINPROGRESS;
}

/*
 * Why e stays before anything of it is touched (an error, or unfinished,
 * with what summary_unfinished() says in what), or 0.
 */
static int must_stay(const struct store_entry *e, bool force, char *what, size_t wsize)
{
	if (e->err || force)
		return e->err;
	if (store__trace_is_live(e->dir))
		return -EBUSY;
	return summary_unfinished(e->dir, what, wsize);
}

bool store__left_unfinished(int err)
{
	return err == -EBUSY || err == -EINPROGRESS || err == -ENOMSG;
}

int store__remove(const char *prefix, bool force, const struct store_remove_hooks *hooks,
		  size_t *removed, char *why, size_t wsize)
{
	char root[PATH_MAX], norm[PATH_MAX], what[NAME_MAX + 1];
	struct store_entry *v = NULL;
	size_t n, i;
	int err;

	*removed = 0;
	why[0] = '\0';
	err = normalize_prefix(prefix, norm, sizeof(norm));
	if (err)
		return err;
	prefix = norm;
	err = store__root(root, sizeof(root));
	if (err)
		return err;
	/* no repository: nothing to remove, as list_in() finds */
	err = safe_root(root, sizeof(root), why, wsize);
	if (err && err != -ENOENT)
		return err;
	err = check_prefix(root, prefix);
	if (err)
		return err;
	/* normalized already, and the root read once: a config edit between would split them */
	err = list_in(root, prefix, &v, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		int e;

		what[0] = 0;
		e = must_stay(&v[i], force, what, sizeof(what));
		if (!e) {
			if (hooks && hooks->before)
				hooks->before(&v[i], hooks->ctx);
			e = remove_trace_dir(v[i].dir, what, sizeof(what));
		}
		if (!e) {
			(*removed)++;
			if (hooks && hooks->gone)
				hooks->gone(&v[i], hooks->ctx);
		} else if (hooks && hooks->kept) {
			hooks->kept(&v[i], e, what[0] ? what : NULL, hooks->ctx);
		}
		/* a trace left unfinished is said only if nothing failed */
		if (e && (!err || store__left_unfinished(err)))
			err = e;
	}
	free(v);
	return err;
}

struct store_lock {
	int fd;
};

static const char *lock_path(void)
{
	const char *p = getenv("IOTRACE_LOCK_FILE");

	return p && *p ? p : LOCK_DEFAULT;
}

/* Lock file content: "<pid> <trace dir>\n". */
static int read_lock_file(int fd, int *pid, char *dir, size_t size)
{
	char buf[PATH_MAX + 32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *sp;

	if (n <= 0)
		return -ENODATA;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	*pid = atoi(buf);
	sp = strchr(buf, ' ');
	if (dir && size) {
		dir[0] = 0;
		if (sp)
			snprintf(dir, size, "%s", sp + 1);
	}
	return 0;
}

/*
 * The default lock is in /run/lock, which anyone may write to (mode
 * 1777): a symbolic or hard link put there would have the tracer, root,
 * truncate the file it leads to, and a file of another user's, held
 * locked, would stop every tracer in its name. So the lock is opened
 * without following a link, and taken only if it is a plain file of this
 * user's with no other name.
 */
#define LOCK_OPEN_FLAGS (O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)

/* fd a plain file with one name, of this user's (or, root_too, root's) */
static bool lock_file_trusted(int fd, bool root_too)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	       (st.st_uid == geteuid() || (root_too && !st.st_uid));
}

const char *store__lock_path(void)
{
	return lock_path();
}

/*
 * For root, what another user put in the lock's place (a file of theirs,
 * a link, a FIFO) is removed and the lock made anew: in /run/lock any
 * user could otherwise stop every tracer, the boot's capture too, by
 * making the name first. Only root may trace (CAP_SYS_ADMIN), so no
 * other user's file there is a tracer's lock. A directory, which its
 * maker could keep from being emptied, is moved aside to
 * "<lock>.planted-<pid>". The fd of the new lock, or -errno.
 */
static int reclaim_lock(void)
{
	char aside[PATH_MAX];
	struct stat st;
	int fd;

	if (geteuid() != 0 || lstat(lock_path(), &st))
		return -EPERM;
	if (S_ISDIR(st.st_mode)) {
		if (snprintf(aside, sizeof(aside), "%s.planted-%d", lock_path(), (int)getpid()) >=
			    (int)sizeof(aside) ||
		    rename(lock_path(), aside))
			return -EPERM;
	} else if (unlink(lock_path()) && errno != ENOENT) {
		return -errno;
	}
	/* one planted again meanwhile is refused, not taken */
	fd = open(lock_path(), LOCK_OPEN_FLAGS | O_EXCL, 0600);
	return fd >= 0 ? fd : errno == EEXIST ? -EPERM : -errno;
}

int store__lock(struct store_lock **lockp, int *holder_pid)
{
	struct store_lock *lock;
	char buf[32];
	int fd, err, n;

	*lockp = NULL;
	*holder_pid = 0;
	fd = open(lock_path(), LOCK_OPEN_FLAGS, 0600);
	if (fd < 0 && errno == ENOENT) {
		char dir[PATH_MAX], *slash;

		snprintf(dir, sizeof(dir), "%s", lock_path());
		slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = 0;
			mkdir_p(dir, 0755);
		}
		fd = open(lock_path(), LOCK_OPEN_FLAGS, 0600);
	}
	if ((fd < 0 && (errno == ELOOP || errno == EISDIR)) ||
	    (fd >= 0 && !lock_file_trusted(fd, false))) {
		if (fd >= 0)
			close(fd);
		fd = reclaim_lock();
		if (fd < 0)
			return fd;
	}
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		read_lock_file(fd, holder_pid, NULL, 0);
		close(fd);
		return err;
	}
	lock = calloc(1, sizeof(*lock));
	if (!lock) {
		close(fd);
		return -ENOMEM;
	}
	lock->fd = fd;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n) {
		err = -errno;
		close(fd);
		free(lock);
		return err;
	}
	*lockp = lock;
	return 0;
}

int store__lock_set_trace(struct store_lock *lock, const char *dir)
{
	char buf[PATH_MAX + 32];
	int n = snprintf(buf, sizeof(buf), "%d %s\n", (int)getpid(), dir);

	if (n >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	if (ftruncate(lock->fd, 0) || pwrite(lock->fd, buf, n, 0) != n)
		return -errno;
	return 0;
}

void store__unlock(struct store_lock *lock)
{
	if (!lock)
		return;
	/* a stale pid left in an unlocked file is harmless: flock decides */
	(void)!ftruncate(lock->fd, 0);
	close(lock->fd);
	free(lock);
}

/*
 * How recent a summary a live tracer's is: it writes one every second, but
 * a rename on a busy journal can wait for the journal's commit.
 */
#define SUMMARY_FRESH_S 30

/*
 * Whether dir's summary says RUNNING and was written in the last
 * SUMMARY_FRESH_S seconds: for a reader not allowed to open the lock (the
 * tracer's is root's), of a trace made readable to others.
 */
static bool summary_fresh(const char *dir)
{
	char path[PATH_MAX];
	struct summary s;
	struct stat st;
	time_t now = time(NULL);

	if (snprintf(path, sizeof(path), "%s/%s", dir, STORE_SUMMARY_NAME) >= (int)sizeof(path) ||
	    stat(path, &st) || st.st_mtime <= now - SUMMARY_FRESH_S)
		return false;
	return !summary__read(dir, &s) && summary__unfinished(s.state);
}

bool store__trace_is_live(const char *dir)
{
	char holder[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
	int fd, pid;
	bool live = false;

	fd = open(lock_path(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == EACCES && summary_fresh(dir);
	/* a tracer's lock is root's (or this user's): another's says nothing of it */
	if (!lock_file_trusted(fd, true)) {
		close(fd);
		return false;
	}
	/* if we can take the lock, nobody holds it: no live tracer */
	if (!flock(fd, LOCK_SH | LOCK_NB)) {
		flock(fd, LOCK_UN);
		close(fd);
		return false;
	}
	if (!read_lock_file(fd, &pid, holder, sizeof(holder)) && holder[0] &&
	    realpath(holder, a) && realpath(dir, b))
		live = !strcmp(a, b);
	close(fd);
	return live;
}
