// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "file_names.h"

/* deeper chains are cut (and so partial): a cycle, or a corrupted trace */
#define MAX_DEPTH 256

struct file_node {
	struct file_id id, parent;
	char *name;		/* NULL: the trace has not named it (yet) */
	uint64_t size;		/* sectors, from the last filesystemMeta */

	/* cached path, valid while the generations below match */
	char *path;
	size_t path_len;
	bool complete;		/* reached the root */
	uint64_t rename_gen, add_gen;
};

struct file_names {
	struct file_node **tab;	/* open addressing, NULL = free */
	size_t cap, count;
	/* bumped when a named file gets another name or parent */
	uint64_t rename_gen;
	/* bumped when a file gets its first name: may complete partial paths */
	uint64_t add_gen;
	char buf[FILE_PATH_MAX + 1];
};

static bool id_eq(const struct file_id *a, const struct file_id *b)
{
	return a->ino == b->ino && a->part == b->part && a->sec == b->sec && a->nsec == b->nsec;
}

static size_t id_hash(const struct file_id *id, size_t cap)
{
	uint64_t h = id->ino * 0x9e3779b97f4a7c15ull;

	h ^= (id->part + (uint64_t)id->sec * 0xc2b2ae3d27d4eb4full) * 0x165667b19e3779f9ull;
	h ^= (uint64_t)(uint32_t)id->nsec * 0x27d4eb2f165667c5ull;
	h ^= h >> 29;
	return (size_t)h & (cap - 1);
}

struct file_names *file_names__new(void)
{
	return calloc(1, sizeof(struct file_names));
}

static struct file_node *lookup(const struct file_names *fn, const struct file_id *id)
{
	size_t i;

	if (!fn->cap)
		return NULL;
	for (i = id_hash(id, fn->cap); fn->tab[i]; i = (i + 1) & (fn->cap - 1)) {
		if (id_eq(&fn->tab[i]->id, id))
			return fn->tab[i];
	}
	return NULL;
}

static int grow(struct file_names *fn)
{
	size_t ncap = fn->cap ? fn->cap * 2 : 256, i, k;
	struct file_node **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (i = 0; i < fn->cap; i++) {
		if (!fn->tab[i])
			continue;
		for (k = id_hash(&fn->tab[i]->id, ncap); nt[k]; k = (k + 1) & (ncap - 1))
			;
		nt[k] = fn->tab[i];
	}
	free(fn->tab);
	fn->tab = nt;
	fn->cap = ncap;
	return 0;
}

struct file_node *file_names__get(struct file_names *fn, const struct file_id *id)
{
	struct file_node *f = lookup(fn, id);
	size_t i;

	if (f)
		return f;
	if ((fn->count + 1) * 2 > fn->cap && grow(fn))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->id = *id;
	for (i = id_hash(id, fn->cap); fn->tab[i]; i = (i + 1) & (fn->cap - 1))
		;
	fn->tab[i] = f;
	fn->count++;
	return f;
}

/* Whether f, named, has that name and parent already (name NULL: "") */
static bool named_so(const struct file_node *f, const struct file_id *parent, const char *name)
{
	return !strcmp(f->name, name ? name : "") && id_eq(&f->parent, parent);
}

bool file_names__is_rename(const struct file_names *fn, const struct file_id *id,
			   const struct file_id *parent, const char *name)
{
	const struct file_node *f = lookup(fn, id);

	return f && f->name && !named_so(f, parent, name);
}

int file_names__set_name(struct file_names *fn, const struct file_id *id,
			 const struct file_id *parent, const char *name)
{
	struct file_node *f = file_names__get(fn, id);
	char *copy;

	if (!f)
		return -ENOMEM;
	if (f->name && named_so(f, parent, name))
		return 0;
	copy = strdup(name ? name : "");
	if (!copy)
		return -ENOMEM;
	if (f->name)
		fn->rename_gen++;
	else
		fn->add_gen++;
	free(f->name);
	f->name = copy;
	f->parent = *parent;
	return 0;
}

const struct file_id *file_node__id(const struct file_node *f)
{
	return &f->id;
}

uint64_t file_node__size(const struct file_node *f)
{
	return f->size;
}

void file_node__set_size(struct file_node *f, uint64_t sectors)
{
	f->size = sectors;
}

/*
 * Builds f's path in fn->buf: collects the names up the chain, then
 * writes them top down, a '/' between two names unless the upper one
 * already ends in '/' (the root is "/"). Returns the length.
 */
static size_t build(struct file_names *fn, struct file_node *f, bool *complete)
{
	const struct file_node *seen[MAX_DEPTH];
	const char *names[MAX_DEPTH];
	size_t lens[MAX_DEPTH], n = 0, total = 0, len = 0;
	struct file_node *cur = f;

	*complete = false;
	while (cur && cur->name && n < MAX_DEPTH) {
		size_t l = strlen(cur->name), k;

		if (total + l + 1 > FILE_PATH_MAX)
			break;
		/* a chain that loops (a damaged trace) ends where it closes */
		for (k = 0; k < n && seen[k] != cur; k++)
			;
		if (k < n)
			break;
		seen[n] = cur;
		names[n] = cur->name;
		lens[n++] = l;
		total += l + 1;
		if (id_eq(&cur->parent, &cur->id)) {
			*complete = true;
			break;
		}
		cur = lookup(fn, &cur->parent);
	}
	while (n--) {
		if (len && fn->buf[len - 1] != '/')
			fn->buf[len++] = '/';
		memcpy(fn->buf + len, names[n], lens[n]);
		len += lens[n];
	}
	fn->buf[len] = '\0';
	return len;
}

const char *file_names__path(struct file_names *fn, struct file_node *f, size_t *len)
{
	bool complete;
	size_t l;
	char *p;

	if (!f->name)
		return NULL;
	if (f->path && f->rename_gen == fn->rename_gen &&
	    (f->complete || f->add_gen == fn->add_gen)) {
		*len = f->path_len;
		return f->path;
	}
	l = build(fn, f, &complete);
	p = realloc(f->path, l + 1);
	if (!p)
		return NULL;
	memcpy(p, fn->buf, l + 1);
	f->path = p;
	f->path_len = l;
	f->complete = complete;
	f->rename_gen = fn->rename_gen;
	f->add_gen = fn->add_gen;
	*len = l;
	return p;
}

void file_names__free(struct file_names *fn)
{
	size_t i;

	if (!fn)
		return;
	for (i = 0; i < fn->cap; i++) {
		if (!fn->tab[i])
			continue;
		free(fn->tab[i]->name);
		free(fn->tab[i]->path);
		free(fn->tab[i]);
	}
	free(fn->tab);
	free(fn);
}
