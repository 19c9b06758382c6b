/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Taking the programs off their tracepoints. Closing the link of a
 * classic (perf) tracepoint, as the system calls' are, waits for RCU
 * grace periods under a kernel-wide mutex: some 70 ms each when closed
 * one after the other on the 6.18 VM measured, which made a stop take
 * 1.1 s, 4.5 s with --vfs. Closed at once, the tp_btf links cost nothing
 * and the classic ones still queue on the mutex but take half as long
 * each: 0.57 s and 2.35 s. Handed to a helper process, they no longer
 * hold up the stop at all: 0.01 s, the helper taking 0.7 and 2.8 s after
 * (bench/start-stop).
 */
#ifndef IOTRACE_DETACH_H
#define IOTRACE_DETACH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct bpf_link;

/* The helper of detach__hand_off(), as ps and pgrep show it. */
#define DETACH_HELPER_NAME "iotrace-detach"
/*
 * The helper waits this long at most for the caller to let go, whatever
 * else may hold the pipe; the caller needs milliseconds.
 */
#define DETACH_WAIT_S 5
/*
 * A test's hold on that helper: with this set to a path, the helper
 * waits until the path exists (a minute at most) before it lets the
 * kernel close the links.
 */
#define DETACH_HOLD_ENV "IOTRACE_TEST_DETACH_HOLD"

/*
 * Destroys *slots[0..n) (NULL entries are skipped) concurrently, one
 * thread per link, and sets each slot to NULL. Returns when all are
 * gone; where a thread cannot be started, the caller's thread destroys
 * that thread's link itself.
 */
void detach__links(struct bpf_link **const *slots, size_t n);

/*
 * What a stop leaves to the kernel after it returns: the classic links'
 * closes, the grace periods under the mutex (0.55 s for the file events'
 * tracepoints, 2.3 s with --vfs's 65), go to a helper process, so that
 * the tracer exits as soon as its trace is complete. The helper keeps
 * only the links' and their perf events' file descriptors (none of the
 * trace's files, the lock, stdin, stdout or stderr), runs in its own
 * session in /, and exits once the caller's handles are gone (at the
 * latest DETACH_WAIT_S after it began); its exit closes the links. Until then the programs stay attached, so they must
 * output nothing by now (IOTRACE_STOP_CLOSED), and every system call on
 * the node still pays for an attached syscall tracepoint.
 *
 * Destroys *slots[0..n) and sets them to NULL either way. Returns the
 * helper's pid, or 0 if there was nothing to hand off or no helper could
 * be started: then the links were destroyed here, at full cost.
 */
pid_t detach__hand_off(struct bpf_link **const *slots, size_t n);

/*
 * The process's command line, len bytes from start (argv[0] to the end of
 * the last argument): the helper writes its name over it, so that ps
 * shows it as what it is, not as the tracer still running.
 */
void detach__set_cmdline(char *start, size_t len);

/* Whether the helper keeps a descriptor whose /proc/self/fd link reads target. */
bool detach__keeps(const char *target);

#endif
