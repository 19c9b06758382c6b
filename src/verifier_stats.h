/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the kernel's verifier spent on each program, for bench/verifier:
 * most of the tracer's start is the verifier's. Asked for with
 * IOTRACE_VERIFIER_STATS=1; otherwise these do nothing.
 */
#ifndef IOTRACE_VERIFIER_STATS_H
#define IOTRACE_VERIFIER_STATS_H

#include <stdbool.h>

#include <bpf/libbpf.h>

/* Before the load: asks the kernel for each program's figures. */
void verifier_stats__ask(struct bpf_object *obj);

/*
 * After the load: if it succeeded (loaded), one line per program loaded
 * on stderr, "iotrace: verifier: NAME USEC us INSNS insns STATES states";
 * either way, frees what verifier_stats__ask() took.
 */
void verifier_stats__print(struct bpf_object *obj, bool loaded);

#endif
