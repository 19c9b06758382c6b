// SPDX-License-Identifier: BSD-3-Clause
/*
 * Test helper for uring_batch.sh: unlinks or renames many files through
 * io_uring at once, as a tool that removes a tree does (raw system calls,
 * no liburing).
 *
 *   uring_batch [--cq N] [--same-data] unlink PREFIX COUNT
 *   uring_batch [--cq N] [--same-data] rename PREFIX NEWPREFIX COUNT
 *   uring_batch [--cq N] [--same-data] read PREFIX COUNT
 *   uring_batch [--cq N] [--same-data] create PREFIX COUNT
 *
 * unlink removes PREFIX0 ... PREFIX{COUNT-1}; rename renames each PREFIXI
 * to NEWPREFIXI; read reads the first 4 KiB of each PREFIXI (opened with
 * open(2), IORING_OP_READ); create makes each PREFIXI (IORING_OP_OPENAT,
 * O_CREAT | O_EXCL, left open until exit); pipe-read makes COUNT chains
 * of a 1-byte read of an empty pipe and a 4 KiB read of FILE linked after
 * it, then writes COUNT bytes to the pipe: every file read is in flight
 * at once before any runs. Every request is submitted before any completion is reaped, so
 * all COUNT may be in flight at once. --cq N: the ring's completion queue
 * holds N (a power of two): with fewer than COUNT, the kernel keeps the
 * rest aside (a CQ overflow) until they are reaped. Each request's
 * user_data is its index, or 0 for all with --same-data. With --cq, the
 * completions are reaped only once every request is done (as its file
 * says; reads, 300 ms after), so that all but the first N overflow, and
 * it is an error if none did.
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

enum mode { UNLINK, RENAME, READ, CREATE, PIPE_READ };

static const char *const modes[] = { "unlink", "rename", "read", "create", "pipe-read" };

/*
 * The batch: its requests' paths (new: a rename's), and a read's fds and
 * buffers; for pipe-read, the pipe (pipe[0] read, pipe[1] written) and
 * the file (fds[0]).
 */
struct batch {
	enum mode mode;
	unsigned count;
	char (*old)[64], (*new)[64];
	int *fds;
	char *buf;
	int pipe[2];
};

/* Request i of the batch, into sqe: for pipe-read, 2 requests an item. */
static void prep(const struct batch *b, unsigned i, struct io_uring_sqe *sqe)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->fd = AT_FDCWD;
	sqe->addr = (uintptr_t)b->old[i % b->count];
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
		sqe->fd = b->fds[i];
		sqe->addr = (uintptr_t)(b->buf + (size_t)i * 4096);
		sqe->len = 4096;
		break;
	case CREATE:
		sqe->opcode = IORING_OP_OPENAT;
		sqe->open_flags = O_CREAT | O_EXCL | O_WRONLY;
		sqe->len = 0644;
		break;
	case PIPE_READ:
		/* a byte of the pipe, then the file's first 4 KiB linked after it */
		sqe->opcode = IORING_OP_READ;
		sqe->fd = i % 2 ? b->fds[0] : b->pipe[0];
		sqe->addr = (uintptr_t)b->buf;
		sqe->len = i % 2 ? 4096 : 1;
		sqe->flags = i % 2 ? 0 : IOSQE_IO_LINK;
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

	if (b->mode == READ || b->mode == PIPE_READ) {
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

/*
 * Opens each file of a read batch (pipe-read: its one file, and the
 * pipe), and its buffers: 0, else -1 (said why).
 */
static int open_reads(struct batch *b)
{
	unsigned i, n = b->mode == PIPE_READ ? 1 : b->count;

	b->fds = calloc(n, sizeof(*b->fds));
	b->buf = malloc((size_t)n * 4096);
	if (!b->fds || !b->buf)
		return -1;
	if (b->mode == PIPE_READ && pipe(b->pipe)) {
		fprintf(stderr, "uring_batch: cannot make a pipe: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		b->fds[i] = open(b->old[i], O_RDONLY);
		if (b->fds[i] < 0) {
			fprintf(stderr, "uring_batch: cannot open %s: %s\n", b->old[i],
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: uring_batch [--cq N] [--same-data] {unlink PREFIX | "
			"rename PREFIX NEWPREFIX | read PREFIX | create PREFIX | pipe-read FILE} COUNT\n");
	return 1;
}

int main(int argc, char **argv)
{
	unsigned cq = 0, i, k, tail, idx, queued = 0, requests;
	int same = 0, cq_asked = 0, res = 0, err;
	struct batch b = { .mode = UNLINK };
	struct uring_ring r = { 0 };
	long failed;

	for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[1], "--same-data")) {
			same = 1;
		} else if (!strcmp(argv[1], "--cq") && argc > 2) {
			cq = (unsigned)strtoul(argv[2], NULL, 10);
			cq_asked = 1;
			argc--, argv++;
		} else {
			return usage();
		}
	}
	while (argc > 1 && b.mode <= PIPE_READ && strcmp(argv[1], modes[b.mode]))
		b.mode++;
	if (argc < 2 || b.mode > PIPE_READ || argc != 4 + (b.mode == RENAME))
		return usage();
	b.count = (unsigned)strtoul(argv[argc - 1], NULL, 10);
	if (!b.count || b.count > 60000)
		return usage();
	b.old = calloc(b.count, sizeof(*b.old));
	b.new = calloc(b.count, sizeof(*b.new));
	if (!b.old || !b.new)
		return 2;
	for (i = 0; i < b.count; i++) {
		snprintf(b.old[i], sizeof(b.old[i]), "%s%u", argv[2], i);
		snprintf(b.new[i], sizeof(b.new[i]), "%s%u", b.mode == RENAME ? argv[3] : "", i);
	}
	if (b.mode == PIPE_READ)
		snprintf(b.old[0], sizeof(b.old[0]), "%s", argv[2]);
	if ((b.mode == READ || b.mode == PIPE_READ) && open_reads(&b))
		return 1;
	requests = b.mode == PIPE_READ ? 2 * b.count : b.count;
	/* room in the CQ for every completion unless told otherwise */
	if (!cq)
		for (cq = 1; cq < requests; cq <<= 1)
			;
	err = ring_setup(&r, requests < 4096 ? requests : 4096, cq);
	if (err) {
		fprintf(stderr, "uring_batch: cannot set up io_uring: %s\n", strerror(-err));
		return 2;
	}
	alarm(60);
	/* a chain is cut at the end of a submission: pipe-read's are of 2, the SQ's size even */
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
	/* every chain in flight, its file read waiting for a byte of the pipe */
	if (b.mode == PIPE_READ) {
		for (i = 0; i < b.count; i++)
			b.buf[i % 4096] = 'p';
		for (i = 0; i < b.count; i += (unsigned)err) {
			err = (int)write(b.pipe[1], b.buf, b.count - i < 4096 ? b.count - i : 4096);
			if (err <= 0) {
				fprintf(stderr, "uring_batch: cannot write the pipe: %s\n",
					strerror(errno));
				return 1;
			}
		}
	}
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
		fprintf(stderr, "uring_batch: %s %s: %s\n", argv[1],
			failed >= 0 && !same ? b.old[failed % b.count] : "(a request)", strerror(-res));
		return 1;
	}
	return 0;
}
