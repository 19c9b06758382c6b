/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The first pass of a view that prints paths: reads only the
 * filesystemFileName events of a whole trace into a file_names table, so
 * that paths are built from the names files have at the end of the trace
 * (each file's last name event in sid order, with its parent) rather
 * than from the names known when a record goes out. A file renamed in the
 * middle of the trace has its new path in the records before the rename
 * too.
 *
 * Cheap by design: a record whose type is plainly another (a header, then
 * one event field of another type that ends the record) is skipped
 * without decoding; the streams are shared by `threads` threads (1 or 2).
 * Damage stops the pass in that stream silently: the second pass meets
 * the same damage and reports it.
 *
 * Memory: the name events while the pass runs, then the table (files
 * named in the trace).
 */
#ifndef IOTRACE_NAME_PASS_H
#define IOTRACE_NAME_PASS_H

struct file_names;
struct trace;

/*
 * Reads every stream of t from its start (t is used up: the second pass
 * opens the trace again). Returns 0 or -ENOMEM.
 */
int name_pass__run(struct trace *t, struct file_names *fn, unsigned int threads);

#endif
