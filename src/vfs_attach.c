// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "collector.h"
#include "fs_devs.h"
#include "iotrace.skel.h"
#include "iotrace_event.h"
#include "kernel_probe.h"
#include "not_followed.h"
#include "vfs_attach.h"

/*
 * Traced calls: the tracepoint name (syscalls:sys_enter_<tp>) and the
 * syscall number of this architecture, from the C library's headers. A
 * call an architecture lacks (open and creat on arm64) is not listed.
 */
static const struct {
	const char *tp;
	long nr;
	enum iotrace_vfs_call call;
} calls[] = {
	{ "read", SYS_read, IOTRACE_VFS_READ },
	{ "write", SYS_write, IOTRACE_VFS_WRITE },
	{ "pread64", SYS_pread64, IOTRACE_VFS_PREAD64 },
	{ "pwrite64", SYS_pwrite64, IOTRACE_VFS_PWRITE64 },
	{ "readv", SYS_readv, IOTRACE_VFS_READV },
	{ "writev", SYS_writev, IOTRACE_VFS_WRITEV },
	{ "preadv", SYS_preadv, IOTRACE_VFS_PREADV },
	{ "pwritev", SYS_pwritev, IOTRACE_VFS_PWRITEV },
	{ "preadv2", SYS_preadv2, IOTRACE_VFS_PREADV2 },
	{ "pwritev2", SYS_pwritev2, IOTRACE_VFS_PWRITEV2 },
#ifdef SYS_open
	{ "open", SYS_open, IOTRACE_VFS_OPEN },
#endif
	{ "openat", SYS_openat, IOTRACE_VFS_OPENAT },
#ifdef SYS_openat2
	{ "openat2", SYS_openat2, IOTRACE_VFS_OPENAT2 },
#endif
#ifdef SYS_creat
	{ "creat", SYS_creat, IOTRACE_VFS_CREAT },
#endif
	{ "close", SYS_close, IOTRACE_VFS_CLOSE },
	{ "fsync", SYS_fsync, IOTRACE_VFS_FSYNC },
	{ "fdatasync", SYS_fdatasync, IOTRACE_VFS_FDATASYNC },
	{ "lseek", SYS_lseek, IOTRACE_VFS_LSEEK },
	{ "ftruncate", SYS_ftruncate, IOTRACE_VFS_FTRUNCATE },
	{ "fallocate", SYS_fallocate, IOTRACE_VFS_FALLOCATE },
	{ "mmap", SYS_mmap, IOTRACE_VFS_MMAP },
	{ "msync", SYS_msync, IOTRACE_VFS_MSYNC },
	{ "sync_file_range", SYS_sync_file_range, IOTRACE_VFS_SYNC_FILE_RANGE },
	{ "copy_file_range", SYS_copy_file_range, IOTRACE_VFS_COPY_FILE_RANGE },
	/* the kernel's name for sendfile on 64-bit */
	{ "sendfile64", SYS_sendfile, IOTRACE_VFS_SENDFILE },
	{ "splice", SYS_splice, IOTRACE_VFS_SPLICE },
#ifdef SYS_unlink
	{ "unlink", SYS_unlink, IOTRACE_VFS_UNLINK },
#endif
	{ "unlinkat", SYS_unlinkat, IOTRACE_VFS_UNLINKAT },
#ifdef SYS_rename
	{ "rename", SYS_rename, IOTRACE_VFS_RENAME },
#endif
	{ "renameat", SYS_renameat, IOTRACE_VFS_RENAMEAT },
	{ "renameat2", SYS_renameat2, IOTRACE_VFS_RENAMEAT2 },
};

#define NCALLS (sizeof(calls) / sizeof(calls[0]))
#define MAX_NR (sizeof(((struct iotrace__rodata *)0)->sys_call_of))
#define MAX_FS_DEVS (sizeof(((struct iotrace__bss *)0)->targ_fs_devs) / sizeof(__u32))

static bool is_open(enum iotrace_vfs_call c)
{
	return c >= IOTRACE_VFS_OPEN && c <= IOTRACE_VFS_CREAT;
}

