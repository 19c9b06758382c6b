/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pieces of the --statistics view that the other summary views share:
 * per-device tables indexed by struct device.index, and how a device is
 * shown (JSON object, table title).
 */
#ifndef IOTRACE_STATS_VIEW_H
#define IOTRACE_STATS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "io_stats.h"
#include "join.h"
#include "json_writer.h"
#include "view.h"

/* (*arr)[idx], the array grown (new entries io_stats__init'ed) as needed; NULL on ENOMEM. */
struct io_stats *stats_view__device_stats(struct io_stats **arr, size_t *n, unsigned int idx,
					  bool percentiles);

/* "device": {id, name, size, model} */
void stats_view__json_device(struct json_writer *jw, const struct device *d);
/* "desc": {"device": ...}, "duration": "dur_ns": how OCTF's per-device objects begin */
void stats_view__json_desc(struct json_writer *jw, const struct device *d, uint64_t dur_ns);

/*
 * "name": {unit, average, min, max, count, total[, percentiles]}: one
 * distribution, as every statistics view writes it (percentiles only where
 * the distribution keeps them).
 */
void stats_view__json_dist(struct json_writer *jw, const char *name, const char *unit,
			   const struct dist *d);

/*
 * "name": {count, errors, notCompleted, size, latency[, queueTime,
 * deviceTime], metrics {throughput, bandwidth, workset[, write
 * invalidation factor]}}: one operation group over dur_ns, as the
 * statistics views write it, each distribution with its "percentiles"
 * ({} where none are kept, as in OCTF); dispatch: with queue and device times; wif:
 * the write invalidation factor, < 0 for none.
 */
void stats_view__json_op(struct json_writer *jw, const char *name, struct op_stats *o,
			 uint64_t dur_ns, bool dispatch, double wif);

/* sectors in MiB, as bandwidths are given */
double stats_view__mib(uint64_t sectors);

/*
 * "nvme0n1 (259:2) MODEL, 29.0 s", the heading of a device's section of a
 * table view: after a blank line unless it is the first section (*first,
 * which it clears).
 */
void stats_view__device_title(FILE *out, bool *first, const struct device *d, uint64_t dur_ns);

#endif
