/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Text for people (`--format table`): tables whose columns are as wide as
 * their widest cell, and ASCII histograms in the style of bcc's
 * biolatency (print_log2_hist). The summary views buffer a table's rows
 * (a few per device) and print it whole; the streaming --io table uses
 * fixed widths instead and does not come here.
 *
 * Like the JSON and CSV writers, it never prints errors: check ferror()
 * on the FILE.
 */
#ifndef IOTRACE_TABLE_WRITER_H
#define IOTRACE_TABLE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct table;

/* ncols columns; the first row added is the header. NULL on ENOMEM. */
struct table *table__new(unsigned int ncols);
/* Columns are right-aligned (numbers) but for the first; this changes one. */
void table__align_left(struct table *t, unsigned int col, bool left);
/* Appends a cell to the current row (printf format). */
void table__cell(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void table__end_row(struct table *t);
/* Prints the rows, each prefixed with indent spaces; -ENOMEM if a cell was lost. */
int table__print(struct table *t, FILE *out, unsigned int indent);
void table__free(struct table *t);

/*
 * s as a terminal should get it: control characters (a newline in a file
 * name, an escape sequence) as C escapes (\n, \t, \x1b), the rest as it
 * is. table__printable() writes it to dst (NUL-terminated, cut to size)
 * and returns dst; table__put_printable() to out. Cells pass through it.
 */
char *table__printable(char *dst, size_t size, const char *s);
void table__put_printable(FILE *out, const char *s);
/*
 * table__put_printable(), then spaces up to width terminal columns: a
 * cell of a table printed row by row, never cut (a cut could split a
 * character or an escape). s is at most TABLE_PAD_MAX bytes.
 */
#define TABLE_PAD_MAX 64
void table__put_padded(FILE *out, const char *s, size_t width);

struct hist_row {
	uint64_t begin, end;	/* inclusive */
	uint64_t count;
};

/*
 * A histogram: one line per row, "begin -> end : count |****  |", the bar
 * scaled to the largest count. unit names the values ("nsecs").
 */
void table__histogram(FILE *out, const char *unit, const struct hist_row *rows, size_t n);

/* Human units for the tables: "83.8 us", "1.50 ms"; "4 KiB". */
void table__fmt_ns(char *buf, size_t len, double ns);
void table__fmt_bytes(char *buf, size_t len, double bytes);
/* A cell of a time in those units, or "-" where there is none (!present). */
void table__cell_ns(struct table *t, bool present, double ns);

#endif
