// SPDX-License-Identifier: BSD-3-Clause
/*
 * vfs_calls: every traced system call once, with known arguments; the
 * workload of tests/integration/vfs_calls.sh.
 *
 *   usage: vfs_calls DIR
 *
 * DIR is an empty directory on the traced file system. Makes, through
 * syscall(2) (so the arguments are exactly the ones printed: the C
 * library adds O_LARGEFILE to opens, for instance), in this order:
 *
 *   open(DIR/a.dat, O_CREAT|O_RDWR|O_TRUNC)      fd A (x86-64 only; else openat)
 *   write 1000, write 1100, writev 300+400+500    at A's file position
 *   pwritev 600+700 at 8192, pwritev2 1400 at 16384 (RWF_DSYNC),
 *   pwritev2 1500 at -1 (the file position)
 *   fdatasync, ftruncate 20000, fallocate KEEP_SIZE 32768+16384,
 *   sync_file_range 0+4096 (WAIT_BEFORE|WRITE|WAIT_AFTER)
 *   mmap 8192 of A at 4096 (MAP_SHARED), a store, msync MS_SYNC, munmap
 *   openat2(DIR, "a.dat", O_RDONLY|O_CLOEXEC)      fd R
 *   read 1700, readv 800+1000, preadv 900+1000 at 8192,
 *   preadv2 2000 at -1, preadv2 2100 at 12288 (RWF_NOWAIT)
 *   creat(DIR/c.dat)                               fd C
 *   copy_file_range R@0 -> C@4096, 2200
 *   sendfile C <- R@8192, 2300                     (C's position: 0)
 *   pipe; splice R@12288 -> pipe 2400; splice pipe -> C@16384 (asks 2500)
 *   close A, R, C (the pipe's ends too: not traced)
 *   rename(DIR/c.dat, DIR/d.dat) (x86-64 only; else renameat)
 *   unlink(DIR/a.dat) (x86-64 only; else unlinkat)
 *
 * Prints one JSON object per line: the process (pid, comm), each file's
 * inode number, and every call on a file of DIR as the tracer should
 * record it: call (the EventVfs call name), file and file2 (a, c, d = c.dat
 * renamed, the name its rename's record is written under, or "" for
 * none: a pipe), fd, fd2, offset, offset2, size, result, flags, created.
 * Checks each result; exit 0 on success, 1 with a message on stderr on
 * any error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef RWF_DSYNC
#define RWF_DSYNC 0x00000002
#endif
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif

static char dir[4096];
static int dirfd_ = -1;
static unsigned char buf[1 << 16];

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("vfs_calls: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void path_of(char *out, size_t n, const char *name)
{
	if ((size_t)snprintf(out, n, "%s/%s", dir, name) >= n)
		die("path too long: %s/%s", dir, name);
}

static void print_file(const char *name, const char *rel)
{
	struct stat st;

	if (fstatat(dirfd_, rel, &st, 0))
		die("cannot stat %s: %s", rel, strerror(errno));
	printf("{\"kind\":\"file\",\"name\":\"%s\",\"path\":\"%s\",\"ino\":%llu}\n", name, rel,
	       (unsigned long long)st.st_ino);
}

/* One traced call, as the tracer should record it. */
static void rec(const char *call, const char *file, const char *file2, long fd, long fd2,
		long long offset, long long offset2, unsigned long long size, long long result,
		unsigned int flags, int created)
{
	printf("{\"kind\":\"call\",\"call\":\"%s\",\"file\":\"%s\",\"file2\":\"%s\",\"fd\":%ld,"
	       "\"fd2\":%ld,\"offset\":%lld,\"offset2\":%lld,\"size\":%llu,\"result\":%lld,"
	       "\"flags\":%u,\"created\":%d}\n",
	       call, file, file2, fd, fd2, offset, offset2, size, result, flags, created);
	fflush(stdout);
}

/* a call's result must be what it is asked for */
static void expect(const char *what, long r, long want)
{
	if (r != want)
		die("%s returned %ld (%s), expected %ld", what, r, r < 0 ? strerror(errno) : "short", want);
}

