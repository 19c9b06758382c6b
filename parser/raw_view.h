/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The raw view: every event as recorded, one record per event.
 *
 * Output is driven by the protobuf-c descriptors, so every event type and
 * every field (ours and OCTF's) is printed without a hand-kept list.
 * JSON follows the protobuf JSON mapping (field names as in trace.proto,
 * 64-bit integers as strings, enums by name, a creation date as the RFC
 * 3339 string of Open-CAS's google.protobuf.Timestamp) except that fields
 * holding their default value are printed too: "as recorded" includes
 * LBA 0.
 * One JSON object per line.
 *
 * CSV columns are the dotted paths of all leaf fields of Event in
 * descriptor order (header.sid, header.timestamp, io.lba, ...); a row
 * fills the columns of the event type it holds and leaves the rest empty.
 */
#ifndef IOTRACE_RAW_VIEW_H
#define IOTRACE_RAW_VIEW_H

#include <stdio.h>

#include "trace.pb-c.h"

enum raw_format { RAW_JSON, RAW_CSV };

struct raw_view;

struct raw_view *raw_view__new(FILE *out, enum raw_format fmt);
/* Writes one event (the CSV header before the first row). */
void raw_view__write(struct raw_view *v, const Octf__Proto__Trace__Event *ev);
/*
 * 0, or the -errno of the first failed write so far: lets a caller stop
 * early (a closed pipe) instead of formatting the rest of the trace.
 */
int raw_view__error(const struct raw_view *v);
/* Flushes; returns 0 or -errno (e.g. -EPIPE, -ENOSPC) if writing failed. */
int raw_view__finish(struct raw_view *v);
void raw_view__free(struct raw_view *v);

#endif
