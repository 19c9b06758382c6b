// SPDX-License-Identifier: BSD-3-Clause
/*
 * vfs_pattern: the known workload of tests/integration/vfs_trace.sh.
 *
 *   usage: vfs_pattern [--cgroup CGDIR] [--wait FIFO] writer|reader DIR
 *
 * --cgroup moves the process into the cgroup v2 directory CGDIR (its pid
 * into CGDIR/cgroup.procs) before anything else; --wait then blocks until
 * one byte can be read from FIFO, so the test can start the tracer (and
 * filter on this pid) between the two.
 *
 * writer: creates DIR/a/b/c/d/e/f.dat, writes 1 MiB into it with 256
 *   pwrite64()s of 4 KiB in a known order (block i of the loop goes to
 *   file block (i * 97) % 256), fsyncs it, maps its extents (FIEMAP) and
 *   closes it; then creates DIR/a/b/tmp.dat and writes 8 KiB into it with
 *   two write()s.
 * reader: opens f.dat with O_DIRECT and reads it back, the second half
 *   with eight 64 KiB pread64()s from the end down, the first half with
 *   lseek(0) and sixteen 32 KiB read()s, checking the data; renames it
 *   to g.dat, unlinks tmp.dat, and reads 4 KiB of g.dat (buffered, so the
 *   trace learns the new name from a call on it).
 *
 * The calls on files of the traced file system are made with syscall(2),
 * so their arguments are exactly what is printed (the C library adds
 * O_LARGEFILE to opens, for instance). Prints one JSON object per line:
 * the process (pid, comm, cgroup), each directory and file with its inode
 * number, every such call with its arguments and result as the tracer
 * should record it (renameat and unlinkat too, with fd -1), f.dat's
 * extents (FIEMAP: file offset to disk byte), and the rename and unlink.
 * Exit 0 on success, 1 with a message on stderr on any error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BLOCK 4096
#define FILE_BYTES (1 << 20)
#define NBLOCKS (FILE_BYTES / BLOCK)
#define PREAD_CHUNK (64 << 10)
#define READ_CHUNK (32 << 10)
#define MAX_EXTENTS 64

static int dirfd_ = -1;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("vfs_pattern: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static ino_t ino_of(const char *rel)
{
	struct stat st;

	if (fstatat(dirfd_, rel, &st, 0))
		die("cannot stat %s: %s", rel, strerror(errno));
	return st.st_ino;
}

/* One traced call, as the tracer should record it. */
static void print_call(const char *call, const char *file, long fd, long long offset,
		       unsigned long long size, long long result, unsigned int flags, int created)
{
	printf("{\"kind\":\"call\",\"call\":\"%s\",\"file\":\"%s\",\"fd\":%ld,\"offset\":%lld,"
	       "\"size\":%llu,\"result\":%lld,\"flags\":%u,\"created\":%d}\n",
	       call, file, fd, offset, size, result, flags, created);
}

static int do_openat(const char *file, const char *rel, int flags)
{
	long fd = syscall(SYS_openat, dirfd_, rel, flags, 0644);

	if (fd < 0)
		die("cannot open %s: %s", rel, strerror(errno));
	print_call("VfsOpenat", file, fd, -1, 0, fd, (unsigned int)flags, !!(flags & O_CREAT));
	printf("{\"kind\":\"file\",\"name\":\"%s\",\"path\":\"%s\",\"ino\":%llu}\n", file, rel,
	       (unsigned long long)ino_of(rel));
	return (int)fd;
}

static void do_close(const char *file, int fd)
{
	long r = syscall(SYS_close, fd);

	if (r)
		die("close: %s", strerror(errno));
	print_call("VfsClose", file, fd, -1, 0, r, 0, 0);
}

static void fill(unsigned char *buf, unsigned int block)
{
	uint32_t *w = (uint32_t *)buf;
	size_t i;

	for (i = 0; i < BLOCK / sizeof(*w); i++)
		w[i] = block * 0x9e3779b1u + (uint32_t)i;
}

/* data read back at file offset off, len bytes: as fill() wrote it? */
static void verify(const unsigned char *buf, long long off, size_t len)
{
	unsigned char want[BLOCK];
	size_t done;

	for (done = 0; done < len; done += BLOCK) {
		fill(want, (unsigned int)((off + done) / BLOCK));
		if (memcmp(buf + done, want, BLOCK))
			die("wrong data at file offset %lld", off + (long long)done);
	}
}