/* unlink and rename: Delete/MoveFrom/MoveTo, with or without --vfs */
static bool is_ns(enum iotrace_vfs_call c)
{
	return c >= IOTRACE_VFS_UNLINK && c <= IOTRACE_VFS_RENAMEAT2;
}

/*
 * The rename exits, which have renamed files' name chains sent again
 * (iotrace.bpf.c), and their tracepoints.
 */
#define NRENAMES 3
static const char *const rename_tps[NRENAMES] = { "sys_exit_rename", "sys_exit_renameat",
						  "sys_exit_renameat2" };

static void rename_exits(const struct iotrace *skel, struct bpf_program *p[NRENAMES])
{
	p[0] = skel->progs.handle_exit_rename;
	p[1] = skel->progs.handle_exit_renameat;
	p[2] = skel->progs.handle_exit_renameat2;
}

/*
 * The file systems' own tracepoints in unlinks and renames (iotrace.bpf.c's
 * fs_events and xfs_events), with the number of arguments of the
 * prototype the programs take, a module's together. names: what those of
 * a module name together, all loaded (IOTRACE_NAMES_*).
 */
#define NFS_NS 10
static const struct {
	const char *module, *tp;
	int nargs;
	unsigned names;
} fs_ns_tps[NFS_NS] = {
	{ "ext4", "ext4_unlink_enter", 2, IOTRACE_NAMES_UNLINKED },
	{ "ext4", "ext4_mark_inode_dirty", 2, IOTRACE_NAMES_RENAMED | IOTRACE_NAMES_REPLACED },
	{ "xfs", "xfs_remove", 2, IOTRACE_NAMES_UNLINKED },
	{ "xfs", "xfs_iunlink", 1, IOTRACE_NAMES_UNLINKED | IOTRACE_NAMES_REPLACED },
	{ "xfs", "xfs_dir2_sf_removename", 1, IOTRACE_NAMES_UNLINKED },
	{ "xfs", "xfs_dir2_block_removename", 1, IOTRACE_NAMES_UNLINKED },
	{ "xfs", "xfs_dir2_leaf_removename", 1, IOTRACE_NAMES_UNLINKED },
	{ "xfs", "xfs_dir2_node_removename", 1, IOTRACE_NAMES_UNLINKED },
	{ "xfs", "xfs_rename", 4, IOTRACE_NAMES_REPLACED },
	/* only what the walk did not find: the walk is not told to stop */
	{ "btrfs", "btrfs_inode_evict", 1, 0 },
};

static struct bpf_program *fs_ns_prog(const struct iotrace *skel, size_t i)
{
	struct bpf_program *p[NFS_NS] = { skel->progs.handle_ext4_unlink,
					  skel->progs.handle_ext4_dirty,
					  skel->progs.handle_xfs_remove,
					  skel->progs.handle_xfs_iunlink,
					  skel->progs.handle_xfs_sf_removename,
					  skel->progs.handle_xfs_block_removename,
					  skel->progs.handle_xfs_leaf_removename,
					  skel->progs.handle_xfs_node_removename,
					  skel->progs.handle_xfs_rename,
					  skel->progs.handle_btrfs_evict };

	return p[i];
}

/* What module's programs name together (IOTRACE_NAMES_*), where all of a kind load. */
static __u8 fs_names(const struct iotrace *skel, const char *module)
{
	unsigned named = 0, missing = 0;
	size_t i;

	for (i = 0; i < NFS_NS; i++) {
		if (strcmp(fs_ns_tps[i].module, module))
			continue;
		named |= fs_ns_tps[i].names;
		if (!bpf_program__autoload(fs_ns_prog(skel, i)))
			missing |= fs_ns_tps[i].names;
	}
	return (__u8)(named & ~missing);
}

/*
 * Loads the programs of fs_ns_tps the kernel has tracepoints for, where
 * ns (the syscall programs) load; tells the walk what they name.
 */
