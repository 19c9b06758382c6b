// SPDX-License-Identifier: BSD-3-Clause
/*
 * Test helper for uring_batch.sh: unlinks, renames, reads or creates many
 * files through io_uring at once, as a tool that removes a tree does (raw
 * system calls, no liburing).
 *
 *   uring_batch [OPTIONS] unlink PREFIX COUNT
 *   uring_batch [OPTIONS] rename PREFIX NEWPREFIX COUNT
 *   uring_batch [OPTIONS] read FILE COUNT
 *   uring_batch [OPTIONS] create PREFIX COUNT
 *
 * unlink removes PREFIX0 ... PREFIX{COUNT-1}; rename renames each PREFIXI
 * to NEWPREFIXI; read reads the first 4 KiB of FILE COUNT times (opened
 * with open(2), IORING_OP_READ); create makes each PREFIXI
 * (IORING_OP_OPENAT, O_CREAT | O_EXCL, left open until exit). Every
 * request is submitted before any completion is reaped, so all COUNT may
 * be in flight at once. Each request's user_data is its index.
 *
 * Options:
 *   --cq N       the ring's completion queue holds N (a power of two):
 *                with fewer than COUNT, the kernel keeps the rest aside
 *                (a CQ overflow) until they are reaped. The completions
 *                are reaped only once every request is done (as its file
 *                says; reads, 300 ms after), so that all but the first N
 *                overflow, and it is an error if none did.
 *   --same-data  user_data 0 for every request
 *   --pipe       each request linked after a 1-byte read of an empty pipe
 *                (IOSQE_IO_LINK), and COUNT bytes written to the pipe once
 *                all are submitted: every one is in flight before any runs
 *   --splice     with --pipe, the byte is spliced to /dev/null
 *                (IORING_OP_SPLICE), which an io-wq worker waits in: the
 *                request linked after it runs next in that worker, handed
 *                to no one
 *   --hold FILE  with --pipe, prints "submitted" once all are, and writes
 *                the bytes only once FILE exists
 *
 * Exits 0 if every request succeeded; else says which failed, and why,
 * and exits 1 (2: io_uring could not be set up). Gives up after 60 s.
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

/* A ring of up to sq submission entries and exactly cq completion entries. */
static int ring_setup(struct uring_ring *r, unsigned sq, unsigned cq)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = cq;
	return uring_ring_setup(r, sq < cq ? sq : cq, &p);
}

/* Submits the n requests queued in the SQ, however many calls that takes. */
static int submit(struct uring_ring *r, unsigned n)
{
	int done;

	while (n) {
		done = (int)syscall(__NR_io_uring_enter, r->fd, n, 0, 0, NULL, 0);
		if (done < 0)
			return -errno;
		n -= (unsigned)done;
	}
	return 0;
}

/*
 * Reaps count completions, waiting for each; the index of the first that
 * failed, with its result in *res, else -1 (*res < 0 if the wait failed).
 */
