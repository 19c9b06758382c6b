// SPDX-License-Identifier: BSD-3-Clause
/*
 * detach__links(): every link destroyed once, slots cleared, and the
 * destroys under way at the same time (the point of it: a link's close
 * waits for a grace period). bpf_link__destroy and pthread_create are
 * wrapped (-Wl,--wrap): links here are just addresses.
 *
 * detach__hand_off(): the helper it starts keeps a perf event's
 * descriptor (a software one, so that no program is needed; root or
 * perf_event_paranoid <= 2) and nothing else of this process, is named,
 * sits in its own session in /, and ends once released.
 */
#define _GNU_SOURCE /* close_range */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "detach.h"

#define NLINKS 24

struct bpf_link;

static char objs[NLINKS];	/* the links' addresses */
static _Atomic int destroyed[NLINKS];
static _Atomic int stray;	/* destroys of something else */
static _Atomic int in_flight, max_in_flight;
static bool wait_for_all;	/* each destroy waits until all have begun */
static _Atomic bool gave_up;
static int fail_creates;	/* pthread_create fails for the first ones */
static _Atomic int creates;

int __real_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg);

int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	if (atomic_fetch_add(&creates, 1) < fail_creates)
		return EAGAIN;
	return __real_pthread_create(th, attr, fn, arg);
}

static int leaked_write_end = -1;	/* a copy of the last write end pipe2 made, while leak_write_end */
static bool leak_write_end;

int __real_pipe2(int fds[2], int flags);

int __wrap_pipe2(int fds[2], int flags)
{
	int r = __real_pipe2(fds, flags);

	if (!r && leak_write_end)
		leaked_write_end = fcntl(fds[1], F_DUPFD_CLOEXEC, 0);
	return r;
}

void __wrap_bpf_link__destroy(struct bpf_link *link)
{
	char *p = (char *)link;
	int now, max, expect, waited;

	if (!link)
		return;
	if (p < objs || p >= objs + NLINKS) {
		atomic_fetch_add(&stray, 1);
		return;
	}
	atomic_fetch_add(&destroyed[p - objs], 1);
	now = atomic_fetch_add(&in_flight, 1) + 1;
	max = atomic_load(&max_in_flight);
	while (now > max && !atomic_compare_exchange_weak(&max_in_flight, &max, now))
		;
	/* 5 s at most, and once: one at a time, the first never sees the others come */
	expect = NLINKS - fail_creates;
	for (waited = 0; wait_for_all && !atomic_load(&gave_up) &&
			 atomic_load(&max_in_flight) < expect;
	     waited++) {
		if (waited == 5000)
			atomic_store(&gave_up, true);
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
	atomic_fetch_sub(&in_flight, 1);
}

static int reset(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < NLINKS; i++)
		atomic_store(&destroyed[i], 0);
	atomic_store(&stray, 0);
	atomic_store(&in_flight, 0);
	atomic_store(&max_in_flight, 0);
	atomic_store(&creates, 0);
	wait_for_all = false;
	atomic_store(&gave_up, false);
	fail_creates = 0;
	return 0;
}

/* slots for every link; those whose index is in holes hold NULL */
static void fill(struct bpf_link **links, struct bpf_link ***slots, unsigned int holes_every)
{
	int i;

	for (i = 0; i < NLINKS; i++) {
		links[i] = holes_every && i % holes_every == 0 ? NULL : (struct bpf_link *)&objs[i];
		slots[i] = &links[i];
	}
}

static void assert_all_gone(struct bpf_link **links, unsigned int holes_every)
{
	int i;

	for (i = 0; i < NLINKS; i++) {
		int want = holes_every && i % holes_every == 0 ? 0 : 1;

		assert_null(links[i]);
		assert_int_equal(atomic_load(&destroyed[i]), want);
	}
	assert_int_equal(atomic_load(&stray), 0);
	assert_int_equal(atomic_load(&in_flight), 0);
}

static void test_each_once_and_cleared(void **state)
{
	struct bpf_link *links[NLINKS], **slots[NLINKS];

	(void)state;
	fill(links, slots, 5);
	detach__links(slots, NLINKS);
	assert_all_gone(links, 5);
	/* no threads for the empty slots */
	assert_int_equal(atomic_load(&creates), NLINKS - (NLINKS + 4) / 5);
}

