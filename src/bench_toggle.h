/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A benchmark's switch, not a feature. With IOTRACE_BENCH_TOGGLE_MS=N in
 * its environment the tracer takes the block programs off their
 * tracepoints in the even N-millisecond windows of the wall clock
 * (CLOCK_REALTIME / N even) and puts them back in the odd ones, so that a
 * single fio run, logging its IOPS with wall-clock stamps, can set each
 * traced window against the untraced windows either side of it
 * (bench/overhead-toggle). Seconds next to each other share the host's
 * load; runs a minute apart did not, and comparisons of separate runs
 * spread by ±15% (bench/README.md). Such a trace is not a complete one.
 *
 * With IOTRACE_BENCH_TOGGLE=collector as well, the programs stay on and
 * the collector drops every record it reads in the even windows instead:
 * the ratio is then what the collector's work on the records costs the
 * workload, apart from the programs and the rings.
 */
#ifndef IOTRACE_BENCH_TOGGLE_H
#define IOTRACE_BENCH_TOGGLE_H

#include <stdbool.h>

struct iotrace;

#define BENCH_TOGGLE_ENV "IOTRACE_BENCH_TOGGLE_MS"
#define BENCH_TOGGLE_WHAT_ENV "IOTRACE_BENCH_TOGGLE"

enum bench_toggle_what {
	BENCH_TOGGLE_PROGRAMS,
	BENCH_TOGGLE_COLLECTOR,
};

/*
 * The period from the environment: 0 when the variable is unset or
 * empty, -EINVAL when it is not a whole number of 10 to 3600000 ms.
 */
long bench_toggle__period_ms(void);

/*
 * What is switched, from the environment: programs when the variable is
 * unset or empty, -EINVAL when it is neither "programs" nor "collector".
 */
int bench_toggle__what(void);

/*
 * Switches what the wall clock's window asks: the block programs
 * attached or detached, or the collector's records kept or dropped; *on
 * is that state, kept up to date. Returns the milliseconds to the next
 * switch (at least 1), or -errno when the programs could not be put back.
 */
int bench_toggle__step(struct iotrace *skel, long period_ms, enum bench_toggle_what what,
		       bool *on);

#endif
