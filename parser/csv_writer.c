// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE	/* fwrite_unlocked (outbuf.h): one writer per FILE */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_writer.h"
#include "decimal.h"
#include "line_out.h"
#include "outbuf.h"

struct csv_writer {
	struct outbuf ob;
	bool row_started;
};

struct csv_writer *csv__new(FILE *out)
{
	struct csv_writer *cw = calloc(1, sizeof(*cw));

	if (!cw)
		return NULL;
	cw->ob.out = out;
	return cw;
}

void csv__free(struct csv_writer *cw)
{
	if (!cw)
		return;
	outbuf_flush(&cw->ob);
	free(cw);
}

static inline void field(struct csv_writer *cw)
{
	if (cw->row_started)
		outbuf_putc(&cw->ob, ',');
	cw->row_started = true;
}

/* What makes a field need quotes: ',', '"', CR, LF (all below '-'). */
static inline bool special(char c)
{
	return c <= ',' && (c == ',' || c == '"' || c == '\r' || c == '\n');
}

/* s[0..len) quoted, its quotes doubled */
static void put_quoted(struct outbuf *o, const char *s, size_t len)
{
	size_t i, run;

	outbuf_putc(o, '"');
	for (i = 0, run = 0; i < len; i++) {
		if (s[i] != '"')
			continue;
		/* write through the quote, then double it */
		outbuf_put(o, s + run, i + 1 - run);
		outbuf_putc(o, '"');
		run = i + 1;
	}
	outbuf_put(o, s + run, len - run);
	outbuf_putc(o, '"');
}

void csv__string(struct csv_writer *cw, const char *s)
{
	size_t len;

	field(cw);
	if (!s)
		return;
	/* fields are short: one pass finds the end and any special byte */
	for (len = 0; s[len]; len++) {
		if (special(s[len]))
			break;
	}
	if (!s[len]) {
		outbuf_put(&cw->ob, s, len);
		return;
	}
	len += strlen(s + len);
	put_quoted(&cw->ob, s, len);
}

bool line_csv_plain(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (special(s[i]))
			return false;
	}
	return true;
}

void line_csv_string(struct line *l, const char *s, size_t len)
{
	bool plain = line_csv_plain(s, len);
	char *p = line_room_for(l, len);

	if (plain && p) {
		memcpy(p, s, len);
		l->p = p + len;
		return;
	}
	if (plain)
		outbuf_put(l->o, s, len);
	else
		put_quoted(l->o, s, len);
	line_begin(l, l->o);
}

struct outbuf *csv__outbuf(struct csv_writer *cw)
{
	return &cw->ob;
}

void csv__plain(struct csv_writer *cw, const char *s, size_t len)
{
	field(cw);
	outbuf_put(&cw->ob, s, len);
}

void csv__uint(struct csv_writer *cw, uint64_t v)
{
	unsigned int n = decimal_len(v);

	/* numbers are most of a row: straight into the buffer, no copy */
	field(cw);
	if (n > OUTBUF_SIZE - cw->ob.len)
		outbuf_flush(&cw->ob);
	decimal_u64(cw->ob.b + cw->ob.len + n, v);
	cw->ob.len += n;
}

void csv__double(struct csv_writer *cw, double v)
{
	char buf[DECIMAL_DOUBLE_MAX];

	/* as JSON prints it (a CSV cell has no null: empty) */
	if (!isfinite(v)) {
		csv__string(cw, "");
		return;
	}
	decimal_double(buf, v);
	csv__string(cw, buf);
}

void csv__int(struct csv_writer *cw, int64_t v)
{
	char buf[DECIMAL_MAX], *p = decimal_i64(buf + sizeof(buf), v);

	field(cw);
	outbuf_put(&cw->ob, p, (size_t)(buf + sizeof(buf) - p));
}

void csv__empty(struct csv_writer *cw)
{
	field(cw);
}

void csv__end_row(struct csv_writer *cw)
{
	outbuf_putc(&cw->ob, '\n');
	outbuf_flush(&cw->ob);
	cw->row_started = false;
}
