// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE	/* fwrite_unlocked (outbuf.h): one writer per FILE */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "line_out.h"
#include "json_writer.h"
#include "outbuf.h"

/*
 * Nesting is decided by the code that writes, not by the data; levels
 * deeper than this share the last level's comma state.
 */
#define JW_MAX_DEPTH 64

struct json_writer {
	struct outbuf ob;
	bool pretty;
	bool after_name;	/* a name was written: the value needs no comma */
	unsigned int depth;
	unsigned char has_items[JW_MAX_DEPTH];
};

static inline unsigned int level(const struct json_writer *jw)
{
	return jw->depth < JW_MAX_DEPTH ? jw->depth : JW_MAX_DEPTH - 1;
}

static inline void put(struct json_writer *jw, const char *s, size_t len)
{
	outbuf_put(&jw->ob, s, len);
}

static inline void putch(struct json_writer *jw, char c)
{
	outbuf_putc(&jw->ob, c);
}

/* After each value: a finished top-level value goes to the FILE. */
static inline void done(struct json_writer *jw)
{
	if (!jw->depth)
		outbuf_flush(&jw->ob);
}

static void indent(struct json_writer *jw)
{
	unsigned int i;

	putch(jw, '\n');
	for (i = 0; i < jw->depth; i++)
		putch(jw, ' ');
}

/* Separates this item from the previous one in the enclosing container. */
static inline void item(struct json_writer *jw)
{
	unsigned int l;

	if (jw->after_name) {
		jw->after_name = false;
		return;
	}
	if (!jw->depth)
		return;
	l = level(jw);
	if (jw->has_items[l])
		putch(jw, ',');
	jw->has_items[l] = 1;
	if (jw->pretty)
		indent(jw);
}

struct json_writer *jw__new(FILE *out, bool pretty)
{
	struct json_writer *jw = calloc(1, sizeof(*jw));

	if (!jw)
		return NULL;
	jw->ob.out = out;
	jw->pretty = pretty;
	return jw;
}

void jw__free(struct json_writer *jw)
{
	if (!jw)
		return;
	outbuf_flush(&jw->ob);
	free(jw);
}

static void open_container(struct json_writer *jw, char c)
{
	item(jw);
	putch(jw, c);
	jw->depth++;
	jw->has_items[level(jw)] = 0;
}

static void close_container(struct json_writer *jw, char c)
{
	if (!jw->depth)
		return;
	if (jw->pretty && jw->has_items[level(jw)]) {
		jw->depth--;
		indent(jw);
	} else {
		jw->depth--;
	}
	putch(jw, c);
	done(jw);
}

void jw__start_object(struct json_writer *jw)
{
	open_container(jw, '{');
}

void jw__end_object(struct json_writer *jw)
{
	close_container(jw, '}');
}

void jw__start_array(struct json_writer *jw)
{
	open_container(jw, '[');
}

void jw__end_array(struct json_writer *jw)
{
	close_container(jw, ']');
}

/*
 * Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), or 0.
 */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (len < n)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return n;
}

/*
 * Bytes that cannot stand for themselves in a JSON string: control
 * characters, quote, backslash, and all non-ASCII (checked as UTF-8).
 */
static const unsigned char special[256] = {
	[0x00 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xff] = 1,
};

/*
 * Quotes and escapes s into o; its first plain bytes (up to i) were
 * checked already. Control characters become \u00XX; bytes that are not
 * valid UTF-8 (a file name can hold any byte) become U+FFFD so the line
 * stays valid JSON.
 */
static void put_escaped(struct outbuf *o, const char *str, size_t len, size_t i)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0;

	outbuf_putc(o, '"');
	while (i < len) {
		unsigned char c = s[i];
		char esc[6];
		size_t n;

		if (!special[c]) {
			i++;
			continue;
		}
		if (c >= 0x80) {
			n = utf8_seq(s + i, len - i);
			if (n) {
				i += n;
				continue;
			}
		}
		outbuf_put(o, str + run, i - run);
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			outbuf_put(o, esc, 2);
		} else if (c < 0x20) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			outbuf_put(o, esc, 6);
		} else {
			outbuf_put(o, "\\ufffd", 6);
		}
		i++;
		run = i;
	}
	outbuf_put(o, str + run, len - run);
	outbuf_putc(o, '"');
}

