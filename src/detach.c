// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE /* pipe2, close_range */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "detach.h"

/* a thread only closes a file descriptor and frees a little memory */
#define DETACH_STACK (64 * 1024)

struct job {
	pthread_t th;
	void (*fn)(void *);
	void *arg;
	bool started;
};

static void *job_main(void *p)
{
	struct job *j = p;

	j->fn(j->arg);
	return NULL;
}

/*
 * fn on each of args[0..n) (NULL ones skipped), each in a thread of its
 * own, all at once; where a thread cannot be started, in this one.
 */
static void run_at_once(void (*fn)(void *), void *const *args, size_t n)
{
	struct job *j = calloc(n ? n : 1, sizeof(*j));
	pthread_attr_t attr;
	bool attr_ok = !pthread_attr_init(&attr);
	size_t i;

	if (attr_ok)
		pthread_attr_setstacksize(&attr, DETACH_STACK);
	for (i = 0; j && i < n; i++) {
		j[i].fn = fn;
		j[i].arg = args[i];
		if (args[i])
			j[i].started = !pthread_create(&j[i].th, attr_ok ? &attr : NULL, job_main,
						       &j[i]);
	}
	for (i = 0; i < n; i++) {
		if (j && j[i].started)
			pthread_join(j[i].th, NULL);
		else if (args[i])
			fn(args[i]);
	}
	if (attr_ok)
		pthread_attr_destroy(&attr);
	free(j);
}

static void destroy_link(void *link)
{
	bpf_link__destroy(link);
}

void detach__links(struct bpf_link **const *slots, size_t n)
{
	void **links = calloc(n ? n : 1, sizeof(*links));
	size_t i;

	for (i = 0; links && i < n; i++)
		links[i] = *slots[i];
	if (links)
		run_at_once(destroy_link, links, n);
	for (i = 0; i < n; i++) {
		if (!links)
			bpf_link__destroy(*slots[i]);
		*slots[i] = NULL;
	}
	free(links);
}

static char *cmdline;	/* detach__set_cmdline() */
static size_t cmdline_len;

void detach__set_cmdline(char *start, size_t len)
{
	cmdline = start;
	cmdline_len = len;
}

bool detach__keeps(const char *target)
{
	return !strcmp(target, "anon_inode:bpf_link") || !strcmp(target, "anon_inode:[perf_event]");
}

struct fd_plan {
	void **keep;	/* the links' and perf events' descriptors, as (void *)(fd + 1) */
	size_t nkeep;
	int maxfd;	/* the highest open descriptor */
	bool alone;	/* the caller has no other thread: its child may start some */
};

static size_t dir_entries(const char *path)
{
	DIR *d = opendir(path);
	size_t n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

/* Before the fork: reading a directory allocates, which a child of a threaded process may not. */
static int plan_fds(struct fd_plan *p)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	size_t cap = 0;
	char target[64];

	memset(p, 0, sizeof(*p));
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		ssize_t len;

		if (*end || end == e->d_name || fd == dirfd(d))
			continue;
		p->maxfd = fd > p->maxfd ? (int)fd : p->maxfd;
		len = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (!detach__keeps(target))
			continue;
		if (p->nkeep == cap) {
			void **k = realloc(p->keep, (cap = cap ? 2 * cap : 64) * sizeof(*k));

			if (!k) {
				closedir(d);
				free(p->keep);
				return -ENOMEM;
			}
			p->keep = k;
		}
		p->keep[p->nkeep++] = (void *)(intptr_t)(fd + 1);
	}
	closedir(d);
	/* ".", ".." and this thread */
	p->alone = dir_entries("/proc/self/task") == 3;
	return 0;
}

static bool kept(const struct fd_plan *p, int fd)
{
	size_t i;

	for (i = 0; i < p->nkeep; i++)
		if ((intptr_t)p->keep[i] == fd + 1)
			return true;
	return false;
}

static void close_fd(void *fd_plus_1)
{
	close((int)((intptr_t)fd_plus_1 - 1));
}

/*
 * The helper. Keeps the plan's descriptors and the pipe's read end; once
 * the caller has closed the write end, its handles are gone and these
 * closes are the last, which wait for the kernel. Only async-signal-safe
 * calls unless the caller had no other thread.
 */
static _Noreturn void helper(const struct fd_plan *p, const int pfd[2], const char *hold)
{
	int rfd = pfd[0], top = p->maxfd > rfd ? p->maxfd : rfd;
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int fd;

	/* the tracer's stop handlers would make it ignore a kill; ended, its exit closes the links; signals come in once reset */
	(void)sigaction(SIGINT, &dfl, NULL);
	(void)sigaction(SIGTERM, &dfl, NULL);
	(void)sigaction(SIGHUP, &dfl, NULL);
	(void)sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)setsid();
	(void)!chdir("/");
	(void)prctl(PR_SET_NAME, DETACH_HELPER_NAME, 0, 0, 0);
	if (cmdline && cmdline_len) {
		size_t n = sizeof(DETACH_HELPER_NAME) - 1;

		memset(cmdline, 0, cmdline_len);
		memcpy(cmdline, DETACH_HELPER_NAME, n < cmdline_len ? n : cmdline_len - 1);
	}
	for (fd = 0; fd <= top; fd++)
		if (fd != rfd && !kept(p, fd))
			close(fd);
	/*
	 * The pipe is made after the plan, so where the table had no gap its
	 * write end lies above it: kept, no EOF would ever come. Closed by
	 * name as well, since a seccomp filter may refuse close_range(), which
	 * takes whatever else another thread opened since the plan.
	 */
	close(pfd[1]);
	(void)close_range((unsigned int)top + 1, ~0U, 0);
	/*
	 * Bounded: should anything still hold a write end, an early close
	 * only leaves the last, slow one to the caller, where a helper
	 * waiting for good would keep the node's syscall tax for good.
	 */
	while (poll(&(struct pollfd){ .fd = rfd, .events = POLLIN }, 1, DETACH_WAIT_S * 1000) < 0 &&
	       errno == EINTR)
		;
	/* a test's hold, a minute at most: a failed test must not leave it forever */
	for (int i = 0; hold && i < 6000 && access(hold, F_OK); i++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	/* else the exit closes them, one after the other: 3.4 s against 2.8 (--vfs) */
	if (p->alone)
		run_at_once(close_fd, p->keep, p->nkeep);
	_exit(0);
}

pid_t detach__hand_off(struct bpf_link **const *slots, size_t n)
{
	const char *hold = getenv(DETACH_HOLD_ENV);
	struct fd_plan plan;
	pid_t pid = 0;
	int pfd[2] = { -1, -1 };
	size_t i, any = 0;

	for (i = 0; i < n; i++)
		any += *slots[i] != NULL;
	if (any && !plan_fds(&plan)) {
		if (plan.nkeep && !pipe2(pfd, O_CLOEXEC)) {
			sigset_t all, prev;

			/* a signal between the fork and the helper's reset would run the tracer's handler there */
			sigfillset(&all);
			pthread_sigmask(SIG_BLOCK, &all, &prev);
			pid = fork();
			if (!pid)
				helper(&plan, pfd, hold && *hold ? hold : NULL);
			pthread_sigmask(SIG_SETMASK, &prev, NULL);
			pid = pid < 0 ? 0 : pid;
			close(pfd[0]);
		}
		free(plan.keep);
	}
	for (i = 0; i < n; i++) {
		bpf_link__destroy(*slots[i]);
		*slots[i] = NULL;
	}
	if (pfd[1] >= 0)
		close(pfd[1]);
	return pid;
}
