// SPDX-License-Identifier: BSD-3-Clause
/*
 * bench/floor DEVICE: attach the counting-only programs of floor.bpf.c to
 * one device until SIGINT/SIGTERM, then print "hits N" (tracepoint hits on
 * that device) and "queue N issue N complete N", the hits of each. Used by
 * bench/overhead; built only for benchmarks.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(int argc, char **argv)
{
	unsigned int ma, mi;
	struct floor *skel;
	char path[256];
	__u64 *vals, total = 0, counts[FLOOR_NR_COUNTS] = {};
	__u32 which;
	int ncpus, i, err;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
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
	while (!stop)
		pause();
	ncpus = libbpf_num_possible_cpus();
	vals = calloc(ncpus, sizeof(*vals));
	for (which = 0; vals && which < FLOOR_NR_COUNTS; which++) {
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.hits), &which, vals))
			continue;
		for (i = 0; i < ncpus; i++)
			counts[which] += vals[i];
		total += counts[which];
	}
	printf("hits %llu\nqueue %llu issue %llu complete %llu\n", (unsigned long long)total,
	       (unsigned long long)counts[FLOOR_QUEUE], (unsigned long long)counts[FLOOR_ISSUE],
	       (unsigned long long)counts[FLOOR_COMPLETE]);
	free(vals);
	floor__destroy(skel);
	return 0;
}
