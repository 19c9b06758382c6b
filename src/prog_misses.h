/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runs of the tracer's programs that the kernel skipped. A tracing
 * program does not run inside itself on one CPU: a completion in an
 * interrupt on top of the same program's run on another I/O is skipped,
 * and the kernel counts the miss in the program's recursion_misses
 * (v5.12). The events of such a run were never made, so no buffer counts
 * them as lost; without this count their loss would be silent. The count
 * cannot tell a run for a traced device from one the program would have
 * filtered out: it may overstate the loss, never understate it.
 */
#ifndef IOTRACE_PROG_MISSES_H
#define IOTRACE_PROG_MISSES_H

#include <stddef.h>
#include <stdint.h>

struct bpf_object;

/*
 * The misses of obj's loaded programs, summed; those that missed, into
 * names: "handle_rq_complete 3, handle_bio_queue 1" ("" for none; cut
 * with "..." where it does not fit). A program whose figures cannot be
 * read counts none.
 */
uint64_t prog_misses__read(struct bpf_object *obj, char *names, size_t size);

#endif
