/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CSV writer (RFC 4180 quoting: fields with comma, quote, CR or LF are
 * quoted, quotes doubled). Rows are built field by field.
 */
#ifndef IOTRACE_CSV_WRITER_H
#define IOTRACE_CSV_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct csv_writer;

struct csv_writer *csv__new(FILE *out);
void csv__free(struct csv_writer *cw);

void csv__string(struct csv_writer *cw, const char *s);
/*
 * s[0..len) as it is: for fields the caller knows need no quotes (its
 * own literals), which then cost no scan.
 */
void csv__plain(struct csv_writer *cw, const char *s, size_t len);
void csv__uint(struct csv_writer *cw, uint64_t v);
void csv__int(struct csv_writer *cw, int64_t v);
/* rates and averages, as JSON has them (decimal_double()); empty if not finite */
void csv__double(struct csv_writer *cw, double v);
void csv__empty(struct csv_writer *cw);
void csv__end_row(struct csv_writer *cw);

/*
 * The writer's buffer, for a view that writes rows of a fixed layout
 * itself (line_out.h), newline included; rec_out__finish() flushes it.
 */
struct outbuf;
struct outbuf *csv__outbuf(struct csv_writer *cw);

/* Whether s[0..len) is a field as it is (no ',', '"', CR, LF) */
bool line_csv_plain(const char *s, size_t len);

/*
 * s[0..len) as a field, quoted if it must be, of any length; the room is
 * LINE_ROOM again after it (line_out.h).
 */
struct line;
void line_csv_string(struct line *l, const char *s, size_t len);

#endif
