// SPDX-License-Identifier: BSD-3-Clause
/*
 * A test shim, preloaded into the tracer (LD_PRELOAD): poll() fails with
 * errno IOTRACE_TEST_POLL_ERRNO for as long as the file
 * IOTRACE_TEST_POLL_FAIL_WHILE exists, so a test can make the
 * collector's wait for records fail as a debugger's call (516) or memory
 * pressure (ENOMEM) did, and stop it failing. Not installed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	static int (*real)(struct pollfd *, nfds_t, int);
	const char *path = getenv("IOTRACE_TEST_POLL_FAIL_WHILE");
	const char *err = getenv("IOTRACE_TEST_POLL_ERRNO");

	if (path && err && !access(path, F_OK)) {
		errno = atoi(err);
		return -1;
	}
	if (!real)
		real = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(fds, nfds, timeout);
}