static void fs_ns_configure(struct iotrace *skel, const struct btf *vmlinux, bool ns)
{
	struct iotrace__rodata *ro = skel->rodata;
	struct btf *mod = NULL;
	size_t i;

	for (i = 0; i < NFS_NS; i++) {
		struct bpf_program *prog = fs_ns_prog(skel, i);
		int n = ns ? probe__tp_btf_args(vmlinux, fs_ns_tps[i].tp) : -1;

		/* a module's BTF parsed once for all its tracepoints */
		if (i == 0 || strcmp(fs_ns_tps[i].module, fs_ns_tps[i - 1].module)) {
			btf__free(mod);
			mod = NULL;
		}
		if (ns && n < 0) {
			if (!mod)
				mod = probe__module_btf(vmlinux, fs_ns_tps[i].module);
			n = mod ? probe__tp_btf_args(mod, fs_ns_tps[i].tp) : -1;
		}
		bpf_program__set_autoattach(prog, false);
		bpf_program__set_autoload(prog, n == fs_ns_tps[i].nargs);
	}
	btf__free(mod);
	ro->ext4_names = fs_names(skel, "ext4");
	ro->xfs_names = fs_names(skel, "xfs");
}

#define NURING 5

/*
 * io_uring's programs on its completion (first: attached first; tp_btf
 * or classic tracepoint), hand-off, link and completion overflow: those
 * that walk paths (walk), or those that hold no walk, for kernels where
 * the unlink and rename programs do not load (uring.bpf.h).
 */
static void uring_progs(const struct iotrace *skel, bool walk, struct bpf_program *p[NURING])
{
	p[0] = walk ? skel->progs.handle_uring_complete : skel->progs.handle_uring_complete_nowalk;
	p[1] = walk ? skel->progs.handle_uring_complete_tp :
		      skel->progs.handle_uring_complete_tp_nowalk;
	p[2] = walk ? skel->progs.handle_uring_queue : skel->progs.handle_uring_queue_nowalk;
	p[3] = walk ? skel->progs.handle_uring_link : skel->progs.handle_uring_link_nowalk;
	p[4] = walk ? skel->progs.handle_uring_overflow : skel->progs.handle_uring_overflow_nowalk;
}

/*
 * Loads io_uring's completion program of kind (for --vfs records or file
 * events; none if NONE), its hand-off, link and overflow programs if
 * files: those that walk where ns, else the others. With --vfs they are
 * attached at the start.
 */
static void uring_configure(struct iotrace *skel, enum probe_uring_complete kind, bool files,
			    bool ns, bool vfs)
{
	/* in uring_progs()'s order */
	const bool load[NURING] = { kind == PROBE_URING_COMPLETE_BTF,
				    kind == PROBE_URING_COMPLETE_TRACEPOINT, files, files, files };
	struct bpf_program *p[NURING];
	size_t i;
	int walk;

	for (walk = 0; walk < 2; walk++) {
		uring_progs(skel, walk, p);
		for (i = 0; i < NURING; i++) {
			bpf_program__set_autoload(p[i], walk == ns && load[i]);
			bpf_program__set_autoattach(p[i], vfs);
		}
	}
}

bool vfs__watch_renames(const struct iotrace *skel)
{
	struct bpf_program *r[NRENAMES];
	size_t i;

	/* it moves the rename epoch itself */
	if (bpf_program__autoload(skel->progs.handle_ns_exit))
		return true;
	rename_exits(skel, r);
	for (i = 0; i < NRENAMES; i++)
		if (bpf_program__autoload(r[i]))
			return true;
	return false;
}

unsigned int vfs__not_followed(const struct iotrace *skel, const struct collector_config *cfg,
			       const struct btf *vmlinux)
{
	/* a kernel built without io_uring has no io_uring request to miss */
	bool uring = probe__tp_btf_args(vmlinux, "io_uring_complete") >= 0;
	unsigned int nf = 0;

	if (!cfg->no_file_events) {
		if (!bpf_program__autoload(skel->progs.handle_sys_exit))
			nf |= NF_CREATE | NF_DELETE | NF_MOVE;
		else if (!bpf_program__autoload(skel->progs.handle_ns_enter))
			nf |= NF_DELETE | NF_MOVE;
		if (uring && !bpf_program__autoload(skel->progs.handle_uring_queue) &&
		    !bpf_program__autoload(skel->progs.handle_uring_queue_nowalk))
			nf |= NF_URING_FILES;
	}
	if (cfg->vfs && uring && !skel->rodata->uring_vfs_enabled)
		nf |= NF_URING_VFS;
	return nf;
}

