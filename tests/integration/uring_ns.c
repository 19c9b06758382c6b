// SPDX-License-Identifier: BSD-3-Clause
/*
 * Test helper for uring_files.sh: makes opens, unlinks and renames as
 * io_uring requests (raw system calls, no liburing), one chain at a time,
 * each waited for.
 *
 *   uring_ns [--sqpoll|--defer] OP ARGS [OP ARGS ...]
 *     create PATH        IORING_OP_OPENAT, O_CREAT|O_EXCL|O_WRONLY; then
 *                        4 KiB written at offset 0 and fsynced (system calls)
 *     create-fixed PATH  the same open into fixed file slot 0 (nothing written)
 *     open PATH          IORING_OP_OPENAT of an existing file, O_WRONLY; then
 *                        4 KiB written and fsynced
 *     unlink PATH        IORING_OP_UNLINKAT
 *     unlink-quiet PATH  the same, with no completion if it succeeds
 *                        (IOSQE_CQE_SKIP_SUCCESS): link another after it
 *     rmdir PATH         IORING_OP_UNLINKAT, AT_REMOVEDIR
 *     rename OLD NEW     IORING_OP_RENAMEAT
 *     exchange A B       IORING_OP_RENAMEAT, RENAME_EXCHANGE
 *     nop                IORING_OP_NOP, done at once where it is submitted
 *   +OP (not an open) is linked after the request before it (IOSQE_IO_LINK),
 *   up to 4 in a chain, submitted at once: after an unlink or a rename,
 *   which io-wq runs, it runs next in the same worker; after a nop, it is
 *   handed to io-wq as it would be alone.
 *
 * --sqpoll: the ring has a kernel thread of its own that takes the
 * requests (IORING_SETUP_SQPOLL), as high-rate applications set it up.
 * --defer: the ring completes requests only in its task, when it waits
 * for them (IORING_SETUP_DEFER_TASKRUN): io-wq's requests are done
 * before their completion runs, in another thread.
 * Exits 0 if every request succeeded; else says which failed, and why,
 * and exits 1 (2: io_uring could not be set up).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uring_ring.h"

/* A ring of 4 entries, as sqpoll and defer ask, with one sparse fixed file slot. */
static int ring_setup(struct uring_ring *r, int sqpoll, int defer)
{
	struct io_uring_params p;
	int fd = -1, err;

	memset(&p, 0, sizeof(p));
	if (sqpoll) {
		p.flags = IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 1000;
	}
	if (defer)
		p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	err = uring_ring_setup(r, 4, &p);
	if (err)
		return err;
	/* for create-fixed */
	if (syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_FILES, &fd, 1) < 0)
		return -errno;
	return 0;
}

/*
 * Submits the n (at most 4, the ring's size) requests sqe at once and
 * waits for want completions: the first failure's result, else the
 * last's.
 */
static int run_n(struct uring_ring *r, const struct io_uring_sqe *sqe, unsigned n, unsigned want)
{
	unsigned tail = *r->sq_tail, head, i, idx;
	int res = 0, one;

	for (i = 0; i < n; i++) {
		idx = (tail + i) & *r->sq_mask;
		r->sqes[idx] = sqe[i];
		r->sq_array[idx] = idx;
	}
	__atomic_store_n(r->sq_tail, tail + n, __ATOMIC_RELEASE);
	/* with SQPOLL the kernel's thread takes them: woken, if asleep, and waited for */
	if (syscall(__NR_io_uring_enter, r->fd, n, want,
		    IORING_ENTER_GETEVENTS |
			    (r->flags & IORING_SETUP_SQPOLL ? IORING_ENTER_SQ_WAKEUP : 0), NULL, 0) < 0)
		return -errno;
	for (i = 0; i < want; i++) {
		head = *r->cq_head;
		if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
			return -EAGAIN;
		one = r->cqes[head & *r->cq_mask].res;
		__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
		if (res >= 0)
			res = one;
	}
	return res;
}

/* Submits sqe and waits for its completion: the request's result. */
static int run(struct uring_ring *r, const struct io_uring_sqe *sqe)
{
	return run_n(r, sqe, 1, 1);
}

/* 4 KiB at offset 0, fsynced, so that the file's block I/O is traced at once */
static int write_sync(int fd)
{
	char buf[4096];

	memset(buf, 'u', sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) || fsync(fd))
		return -errno;
	return 0;
}

/* A request of opcode on path, relative to the working directory; the rest 0. */
static struct io_uring_sqe path_sqe(__u8 opcode, const char *path)
{
	struct io_uring_sqe sqe;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = opcode;
	sqe.fd = AT_FDCWD;
	sqe.addr = (uintptr_t)path;
	return sqe;
}

