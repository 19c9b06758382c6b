// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "date_fmt.h"
#include "summary.h"
#include "time_window.h"
#include "wall_clock.h"

/* 136 years, as far as ns from the trace's start go in 64 bits with room */
#define MAX_WINDOW_S 4294967295ull
#define DAY_NS (86400 * 1000000000LL)

#define EXPECTED "seconds from the trace's start (12 or 12.5), or a time of day " \
		 "(14:03:05.25, 2026-11-30T14:03:05; add Z for UTC)"

void time_window__init(struct time_window *w)
{
	*w = (struct time_window){ .to_ns = UINT64_MAX };
}

int time_window__set(struct time_window *w, bool from, const char *arg)
{
	unsigned long long v = 0;
	int64_t ns;
	int err;

	/* the date does not matter yet: only the form is checked here */
	if (wall_clock__looks_like(arg)) {
		if (wall_clock__parse(arg, 0, &ns) == -EINVAL)
			return cli_bad_value(from ? "--from" : "--to", arg, EXPECTED);
	} else {
		err = cli_parse_seconds(arg, MAX_WINDOW_S, &v);
		if (err)
			return cli_bad_seconds(from ? "--from" : "--to", arg, err, MAX_WINDOW_S,
					       EXPECTED);
	}
	w->wall |= wall_clock__looks_like(arg);
	*(from ? &w->from_arg : &w->to_arg) = arg;
	*(from ? &w->from_ns : &w->to_ns) = v;
	return EXIT_OK;
}

int time_window__check(const struct time_window *w)
{
	if (w->from_ns < w->to_ns)
		return EXIT_OK;
	if (w->from_arg)
		cli_err("--from %s is not before --to %s: the window would be empty", w->from_arg,
			w->to_arg);
	else
		cli_err("--to %s is the trace's start: the window would be empty", w->to_arg);
	return EXIT_USAGE;
}

/* How far t is from the trace's span [start, end]: 0 within it */
static uint64_t distance(int64_t t, int64_t start, int64_t end)
{
	return t < start ? (uint64_t)(start - t) : t > end ? (uint64_t)(t - end) : 0;
}

/*
 * A time of day, on the day of the trace that has it: the occurrence
 * within the trace's span [start, end], or nearest to it (a trace begun
 * at 23:50 has 00:10 on the next day). -EDOM if more than one is within
 * it (a trace of days); -EINVAL, -ERANGE as wall_clock__parse().
 */
static int time_of_day(const char *arg, int64_t start, int64_t end, int64_t *t)
{
	int64_t k, days = (end - start) / DAY_NS + 1, c, inside = 0;
	uint64_t best = UINT64_MAX, d;
	bool have_inside = false;
	int err = -EINVAL, e;

	/* a day either side; no trace is kept for more than a few hundred days */
	for (k = -1; k <= days + 1 && k <= 1000; k++) {
		/* a day that lacks the time (summer time skips it) has no occurrence */
		e = wall_clock__parse(arg, start + k * DAY_NS, &c);
		if (e) {
			if (err)
				err = e;
			continue;
		}
		err = 0;
		d = distance(c, start, end);
		/* a day of 25 hours gives the same date twice */
		if (!d && have_inside && c != inside)
			return -EDOM;
		if (!d) {
			have_inside = true;
			inside = c;
		}
		if (d < best) {
			best = d;
			*t = c;
		}
	}
	return err;
}

/* One value: a wall-clock time into ns from start (timestamp 0), the trace ending at end. */
static int resolve(const char *opt, const char *arg, int64_t start, int64_t end,
		   const char *start_text, uint64_t *ns)
{
	int64_t t;
	int err;

	if (!arg || !wall_clock__looks_like(arg))
		return EXIT_OK;
	err = wall_clock__dated(arg) ? wall_clock__parse(arg, start, &t) :
				       time_of_day(arg, start, end, &t);
	if (err) {
		cli_err("--%s %s: %s", opt, arg, err == -ERANGE ? "out of range" : err == -EDOM ?
			"the trace has that time on more than one day (give the date too)" :
			"no such time on the trace's days (give the date too)");
		return EXIT_USAGE;
	}
	if (t < start && !strcmp(opt, "to")) {
		cli_err("--to %s is before the trace's start (%s): the window would be empty",
			arg, start_text);
		return EXIT_USAGE;
	}
	*ns = t > start ? (uint64_t)(t - start) : 0;
	return EXIT_OK;
}

int time_window__times(const char *path, const char *dir, const char *opt, int64_t *origin,
			uint64_t *duration_s)
{
	struct summary s;
	int err;

	err = summary__read(dir, &s);
	if (err) {
		cli_err("cannot read the summary of trace '%s' for %s: %s", path, opt,
			summary__strerror(&s, err));
		return EXIT_ERROR;
	}
	if (s.timestamp_origin_ns <= 0) {
		cli_err("trace '%s' does not say when its events happened (an Open-CAS trace, or "
			"an older iotrace's): %s", path, strcmp(opt, "--wall-clock") ?
			"give --from and --to in seconds from its start" : "no --wall-clock for it");
		/* an option this trace cannot take, as --cgroup-depth without cgroup names */
		return EXIT_USAGE;
	}
	*origin = s.timestamp_origin_ns;
	*duration_s = s.duration_s;
	return EXIT_OK;
}

int time_window__resolve(struct time_window *w, int64_t origin, uint64_t duration_s)
{
	struct date_fmt df = { 0 };
	const char *start;
	int64_t end;
	int err;

	if (!w->wall)
		return EXIT_OK;
	/* whole seconds: the last one's events may come up to a second later */
	end = duration_s < MAX_WINDOW_S ? origin + (int64_t)(duration_s + 1) * 1000000000 : INT64_MAX;
	start = date_fmt(&df, origin / 1000000000, (int32_t)(origin % 1000000000));
	err = resolve("from", w->from_arg, origin, end, start, &w->from_ns);
	if (!err)
		err = resolve("to", w->to_arg, origin, end, start, &w->to_ns);
	if (err)
		return err;
	w->wall = false;
	return time_window__check(w);
}
