/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small staging buffer in front of a FILE for the JSON and CSV writers:
 * a record is made of dozens of tiny pieces and one stdio call per piece
 * cost more than formatting them. The writers flush at the end of every
 * record (top-level JSON value, CSV row), so the FILE sees whole records
 * and a caller may write to it directly between them.
 */
#ifndef IOTRACE_OUTBUF_H
#define IOTRACE_OUTBUF_H

#include <stdio.h>
#include <string.h>

#define OUTBUF_SIZE 4096

struct outbuf {
	FILE *out;
	size_t len;
	char b[OUTBUF_SIZE];
};

/* The includer defines _GNU_SOURCE: fwrite_unlocked. */
static inline void outbuf_flush(struct outbuf *o)
{
	if (o->len)
		fwrite_unlocked(o->b, 1, o->len, o->out);
	o->len = 0;
}

static inline void outbuf_put(struct outbuf *o, const void *p, size_t n)
{
	if (n > OUTBUF_SIZE - o->len) {
		outbuf_flush(o);
		if (n > OUTBUF_SIZE) {
			fwrite_unlocked(p, 1, n, o->out);
			return;
		}
	}
	memcpy(o->b + o->len, p, n);
	o->len += n;
}

static inline void outbuf_putc(struct outbuf *o, char c)
{
	if (o->len == OUTBUF_SIZE)
		outbuf_flush(o);
	o->b[o->len++] = c;
}

#endif
