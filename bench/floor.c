// SPDX-License-Identifier: BSD-3-Clause
/*
 * bench/floor DEVICE [TOGGLE_MS]: attach the counting-only programs of
 * floor.bpf.c to one device until SIGINT/SIGTERM, then print "hits N"
 * (tracepoint hits on that device) and "queue N issue N complete N", the
 * hits of each, then "uring N": io_uring completions, of any device or
 * none. With TOGGLE_MS, the programs are attached only in the odd
 * TOGGLE_MS windows of the wall clock, as the tracer's are with
 * IOTRACE_BENCH_TOGGLE_MS (src/bench_toggle.h). Used by bench/overhead and
 * bench/overhead-toggle; built only for benchmarks.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "floor.h"
#include "floor.skel.h"
#include "iotrace_event.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* Attaches or detaches as the window of the wall clock asks, until a signal. */
static int toggle(struct floor *skel, long period_ms)
{
	bool attached = true;
	struct timespec ts, nap;
	unsigned long long ms, window, left;

	while (!stop) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ms = (unsigned long long)ts.tv_sec * 1000 + (unsigned long long)ts.tv_nsec / 1000000;
		window = ms / (unsigned long long)period_ms;
		if (window % 2 && !attached) {
			if (floor__attach(skel))
				return -errno;
			attached = true;
		} else if (!(window % 2) && attached) {
			floor__detach(skel);
			attached = false;
		}
		left = (window + 1) * (unsigned long long)period_ms - ms + 1;
		nap.tv_sec = (time_t)(left / 1000);
		nap.tv_nsec = (long)(left % 1000) * 1000000;
		nanosleep(&nap, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int ma, mi;
	struct floor *skel;
	char path[256];
	__u64 *vals, total = 0, counts[FLOOR_NR_COUNTS] = {};
	__u32 which;
	int ncpus, i, err;
	FILE *f;
	long period_ms = 0;

	if (argc == 3) {
		char *end;

		period_ms = strtol(argv[2], &end, 10);
		if (*end || period_ms < 10)
			argc = 0;
	}
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s DEVICE [TOGGLE_MS, at least 10]\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", argv[1]);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%u:%u", &ma, &mi) != 2) {
		fprintf(stderr, "floor: unknown device '%s'\n", argv[1]);
		return 1;
	}
	fclose(f);
	skel = floor__open();
	if (!skel)
		return 1;
	skel->rodata->targ_dev = IOTRACE_MKDEV(ma, mi);
	err = floor__load(skel) || floor__attach(skel);
	if (err) {
		fprintf(stderr, "floor: cannot load or attach: %s\n", strerror(errno));
		floor__destroy(skel);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (period_ms) {
		err = toggle(skel, period_ms);
		if (err) {
			fprintf(stderr, "floor: cannot attach again: %s\n", strerror(-err));
			floor__destroy(skel);
			return 1;
		}
	}
	while (!stop)
		pause();
	ncpus = libbpf_num_possible_cpus();
	vals = calloc(ncpus, sizeof(*vals));
	for (which = 0; vals && which < FLOOR_NR_COUNTS; which++) {
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.hits), &which, vals))
			continue;
		for (i = 0; i < ncpus; i++)
			counts[which] += vals[i];
		if (which != FLOOR_URING)
			total += counts[which];
	}
	printf("hits %llu\nqueue %llu issue %llu complete %llu\nuring %llu\n",
	       (unsigned long long)total, (unsigned long long)counts[FLOOR_QUEUE],
	       (unsigned long long)counts[FLOOR_ISSUE], (unsigned long long)counts[FLOOR_COMPLETE],
	       (unsigned long long)counts[FLOOR_URING]);
	free(vals);
	floor__destroy(skel);
	return 0;
}
