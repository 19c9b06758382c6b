/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Minimal streaming JSON writer (in the spirit of bpftool's json_writer):
 * tracks nesting and commas, escapes strings, writes through a FILE with
 * its own buffering. Never prints errors; check ferror() on the FILE.
 */
#ifndef IOTRACE_JSON_WRITER_H
#define IOTRACE_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer;

/* pretty: indent with one space per level (as octf.summary is written). */
struct json_writer *jw__new(FILE *out, bool pretty);
void jw__free(struct json_writer *jw);

void jw__start_object(struct json_writer *jw);
void jw__end_object(struct json_writer *jw);
void jw__start_array(struct json_writer *jw);
void jw__end_array(struct json_writer *jw);
/* key of the next value inside an object */
void jw__name(struct json_writer *jw, const char *name);
/*
 * jw__name() of a string literal that needs no escaping (no quote,
 * backslash, control or non-ASCII character): quoted when compiled, so
 * that writing it is one copy. A view writes dozens of keys per record.
 */
#define jw__key(jw, lit) jw__name_quoted((jw), "\"" lit "\":", sizeof("\"" lit "\":") - 1)
void jw__name_quoted(struct json_writer *jw, const char *quoted, size_t len);
void jw__string(struct json_writer *jw, const char *s);
void jw__string_len(struct json_writer *jw, const char *s, size_t len);
void jw__uint(struct json_writer *jw, uint64_t v);
void jw__int(struct json_writer *jw, int64_t v);
void jw__bool(struct json_writer *jw, bool v);
void jw__double(struct json_writer *jw, double v);
/* 64-bit integers as strings, as the protobuf JSON mapping writes them */
void jw__uint_str(struct json_writer *jw, uint64_t v);
void jw__int_str(struct json_writer *jw, int64_t v);
/* ends a top-level value with a newline (JSON Lines) */
void jw__newline(struct json_writer *jw);

/*
 * The writer's buffer, for a view that writes records of a fixed layout
 * itself (line_out.h), newline included, between two top-level values;
 * rec_out__finish() flushes it.
 */
struct outbuf;
struct outbuf *jw__outbuf(struct json_writer *jw);

/* Whether s[0..len) goes into a JSON string as it is */
bool line_json_plain(const char *s, size_t len);

/*
 * s[0..len) quoted and escaped as jw__string_len() does it, of any
 * length; the room is LINE_ROOM again after it (line_out.h).
 */
struct line;
void line_json_string(struct line *l, const char *s, size_t len);

#endif