static void print_extents(const char *file, int fd)
{
	struct fiemap *fm;
	unsigned int i;

	fm = calloc(1, sizeof(*fm) + MAX_EXTENTS * sizeof(struct fiemap_extent));
	if (!fm)
		die("out of memory");
	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = MAX_EXTENTS;
	if (ioctl(fd, FS_IOC_FIEMAP, fm))
		die("FIEMAP: %s", strerror(errno));
	for (i = 0; i < fm->fm_mapped_extents; i++)
		printf("{\"kind\":\"extent\",\"file\":\"%s\",\"logical\":%llu,\"physical\":%llu,"
		       "\"length\":%llu,\"flags\":%u}\n",
		       file, (unsigned long long)fm->fm_extents[i].fe_logical,
		       (unsigned long long)fm->fm_extents[i].fe_physical,
		       (unsigned long long)fm->fm_extents[i].fe_length, fm->fm_extents[i].fe_flags);
	free(fm);
}

static void writer(void)
{
	static const char *const dirs[] = { "a", "a/b", "a/b/c", "a/b/c/d", "a/b/c/d/e" };
	unsigned char buf[BLOCK];
	unsigned int i, blk;
	size_t d;
	long r;
	int fd;

	for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		if (mkdirat(dirfd_, dirs[d], 0755) && errno != EEXIST)
			die("cannot create %s: %s", dirs[d], strerror(errno));
		printf("{\"kind\":\"dir\",\"path\":\"%s\",\"ino\":%llu}\n", dirs[d],
		       (unsigned long long)ino_of(dirs[d]));
	}

	fd = do_openat("f", "a/b/c/d/e/f.dat", O_CREAT | O_EXCL | O_WRONLY);
	for (i = 0; i < NBLOCKS; i++) {
		/* 97 is odd: i -> (i * 97) % 256 is a permutation of the blocks */
		blk = (i * 97) % NBLOCKS;
		fill(buf, blk);
		r = syscall(SYS_pwrite64, fd, buf, BLOCK, (off_t)blk * BLOCK);
		if (r != BLOCK)
			die("pwrite64 at block %u: %s", blk, r < 0 ? strerror(errno) : "short");
		print_call("VfsPwrite64", "f", fd, (long long)blk * BLOCK, BLOCK, r, 0, 0);
	}
	r = syscall(SYS_fsync, fd);
	if (r)
		die("fsync: %s", strerror(errno));
	print_call("VfsFsync", "f", fd, -1, 0, r, 0, 0);
	print_extents("f", fd);
	do_close("f", fd);

	fd = do_openat("tmp", "a/b/tmp.dat", O_CREAT | O_EXCL | O_WRONLY);
	for (i = 0; i < 2; i++) {
		fill(buf, 1000 + i);
		r = syscall(SYS_write, fd, buf, BLOCK);
		if (r != BLOCK)
			die("write: %s", r < 0 ? strerror(errno) : "short");
		/* a write at the file position: the tracer records the position */
		print_call("VfsWrite", "tmp", fd, (long long)i * BLOCK, BLOCK, r, 0, 0);
	}
	do_close("tmp", fd);
}

