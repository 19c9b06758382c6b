// SPDX-License-Identifier: BSD-3-Clause
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "trace.h"

#define SUMMARY_NAME "octf.summary"
#define STREAM_PREFIX "octf.trace."
#define ZSTD_SUFFIX ".zst"

struct trace {
	char *dir;
	struct stream **streams;
	size_t count;
};

struct stream_name {
	unsigned long n;
	char *name;
};

/*
 * Matches octf.trace.<n> and octf.trace.<n>.zst, n decimal. Other files
 * (editor backups, octf.trace.3.tmp) are not streams.
 */
static bool parse_stream_name(const char *name, unsigned long *n)
{
	const char *p = name + strlen(STREAM_PREFIX);
	unsigned long v = 0;

	if (strncmp(name, STREAM_PREFIX, strlen(STREAM_PREFIX)))
		return false;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (ULONG_MAX - 9) / 10)
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (*p && strcmp(p, ZSTD_SUFFIX))
		return false;
	*n = v;
	return true;
}

/* by n; should both octf.trace.3 and octf.trace.3.zst exist, the raw one first */
static int stream_name_cmp(const void *a, const void *b)
{
	const struct stream_name *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

static char *path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *p = malloc(dl + 1 + nl + 1);

	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, nl + 1);
	return p;
}

/* the stream the calling thread's last trace__open() could not open */
static _Thread_local char failed_file[64];

const char *trace__open_failed_file(void)
{
	return failed_file;
}

struct trace *trace__open(const char *dir)
{
	struct stream_name *names = NULL;
	size_t nnames = 0, cap = 0, i;
	struct trace *t = NULL;
	bool summary = false;
	struct dirent *de;
	DIR *d;
	int err;

	failed_file[0] = '\0';
	d = opendir(dir);
	if (!d)
		return NULL;

	t = calloc(1, sizeof(*t));
	if (!t) {
		err = -ENOMEM;
		goto cleanup;
	}
	t->dir = strdup(dir);
	if (!t->dir) {
		err = -ENOMEM;
		goto cleanup;
	}

	for (;;) {
		unsigned long n;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno) {
				err = -errno;
				goto cleanup;
			}
			break;
		}
		if (!strcmp(de->d_name, SUMMARY_NAME)) {
			summary = true;
			continue;
		}
		if (!parse_stream_name(de->d_name, &n))
			continue;
		if (nnames == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct stream_name *nn = realloc(names, ncap * sizeof(*nn));

			if (!nn) {
				err = -ENOMEM;
				goto cleanup;
			}
			names = nn;
			cap = ncap;
		}
		names[nnames].n = n;
		names[nnames].name = strdup(de->d_name);
		if (!names[nnames].name) {
			err = -ENOMEM;
			goto cleanup;
		}
		nnames++;
	}
	if (!summary && !nnames) {
		err = -EMEDIUMTYPE;
		goto cleanup;
	}
	if (nnames)
		qsort(names, nnames, sizeof(*names), stream_name_cmp);

	t->streams = calloc(nnames ? nnames : 1, sizeof(*t->streams));
	if (!t->streams) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < nnames; i++) {
		char *path = path_join(dir, names[i].name);

		if (!path) {
			err = -ENOMEM;
			goto cleanup;
		}
		t->streams[i] = stream__open(path);
		err = -errno;
		/*
		 * a name that leads to no file (a symlink loop, a dangling
		 * symlink) is that stream's damage, said when it is read, as
		 * a file that cannot be read; one this reader may not open,
		 * or out of descriptors, is the whole trace's failure
		 */
		if (!t->streams[i] && (err == -ELOOP || err == -ENOENT)) {
			t->streams[i] = stream__failed(path, err);
			err = -errno;
		}
		free(path);
		if (!t->streams[i]) {
			snprintf(failed_file, sizeof(failed_file), "%s", names[i].name);
			goto cleanup;
		}
		t->count++;
	}
	err = 0;

cleanup:
	for (i = 0; i < nnames; i++)
		free(names[i].name);
	free(names);
	closedir(d);
	if (err) {
		trace__free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

size_t trace__stream_count(const struct trace *t)
{
	return t->count;
}

struct stream *trace__stream(const struct trace *t, size_t i)
{
	return i < t->count ? t->streams[i] : NULL;
}

const char *trace__dir(const struct trace *t)
{
	return t->dir;
}

void trace__free(struct trace *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->count; i++)
		stream__free(t->streams[i]);
	free(t->streams);
	free(t->dir);
	free(t);
}
