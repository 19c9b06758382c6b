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

	/* the date does not matter yet: only the form is checked here */
	if (wall_clock__looks_like(arg) ? wall_clock__parse(arg, 0, &ns) == -EINVAL
					: cli_parse_seconds(arg, MAX_WINDOW_S, &v))
		return cli_bad_value(from ? "--from" : "--to", arg, EXPECTED);
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

/* One value: a wall-clock time into ns from origin (the trace's start). */
static int resolve(const char *opt, const char *arg, int64_t origin, const char *start,
		   uint64_t *ns)
{
	int64_t t;
	int err;

	if (!arg || !wall_clock__looks_like(arg))
		return EXIT_OK;
	err = wall_clock__parse(arg, origin, &t);
	if (err) {
		cli_err("--%s %s: %s", opt, arg, err == -ERANGE ? "out of range" :
			"no such time on the trace's date (give the date too)");
		return EXIT_USAGE;
	}
	if (t < origin && !strcmp(opt, "to")) {
		cli_err("--to %s is before the trace's start (%s): the window would be empty%s",
			arg, start, strchr(arg, '-') ? "" : " (a time of day is taken on the day "
			"the trace started: give the date too)");
		return EXIT_USAGE;
	}
	*ns = t > origin ? (uint64_t)(t - origin) : 0;
	return EXIT_OK;
}

int time_window__origin(const char *path, const char *dir, const char *opt, int64_t *origin)
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
		return EXIT_ERROR;
	}
	*origin = s.timestamp_origin_ns;
	return EXIT_OK;
}

int time_window__resolve(struct time_window *w, const char *path, const char *dir)
{
	struct date_fmt df = { 0 };
	const char *start;
	int64_t origin;
	int err;

	if (!w->wall)
		return EXIT_OK;
	err = time_window__origin(path, dir, "--from/--to as a time of day", &origin);
	if (err)
		return err;
	start = date_fmt(&df, origin / 1000000000, (int32_t)(origin % 1000000000));
	err = resolve("from", w->from_arg, origin, start, &w->from_ns);
	if (!err)
		err = resolve("to", w->to_arg, origin, start, &w->to_ns);
	if (err)
		return err;
	w->wall = false;
	return time_window__check(w);
}
