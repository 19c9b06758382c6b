/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A record of a layout the code fixes, written straight into a writer's
 * buffer (outbuf.h). --io prints a record of two dozen fields per I/O,
 * the same ones each time; the writers' bookkeeping per value (a call,
 * the separator state, a bounds check per piece) cost more than the
 * text, so the view writes punctuation and names as literals and only
 * strings from the trace go through a check: line_json_string()
 * (json_writer.h), line_csv_string() (csv_writer.h).
 *
 * The cursor always has LINE_ROOM bytes of room: literals and numbers go
 * in unchecked, as long as what a view writes between two string calls
 * (or from line_begin()) stays under that. Records stay in the buffer
 * until one does not fit: the view flushes it at its end (rec_out__finish()),
 * and nothing else may write to the FILE in between.
 */
#ifndef IOTRACE_LINE_OUT_H
#define IOTRACE_LINE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "decimal.h"
#include "outbuf.h"

#define LINE_ROOM 2048

struct line {
	struct outbuf *o;
	char *p;
};

/* The includer defines _GNU_SOURCE (outbuf.h). */
static inline void line_begin(struct line *l, struct outbuf *o)
{
	if (OUTBUF_SIZE - o->len < LINE_ROOM)
		outbuf_flush(o);
	l->o = o;
	l->p = o->b + o->len;
}

/* The record's text so far becomes the buffer's. */
static inline void line_end(struct line *l)
{
	l->o->len = (size_t)(l->p - l->o->b);
}

/*
 * For a string writer: ends the text so far and makes room for n bytes
 * with LINE_ROOM after them; where they go (the writer sets l->p past
 * them), or NULL when n is too long for the buffer (the writer goes
 * through outbuf_put(), then line_begin()).
 */
static inline char *line_room_for(struct line *l, size_t n)
{
	struct outbuf *o = l->o;

	line_end(l);
	if (n > OUTBUF_SIZE - LINE_ROOM)
		return NULL;
	if (OUTBUF_SIZE - o->len < n + LINE_ROOM)
		outbuf_flush(o);
	return o->b + o->len;
}

/* s: a string literal, which needs no escaping */
#define line_lit(l, s)                              \
	do {                                        \
		memcpy((l)->p, (s), sizeof(s) - 1); \
		(l)->p += sizeof(s) - 1;            \
	} while (0)

static inline void line_u64(struct line *l, uint64_t v)
{
	unsigned int n = decimal_len(v);

	decimal_u64(l->p + n, v);
	l->p += n;
}

static inline void line_i64(struct line *l, int64_t v)
{
	if (v < 0) {
		*l->p++ = '-';
		line_u64(l, -(uint64_t)v);
	} else {
		line_u64(l, (uint64_t)v);
	}
}

/* 64-bit integers are strings in the protobuf JSON mapping */
static inline void line_u64_str(struct line *l, uint64_t v)
{
	*l->p++ = '"';
	line_u64(l, v);
	*l->p++ = '"';
}

static inline void line_i64_str(struct line *l, int64_t v)
{
	*l->p++ = '"';
	line_i64(l, v);
	*l->p++ = '"';
}

/* s[0..len): short text that needs no escaping; it counts against the room */
static inline void line_plain(struct line *l, const char *s, size_t len)
{
	memcpy(l->p, s, len);
	l->p += len;
}

/*
 * A name of ours (an enum's, an errno's: plain text) quoted, or the
 * number when there is none, as the JSON mapping prints a value newer
 * than the schema.
 */
static inline void line_name_json(struct line *l, const char *name, int64_t value)
{
	if (name) {
		*l->p++ = '"';
		line_plain(l, name, strlen(name));
		*l->p++ = '"';
	} else {
		line_i64(l, value);
	}
}

/* The same as a CSV cell: names of ours need no quotes */
static inline void line_name_csv(struct line *l, const char *name, int64_t value)
{
	if (name)
		line_plain(l, name, strlen(name));
	else
		line_i64(l, value);
}

/* A CSV cell: the number, or empty when it is not there; then the comma */
static inline void line_cell_u64(struct line *l, bool have, uint64_t v)
{
	if (have)
		line_u64(l, v);
	*l->p++ = ',';
}

static inline void line_bool(struct line *l, bool b)
{
	if (b)
		line_lit(l, "true");
	else
		line_lit(l, "false");
}


#endif