const char *vfs__file_events(const struct iotrace *skel)
{
	if (bpf_program__autoload(skel->progs.handle_ns_enter))
		return "create, delete, rename";
	return "create";
}

/* The file systems on the traced devices (fs_devs.h). */
static int fs_devs(struct iotrace__bss *bss, const struct collector_config *cfg)
{
	size_t n;
	int err;

	err = fs_devs__collect("/sys", "/proc/self/mountinfo", cfg->devs, cfg->ndevs,
			       bss->targ_fs_devs, MAX_FS_DEVS, &n);
	bss->targ_nfs_devs = (__u32)n;
	return err;
}

int vfs__add_fs_devs(struct iotrace *skel, const struct collector_config *cfg,
		     const uint32_t **added, size_t *nadded)
{
	struct iotrace__bss *bss = skel->bss;
	size_t before = __atomic_load_n(&bss->targ_nfs_devs, __ATOMIC_RELAXED), n = before;
	int err;

	err = fs_devs__update("/sys", "/proc/self/mountinfo", cfg->devs, cfg->ndevs,
			      bss->targ_fs_devs, MAX_FS_DEVS, &n);
	/* the new entries are in place before the programs' loops reach them */
	__atomic_store_n(&bss->targ_nfs_devs, (__u32)n, __ATOMIC_RELEASE);
	*added = bss->targ_fs_devs + before;
	*nadded = n - before;
	return err;
}

size_t vfs__fs_devs_max(void)
{
	return MAX_FS_DEVS;
}

const uint32_t *vfs__fs_devs(const struct iotrace *skel, size_t *n)
{
	*n = skel->bss->targ_nfs_devs;
	return skel->bss->targ_fs_devs;
}

/*
 * Whether the tracer runs in the initial pid namespace: its inode is
 * PROC_PID_INIT_INO (include/linux/proc_ns.h).
 */
static bool initial_pid_ns(void)
{
	struct stat st;

	return !stat("/proc/self/ns/pid", &st) && st.st_ino == 0xEFFFFFFCu;
}

int vfs__know_self(struct iotrace *skel, bool pids)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int err;

	/* for the tests: as where the kernel cannot run it (before 5.10, or without CONFIG_NET) */
	if (probe__asked("IOTRACE_NO_WHOAMI")) {
		err = -EOPNOTSUPP;
	} else {
		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.whoami), &opts);
		if (!err && opts.retval)
			return 0;
		err = err ? -errno : -ESRCH;
	}
	/* there the programs' numbers are getpid()'s, and --pids' */
	if (initial_pid_ns()) {
		skel->bss->self_tgid = (__u32)getpid();
		return 0;
	}
	return pids ? err : 0;
}

