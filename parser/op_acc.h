/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-operation totals of the per-file and per-process reports, for VFS
 * calls (vfs_call.h's kinds) and block I/Os (read, write, discard,
 * flush as io_stats.h groups them), and how the reports write them.
 *
 * Sizes and bytes are in bytes in these reports, block I/O included:
 * VFS calls count bytes, and one unit lets the two layers be compared.
 * - VFS: size = bytes asked for; bytes = bytes read or written (positive
 *   results of reads and writes; 0 for other kinds); errors = calls that
 *   returned -errno; time = duration.
 * - block: size = bytes = the I/O's length; errors = completed with an
 *   error; time = latency, of completed I/Os; notCompleted = I/Os
 *   without a completion.
 *
 * A time distribution keeps percentiles (by count, dist.h) and is
 * allocated at its first value: 2 KiB per power of two its values span,
 * so an operation that never happens costs nothing but its counters.
 */
#ifndef IOTRACE_OP_ACC_H
#define IOTRACE_OP_ACC_H

#include <stdbool.h>
#include <stdint.h>

#include "csv_writer.h"
#include "dist.h"
#include "join.h"
#include "json_writer.h"
#include "table_writer.h"
#include "vfs_call.h"

/* block operations in these reports: io_stats.h's groups but total */
#define BLOCK_OPS 4

struct op_acc {
	uint64_t count, errors, not_completed;
	uint64_t bytes;
	uint64_t size_min, size_max, size_sum;
	struct dist *time;	/* ns; NULL until the first */
};

/*
 * What a report keeps of one thing: a file, a process, a cgroup. An
 * operation's totals are allocated when it first happens: a file sees a
 * few of the twelve, and a trace can name millions of files.
 */
struct op_totals {
	uint64_t calls;		/* VFS calls: a copy counts once here, twice in vfs[] */
	struct op_acc *vfs[VOP_COUNT];	/* NULL: none */
	struct op_acc *block[BLOCK_OPS];
	bool any_vfs, any_block;
};

/* The totals of a kind of VFS call, of a block operation: all 0 if none happened. */
const struct op_acc *op_totals__vfs(const struct op_totals *t, enum vfs_op op);
const struct op_acc *op_totals__block(const struct op_totals *t, unsigned int group);

/*
 * One side of a VFS call, for totals: a call is one, but copy_file_range,
 * sendfile and splice are a read of their input file and a write of their
 * output file - two sides, each where the event has the file (fileId,
 * fileId2), and at least the read, but for a side a --file filter did not
 * match (vfs_rec.unmatched). file is NULL without JOIN_FILES.
 */
struct vfs_side {
	enum vfs_op op;
	struct file_node *file;
	const char *path;
	size_t path_len;
};

/* The sides of r (0 to 2) in out. */
unsigned int vfs_rec__sides(const struct vfs_rec *r, struct vfs_side out[2]);

/* Counts one side of a VFS call (not in calls); -ENOMEM if the time could not be kept. */
int op_totals__add_vfs(struct op_totals *t, enum vfs_op op, const struct vfs_rec *r);
/* Counts a block I/O (REC_IO; an operation OCTF does not know is left out). */
int op_totals__add_io(struct op_totals *t, const struct io_rec *r);
void op_totals__free(struct op_totals *t);
/*
 * Frees a report's entry (a keymap value, malloc'd) whose first member is
 * its op_totals: the reports' entries differ but for that. NULL is fine.
 */
void op_totals__free_entry(void *entry);

/* Block bytes of the operations that move data (read, write, discard); VFS bytes. */
uint64_t op_totals__block_bytes(const struct op_totals *t);
uint64_t op_totals__vfs_bytes(const struct op_totals *t);

/* "vfs": {op: {...}, ...}, "block": {...}: the operations that happened, each present layer. */
void op_totals__json(struct json_writer *jw, const struct op_totals *t);

/* The CSV columns from "layer" on, and one row's cells per operation that happened. */
void op_totals__csv_header(struct csv_writer *cw);
/* Calls row(ctx) to write a row's leading cells before each row. */
void op_totals__csv_rows(struct csv_writer *cw, const struct op_totals *t,
			 void (*row)(struct csv_writer *cw, void *ctx), void *ctx);

/* Table cells: a count; bytes ("4 KiB"); a time ("83.8 us", "-" if none). */
void op_totals__cell_count(struct table *tb, uint64_t n);
void op_totals__cell_bytes(struct table *tb, uint64_t bytes);
void op_totals__cell_ns(struct table *tb, const struct dist *d, double ns);

#endif