static int do_open(struct uring_ring *r, const char *path, int flags, int fixed)
{
	struct io_uring_sqe sqe = path_sqe(IORING_OP_OPENAT, path);
	int res, err;

	sqe.len = 0644;
	sqe.open_flags = (unsigned)flags;
	/* slot 0 is asked for as 1 */
	sqe.file_index = fixed ? 1 : 0;
	res = run(r, &sqe);
	if (res < 0 || fixed)
		return res;
	err = write_sync(res);
	close(res);
	return err;
}

/*
 * The request op names (unlink, unlink-quiet, rmdir, rename, exchange or
 * nop) on its paths, into *sqe; its number of paths, or -1 if op is none
 * of those.
 */
static int path_request(const char *op, char **paths, struct io_uring_sqe *sqe)
{
	if (!strcmp(op, "nop")) {
		*sqe = path_sqe(IORING_OP_NOP, "");
		return 0;
	}
	if (!strcmp(op, "unlink") || !strcmp(op, "unlink-quiet") || !strcmp(op, "rmdir")) {
		*sqe = path_sqe(IORING_OP_UNLINKAT, paths[0]);
		if (!strcmp(op, "rmdir"))
			sqe->unlink_flags = AT_REMOVEDIR;
		/* no completion if it succeeds */
		if (!strcmp(op, "unlink-quiet"))
			sqe->flags = IOSQE_CQE_SKIP_SUCCESS;
		return 1;
	}
	if (!strcmp(op, "rename") || !strcmp(op, "exchange")) {
		*sqe = path_sqe(IORING_OP_RENAMEAT, paths[0]);
		sqe->len = (unsigned)AT_FDCWD;
		sqe->addr2 = (uintptr_t)paths[1];
		sqe->rename_flags = strcmp(op, "rename") ? RENAME_EXCHANGE : 0;
		return 2;
	}
	return -1;
}

/* A chain of requests linked one after another (IOSQE_IO_LINK), to submit at once. */
struct chain {
	struct io_uring_sqe sqe[4];
	unsigned n;
};

/*
 * Submits the chain, its requests linked, and waits for the completions
 * of those that have one; empties it. Its first failure, else 0.
 */
static int flush(struct uring_ring *r, struct chain *c)
{
	unsigned i, want = 0;
	int res;

	for (i = 0; i < c->n; i++) {
		if (i + 1 < c->n)
			c->sqe[i].flags |= IOSQE_IO_LINK;
		want += !(c->sqe[i].flags & IOSQE_CQE_SKIP_SUCCESS);
	}
	res = c->n ? run_n(r, c->sqe, c->n, want) : 0;
	c->n = 0;
	return res < 0 ? res : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: uring_ns [--sqpoll|--defer] {create|create-fixed|open|[+]unlink|"
			"[+]unlink-quiet|[+]rmdir PATH | [+]{rename|exchange} PATH PATH | [+]nop} ...\n");
	return 1;
}

int main(int argc, char **argv)
{
	struct uring_ring r = { 0 };
	struct chain c = { .n = 0 };
	int i = 1, n, res, err, sqpoll = 0, defer = 0;

	if (argc > 1 && !strcmp(argv[1], "--sqpoll")) {
		sqpoll = 1;
		i = 2;
	} else if (argc > 1 && !strcmp(argv[1], "--defer")) {
		defer = 1;
		i = 2;
	}
	if (argc < i + 1)
		return usage();
	err = ring_setup(&r, sqpoll, defer);
	if (err) {
		fprintf(stderr, "uring_ns: cannot set up io_uring: %s\n", strerror(-err));
		return 2;
	}
	for (; i < argc; i += n + 1) {
		const char *op = argv[i];
		int linked = op[0] == '+';

		/* a request not linked to the one before starts a chain of its own */
		res = linked ? 0 : flush(&r, &c);
		op += linked;
		n = 1;
		if (res < 0)
			;
		else if (i + 1 < argc && !linked && !strcmp(op, "create"))
			res = do_open(&r, argv[i + 1], O_CREAT | O_EXCL | O_WRONLY, 0);
		else if (i + 1 < argc && !linked && !strcmp(op, "create-fixed"))
			res = do_open(&r, argv[i + 1], O_CREAT | O_EXCL | O_WRONLY, 1);
		else if (i + 1 < argc && !linked && !strcmp(op, "open"))
			res = do_open(&r, argv[i + 1], O_WRONLY, 0);
		else if (c.n == 4 || (linked && !c.n) ||
			 (n = path_request(op, argv + i + 1, &c.sqe[c.n])) < 0 || i + n >= argc)
			return usage();
		else
			c.n++;
		if (res < 0) {
			fprintf(stderr, "uring_ns: %s %s: %s\n", argv[i], n ? argv[i + 1] : "",
				strerror(-res));
			return 1;
		}
	}
	res = flush(&r, &c);
	if (res < 0) {
		fprintf(stderr, "uring_ns: the last requests: %s\n", strerror(-res));
		return 1;
	}
	return 0;
}