int vfs__configure(struct iotrace *skel, const struct collector_config *cfg,
		   const struct btf *vmlinux)
{
	struct iotrace__rodata *ro = skel->rodata;
	const struct trace_filters *f = &cfg->filters;
	/* --no-file-events: no syscall program loads; a start without them is shorter too */
	bool files = !cfg->no_file_events;
	struct bpf_program *renames[NRENAMES];
	enum probe_uring_complete complete;
	bool uring, uring_files, ns, cast, submit, submit_sqe;
	size_t i;
	int err;

	ro->vfs_enabled = cfg->vfs;
	for (i = 0; i < NCALLS; i++)
		if (calls[i].nr >= 0 && (size_t)calls[i].nr < MAX_NR)
			ro->sys_call_of[calls[i].nr] = (__u8)calls[i].call;
	/* a full list is the caller's to judge: the rest is configured all the same */
	err = fs_devs(skel->bss, cfg);
	for (i = 0; i < f->npids; i++)
		ro->filt_pids[i] = f->pids[i];
	ro->filt_npids = (__u32)f->npids;
	for (i = 0; i < f->ncomms; i++)
		memcpy((char *)ro->filt_comms[i], f->comms[i], IOTRACE_COMM_LEN);
	ro->filt_ncomms = (__u32)f->ncomms;
	for (i = 0; i < f->ncgroups; i++)
		ro->filt_cgroups[i] = f->cgroups[i];
	ro->filt_ncgroups = (__u32)f->ncgroups;
	ro->cgroup_ancestor_helper = f->ncgroups && probe__ancestor_cgroup_helper();

	/* attached by hand, to many tracepoints each */
	bpf_program__set_autoattach(skel->progs.handle_sys_enter, false);
	bpf_program__set_autoattach(skel->progs.handle_sys_enter_cast, false);
	bpf_program__set_autoattach(skel->progs.handle_sys_exit, false);
	/* one of the two: with helper-free loads where the kernel allows */
	cast = probe__cast_loads(vmlinux);
	bpf_program__set_autoload(skel->progs.handle_sys_enter, cfg->vfs && !cast);
	bpf_program__set_autoload(skel->progs.handle_sys_enter_cast, cfg->vfs && cast);
	bpf_program__set_autoload(skel->progs.handle_sys_exit,
				  files && probe__tracepoint_exists("syscalls", "sys_exit_openat"));
	bpf_program__set_autoattach(skel->progs.handle_ns_enter, false);
	bpf_program__set_autoattach(skel->progs.handle_ns_exit, false);
	/*
	 * path resolution walks the dentry cache with bpf_loop (v5.17),
	 * reading the entries of a directory by cast loads (v6.2; it finds
	 * them from v6.8 on)
	 */
	ns = files && probe__tracepoint_exists("syscalls", "sys_enter_unlinkat") &&
	     probe__path_walk(vmlinux);
	bpf_program__set_autoload(skel->progs.handle_ns_enter, ns);
	bpf_program__set_autoload(skel->progs.handle_ns_exit, ns);
	/* the file systems' own unlinks and renames, for what the walk leaves to them */
	fs_ns_configure(skel, vmlinux, ns);
	/*
	 * io_uring's calls with --vfs, from the submission (its tracepoint's
	 * name until v6.3, io_uring_submit_sqe, from v6.1) to the completion
	 */
	complete = probe__uring_complete(vmlinux);
	submit = probe__tp_btf_takes(vmlinux, "io_uring_submit_req", 1, "io_kiocb");
	submit_sqe = !submit && probe__tp_btf_takes(vmlinux, "io_uring_submit_sqe", 2, "io_kiocb");
	uring = cfg->vfs && complete != PROBE_URING_COMPLETE_NONE && (submit || submit_sqe);
	ro->uring_vfs_enabled = uring;
	bpf_program__set_autoload(skel->progs.handle_uring_submit, uring && submit);
	bpf_program__set_autoload(skel->progs.handle_uring_submit_sqe, uring && submit_sqe);
	/*
	 * io_uring's opens, unlinks and renames for the file events too (from
	 * v6.2), where the system calls' are traced (not without tracefs: a
	 * trace would have the Creates of io_uring and not those of open(2));
	 * without --vfs attached with them (vfs__attach()), not at the start
	 */
	uring_files = bpf_program__autoload(skel->progs.handle_sys_exit) &&
		      complete != PROBE_URING_COMPLETE_NONE &&
		      probe__tp_btf_args(vmlinux, "io_uring_queue_async_work") == 2 &&
		      probe__tp_btf_args(vmlinux, "io_uring_link") == 2 &&
		      probe__tp_btf_args(vmlinux, "io_uring_cqe_overflow") == 5;
	uring_configure(skel, uring || uring_files ? complete : PROBE_URING_COMPLETE_NONE,
			uring_files, ns, cfg->vfs);
	/*
	 * a kernel without syscall tracepoints (CONFIG_FTRACE_SYSCALLS off)
	 * traces without them; handle_ns_exit moves the rename epoch itself,
	 * for the renames that may have changed other files' paths
	 */
	rename_exits(skel, renames);
	for (i = 0; i < NRENAMES; i++) {
		bpf_program__set_autoattach(renames[i], false);
		bpf_program__set_autoload(renames[i], files && !ns &&
					  probe__tracepoint_exists("syscalls", rename_tps[i]));
	}
	return err;
}

