// SPDX-License-Identifier: BSD-3-Clause
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

		f->map = stream__map_file(s, &f->len);
		if (!f->map)
			continue;
		f->path = stream__path(s);
		total += f->len;
		if (total > SHARED_MAPS_MAX)
			goto fail;
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
