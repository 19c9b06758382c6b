// SPDX-License-Identifier: BSD-3-Clause
/*
 * bench/pread_loop FILE SECONDS: 4 KiB buffered pread64()s of FILE, one
 * after the other, cycling through the file, for SECONDS; then prints
 * "calls N seconds S rate R" (calls per second). Used by
 * bench/vfs-overhead: with the file in the page cache, the loop is
 * nothing but system calls, so a tracer's cost per call is all it sees.
 *
 * The clock is read every 1024 calls (vDSO, no system call), so the loop
 * makes exactly one system call per iteration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char buf[BLOCK] __attribute__((aligned(BLOCK)));
	unsigned long long calls = 0;
	double secs, t0, t;
	off_t off = 0, blocks;
	struct stat st;
	int fd;

	if (argc != 3 || (secs = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: %s FILE SECONDS\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "pread_loop: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	blocks = st.st_size / BLOCK;
	if (blocks < 1) {
		fprintf(stderr, "pread_loop: %s is smaller than %d bytes\n", argv[1], BLOCK);
		return 1;
	}
	t0 = now();
	do {
		for (int i = 0; i < 1024; i++) {
			if (pread(fd, buf, BLOCK, off * BLOCK) != BLOCK) {
				fprintf(stderr, "pread_loop: pread at block %lld failed\n", (long long)off);
				return 1;
			}
			if (++off == blocks)
				off = 0;
		}
		calls += 1024;
		t = now();
	} while (t - t0 < secs);
	printf("calls %llu seconds %.3f rate %.0f\n", calls, t - t0, calls / (t - t0));
	close(fd);
	return 0;
}
