/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CSV writer (RFC 4180 quoting: fields with comma, quote, CR or LF are
 * quoted, quotes doubled). Rows are built field by field.
 */
#ifndef IOTRACE_CSV_WRITER_H
#define IOTRACE_CSV_WRITER_H

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
void csv__empty(struct csv_writer *cw);
void csv__end_row(struct csv_writer *cw);

#endif