/* the iovecs of a vectored call: lens[] bytes each, from buf */
static int iovs(struct iovec *iov, const unsigned int *lens, int n, unsigned long long *sum)
{
	size_t off = 0;
	int i;

	*sum = 0;
	for (i = 0; i < n; i++) {
		iov[i].iov_base = buf + off;
		iov[i].iov_len = lens[i];
		off += lens[i];
		*sum += lens[i];
	}
	return n;
}

static long long pos_of(int fd)
{
	/* lseek would be traced: the position comes from /proc instead */
	char p[64], line[256];
	long long pos = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", fd);
	f = fopen(p, "r");
	if (!f)
		die("cannot open %s: %s", p, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "pos: %lld", &pos) == 1)
			break;
	fclose(f);
	if (pos < 0)
		die("no pos in %s", p);
	return pos;
}

/* read/write/readv/writev/preadv2/pwritev2 at -1: the record's offset is the position */
static void rw_at_pos(const char *call, const char *file, int fd, int nr, const unsigned int *lens,
		      int n, int vec, int flags)
{
	struct iovec iov[4];
	unsigned long long size;
	long long pos = pos_of(fd);
	long r;

	iovs(iov, lens, n, &size);
	if (!vec)
		r = syscall(nr, fd, buf, (size_t)lens[0]);
	else if (nr == SYS_preadv2 || nr == SYS_pwritev2)
		r = syscall(nr, fd, iov, n, -1L, -1L, flags);
	else
		r = syscall(nr, fd, iov, n);
	expect(call, r, (long)size);
	if (pos_of(fd) != pos + (long long)size)
		die("%s: file position %lld, expected %lld", call, pos_of(fd), pos + (long long)size);
	rec(call, file, "", fd, -1, pos, -1, size, r, (nr == SYS_preadv2 || nr == SYS_pwritev2) ? flags : 0, 0);
}

/* preadv/pwritev(2) at an offset */
static void rw_at(const char *call, const char *file, int fd, int nr, const unsigned int *lens, int n,
		  long long off, int flags)
{
	struct iovec iov[4];
	unsigned long long size;
	long r;

	iovs(iov, lens, n, &size);
	/* pos_l, pos_h: on 64-bit the kernel takes pos_l as the offset */
	if (nr == SYS_preadv2 || nr == SYS_pwritev2)
		r = syscall(nr, fd, iov, n, (long)off, 0L, flags);
	else
		r = syscall(nr, fd, iov, n, (long)off, 0L);
	expect(call, r, (long)size);
	rec(call, file, "", fd, -1, off, -1, size, r, (nr == SYS_preadv2 || nr == SYS_pwritev2) ? flags : 0, 0);
}

static void do_close(const char *file, int fd)
{
	long r = syscall(SYS_close, fd);

	expect("close", r, 0);
	rec("VfsClose", file, "", fd, -1, -1, -1, 0, r, 0, 0);
}

int main(int argc, char **argv)
{
	char pa[4200], pc[4200], pd[4200], comm[64] = "";
	int fa, fr, fc, p[2], flags, i;
	long r;
	FILE *f;

	if (argc != 2)
		die("usage: vfs_calls DIR");
	if (!realpath(argv[1], dir))
		die("no directory %s: %s", argv[1], strerror(errno));
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd_ < 0)
		die("cannot open %s: %s", dir, strerror(errno));
	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	path_of(pa, sizeof(pa), "a.dat");
	path_of(pc, sizeof(pc), "c.dat");
	path_of(pd, sizeof(pd), "d.dat");
	f = fopen("/proc/self/comm", "r");
	if (!f || !fgets(comm, sizeof(comm), f))
		die("cannot read /proc/self/comm");
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	printf("{\"kind\":\"process\",\"pid\":%d,\"tid\":%ld,\"comm\":\"%s\"}\n", getpid(),
	       syscall(SYS_gettid), comm);

	/* --- a.dat: open (openat where the architecture has no open) --- */
	flags = O_CREAT | O_RDWR | O_TRUNC;
#ifdef SYS_open
	fa = (int)syscall(SYS_open, pa, flags, 0644);
	if (fa < 0)
		die("open %s: %s", pa, strerror(errno));
	rec("VfsOpen", "a", "", fa, -1, -1, -1, 0, fa, (unsigned int)flags, 1);
