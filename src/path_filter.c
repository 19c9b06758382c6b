// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path_filter.h"
#include "u64map.h"

/* Chains deeper than this are cut (the kernel sends at most 16 links). */
#define MAX_DEPTH 64

struct link {
	struct iotrace_file_id id, parent;
	char *name;
};

struct mount_point {
	__u32 dev;
	char dir[PATH_MAX];
};

struct path_filter {
	char *globs[PATH_FILTER_MAX_GLOBS];
	size_t nglobs;
	struct link *links;
	size_t nlinks, cap;
	struct u64map by_key;	/* key(id) -> index in links */
	struct u64map verdict;	/* key(id) -> 1 no, 2 yes; cleared on renames */
	struct mount_point *mounts;
	size_t nmounts;
};

/* Mixes device and inode into one map key; the entry is checked in full. */
static uint64_t key_of(const struct iotrace_file_id *id)
{
	uint64_t k = id->ino * 0x9e3779b97f4a7c15ull;

	return k ^ ((uint64_t)id->dev << 32) ^ id->dev;
}

static bool same_file(const struct iotrace_file_id *a, const struct iotrace_file_id *b)
{
	return a->ino == b->ino && a->dev == b->dev;
}

/*
 * Mount points of whole file systems (root "/" of the file system), by
 * device: mountinfo's fields 3 (major:minor), 4 (root) and 5 (mount point).
 * The first mount of a device wins, as with a bind mount's original.
 */
static int read_mounts(struct path_filter *pf, const char *mountinfo)
{
	char line[3 * PATH_MAX], root[PATH_MAX], dir[PATH_MAX];
	unsigned int ma, mi;
	FILE *f = fopen(mountinfo, "r");
	size_t i;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct mount_point *m;
		bool known = false;

		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &ma, &mi, root, dir) != 4 ||
		    strcmp(root, "/"))
			continue;
		for (i = 0; i < pf->nmounts; i++)
			known |= pf->mounts[i].dev == IOTRACE_MKDEV(ma, mi);
		if (known)
			continue;
		m = realloc(pf->mounts, (pf->nmounts + 1) * sizeof(*m));
		if (!m) {
			fclose(f);
			return -ENOMEM;
		}
		pf->mounts = m;
		m += pf->nmounts++;
		m->dev = IOTRACE_MKDEV(ma, mi);
		/* mountinfo escapes blanks as \040; paths with them are rare, keep as is */
		snprintf(m->dir, sizeof(m->dir), "%s", strcmp(dir, "/") ? dir : "");
	}
	fclose(f);
	return 0;
}

int path_filter__new(struct path_filter **out, const char *globs, const char *mountinfo,
		     char *bad, size_t badlen)
{
	struct path_filter *pf = calloc(1, sizeof(*pf));
	const char *p = globs, *end;
	size_t len;
	int err;

	*out = NULL;
	if (!pf)
		return -ENOMEM;
	do {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		snprintf(bad, badlen, "%.*s", (int)len, p);
		if (!len || p[0] != '/') {
			path_filter__free(pf);
			return -EINVAL;
		}
		if (pf->nglobs >= PATH_FILTER_MAX_GLOBS) {
			path_filter__free(pf);
			return -E2BIG;
		}
		pf->globs[pf->nglobs] = strndup(p, len);
		if (!pf->globs[pf->nglobs++]) {
			path_filter__free(pf);
			return -ENOMEM;
		}
		p = end + 1;
	} while (end);
	err = read_mounts(pf, mountinfo);
	if (err) {
		path_filter__free(pf);
		return err;
	}
	*out = pf;
	return 0;
}

static struct link *find(struct path_filter *pf, const struct iotrace_file_id *id)
{
	uint64_t i;

	if (!u64map__get(&pf->by_key, key_of(id), &i) || !same_file(&pf->links[i].id, id))
		return NULL;
	return &pf->links[i];
}

int path_filter__add_name(struct path_filter *pf, const struct iotrace_name_event *n)
{
	struct link *l = find(pf, &n->file);
	char *name = strndup(n->name, IOTRACE_NAME_LEN - 1);

	if (!name)
		return -ENOMEM;
	if (l) {
		/* a rename moves every path below it: judge them all again */
		free(l->name);
		l->name = name;
		l->parent = n->parent;
		u64map__free(&pf->verdict);
		memset(&pf->verdict, 0, sizeof(pf->verdict));
		return 0;
	}
	if (pf->nlinks == pf->cap) {
		size_t cap = pf->cap ? pf->cap * 2 : 256;
		struct link *links = realloc(pf->links, cap * sizeof(*links));

		if (!links) {
			free(name);
			return -ENOMEM;
		}
		pf->links = links;
		pf->cap = cap;
	}
	l = &pf->links[pf->nlinks];
	l->id = n->file;
	l->parent = n->parent;
	l->name = name;
	if (u64map__put(&pf->by_key, key_of(&n->file), pf->nlinks)) {
		free(name);
		return -ENOMEM;
	}
	pf->nlinks++;
	return 0;
}

bool path_filter__path(struct path_filter *pf, const struct iotrace_file_id *id, char *out,
		       size_t size)
{
	const char *parts[MAX_DEPTH];
	struct iotrace_file_id cur = *id;
	const char *prefix = NULL;
	size_t n = 0, i, off;
	struct link *l;

	for (i = 0; i < pf->nmounts; i++)
		if (pf->mounts[i].dev == id->dev)
			prefix = pf->mounts[i].dir;
	if (!prefix)
		return false;
	for (;;) {
		l = find(pf, &cur);
		if (!l || n == MAX_DEPTH)
			return false;
		if (same_file(&l->parent, &l->id))
			break;	/* the root, sent as "/" */
		parts[n++] = l->name;
		cur = l->parent;
	}
	off = (size_t)snprintf(out, size, "%s", prefix);
	while (n && off < size)
		off += (size_t)snprintf(out + off, size - off, "/%s", parts[--n]);
	if (!off && size > 1)
		snprintf(out, size, "/");
	return off < size;
}

bool path_filter__match(struct path_filter *pf, const struct iotrace_file_id *id)
{
	char path[PATH_MAX];
	uint64_t v;
	size_t i;
	bool yes = false;

	if (u64map__get(&pf->verdict, key_of(id), &v))
		return v == 2;
	/* a chain still missing a link may be complete at the next record */
	if (!path_filter__path(pf, id, path, sizeof(path)))
		return false;
	for (i = 0; i < pf->nglobs && !yes; i++)
		yes = !fnmatch(pf->globs[i], path, 0);
	/* without memory for the cache, judge again next time */
	(void)u64map__put(&pf->verdict, key_of(id), yes ? 2 : 1);
	return yes;
}

void path_filter__free(struct path_filter *pf)
{
	size_t i;

	if (!pf)
		return;
	for (i = 0; i < pf->nglobs; i++)
		free(pf->globs[i]);
	for (i = 0; i < pf->nlinks; i++)
		free(pf->links[i].name);
	free(pf->links);
	free(pf->mounts);
	u64map__free(&pf->by_key);
	u64map__free(&pf->verdict);
	free(pf);
}
