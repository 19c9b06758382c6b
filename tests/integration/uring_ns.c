// SPDX-License-Identifier: BSD-3-Clause
/*
 * Test helper for uring_files.sh: makes opens, unlinks and renames as
 * io_uring requests (raw system calls, no liburing), one at a time, each
 * waited for.
 *
 *   uring_ns [--sqpoll] OP ARGS [OP ARGS ...]
 *     create PATH        IORING_OP_OPENAT, O_CREAT|O_EXCL|O_WRONLY; then
 *                        4 KiB written at offset 0 and fsynced (system calls)
 *     create-fixed PATH  the same open into fixed file slot 0 (nothing written)
 *     open PATH          IORING_OP_OPENAT of an existing file, O_WRONLY; then
 *                        4 KiB written and fsynced
 *     unlink PATH        IORING_OP_UNLINKAT
 *     rmdir PATH         IORING_OP_UNLINKAT, AT_REMOVEDIR
 *     rename OLD NEW     IORING_OP_RENAMEAT
 *
 * --sqpoll: the ring has a kernel thread of its own that takes the
 * requests (IORING_SETUP_SQPOLL), as high-rate applications set it up.
 * Exits 0 if every request succeeded; else says which failed, and why,
 * and exits 1 (2: io_uring could not be set up).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct ring {
	int fd;
	int sqpoll;
	unsigned *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static void *map(int fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, off);

	return p == MAP_FAILED ? NULL : p;
}

static int ring_setup(struct ring *r)
{
	struct io_uring_params p;
	char *sq, *cq;
	int fd = -1;

	memset(&p, 0, sizeof(p));
	if (r->sqpoll) {
		p.flags = IORING_SETUP_SQPOLL;
		p.sq_thread_idle = 1000;
	}
	r->fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -errno;
	sq = map(r->fd, p.sq_off.array + p.sq_entries * sizeof(unsigned), IORING_OFF_SQ_RING);
	cq = map(r->fd, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		 IORING_OFF_CQ_RING);
	r->sqes = map(r->fd, p.sq_entries * sizeof(struct io_uring_sqe), IORING_OFF_SQES);
	if (!sq || !cq || !r->sqes)
		return -errno;
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	/* one sparse slot, for create-fixed */
	if (syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_FILES, &fd, 1) < 0)
		return -errno;
	return 0;
}

/* Submits sqe and waits for its completion: the request's result. */
static int run(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned tail = *r->sq_tail, head, idx = tail & *r->sq_mask;
	int res;

	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	/* with SQPOLL the kernel's thread takes it: woken, if asleep, and waited for */
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1,
		    IORING_ENTER_GETEVENTS | (r->sqpoll ? IORING_ENTER_SQ_WAKEUP : 0), NULL, 0) < 0)
		return -errno;
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
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

static int do_open(struct ring *r, const char *path, int flags, int fixed)
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

static int do_unlink(struct ring *r, const char *path, int flags)
{
	struct io_uring_sqe sqe = path_sqe(IORING_OP_UNLINKAT, path);

	sqe.unlink_flags = (unsigned)flags;
	return run(r, &sqe);
}

static int do_rename(struct ring *r, const char *old, const char *new)
{
	struct io_uring_sqe sqe = path_sqe(IORING_OP_RENAMEAT, old);

	sqe.len = (unsigned)AT_FDCWD;
	sqe.addr2 = (uintptr_t)new;
	return run(r, &sqe);
}

static int usage(void)
{
	fprintf(stderr, "usage: uring_ns [--sqpoll] {create|create-fixed|open|unlink|rmdir PATH | "
			"rename OLD NEW} ...\n");
	return 1;
}

int main(int argc, char **argv)
{
	struct ring r = { 0 };
	int i = 1, res, err;

	if (argc > 1 && !strcmp(argv[1], "--sqpoll")) {
		r.sqpoll = 1;
		i = 2;
	}
	if (argc < i + 2)
		return usage();
	err = ring_setup(&r);
	if (err) {
		fprintf(stderr, "uring_ns: cannot set up io_uring: %s\n", strerror(-err));
		return 2;
	}
	for (; i < argc; i++) {
		const char *op = argv[i];

		if (i + 1 >= argc)
			return usage();
		if (!strcmp(op, "create"))
			res = do_open(&r, argv[i + 1], O_CREAT | O_EXCL | O_WRONLY, 0);
		else if (!strcmp(op, "create-fixed"))
			res = do_open(&r, argv[i + 1], O_CREAT | O_EXCL | O_WRONLY, 1);
		else if (!strcmp(op, "open"))
			res = do_open(&r, argv[i + 1], O_WRONLY, 0);
		else if (!strcmp(op, "unlink"))
			res = do_unlink(&r, argv[i + 1], 0);
		else if (!strcmp(op, "rmdir"))
			res = do_unlink(&r, argv[i + 1], AT_REMOVEDIR);
		else if (!strcmp(op, "rename") && i + 2 < argc)
			res = do_rename(&r, argv[i + 1], argv[i + 2]);
		else
			return usage();
		if (res < 0) {
			fprintf(stderr, "uring_ns: %s %s: %s\n", op, argv[i + 1], strerror(-res));
			return 1;
		}
		i += strcmp(op, "rename") ? 1 : 2;
	}
	return 0;
}
