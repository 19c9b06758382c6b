// SPDX-License-Identifier: BSD-3-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "fuzz_dir.h"

/* dir's files (the targets write no subdirectories), then dir */
static void remove_flat(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

/* The directories of runs of tag whose process is gone, under parent. */
static void sweep(const char *parent, const char *tag)
{
	char prefix[64], path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(parent);
	long pid;
	char *end;

	snprintf(prefix, sizeof(prefix), "iotrace-fuzz-%s-", tag);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		pid = strtol(e->d_name + strlen(prefix), &end, 10);
		if (*end != '-' || pid <= 0 || !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", parent, e->d_name) < sizeof(path))
			remove_flat(path);
	}
	if (d)
		closedir(d);
}

void fuzz_dir__make(char *dir, size_t len, const char *tag)
{
	static const char *const parents[] = { "/dev/shm", "/tmp" };
	size_t i;

	for (i = 0; i < 2; i++) {
		sweep(parents[i], tag);
		if ((size_t)snprintf(dir, len, "%s/iotrace-fuzz-%s-%ld-XXXXXX", parents[i], tag,
				     (long)getpid()) < len && mkdtemp(dir))
			return;
	}
	abort();
}
