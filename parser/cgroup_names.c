// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_names.h"
#include "keymap.h"
#include "regular_file.h"

/* the characters a line cannot hold as they are */
static bool escaped(char c)
{
	return c == '\t' || c == '\n' || c == '\\';
}

size_t cgroup_names__line(char *out, size_t size, uint64_t id, const char *path)
{
	int n = snprintf(out, size, "%llu\t", (unsigned long long)id);
	size_t at;

	if (n < 0 || (size_t)n >= size)
		return 0;
	at = (size_t)n;
	for (; *path; path++) {
		if (escaped(*path)) {
			if (size - at <= 4)
				return 0;
			at += (size_t)snprintf(out + at, size - at, "\\%03o", (unsigned char)*path);
			continue;
		}
		if (size - at <= 1)
			return 0;
		out[at++] = *path;
	}
	if (size - at <= 1)
		return 0;
	out[at++] = '\n';
	out[at] = '\0';
	return at;
}

/* s unescaped in place (\ooo, three octal digits); false if an escape is bad */
static bool unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		if (s[1] < '0' || s[1] > '3' || s[2] < '0' || s[2] > '7' || s[3] < '0' || s[3] > '7')
			return false;
		*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
		s += 3;
	}
	*w = '\0';
	return true;
}

int cgroup_names__add(struct cgroup_names *cn, uint64_t id, const char *path)
{
	uint64_t at;
	char *copy = strdup(path);

	if (!copy)
		return -ENOMEM;
	if (u64map__get(&cn->by_id, id, &at)) {
		free(cn->paths[at]);
		cn->paths[at] = copy;
		return 0;
	}
	if (cn->count == cn->cap) {
		size_t cap = cn->cap ? cn->cap * 2 : 64;
		char **p = realloc(cn->paths, cap * sizeof(*p));

		if (!p) {
			free(copy);
			return -ENOMEM;
		}
		cn->paths = p;
		cn->cap = cap;
	}
	if (u64map__put(&cn->by_id, id, cn->count)) {
		free(copy);
		return -ENOMEM;
	}
	cn->paths[cn->count++] = copy;
	return 0;
}

/* One line, changed in place: 0, -EINVAL or -ENOMEM. */
static int take_line(struct cgroup_names *cn, char *line)
{
	char *tab = strchr(line, '\t'), *end;
	unsigned long long id;
	size_t n = strlen(line);

	if (n && line[n - 1] == '\n')
		line[--n] = '\0';
	if (line[0] == '#' || !n)
		return 0;
	if (!tab || tab == line || tab[1] != '/')
		return -EINVAL;
	*tab = '\0';
	errno = 0;
	id = strtoull(line, &end, 10);
	if (errno || *end || line[0] < '0' || line[0] > '9' || !unescape(tab + 1))
		return -EINVAL;
	return cgroup_names__add(cn, id, tab + 1);
}

int cgroup_names__load(struct cgroup_names *cn, const char *dir, size_t *bad_line)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0, lineno = 0;
	int err = 0;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, CGROUP_NAMES_FILE) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = regular_file__open(path);
	if (!f) {
		if (errno == ENOENT)
			return 0;
		cn->present = cn->damaged = true;
		return -errno;
	}
	cn->present = true;
	errno = 0;
	while (!err && getline(&line, &cap, f) > 0) {
		lineno++;
		/* a last line cut short (a tracer that died writing it) may name another cgroup */
		if (!strchr(line, '\n'))
			err = -EINVAL;
		else
			err = take_line(cn, line);
	}
	if (!err && ferror(f))
		err = -(errno ? errno : EIO);
	if (err == -EINVAL)
		*bad_line = lineno;
	if (err && err != -ENOMEM)
		cn->damaged = true;
	free(line);
	fclose(f);
	return err;
}

bool cgroup_names__within(const char *path, const char *top, size_t len)
{
	if (len == 1 && top[0] == '/')
		return path[0] == '/';
	return !strncmp(path, top, len) && (path[len] == '/' || !path[len]);
}

const char *cgroup_names__path(const struct cgroup_names *cn, uint64_t id)
{
	uint64_t at;

	return cn && u64map__get(&cn->by_id, id, &at) ? cn->paths[at] : NULL;
}

long cgroup_names__subtree(const struct cgroup_names *cn, const char *path, struct u64map *ids)
{
	size_t n = strlen(path), pos = 0;
	uint64_t id, at;
	long found = 0;

	/* "/a/" is "/a"; the root "/" stays itself and holds every path */
	while (n > 1 && path[n - 1] == '/')
		n--;
	while (u64map__next(&cn->by_id, &pos, &id, &at)) {
		if (!cgroup_names__within(cn->paths[at], path, n))
			continue;
		if (u64map__put(ids, id, 1))
			return -ENOMEM;
		found++;
	}
	return found;
}

/* The length of path's first depth levels ("/a/b/c", 2: 4), or 0 if it has no more. */
static size_t levels_len(const char *path, unsigned int depth)
{
	const char *p = path;

	if (!strcmp(path, "/"))
		return 0;
	while (depth--) {
		p = strchr(p + 1, '/');
		if (!p)
			return 0;
	}
	/* depth 0: the root */
	return p == path ? 1 : (size_t)(p - path);
}

int cgroup_names__rollup(const struct cgroup_names *cn, unsigned int depth,
			 struct u64map *rollup)
{
	struct keymap by_path = { 0 };
	size_t pos = 0, n;
	uint64_t id, at;
	int err = 0;

	/* path -> id (ids start at 1, so no id is NULL): an ancestor's id by its path */
	while (!err && u64map__next(&cn->by_id, &pos, &id, &at)) {
		struct keymap_item *it = keymap__get(&by_path, cn->paths[at], strlen(cn->paths[at]));

		if (!it)
			err = -ENOMEM;
		else
			it->value = (void *)(uintptr_t)id;
	}
	pos = 0;
	while (!err && u64map__next(&cn->by_id, &pos, &id, &at)) {
		struct keymap_item *it;

		n = levels_len(cn->paths[at], depth);
		if (!n || n == strlen(cn->paths[at]))
			continue;
		it = keymap__get(&by_path, cn->paths[at], n);
		if (!it)
			err = -ENOMEM;
		/* an ancestor not named: the cgroup stays itself */
		else if (it->value)
			err = u64map__put(rollup, id, (uint64_t)(uintptr_t)it->value);
	}
	keymap__free(&by_path, NULL);
	return err;
}

void cgroup_names__free(struct cgroup_names *cn)
{
	size_t i;

	for (i = 0; i < cn->count; i++)
		free(cn->paths[i]);
	free(cn->paths);
	u64map__free(&cn->by_id);
	memset(cn, 0, sizeof(*cn));
}
