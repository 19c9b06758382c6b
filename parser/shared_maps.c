// SPDX-License-Identifier: BSD-3-Clause
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "shared_maps.h"
#include "stream.h"
#include "trace.h"

struct shared_map {
	const char *path;	/* NULL: not mapped (not a regular file, empty) */
	const uint8_t *map;
	size_t len;
};

struct shared_maps {
	struct shared_map *m;
	size_t n;
};

/* Whether s is a regular, non-empty file, and its length */
static bool mappable(const struct stream *s, size_t *len)
{
	struct stat st;

	if (fstat(stream__fd(s), &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > SHARED_MAPS_MAX)
		return false;
	*len = (size_t)st.st_size;
	return true;
}

struct shared_maps *shared_maps__new(const struct trace *t)
{
	struct shared_maps *sm;
	size_t i, total = 0;

	sm = calloc(1, sizeof(*sm));
	if (!sm)
		return NULL;
	sm->n = trace__stream_count(t);
	sm->m = calloc(sm->n ? sm->n : 1, sizeof(*sm->m));
	if (!sm->m)
		goto fail;
	for (i = 0; i < sm->n; i++) {
		const struct stream *s = trace__stream(t, i);
		struct shared_map *f = &sm->m[i];
		void *m;

		if (!mappable(s, &f->len))
			continue;
		total += f->len;
		if (total > SHARED_MAPS_MAX)
			goto fail;
		m = mmap(NULL, f->len, PROT_READ, MAP_PRIVATE, stream__fd(s), 0);
		if (m == MAP_FAILED)
			goto fail;
		f->map = m;
		f->path = stream__path(s);
	}
	if (total)
		return sm;
fail:
	shared_maps__free(sm);
	return NULL;
}

void shared_maps__lend(const struct shared_maps *sm, struct trace *t)
{
	size_t i, n = trace__stream_count(t);

	/* the same listing of the same directory: a file that came or went between them is not lent */
	for (i = 0; i < n && i < sm->n; i++) {
		struct stream *s = trace__stream(t, i);
		const struct shared_map *f = &sm->m[i];

		if (f->path && !strcmp(f->path, stream__path(s)))
			stream__use_map(s, f->map, f->len);
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
	}
	free(sm->m);
	free(sm);
}