/* Whether syscalls:sys_<dir>_<tp> exists; its name in event. */
static bool syscall_tp(const char *dir, const char *tp, char *event, size_t size)
{
	snprintf(event, size, "sys_%s_%s", dir, tp);
	return probe__tracepoint_exists("syscalls", event);
}

size_t vfs__calls(const struct iotrace *skel)
{
	char event[64];
	size_t i, n = 0;

	if (!bpf_program__autoload(skel->progs.handle_sys_exit))
		return 0;
	for (i = 0; i < NCALLS; i++)
		if (!is_ns(calls[i].call) && syscall_tp("exit", calls[i].tp, event, sizeof(event)))
			n++;
	return n;
}

static int attach_one(struct bpf_program *prog, const char *dir, const char *tp,
		      struct vfs_links *l)
{
	char event[64];
	struct bpf_link *link;

	if (!syscall_tp(dir, tp, event, sizeof(event)))
		return -ENOENT;
	if (l->n >= sizeof(l->link) / sizeof(l->link[0]))
		return -E2BIG;
	link = bpf_program__attach_tracepoint(prog, "syscalls", event);
	if (!link)
		return -errno;
	l->link[l->n++] = link;
	return 0;
}

/* prog, if it was loaded, attached where its section says */
static int attach_loaded(struct bpf_program *prog, struct vfs_links *l)
{
	if (!bpf_program__autoload(prog))
		return 0;
	if (l->n >= sizeof(l->link) / sizeof(l->link[0]))
		return -E2BIG;
	l->link[l->n] = bpf_program__attach(prog);
	if (!l->link[l->n])
		return -errno;
	l->n++;
	return 0;
}

int vfs__attach(struct iotrace *skel, bool vfs, struct vfs_links *l)
{
	struct bpf_program *enter = bpf_program__autoload(skel->progs.handle_sys_enter_cast) ?
		skel->progs.handle_sys_enter_cast : skel->progs.handle_sys_enter;
	struct bpf_program *renames[NRENAMES], *uring[NURING];
	size_t i;
	int err, walk;

	memset(l, 0, sizeof(*l));
	rename_exits(skel, renames);
	err = 0;
	for (i = 0; i < NRENAMES && !err; i++)
		err = attach_loaded(renames[i], l);
	for (i = 0; i < NFS_NS && !err; i++)
		err = attach_loaded(fs_ns_prog(skel, i), l);
	/* with --vfs they are attached at the start, for the calls; the completion first */
	for (walk = 0; walk < 2 && !vfs && !err; walk++) {
		uring_progs(skel, walk, uring);
		for (i = 0; i < NURING && !err; i++)
			err = attach_loaded(uring[i], l);
	}
	if (err)
		return err;
	for (i = 0; i < NCALLS && bpf_program__autoload(skel->progs.handle_ns_enter); i++) {
		if (!is_ns(calls[i].call))
			continue;
		err = attach_one(skel->progs.handle_ns_exit, "exit", calls[i].tp, l);
		if (err == -ENOENT)
			continue;
		if (!err)
			err = attach_one(skel->progs.handle_ns_enter, "enter", calls[i].tp, l);
		if (err)
			return err;
	}
	if (!bpf_program__autoload(skel->progs.handle_sys_exit))
		return 0;
	for (i = 0; i < NCALLS; i++) {
		if (is_ns(calls[i].call))
			continue;
		if (!vfs && !is_open(calls[i].call))
			continue;
		err = attach_one(skel->progs.handle_sys_exit, "exit", calls[i].tp, l);
		if (err == -ENOENT)
			continue;
		if (!err && vfs)
			err = attach_one(enter, "enter", calls[i].tp, l);
		if (err)
			return err;
	}
	return 0;
}

void vfs__detach(struct vfs_links *l)
{
	while (l->n)
		bpf_link__destroy(l->link[--l->n]);
}
