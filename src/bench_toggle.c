// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_toggle.h"
#include "programs.h"

long bench_toggle__period_ms(void)
{
	const char *env = getenv(BENCH_TOGGLE_ENV);
	char *end;
	long v;

	if (!env || !*env)
		return 0;
	errno = 0;
	v = strtol(env, &end, 10);
	if (errno || *end || v < 10 || v > 3600000)
		return -EINVAL;
	return v;
}

int bench_toggle__what(void)
{
	const char *env = getenv(BENCH_TOGGLE_WHAT_ENV);

	if (!env || !*env || !strcmp(env, "programs"))
		return BENCH_TOGGLE_PROGRAMS;
	if (!strcmp(env, "collector"))
		return BENCH_TOGGLE_COLLECTOR;
	return -EINVAL;
}

int bench_toggle__step(struct iotrace *skel, long period_ms, enum bench_toggle_what what,
		       bool *on)
{
	struct timespec ts;
	unsigned long long ms, window;
	bool want;
	int err;

	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;
	window = ms / (unsigned long long)period_ms;
	want = window % 2 == 1;
	if (what == BENCH_TOGGLE_COLLECTOR) {
		*on = want;
	} else if (want && !*on) {
		err = programs__reattach_block(skel);
		if (err) {
			/* half attached is neither state: take all off again */
			programs__detach_block(skel);
			return err;
		}
		*on = true;
	} else if (!want && *on) {
		programs__detach_block(skel);
		*on = false;
	}
	return (int)((window + 1) * (unsigned long long)period_ms - ms) + 1;
}