#else
	fa = (int)syscall(SYS_openat, AT_FDCWD, pa, flags, 0644);
	if (fa < 0)
		die("openat %s: %s", pa, strerror(errno));
	rec("VfsOpenat", "a", "", fa, -1, -1, -1, 0, fa, (unsigned int)flags, 1);
#endif
	print_file("a", "a.dat");

	{
		static const unsigned int w1[] = { 1000 }, w2[] = { 1100 }, wv[] = { 300, 400, 500 },
					  pwv[] = { 600, 700 }, pw2[] = { 1400 }, pw2p[] = { 1500 };

		rw_at_pos("VfsWrite", "a", fa, SYS_write, w1, 1, 0, 0);
		rw_at_pos("VfsWrite", "a", fa, SYS_write, w2, 1, 0, 0);
		rw_at_pos("VfsWritev", "a", fa, SYS_writev, wv, 3, 1, 0);
		rw_at("VfsPwritev", "a", fa, SYS_pwritev, pwv, 2, 8192, 0);
		rw_at("VfsPwritev2", "a", fa, SYS_pwritev2, pw2, 1, 16384, RWF_DSYNC);
		rw_at_pos("VfsPwritev2", "a", fa, SYS_pwritev2, pw2p, 1, 1, 0);
	}
	/* pwrite64 inside what was written; at a negative offset EINVAL, the offset kept */
	r = syscall(SYS_pwrite64, fa, buf, 100, 4096L);
	expect("pwrite64", r, 100);
	rec("VfsPwrite64", "a", "", fa, -1, 4096, -1, 100, r, 0, 0);
	r = syscall(SYS_pwrite64, fa, buf, 10, -5L);
	if (r != -1 || errno != EINVAL)
		die("pwrite64 at -5 returned %ld (%s), expected EINVAL", r, strerror(errno));
	rec("VfsPwrite64", "a", "", fa, -1, -5, -1, 10, -EINVAL, 0, 0);

	r = syscall(SYS_fdatasync, fa);
	expect("fdatasync", r, 0);
	rec("VfsFdatasync", "a", "", fa, -1, -1, -1, 0, r, 0, 0);

	r = syscall(SYS_ftruncate, fa, 20000L);
	expect("ftruncate", r, 0);
	rec("VfsFtruncate", "a", "", fa, -1, -1, -1, 20000, r, 0, 0);

	r = syscall(SYS_fallocate, fa, FALLOC_FL_KEEP_SIZE, 32768L, 16384L);
	expect("fallocate", r, 0);
	rec("VfsFallocate", "a", "", fa, -1, 32768, -1, 16384, r, FALLOC_FL_KEEP_SIZE, 0);

	flags = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
	r = syscall(SYS_sync_file_range, fa, 0L, 4096L, flags);
	expect("sync_file_range", r, 0);
	rec("VfsSyncFileRange", "a", "", fa, -1, 0, -1, 4096, r, (unsigned int)flags, 0);

	{
		long addr = syscall(SYS_mmap, 0L, 8192L, PROT_READ | PROT_WRITE, MAP_SHARED, fa, 4096L);

		if (addr == -1 || addr < 0)
			die("mmap: %s", strerror(errno));
		rec("VfsMmap", "a", "", fa, -1, 4096, -1, 8192, addr, MAP_SHARED, 0);
		memset((void *)addr, 0x5a, 100);
		r = syscall(SYS_msync, addr, 8192L, MS_SYNC);
		expect("msync", r, 0);
		rec("VfsMsync", "a", "", -1, -1, -1, -1, 8192, r, MS_SYNC, 0);
		if (munmap((void *)addr, 8192))
			die("munmap: %s", strerror(errno));
	}

	/* --- a.dat again, for reading: openat2 --- */
	{
		struct open_how how;

		memset(&how, 0, sizeof(how));
		how.flags = O_RDONLY | O_CLOEXEC;
		how.resolve = RESOLVE_NO_SYMLINKS;
		fr = (int)syscall(SYS_openat2, dirfd_, "a.dat", &how, sizeof(how));
		if (fr < 0)
			die("openat2 a.dat: %s", strerror(errno));
		rec("VfsOpenat2", "a", "", fr, -1, -1, -1, 0, fr, (unsigned int)how.flags, 0);
	}
	{
		static const unsigned int r1[] = { 1700 }, rv[] = { 800, 1000 }, prv[] = { 900, 1000 },
					  pr2p[] = { 2000 }, pr2[] = { 2100 };

		rw_at_pos("VfsRead", "a", fr, SYS_read, r1, 1, 0, 0);
		rw_at_pos("VfsReadv", "a", fr, SYS_readv, rv, 2, 1, 0);
		rw_at("VfsPreadv", "a", fr, SYS_preadv, prv, 2, 8192, 0);
		rw_at_pos("VfsPreadv2", "a", fr, SYS_preadv2, pr2p, 1, 1, 0);
		/* cached (just written): RWF_NOWAIT does not fail */
		rw_at("VfsPreadv2", "a", fr, SYS_preadv2, pr2, 1, 12288, RWF_NOWAIT);
	}

	/* --- c.dat: creat (openat where the architecture has none) --- */