static void test_concurrent(void **state)
{
	struct bpf_link *links[NLINKS], **slots[NLINKS];

	(void)state;
	wait_for_all = true;
	fill(links, slots, 0);
	detach__links(slots, NLINKS);
	assert_all_gone(links, 0);
	assert_int_equal(atomic_load(&max_in_flight), NLINKS);
}

/* threads refused: the caller's thread destroys those links itself */
static void test_threads_refused(void **state)
{
	struct bpf_link *links[NLINKS], **slots[NLINKS];

	(void)state;
	fail_creates = 3;
	fill(links, slots, 0);
	detach__links(slots, NLINKS);
	assert_all_gone(links, 0);

	reset(NULL);
	fail_creates = NLINKS;
	fill(links, slots, 0);
	detach__links(slots, NLINKS);
	assert_all_gone(links, 0);
	assert_int_equal(atomic_load(&max_in_flight), 1);
}

static void test_none(void **state)
{
	struct bpf_link **slots[1] = { NULL };

	(void)state;
	detach__links(slots, 0);
	assert_int_equal(atomic_load(&creates), 0);
}

static void test_keeps(void **state)
{
	(void)state;
	assert_true(detach__keeps("anon_inode:bpf_link"));
	assert_true(detach__keeps("anon_inode:[perf_event]"));
	assert_false(detach__keeps("anon_inode:bpf-map"));
	assert_false(detach__keeps("anon_inode:bpf-prog"));
	assert_false(detach__keeps("/run/lock/iotrace.lock"));
	assert_false(detach__keeps("pipe:[1234]"));
	assert_false(detach__keeps("anon_inode:bpf_link2"));
}

/* nothing to hand off: no helper, and the slots are cleared */
static void test_hand_off_nothing(void **state)
{
	struct bpf_link *links[2] = { NULL, NULL }, **slots[2] = { &links[0], &links[1] };

	(void)state;
	assert_int_equal(detach__hand_off(slots, 2), 0);
	assert_int_equal(atomic_load(&stray), 0);
}

static int perf_dummy(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
	};

	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		fail_msg("perf_event_open (a software dummy event): %s; needs root or perf_event_paranoid <= 2",
			 strerror(errno));
	return fd;
}

/* Helpers started from now on wait until hold (a path made absent here) exists. */
static void hold_helpers(char *hold)
{
	assert_int_not_equal(mkstemp(hold), -1);
	assert_int_equal(unlink(hold), 0);
	assert_int_equal(setenv(DETACH_HOLD_ENV, hold, 1), 0);
}

/* the targets of pid's descriptors, sorted, one per line */
static void fd_targets(pid_t pid, char *out, size_t size)
{
	char cmd[128];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd),
		 "for f in /proc/%d/fd/*; do readlink \"$f\"; done | sed 's/:\\[[0-9]*\\]$/:[N]/' | sort",
		 (int)pid);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
}

static void test_hand_off_helper(void **state)
{
	char hold[] = "/tmp/test_detach.XXXXXX", got[512], path[64], target[256];
	struct bpf_link *links[NLINKS], **slots[NLINKS];
	int perf, status, i;
	unsigned long sid = 0;
	FILE *f;
	pid_t pid;
	ssize_t len;

	(void)state;
	/*
	 * A table with no gap, as a shell leaves the tracer: the helper's pipe
	 * then lands above every descriptor planned. A test runner's stray
	 * high descriptors had hidden a helper keeping its own write end.
	 */
	assert_int_equal(close_range(3, ~0U, 0), 0);
	perf = perf_dummy();
	/* held until it has been looked at */
	hold_helpers(hold);
	fill(links, slots, 0);
	pid = detach__hand_off(slots, NLINKS);
	assert_true(pid > 0);
	/* the caller's handles are gone at once */
	assert_all_gone(links, 0);

	/*
	 * The helper sets itself up after the fork returned here (session,
	 * directory, name, then its descriptors): looked at too early, on a
	 * busy machine, it still had the caller's directory. Its descriptors
	 * are the last step: once they are right, the rest is done.
	 */
	for (i = 0; i < 500; i++) {
		fd_targets(pid, got, sizeof(got));
		if (!strcmp(got, "anon_inode:[perf_event]\npipe:[N]\n"))
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	assert_string_equal(got, "anon_inode:[perf_event]\npipe:[N]\n");
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
	len = readlink(path, target, sizeof(target) - 1);
	assert_int_equal(len, 1);
	assert_memory_equal(target, "/", 1);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%*d (%255[^)]) %*c %*d %*d %lu", target, &sid), 2);
	fclose(f);
	assert_string_equal(target, DETACH_HELPER_NAME);
	assert_int_equal(sid, (unsigned long)pid);
	/* ps shows it by name, not as this process still running */
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	len = (ssize_t)fread(target, 1, sizeof(target) - 1, f);
	fclose(f);
	/* cut to fit where the command line is shorter than the name ("./test_detach") */
	assert_true(len >= 2);
	i = len - 1 < (ssize_t)strlen(DETACH_HELPER_NAME) ? (int)len - 1 : (int)strlen(DETACH_HELPER_NAME);
	assert_memory_equal(target, DETACH_HELPER_NAME, (size_t)i);
	for (; i < len; i++)
		assert_int_equal(target[i], 0);
	/* still there while held */
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);

	i = open(hold, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(i >= 0);
	close(i);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	unlink(hold);
	unsetenv(DETACH_HOLD_ENV);
	close(perf);
}