/* The length of the plain bytes s starts with */
static inline size_t plain_prefix(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len && !special[s[i]])
		i++;
	return i;
}

/* s quoted and escaped, then suffix (the ':' after a name) */
static void put_string(struct json_writer *jw, const char *str, size_t len, const char *suffix,
		       size_t slen)
{
	size_t i = plain_prefix(str, len);
	char small[128];

	/* the common case, a plain short string: one write */
	if (i == len && len + slen + 2 <= sizeof(small)) {
		small[0] = '"';
		memcpy(small + 1, str, len);
		small[len + 1] = '"';
		memcpy(small + len + 2, suffix, slen);
		put(jw, small, len + slen + 2);
		return;
	}
	put_escaped(&jw->ob, str, len, i);
	put(jw, suffix, slen);
}

void line_json_string(struct line *l, const char *s, size_t len)
{
	size_t i = plain_prefix(s, len);
	char *p = line_room_for(l, len + 2);

	if (i == len && p) {
		*p++ = '"';
		memcpy(p, s, len);
		p += len;
		*p++ = '"';
		l->p = p;
		return;
	}
	put_escaped(l->o, s, len, i);
	line_begin(l, l->o);
}

bool line_json_plain(const char *s, size_t len)
{
	return plain_prefix(s, len) == len;
}

struct outbuf *jw__outbuf(struct json_writer *jw)
{
	return &jw->ob;
}

void jw__name(struct json_writer *jw, const char *name)
{
	item(jw);
	if (jw->pretty)
		put_string(jw, name, strlen(name), ": ", 2);
	else
		put_string(jw, name, strlen(name), ":", 1);
	jw->after_name = true;
}

void jw__name_quoted(struct json_writer *jw, const char *quoted, size_t len)
{
	item(jw);
	put(jw, quoted, len);
	if (jw->pretty)
		putch(jw, ' ');
	jw->after_name = true;
}

void jw__string(struct json_writer *jw, const char *s)
{
	if (!s) {
		item(jw);
		put(jw, "null", 4);
		done(jw);
		return;
	}
	jw__string_len(jw, s, strlen(s));
}

void jw__string_len(struct json_writer *jw, const char *s, size_t len)
{
	item(jw);
	put_string(jw, s, len, "", 0);
	done(jw);
}

void jw__uint(struct json_writer *jw, uint64_t v)
{
	char buf[DECIMAL_MAX], *p = decimal_u64(buf + sizeof(buf), v);

	item(jw);
	put(jw, p, (size_t)(buf + sizeof(buf) - p));
	done(jw);
}

void jw__int(struct json_writer *jw, int64_t v)
{
	char buf[DECIMAL_MAX], *p = decimal_i64(buf + sizeof(buf), v);

	item(jw);
	put(jw, p, (size_t)(buf + sizeof(buf) - p));
	done(jw);
}

void jw__uint_str(struct json_writer *jw, uint64_t v)
{
	char buf[DECIMAL_MAX + 2], *end = buf + sizeof(buf) - 1;
	char *p = decimal_u64(end, v);

	*--p = '"';
	*end = '"';
	item(jw);
	put(jw, p, (size_t)(end + 1 - p));
	done(jw);
}

void jw__int_str(struct json_writer *jw, int64_t v)
{
	char buf[DECIMAL_MAX + 2], *end = buf + sizeof(buf) - 1;
	char *p = decimal_i64(end, v);

	*--p = '"';
	*end = '"';
	item(jw);
	put(jw, p, (size_t)(end + 1 - p));
	done(jw);
}

void jw__bool(struct json_writer *jw, bool v)
{
	item(jw);
	if (v)
		put(jw, "true", 4);
	else
		put(jw, "false", 5);
	done(jw);
}

/* Shortest text that reads back as v; JSON has no NaN or infinity. */
void jw__double(struct json_writer *jw, double v)
{
	char buf[DECIMAL_DOUBLE_MAX];

	item(jw);
	if (!isfinite(v)) {
		put(jw, "null", 4);
		done(jw);
		return;
	}
	put(jw, buf, (size_t)decimal_double(buf, v));
	done(jw);
}

void jw__newline(struct json_writer *jw)
{
	/* usually the value before it was flushed already */
	if (!jw->ob.len) {
		putc_unlocked('\n', jw->ob.out);
		return;
	}
	putch(jw, '\n');
	outbuf_flush(&jw->ob);
}
