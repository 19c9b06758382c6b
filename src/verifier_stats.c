// SPDX-License-Identifier: BSD-3-Clause
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier_stats.h"

/* BPF_LOG_STATS (include/linux/bpf_verifier.h): the summary lines alone */
#define LOG_STATS 4
/*
 * The summary is three lines, but the kernel also logs at this level a
 * line each time a global function is called, which the completion walk
 * does 511 times; a log beyond its buffer fails the load (ENOSPC). calloc
 * maps the buffers untouched: only what the kernel writes takes memory.
 */
#define LOG_SIZE (256 * 1024)
#define MAX_PROGS 64

static char *logs;

static bool wanted(void)
{
	const char *v = getenv("IOTRACE_VERIFIER_STATS");

	return v && *v == '1';
}

void verifier_stats__ask(struct bpf_object *obj)
{
	struct bpf_program *prog;
	size_t i = 0;

	if (!wanted() || logs || !(logs = calloc(MAX_PROGS, LOG_SIZE)))
		return;
	bpf_object__for_each_program(prog, obj) {
		if (i == MAX_PROGS)
			break;
		bpf_program__set_log_level(prog, LOG_STATS);
		bpf_program__set_log_buf(prog, logs + i++ * LOG_SIZE, LOG_SIZE);
	}
}

/* The number after key in log, 0 if it has none. */
static unsigned long figure(const char *log, const char *key)
{
	const char *at = strstr(log, key);

	return at ? strtoul(at + strlen(key), NULL, 10) : 0;
}

void verifier_stats__print(struct bpf_object *obj, bool loaded)
{
	struct bpf_program *prog;
	const char *log;
	size_t i = 0;

	if (!logs)
		return;
	bpf_object__for_each_program(prog, obj) {
		if (!loaded || i == MAX_PROGS)
			break;
		log = logs + i++ * LOG_SIZE;
		if (!bpf_program__autoload(prog) || !*log)
			continue;
		fprintf(stderr, "iotrace: verifier: %s %lu us %lu insns %lu states\n",
			bpf_program__name(prog), figure(log, "verification time "),
			figure(log, "processed "), figure(log, "total_states "));
	}
	free(logs);
	logs = NULL;
}
