/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parser's --from and --to: seconds from the trace's start, or
 * wall-clock times (a time of day, or a date and time, from a log),
 * which the trace's summary turns into seconds from its start
 * (tags.timestampOrigin, parser/wall_clock.h).
 */
#ifndef IOTRACE_TIME_WINDOW_H
#define IOTRACE_TIME_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

struct time_window {
	const char *from_arg, *to_arg;	/* as given; NULL if not */
	uint64_t from_ns, to_ns;	/* ns from the trace's start; 0 and UINT64_MAX if not given */
	bool wall;			/* one of them is a wall-clock time, not resolved yet */
};

void time_window__init(struct time_window *w);

/* --from (from) or --to: EXIT_OK, or EXIT_USAGE after saying what is wrong. */
int time_window__set(struct time_window *w, bool from, const char *arg);

/*
 * From the summary of the trace in dir (path: the trace as the user named
 * it), for opt: when header.timestamp 0 was, ns since the epoch (its
 * timestampOrigin), and the whole seconds traced. EXIT_OK, or the exit
 * status after saying why they cannot be had.
 */
int time_window__times(const char *path, const char *dir, const char *opt, int64_t *origin,
			uint64_t *duration_s);

/*
 * The wall-clock values resolved with those times of the trace; then, as
 * for seconds, whether the window holds anything. EXIT_OK, or the exit
 * status after saying why not.
 */
int time_window__resolve(struct time_window *w, int64_t origin, uint64_t duration_s);

/* Whether the window of seconds is empty: EXIT_USAGE after saying so, or EXIT_OK. */
int time_window__check(const struct time_window *w);

#endif