#ifdef SYS_creat
	fc = (int)syscall(SYS_creat, pc, 0644);
	if (fc < 0)
		die("creat %s: %s", pc, strerror(errno));
	rec("VfsCreat", "c", "", fc, -1, -1, -1, 0, fc, O_CREAT | O_WRONLY | O_TRUNC, 1);
#else
	fc = (int)syscall(SYS_openat, AT_FDCWD, pc, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fc < 0)
		die("openat %s: %s", pc, strerror(errno));
	rec("VfsOpenat", "c", "", fc, -1, -1, -1, 0, fc, O_CREAT | O_WRONLY | O_TRUNC, 1);
#endif
	print_file("c", "c.dat");

	{
		loff_t in = 0, out = 4096;

		r = syscall(SYS_copy_file_range, fr, &in, fc, &out, 2200L, 0U);
		expect("copy_file_range", r, 2200);
		rec("VfsCopyFileRange", "a", "c", fr, fc, 0, 4096, 2200, r, 0, 0);
	}
	{
		off_t in = 8192;

		if (pos_of(fc) != 0)
			die("c.dat's position is %lld before sendfile, expected 0", pos_of(fc));
		r = syscall(SYS_sendfile, fc, fr, &in, 2300L);
		expect("sendfile", r, 2300);
		/* recorded: fd = the input, fd2 = the output */
		rec("VfsSendfile", "a", "c", fr, fc, 8192, -1, 2300, r, 0, 0);
	}
	{
		loff_t in = 12288, out = 16384;

		if (pipe2(p, O_CLOEXEC))
			die("pipe2: %s", strerror(errno));
		r = syscall(SYS_splice, fr, &in, p[1], NULL, 2400L, 0U);
		expect("splice file -> pipe", r, 2400);
		rec("VfsSplice", "a", "", fr, p[1], 12288, -1, 2400, r, 0, 0);
		/* asks for more than the pipe holds: returns what it holds */
		r = syscall(SYS_splice, p[0], NULL, fc, &out, 2500L, (unsigned int)SPLICE_F_MOVE);
		expect("splice pipe -> file", r, 2400);
		rec("VfsSplice", "", "c", p[0], fc, -1, 16384, 2500, r, SPLICE_F_MOVE, 0);
		close(p[0]);
		close(p[1]);
	}

	do_close("a", fa);
	do_close("a", fr);
	do_close("c", fc);

	/* path calls: fd -1, the file the path named */
#ifdef SYS_rename
	r = syscall(SYS_rename, pc, pd);
	expect("rename", r, 0);
	rec("VfsRename", "d", "", -1, -1, -1, -1, 0, r, 0, 0);
#else
	r = syscall(SYS_renameat, AT_FDCWD, pc, AT_FDCWD, pd);
	expect("renameat", r, 0);
	rec("VfsRenameat", "d", "", -1, -1, -1, -1, 0, r, 0, 0);
#endif
	print_file("d", "d.dat");
#ifdef SYS_unlink
	r = syscall(SYS_unlink, pa);
	expect("unlink", r, 0);
	rec("VfsUnlink", "a", "", -1, -1, -1, -1, 0, r, 0, 0);
#else
	r = syscall(SYS_unlinkat, AT_FDCWD, pa, 0);
	expect("unlinkat", r, 0);
	rec("VfsUnlinkat", "a", "", -1, -1, -1, -1, 0, r, 0, 0);
#endif
	close(dirfd_);
	return 0;
}
