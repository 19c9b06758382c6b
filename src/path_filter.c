// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE	/* AT_NO_AUTOMOUNT */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fs_devs.h"
#include "mount_escape.h"
#include "path_filter.h"
#include "u64map.h"

/* Chains deeper than this are cut (the kernel sends at most 16 links). */
#define MAX_DEPTH 64
/* mount points a file is matched under, nearest first (bind mounts, subvolumes) */
#define MAX_VIEWS 8

struct link {
	struct iotrace_file_id id, parent;
	char *name;
};

/*
 * Where a directory of a traced file system is visible: the root of a
 * mount, known by its FileId's device and inode (stat of the mount
 * point), or, with ino 0, the root of the file system of device dev
 * whose mount could not be looked at (the chain's top).
 */
struct mount_point {
	__u32 dev;
	__u64 ino;
	char dir[PATH_MAX];
};

struct path_filter {
	char *globs[PATH_FILTER_MAX_GLOBS];
	/* globs[i] with symbolic links resolved, where that differs (resolved_glob) */
	char *real_globs[PATH_FILTER_MAX_GLOBS];
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

static int add_mount(struct path_filter *pf, __u32 dev, __u64 ino, const char *dir)
{
	struct mount_point *m;
	size_t i;

	/* the first wins: a bind mount's original comes before it */
	for (i = 0; i < pf->nmounts; i++)
		if (pf->mounts[i].dev == dev && pf->mounts[i].ino == ino)
			return 0;
	m = realloc(pf->mounts, (pf->nmounts + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	pf->mounts = m;
	m += pf->nmounts++;
	m->dev = dev;
	m->ino = ino;
	snprintf(m->dir, sizeof(m->dir), "%s", strcmp(dir, "/") ? dir : "");
	return 0;
}

/*
 * The mounts of the traced file systems (fs_devs; mountinfo's fields 3
 * MAJ:MIN, 4 root in the file system and 5 mount point). Each mount
 * point is looked at: what stat finds there is the directory whose
 * FileId (device, inode) a chain passes through, whichever mount it is
 * the root of (a btrfs subvolume, a bind mount of a subdirectory, the
 * top of stacked mounts); btrfs gives its files the subvolume's device,
 * not the MAJ:MIN of the mount. Other file systems' mount points are not
 * looked at: a stat of a network file system may hang. A mount point
 * stat cannot reach still names its file system's root by MAJ:MIN.
 */
static int read_mounts(struct path_filter *pf, const char *mountinfo, const uint32_t *fs_devs,
		       size_t nfs_devs)
{
	char *line = NULL, root[PATH_MAX], dir[PATH_MAX];
	unsigned int ma, mi;
	struct stat st;
	size_t cap = 0;
	int err = 0;
	FILE *f = fopen(mountinfo, "r");

	if (!f)
		return -errno;
	/* whole lines, however long; a path that fills its buffer may be cut: not used */
	while (!err && getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", &ma, &mi, root, dir) != 4 ||
		    strlen(root) >= sizeof(root) - 1 || strlen(dir) >= sizeof(dir) - 1 ||
		    !fs_devs__has(fs_devs, nfs_devs, IOTRACE_MKDEV(ma, mi)))
			continue;
		mount_unescape(root);
		mount_unescape(dir);
		if (!fstatat(AT_FDCWD, dir, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) &&
		    S_ISDIR(st.st_mode))
			err = add_mount(pf, IOTRACE_MKDEV(major(st.st_dev), minor(st.st_dev)),
					st.st_ino, dir);
		else if (!strcmp(root, "/"))
			err = add_mount(pf, IOTRACE_MKDEV(ma, mi), 0, dir);
	}
	free(line);
	fclose(f);
	return err;
}

/*
 * glob with its literal directories resolved (realpath(3)): a chain gives
 * a file's real path, so '/data/run42/<star>' with /data a symbolic link
 * to /mnt/vol/data would match nothing. Directories not made yet are
 * kept as written below the deepest one that exists. NULL when the
 * result is glob itself, or cannot be made.
 */
static char *resolved_glob(const char *glob)
{
	char dir[PATH_MAX], real[PATH_MAX], *out;
	size_t lit = strcspn(glob, "*?[\\"), cut;
	const char *rest;

	/* the directories before the first wildcard; all of a pattern without one */
	if (glob[lit])
		while (lit && glob[lit] != '/')
			lit--;
	if (!lit || lit >= sizeof(dir))
		return NULL;
	memcpy(dir, glob, lit);
	dir[lit] = 0;
	/* the deepest directory that exists; what follows it is kept as written */
	cut = lit;
	while (!realpath(dir, real)) {
		if (errno != ENOENT && errno != ENOTDIR)
			return NULL;
		while (cut && dir[cut] != '/')
			cut--;
		if (!cut)
			return NULL;
		dir[cut] = 0;
	}
	rest = glob + cut;
	if (!strcmp(real, "/") && rest[0] == '/')
		real[0] = 0;
	if (!strncmp(glob, real, cut) && !real[cut])
		return NULL;
	if (asprintf(&out, "%s%s", real, rest) < 0)
		return NULL;
	return out;
}

int path_filter__new(struct path_filter **out, const char *globs, const char *mountinfo,
		     const uint32_t *fs_devs, size_t nfs_devs, char *bad, size_t badlen)
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
		pf->real_globs[pf->nglobs - 1] = resolved_glob(pf->globs[pf->nglobs - 1]);
		p = end + 1;
	} while (end);
	err = read_mounts(pf, mountinfo, fs_devs, nfs_devs);
	if (err) {
		path_filter__free(pf);
		return err;
	}
	*out = pf;
	return 0;
}

