// SPDX-License-Identifier: BSD-3-Clause
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "not_followed.h"

static const struct {
	unsigned int bit;
	const char *word;
	const char *event;	/* the file event type it names, or NULL */
	const char *text;	/* else, for people */
} items[] = {
	{ NF_CREATE, "create", "Create", NULL },
	{ NF_DELETE, "delete", "Delete", NULL },
	{ NF_MOVE, "move", "Move", NULL },
	{ NF_URING_FILES, "io_uring-files", NULL,
	  "io_uring's opens, unlinks and renames (their Create, Delete and Move events)" },
	{ NF_URING_VFS, "io_uring-vfs", NULL, "io_uring requests' --vfs records" },
	{ NF_FS_OVER_LIMIT, "file-systems-over-limit", NULL,
	  "the file events and --vfs records of the traced devices' partitions and file "
	  "systems past the tracer's limit" },
};

#define NITEMS (sizeof(items) / sizeof(items[0]))

/* snprintf at *off, never past size: a text cut short is still a string */
static void put(char *buf, size_t size, size_t *off, const char *s)
{
	int n;

	if (*off >= size)
		return;
	n = snprintf(buf + *off, size - *off, "%s", s);
	*off += n < 0 ? 0 : (size_t)n;
}

void not_followed__tag(unsigned int nf, char *buf, size_t size)
{
	size_t i, off = 0;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < NITEMS; i++) {
		if (!(nf & items[i].bit))
			continue;
		if (off)
			put(buf, size, &off, ",");
		put(buf, size, &off, items[i].word);
	}
}

/* The next word of a comma-separated list at *p, blanks around it left out; false at the end. */
static bool next_word(const char **p, char *word, size_t size)
{
	const char *s = *p, *e;
	size_t n;

	while (*s == ',' || *s == ' ')
		s++;
	if (!*s)
		return false;
	for (e = s; *e && *e != ','; e++)
		;
	*p = e;
	while (e > s && e[-1] == ' ')
		e--;
	n = (size_t)(e - s) < size - 1 ? (size_t)(e - s) : size - 1;
	memcpy(word, s, n);
	word[n] = '\0';
	return true;
}

void not_followed__describe(const char *tag, unsigned int mask, char *buf, size_t size)
{
	const char *events[NITEMS], *texts[NITEMS + 1];
	char unknown[256] = "", word[64];
	size_t i, nevents = 0, ntexts = 0, off = 0, uoff = 0;
	unsigned int found = 0;
	const char *p = tag;

	while (next_word(&p, word, sizeof(word))) {
		for (i = 0; i < NITEMS && strcmp(word, items[i].word); i++)
			;
		if (i < NITEMS) {
			found |= items[i].bit;
		} else {
			if (uoff)
				put(unknown, sizeof(unknown), &uoff, "; ");
			put(unknown, sizeof(unknown), &uoff, word);
		}
	}
	/* in the table's order, whatever the tag's */
	for (i = 0; i < NITEMS; i++) {
		if (!(found & mask & items[i].bit))
			continue;
		if (items[i].event)
			events[nevents++] = items[i].event;
		else
			texts[ntexts++] = items[i].text;
	}
	if (size)
		buf[0] = '\0';
	for (i = 0; i < nevents; i++) {
		if (i)
			put(buf, size, &off, i + 1 == nevents ? " and " : ", ");
		put(buf, size, &off, events[i]);
	}
	if (nevents)
		put(buf, size, &off, " events");
	if (*unknown)
		texts[ntexts++] = unknown;
	for (i = 0; i < ntexts; i++) {
		if (off)
			put(buf, size, &off, "; ");
		put(buf, size, &off, texts[i]);
	}
}
