// SPDX-License-Identifier: BSD-3-Clause
#include "safe_dir.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool owner_ok(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

/* 0, or 1 with why: name (its lstat in st) is one another user could change */
static int judge(const char *name, const struct stat *st, bool last, char *why, size_t wsize)
{
	if (S_ISLNK(st->st_mode)) {
		if (owner_ok(st))
			return 0;
		snprintf(why, wsize, "'%s' is a symbolic link of user %u", name, (unsigned)st->st_uid);
		return 1;
	}
	if (!S_ISDIR(st->st_mode)) {
		snprintf(why, wsize, "'%s' is not a directory", name);
		return 1;
	}
	if (!owner_ok(st)) {
		snprintf(why, wsize, "'%s' belongs to user %u", name, (unsigned)st->st_uid);
		return 1;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && (last || !(st->st_mode & S_ISVTX))) {
		snprintf(why, wsize, "'%s' is writable by other users (mode %04o)", name,
			 (unsigned)(st->st_mode & 07777));
		return 1;
	}
	return 0;
}

/* Judges every name of the absolute path p, from "/" down, by lstat. */
static int walk(const char *p, char *why, size_t wsize)
{
	char buf[PATH_MAX];
	struct stat st;
	size_t n = strlen(p), i;
	int r;

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, p, n + 1);
	/* a trailing slash would make lstat follow the last name */
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	if (lstat("/", &st))
		return -errno;
	r = judge("/", &st, n == 1, why, wsize);
	for (i = 1; !r && i <= n; i++) {
		char c = buf[i];

		if ((c != '/' && c) || buf[i - 1] == '/')
			continue;
		buf[i] = '\0';
		r = lstat(buf, &st) ? -errno : judge(buf, &st, !c, why, wsize);
		buf[i] = c;
	}
	return r;
}

int safe_dir__resolve(const char *path, char *canon, size_t size, char *why, size_t wsize)
{
	char real[PATH_MAX];
	int r;

	if (path[0] != '/')
		return -EINVAL;
	r = walk(path, why, wsize);
	if (r)
		return r;
	if (!realpath(path, real))
		return -errno;
	/* the names the symlinks led to: a directory on the way is judged there */
	r = walk(real, why, wsize);
	if (r)
		return r;
	if (strlen(real) >= size)
		return -ENAMETOOLONG;
	memcpy(canon, real, strlen(real) + 1);
	return 0;
}