/* Every file is judged again: a path it had no mount for may have one now. */
static void forget_verdicts(struct path_filter *pf)
{
	u64map__free(&pf->verdict);
	memset(&pf->verdict, 0, sizeof(pf->verdict));
}

int path_filter__add_mounts(struct path_filter *pf, const char *mountinfo,
			    const uint32_t *fs_devs, size_t nfs_devs)
{
	size_t before = pf->nmounts;
	int err = read_mounts(pf, mountinfo, fs_devs, nfs_devs);

	if (pf->nmounts != before)
		forget_verdicts(pf);
	return err;
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
		forget_verdicts(pf);
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

/*
 * The mount points id is visible under, nearest first, into paths[0..max):
 * a mount whose root is a directory on id's chain, or the file system's
 * root (the chain's top, its own parent). False if the chain is not
 * complete or no mount shows it. Returns how many in *n.
 */
static bool paths_of(struct path_filter *pf, const struct iotrace_file_id *id,
		     char (*paths)[PATH_MAX], size_t max, size_t *n)
{
	const char *parts[MAX_DEPTH];
	struct iotrace_file_id cur = *id;
	size_t depth = 0, i, k, off;
	struct link *l;
	bool top;

	*n = 0;
	for (;;) {
		l = find(pf, &cur);
		if (!l || depth == MAX_DEPTH)
			return false;
		top = same_file(&l->parent, &l->id);	/* the root, sent as "/" */
		for (i = 0; i < pf->nmounts && *n < max; i++) {
			const struct mount_point *m = &pf->mounts[i];

			if (m->dev != cur.dev || (m->ino ? m->ino != cur.ino : !top))
				continue;
			off = (size_t)snprintf(paths[*n], PATH_MAX, "%s", m->dir);
			for (k = depth; k-- > 0 && off < PATH_MAX;)
				off += (size_t)snprintf(paths[*n] + off, PATH_MAX - off, "/%s", parts[k]);
			if (!off)
				strcpy(paths[*n], "/");
			*n += off < PATH_MAX;
		}
		if (top)
			return *n > 0;
		parts[depth++] = l->name;
		cur = l->parent;
	}
}

bool path_filter__path(struct path_filter *pf, const struct iotrace_file_id *id, char *out,
		       size_t size)
{
	char path[1][PATH_MAX];
	size_t n;

	return paths_of(pf, id, path, 1, &n) && (size_t)snprintf(out, size, "%s", path[0]) < size;
}

bool path_filter__match(struct path_filter *pf, const struct iotrace_file_id *id)
{
	char paths[MAX_VIEWS][PATH_MAX];
	uint64_t v;
	size_t i, k, n;
	bool yes = false;

	if (u64map__get(&pf->verdict, key_of(id), &v))
		return v == 2;
	/* a chain still missing a link may be complete at the next record */
	if (!paths_of(pf, id, paths, MAX_VIEWS, &n))
		return false;
	for (k = 0; k < n && !yes; k++)
		for (i = 0; i < pf->nglobs && !yes; i++)
			yes = !fnmatch(pf->globs[i], paths[k], 0) ||
			      (pf->real_globs[i] && !fnmatch(pf->real_globs[i], paths[k], 0));
	/* without memory for the cache, judge again next time */
	(void)u64map__put(&pf->verdict, key_of(id), yes ? 2 : 1);
	return yes;
}

const char *path_filter__real_glob(const struct path_filter *pf, size_t i, const char **glob)
{
	if (i >= pf->nglobs)
		return NULL;
	*glob = pf->globs[i];
	return pf->real_globs[i] ? pf->real_globs[i] : "";
}

void path_filter__free(struct path_filter *pf)
{
	size_t i;

	if (!pf)
		return;
	for (i = 0; i < pf->nglobs; i++) {
		free(pf->globs[i]);
		free(pf->real_globs[i]);
	}
	for (i = 0; i < pf->nlinks; i++)
		free(pf->links[i].name);
	free(pf->links);
	free(pf->mounts);
	u64map__free(&pf->by_key);
	u64map__free(&pf->verdict);
	free(pf);
}