static void on_term(int sig)
{
	(void)sig;
}

/*
 * The tracer catches SIGTERM to stop cleanly; its helper must not inherit
 * that: killed, it ends (and its exit closes the links).
 */
static void test_hand_off_killable(void **state)
{
	char hold[] = "/tmp/test_detach.XXXXXX";
	struct bpf_link *links[NLINKS], **slots[NLINKS];
	struct sigaction sa = { .sa_handler = on_term }, old;
	sigset_t term, prev;
	int perf = perf_dummy(), status, i;
	pid_t pid;

	(void)state;
	hold_helpers(hold);
	assert_int_equal(sigaction(SIGTERM, &sa, &old), 0);
	sigemptyset(&term);
	sigaddset(&term, SIGHUP);
	assert_int_equal(sigprocmask(SIG_BLOCK, &term, &prev), 0);
	for (i = 0; i < 2; i++) {
		int sig = i ? SIGTERM : SIGHUP;

		fill(links, slots, 0);
		pid = detach__hand_off(slots, NLINKS);
		assert_true(pid > 0);
		assert_int_equal(kill(pid, sig), 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), sig);
	}

	sigprocmask(SIG_SETMASK, &prev, NULL);
	sigaction(SIGTERM, &old, NULL);
	unsetenv(DETACH_HOLD_ENV);
	close(perf);
}

/*
 * Something else holding the pipe (a fork elsewhere in the process, say)
 * must not keep the helper, and with it the programs, for good.
 */
static void test_hand_off_bounded(void **state)
{
	struct bpf_link *links[NLINKS], **slots[NLINKS];
	struct timespec t0, t1;
	int perf = perf_dummy(), status, i;
	pid_t pid, got = 0;

	(void)state;
	leak_write_end = true;
	fill(links, slots, 0);
	pid = detach__hand_off(slots, NLINKS);
	leak_write_end = false;
	assert_true(pid > 0);
	assert_true(leaked_write_end >= 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* it waits for the caller to let go, bounded... */
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
	/* ...and goes after the bound, though the pipe is still held */
	for (i = 0; i < 100 * (DETACH_WAIT_S + 10) && !got; i++) {
		got = waitpid(pid, &status, WNOHANG);
		if (!got)
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!got) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fail_msg("the helper still waits %d s after its bound of %d s", 10, DETACH_WAIT_S);
	}
	assert_int_equal(got, pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(t1.tv_sec - t0.tv_sec >= DETACH_WAIT_S - 1);
	close(leaked_write_end);
	leaked_write_end = -1;
	close(perf);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_each_once_and_cleared, reset),
		cmocka_unit_test_setup(test_concurrent, reset),
		cmocka_unit_test_setup(test_threads_refused, reset),
		cmocka_unit_test_setup(test_none, reset),
		cmocka_unit_test(test_keeps),
		cmocka_unit_test_setup(test_hand_off_nothing, reset),
		cmocka_unit_test_setup(test_hand_off_helper, reset),
		cmocka_unit_test_setup(test_hand_off_killable, reset),
		cmocka_unit_test_setup(test_hand_off_bounded, reset),
	};

	/* the helper writes its name over this process's command line, as over the tracer's */
	detach__set_cmdline(argv[0], (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) + 1 - argv[0]));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
