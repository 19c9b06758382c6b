/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wall-clock times for a trace's events. Events are stamped with the
 * monotonic clock; iotrace's summary says when, in UTC, header.timestamp
 * 0 was (tags.timestampOrigin), so that an event's wall-clock time is
 * that plus its header.timestamp, and a time a user has from a log can be
 * turned into a place in the trace (--from, --to).
 */
#ifndef IOTRACE_WALL_CLOCK_H
#define IOTRACE_WALL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Reads a time, into ns since the epoch: "YYYY-MM-DDTHH:MM[:SS[.fraction]]"
 * (a blank for the T too), or "HH:MM[:SS[.fraction]]" on the date that
 * ref_ns (ns since the epoch) has; in local time (TZ), or UTC with a
 * final Z. A fraction has 1 to 9 digits. 0, or -EINVAL (not such a time,
 * or no such date or time of day: February 30, a local time a DST change
 * skips), -ERANGE (before 1970 or after 2262).
 */
int wall_clock__parse(const char *text, int64_t ref_ns, int64_t *ns);

/* Whether text is meant as a time of day or date rather than a number of seconds. */
bool wall_clock__looks_like(const char *text);

#endif
