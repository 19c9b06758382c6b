// SPDX-License-Identifier: BSD-3-Clause
#include "ring_plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "regular_file.h"

/* a decimal CPU number at *s; false if there is none */
static bool cpu_number(const char **s, unsigned long *n)
{
	char *end;

	if (**s < '0' || **s > '9')
		return false;
	errno = 0;
	*n = strtoul(*s, &end, 10);
	if (errno)
		return false;
	*s = end;
	return true;
}

int ring_plan__parse_cpus(const char *list, bool *online, int ncpus)
{
	const char *s = list;
	unsigned long lo, hi, cpu;
	int marked = 0;

	memset(online, 0, (size_t)ncpus * sizeof(*online));
	for (;;) {
		if (!cpu_number(&s, &lo))
			return -EINVAL;
		hi = lo;
		if (*s == '-') {
			s++;
			if (!cpu_number(&s, &hi) || hi < lo)
				return -EINVAL;
		}
		for (cpu = lo; cpu <= hi && cpu < (unsigned long)ncpus; cpu++) {
			if (!online[cpu])
				marked++;
			online[cpu] = true;
		}
		if (*s != ',')
			break;
		s++;
	}
	if (*s == '\n')
		s++;
	return *s ? -EINVAL : marked;
}

/* RING_MIN_BYTES, or a page where pages are larger */
static uint64_t least_ring(void)
{
	uint64_t page = (uint64_t)getpagesize();

	return page > RING_MIN_BYTES ? page : RING_MIN_BYTES;
}

/* The list in path into online[]: its count, or a negative errno. */
static int read_online(const char *path, bool *online, int ncpus)
{
	char buf[4096];
	/* the test's IOTRACE_CPUS_ONLINE too: a FIFO there must not hold the tracer, and its lock */
	FILE *f = regular_file__open(path);
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return ring_plan__parse_cpus(buf, online, ncpus);
}

int ring_plan__init(struct ring_plan *p, uint64_t buffer_mib, int ncpus, const char *online_path)
{
	uint64_t share = buffer_mib << 20, bytes = least_ring();
	int n, cpu;

	memset(p, 0, sizeof(*p));
	p->online = calloc((size_t)ncpus, sizeof(*p->online));
	if (!p->online)
		return -ENOMEM;
	n = read_online(online_path, p->online, ncpus);
	if (n <= 0) {
		for (cpu = 0; cpu < ncpus; cpu++)
			p->online[cpu] = true;
		n = ncpus;
	}
	p->nonline = n;
	share /= (uint64_t)n;
	while (bytes * 2 <= share)
		bytes *= 2;
	p->share = bytes;
	return 0;
}

uint64_t ring_plan__bytes(const struct ring_plan *p, int cpu)
{
	return p->online[cpu] ? p->share : least_ring();
}

void ring_plan__free(struct ring_plan *p)
{
	free(p->online);
	p->online = NULL;
}
