/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An io_uring ring set up and mapped with raw system calls (no liburing),
 * for the test helpers that make io_uring requests (uring_ns.c,
 * uring_batch.c).
 */
#ifndef IOTRACE_TEST_URING_RING_H
#define IOTRACE_TEST_URING_RING_H

#include <errno.h>
#include <linux/io_uring.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct uring_ring {
	int fd;
	/* the flags it was set up with (IORING_SETUP_*) */
	unsigned flags;
	unsigned sq_entries, cq_entries;
	unsigned *sq_tail, *sq_mask, *sq_array, *sq_flags;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static inline void *uring_ring_map(int fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, off);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Sets up r, a ring of entries submission entries as p asks (its flags,
 * sq_thread_idle, cq_entries; the rest 0), and maps its queues: 0, else
 * -errno.
 */
static inline int uring_ring_setup(struct uring_ring *r, unsigned entries,
				   struct io_uring_params *p)
{
	char *sq, *cq;

	r->flags = p->flags;
	r->fd = (int)syscall(__NR_io_uring_setup, entries, p);
	if (r->fd < 0)
		return -errno;
	sq = uring_ring_map(r->fd, p->sq_off.array + p->sq_entries * sizeof(unsigned),
			    IORING_OFF_SQ_RING);
	cq = uring_ring_map(r->fd, p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe),
			    IORING_OFF_CQ_RING);
	r->sqes = uring_ring_map(r->fd, p->sq_entries * sizeof(struct io_uring_sqe),
				 IORING_OFF_SQES);
	if (!sq || !cq || !r->sqes)
		return -errno;
	r->sq_entries = p->sq_entries;
	r->cq_entries = p->cq_entries;
	r->sq_tail = (unsigned *)(sq + p->sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p->sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p->sq_off.array);
	r->sq_flags = (unsigned *)(sq + p->sq_off.flags);
	r->cq_head = (unsigned *)(cq + p->cq_off.head);
	r->cq_tail = (unsigned *)(cq + p->cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p->cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p->cq_off.cqes);
	return 0;
}

#endif /* IOTRACE_TEST_URING_RING_H */