static void reader(void)
{
	unsigned char *buf;
	long long off;
	long r;
	int fd, i;

	/* O_DIRECT needs an aligned buffer (the logical block size: 512 or 4096) */
	if (posix_memalign((void **)&buf, BLOCK, PREAD_CHUNK))
		die("out of memory");
	/*
	 * btrfs falls back to a buffered read (from the page cache here) for
	 * an O_DIRECT read into pages not faulted in yet: touched, the
	 * buffer takes every read to the disk on every file system
	 */
	memset(buf, 0, PREAD_CHUNK);
	fd = do_openat("f", "a/b/c/d/e/f.dat", O_RDONLY | O_DIRECT);
	for (off = FILE_BYTES - PREAD_CHUNK; off >= FILE_BYTES / 2; off -= PREAD_CHUNK) {
		r = syscall(SYS_pread64, fd, buf, PREAD_CHUNK, (off_t)off);
		if (r != PREAD_CHUNK)
			die("pread64 at %lld: %s", off, r < 0 ? strerror(errno) : "short");
		verify(buf, off, PREAD_CHUNK);
		print_call("VfsPread64", "f", fd, off, PREAD_CHUNK, r, 0, 0);
	}
	r = syscall(SYS_lseek, fd, 0L, SEEK_SET);
	if (r != 0)
		die("lseek: %s", strerror(errno));
	print_call("VfsLseek", "f", fd, 0, 0, r, SEEK_SET, 0);
	for (i = 0; i < FILE_BYTES / 2 / READ_CHUNK; i++) {
		off = (long long)i * READ_CHUNK;
		r = syscall(SYS_read, fd, buf, READ_CHUNK);
		if (r != READ_CHUNK)
			die("read at %lld: %s", off, r < 0 ? strerror(errno) : "short");
		verify(buf, off, READ_CHUNK);
		print_call("VfsRead", "f", fd, off, READ_CHUNK, r, 0, 0);
	}
	do_close("f", fd);

	/* calls by path: the tracer resolves the path at entry (fd is -1) */
	r = syscall(SYS_renameat, dirfd_, "a/b/c/d/e/f.dat", dirfd_, "a/b/c/d/e/g.dat");
	if (r)
		die("rename: %s", strerror(errno));
	/* recorded when it returns: the file is g.dat by then */
	print_call("VfsRenameat", "g", -1, -1, 0, r, 0, 0);
	printf("{\"kind\":\"rename\",\"from\":\"a/b/c/d/e/f.dat\",\"to\":\"a/b/c/d/e/g.dat\","
	       "\"ino\":%llu}\n", (unsigned long long)ino_of("a/b/c/d/e/g.dat"));
	printf("{\"kind\":\"unlink\",\"path\":\"a/b/tmp.dat\",\"ino\":%llu}\n",
	       (unsigned long long)ino_of("a/b/tmp.dat"));
	r = syscall(SYS_unlinkat, dirfd_, "a/b/tmp.dat", 0);
	if (r)
		die("unlink: %s", strerror(errno));
	print_call("VfsUnlinkat", "tmp", -1, -1, 0, r, 0, 0);

	fd = do_openat("g", "a/b/c/d/e/g.dat", O_RDONLY);
	r = syscall(SYS_pread64, fd, buf, BLOCK, 0L);
	if (r != BLOCK)
		die("pread64 of g.dat: %s", r < 0 ? strerror(errno) : "short");
	verify(buf, 0, BLOCK);
	print_call("VfsPread64", "g", fd, 0, BLOCK, r, 0, 0);
	do_close("g", fd);
	free(buf);
}

static void join_cgroup(const char *cg)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	f = fopen(path, "w");
	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	fprintf(f, "%d\n", (int)getpid());
	if (fclose(f))
		die("cannot move into %s: %s", cg, strerror(errno));
}

static void wait_go(const char *fifo)
{
	char c;
	int fd = open(fifo, O_RDONLY);

	if (fd < 0)
		die("cannot open %s: %s", fifo, strerror(errno));
	if (read(fd, &c, 1) != 1)
		die("no go from %s", fifo);
	close(fd);
}

/* "0::/path" of /proc/self/cgroup: the cgroup v2 this process is in */
static void print_process(const char *role)
{
	char comm[64] = "", line[4096], cg[4096] = "";
	FILE *f;

	f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	f = fopen("/proc/self/cgroup", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "0::", 3)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(cg, sizeof(cg), "%s", line + 3);
			}
		fclose(f);
	}
	printf("{\"kind\":\"process\",\"role\":\"%s\",\"pid\":%d,\"tid\":%ld,\"comm\":\"%s\","
	       "\"cgroup\":\"%s\"}\n",
	       role, (int)getpid(), (long)syscall(SYS_gettid), comm, cg);
}

int main(int argc, char **argv)
{
	const char *cg = NULL, *fifo = NULL, *role, *dir;
	int i = 1;

	while (i + 1 < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--cgroup"))
			cg = argv[i + 1];
		else if (!strcmp(argv[i], "--wait"))
			fifo = argv[i + 1];
		else
			break;
		i += 2;
	}
	if (argc - i != 2 || (strcmp(argv[i], "writer") && strcmp(argv[i], "reader"))) {
		fprintf(stderr, "usage: %s [--cgroup CGDIR] [--wait FIFO] writer|reader DIR\n", argv[0]);
		return 2;
	}
	role = argv[i];
	dir = argv[i + 1];
	/* a test that never says go must not leave this behind */
	alarm(300);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (cg)
		join_cgroup(cg);
	print_process(role);
	if (fifo)
		wait_go(fifo);
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
	if (dirfd_ < 0)
		die("cannot open %s: %s", dir, strerror(errno));
	if (!strcmp(role, "writer"))
		writer();
	else
		reader();
	close(dirfd_);
	return 0;
}