static long reap(struct uring_ring *r, unsigned count, int *res)
{
	long failed = -1;
	unsigned head;

	while (count) {
		if (syscall(__NR_io_uring_enter, r->fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0 &&
		    errno != EINTR) {
			*res = -errno;
			return -1;
		}
		for (head = *r->cq_head; count && head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
		     head++, count--) {
			struct io_uring_cqe *cqe = &r->cqes[head & *r->cq_mask];

			if (cqe->res < 0 && failed < 0) {
				failed = (long)cqe->user_data;
				*res = cqe->res;
			}
		}
		__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	}
	return failed;
}

enum mode { UNLINK, RENAME, READ, CREATE };

static const char *const modes[] = { "unlink", "rename", "read", "create" };

/*
 * The batch: its requests' paths (new: a rename's), a read's fd and
 * buffer; with --pipe the pipe (pipe[0] read, pipe[1] written).
 */
struct batch {
	enum mode mode;
	unsigned count;
	char (*old)[64], (*new)[64];
	int fd;
	char buf[4096];
	int piped, pipe[2];
	/* --splice, and /dev/null, where the bytes go */
	int splice, null;
};

/* Request i of the batch, into sqe: with --pipe, 2 an item. */
static void prep(const struct batch *b, unsigned i, struct io_uring_sqe *sqe)
{
	memset(sqe, 0, sizeof(*sqe));
	if (b->piped && i % 2 == 0) {
		sqe->opcode = IORING_OP_READ;
		sqe->fd = b->pipe[0];
		sqe->addr = (uintptr_t)b->buf;
		sqe->len = 1;
		sqe->flags = IOSQE_IO_LINK;
		if (b->splice) {
			/* not polled: an io-wq worker waits in it */
			sqe->opcode = IORING_OP_SPLICE;
			sqe->splice_fd_in = b->pipe[0];
			/* over addr: no offset in the pipe */
			sqe->splice_off_in = (__u64)-1;
			sqe->fd = b->null;
			sqe->off = (__u64)-1;
		}
		return;
	}
	if (b->piped)
		i /= 2;
	sqe->fd = AT_FDCWD;
	sqe->addr = (uintptr_t)b->old[i];
	switch (b->mode) {
	case UNLINK:
		sqe->opcode = IORING_OP_UNLINKAT;
		break;
	case RENAME:
		sqe->opcode = IORING_OP_RENAMEAT;
		sqe->len = (unsigned)AT_FDCWD;
		sqe->addr2 = (uintptr_t)b->new[i];
		break;
	case READ:
		sqe->opcode = IORING_OP_READ;
		sqe->fd = b->fd;
		sqe->addr = (uintptr_t)b->buf;
		sqe->len = sizeof(b->buf);
		break;
	case CREATE:
		sqe->opcode = IORING_OP_OPENAT;
		sqe->open_flags = O_CREAT | O_EXCL | O_WRONLY;
		sqe->len = 0644;
		break;
	}
}

/*
 * Whether every request is done, as its file says (each PREFIXI gone, or
 * there for a create; for renames each NEWPREFIXI there), or 300 ms after
 * for reads. Waits up to 10 s.
 */
static int all_done(const struct batch *b)
{
	unsigned i = 0, tries;

	if (b->mode == READ) {
		usleep(300000);
		return 1;
	}
	for (tries = 0; tries < 1000; tries++) {
		for (; i < b->count; i++)
			if (!access(b->old[i], F_OK) != (b->mode == CREATE) ||
			    (b->mode == RENAME && access(b->new[i], F_OK)))
				break;
		if (i == b->count)
			return 1;
		usleep(10000);
	}
	return 0;
}

/* Once hold exists (if given), writes count bytes to the pipe: 0, else -1 (said why). */
static int release(struct batch *b, const char *hold)
{
	unsigned i;
	ssize_t n;

	if (hold) {
		/* for the caller, which waits for this to act before the release */
		printf("submitted\n");
		fflush(stdout);
	}
	while (hold && access(hold, F_OK))
		usleep(10000);
	memset(b->buf, 'p', sizeof(b->buf));
	for (i = 0; i < b->count; i += (unsigned)n) {
		n = write(b->pipe[1], b->buf,
			  b->count - i < sizeof(b->buf) ? b->count - i : sizeof(b->buf));
		if (n <= 0) {
			fprintf(stderr, "uring_batch: cannot write the pipe: %s\n", strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: uring_batch [--cq N] [--same-data] [--pipe [--splice] [--hold FILE]] "
			"{unlink PREFIX | rename PREFIX NEWPREFIX | read FILE | create PREFIX} "
			"COUNT\n");
	return 1;
}

int main(int argc, char **argv)
{
	unsigned cq = 0, i, k, tail, idx, queued = 0, requests;
	int same = 0, cq_asked = 0, res = 0, err;
	static struct batch b = { .mode = UNLINK };
	const char *hold = NULL;
	struct uring_ring r = { 0 };
	long failed;

	for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[1], "--same-data")) {
			same = 1;
		} else if (!strcmp(argv[1], "--pipe")) {
			b.piped = 1;
		} else if (!strcmp(argv[1], "--splice")) {
			b.splice = 1;
		} else if (!strcmp(argv[1], "--cq") && argc > 2) {
			cq = (unsigned)strtoul(argv[2], NULL, 10);
			cq_asked = 1;
			argc--, argv++;
		} else if (!strcmp(argv[1], "--hold") && argc > 2) {
			hold = argv[2];
			argc--, argv++;
		} else {
			return usage();
		}
	}
	while (argc > 1 && b.mode <= CREATE && strcmp(argv[1], modes[b.mode]))
		b.mode++;
	if (argc < 2 || b.mode > CREATE || argc != 4 + (b.mode == RENAME) ||
	    ((hold || b.splice) && !b.piped) || (cq_asked && b.piped))
		return usage();
	b.count = (unsigned)strtoul(argv[argc - 1], NULL, 10);
	if (!b.count || b.count > 30000)
		return usage();
	b.old = calloc(b.count, sizeof(*b.old));
	b.new = calloc(b.count, sizeof(*b.new));
	if (!b.old || !b.new)
		return 2;
	for (i = 0; i < b.count; i++) {
		snprintf(b.old[i], sizeof(b.old[i]), "%s%u", argv[2], i);
		snprintf(b.new[i], sizeof(b.new[i]), "%s%u", b.mode == RENAME ? argv[3] : "", i);
	}
	if (b.mode == READ && (b.fd = open(argv[2], O_RDONLY)) < 0) {
		fprintf(stderr, "uring_batch: cannot open %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	if (b.piped && (pipe(b.pipe) || (b.null = open("/dev/null", O_WRONLY)) < 0)) {
		fprintf(stderr, "uring_batch: cannot make a pipe: %s\n", strerror(errno));
		return 1;
	}
	requests = b.piped ? 2 * b.count : b.count;
	/* room in the CQ for every completion unless told otherwise */
	if (!cq)
		for (cq = 1; cq < requests; cq <<= 1)
			;
	err = ring_setup(&r, requests < 4096 ? requests : 4096, cq);
	if (err) {
		fprintf(stderr, "uring_batch: cannot set up io_uring: %s\n", strerror(-err));
		return 2;
	}
	/* a chain is cut at the end of a submission: --pipe's are of 2, the SQ's size even */
	for (i = 0; i < requests; i += k) {
		tail = *r.sq_tail;
		for (k = 0; k < r.sq_entries && i + k < requests; k++) {
			idx = (tail + k) & *r.sq_mask;
			prep(&b, i + k, &r.sqes[idx]);
			r.sqes[idx].user_data = same ? 0 : i + k;
			r.sq_array[idx] = idx;
		}
		__atomic_store_n(r.sq_tail, tail + k, __ATOMIC_RELEASE);
		err = submit(&r, k);
		if (err) {
			fprintf(stderr, "uring_batch: cannot submit: %s\n", strerror(-err));
			return 1;
		}
		queued += k;
	}
	alarm(60);
	if (b.piped && release(&b, hold))
		return 1;
	if (cq_asked) {
		if (!all_done(&b)) {
			fprintf(stderr, "uring_batch: the requests are not done after 10 s\n");
			return 1;
		}
		/* their completions are posted just after */
		usleep(100000);
		if (!(__atomic_load_n(r.sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_CQ_OVERFLOW)) {
			fprintf(stderr, "uring_batch: no completion overflowed the CQ\n");
			return 1;
		}
	}
	failed = reap(&r, queued, &res);
	if (res < 0) {
		if (failed >= 0 && !same)
			fprintf(stderr, "uring_batch: %s %s: %s\n", argv[1],
				b.old[b.piped ? failed / 2 : failed], strerror(-res));
		else
			fprintf(stderr, "uring_batch: %s: a request failed: %s\n", argv[1],
				strerror(-res));
		return 1;
	}
	return 0;
}
