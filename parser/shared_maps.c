// SPDX-License-Identifier: BSD-3-Clause
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared_maps.h"
#include "stream.h"
#include "trace.h"

struct shared_map {
	char *path;		/* NULL: not mapped (not a regular file, empty) */
	const uint8_t *map;
	size_t len;
};

struct shared_maps {
	struct shared_map *m;
	size_t n;
};

/* 1 mapped, 0 not a file to map, -1 failed */
static int map_file(const char *path, size_t room, struct shared_map *out)
{
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return 0;
	}
	if ((uint64_t)st.st_size > room) {
		close(fd);
		return -1;
	}
	/* the mapping holds its own reference to the file */
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	out->path = strdup(path);
	out->map = m;
	out->len = (size_t)st.st_size;
	if (!out->path) {
		munmap(m, out->len);
		return -1;
	}
	return 1;
}

struct shared_maps *shared_maps__new(const struct trace *t)
{
	struct shared_maps *sm;
	size_t i, total = 0, mapped = 0;

	sm = calloc(1, sizeof(*sm));
	if (!sm)
		return NULL;
	sm->n = trace__stream_count(t);
	sm->m = calloc(sm->n ? sm->n : 1, sizeof(*sm->m));
	if (!sm->m)
		goto fail;
	for (i = 0; i < sm->n; i++) {
		int r = map_file(stream__path(trace__stream(t, i)), SHARED_MAPS_MAX - total,
				 &sm->m[i]);

		if (r < 0)
			goto fail;
		if (r) {
			total += sm->m[i].len;
			mapped++;
		}
	}
	if (mapped)
		return sm;
fail:
	shared_maps__free(sm);
	return NULL;
}

void shared_maps__lend(const struct shared_maps *m, struct trace *t)
{
	size_t i, n = trace__stream_count(t);

	/* the same listing of the same directory: a file that came or went between them is not lent */
	for (i = 0; i < n && i < m->n; i++) {
		struct stream *s = trace__stream(t, i);

		if (m->m[i].path && !strcmp(m->m[i].path, stream__path(s)))
			stream__use_map(s, m->m[i].map, m->m[i].len);
	}
}

void shared_maps__free(struct shared_maps *sm)
{
	size_t i;

	if (!sm)
		return;
	for (i = 0; sm->m && i < sm->n; i++) {
		if (sm->m[i].path)
			munmap((void *)sm->m[i].map, sm->m[i].len);
		free(sm->m[i].path);
	}
	free(sm->m);
	free(sm);
}
