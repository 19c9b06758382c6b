/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The --io view's records as JSON and CSV text (io_view.c says what they
 * hold), written by line_out.h: a record is two dozen fields, the same
 * ones each time, and the traces have millions of them.
 */
#ifndef IOTRACE_IO_TEXT_H
#define IOTRACE_IO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "date_fmt.h"
#include "join.h"
#include "view.h"
#include "wall_clock.h"

struct cgroup_names;
struct outbuf;

/*
 * The device's name and model as the format writes them (JSON: quoted),
 * for the records that follow: they repeat on every record and rarely
 * need escaping or quotes. Strings too long or not plain are written by
 * line_json_string() or line_csv_string() each time.
 */
#define DEV_TEXT_MAX 128

struct dev_text {
	const struct device *dev;
	const char *name, *model;	/* what the texts were made of */
	bool plain;
	size_t name_len, model_len;
	char name_t[DEV_TEXT_MAX + 2], model_t[DEV_TEXT_MAX + 2];
};

/* What the records of one view keep from one record to the next */
struct io_text {
	struct date_fmt date;
	struct dev_text dev;
	/* --wall-clock: view_opts.wall_origin_ns (0 = not asked), and its text */
	int64_t wall_origin;
	struct wall_fmt wall;
	const struct cgroup_names *cgroups;	/* rec_out.cgroups: NULL, no such column */
};

/* t->dev for d, unless it is for d already */
void io_text__dev(struct dev_text *t, const struct device *d, enum view_format fmt);

/* OCTF's names of the operations and file events; NULL for a value newer than our schema */
const char *io_text__op_name(int32_t op);
const char *io_text__fs_event_name(int32_t e);

/*
 * One record, newline included, into o (flushed when the next does not
 * fit); with the trace's cgroup paths process.cgroupPath, with
 * wall_origin header.wallClock too (the CSV's last columns, in that order)
 */
void io_text__json(struct io_text *t, struct outbuf *o, const struct io_rec *r);
void io_text__csv(struct io_text *t, struct outbuf *o, const struct io_rec *r);

/* The CSV columns, in the order io_text__csv() writes them */
extern const char *const io_text__csv_columns[];
extern const size_t io_text__csv_ncols;

#endif
