/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The system-call side of the BPF object (bpf/vfs.bpf.h): which syscall
 * tracepoints carry which call, configured before load and attached one
 * by one after it (one enter and one exit program serve them all).
 */
#ifndef IOTRACE_VFS_ATTACH_H
#define IOTRACE_VFS_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iotrace;
struct bpf_link;
struct btf;
struct collector_config;

/* Links made by vfs__attach; vfs__detach destroys them. */
struct vfs_links {
	struct bpf_link *link[96];
	size_t n;
};

/*
 * Between open and load: read-only data (vfs_enabled, syscall numbers,
 * traced file systems, task filters) and which programs load. Returns 0
 * or -E2BIG: more partitions and file systems than the programs' list
 * holds, the first vfs__fs_devs_max() in it and all else configured.
 * vmlinux: the kernel's BTF (NULL if it has none), for the io_uring
 * tracepoints' prototypes.
 */
int vfs__configure(struct iotrace *skel, const struct collector_config *cfg,
		   const struct btf *vmlinux);

/*
 * After load, before anything is attached: tells the programs the
 * tracer's own process, so that its calls are left out, and its pid
 * namespace, whose numbers --pids gives (bpf/pid_ns.bpf.h), by running
 * whoami in this process. 0, or -errno where that cannot run and the
 * tracer is in a pid namespace of its own (a container's) with pids set:
 * its --pids could not be told apart from the initial namespace's. Without
 * pids it then returns 0, and the tracer's own calls are traced.
 */
int vfs__know_self(struct iotrace *skel, bool pids);

/* After vfs__configure(): whether any rename exit is to load (handle_ns_exit's too). */
bool vfs__watch_renames(const struct iotrace *skel);

/*
 * After vfs__configure(): what cfg asks for that the programs it loads
 * cannot follow, nor count, on this kernel (not_followed.h's bits): the
 * system calls' file events where there is no syscall tracepoint or path
 * walk, io_uring's where its tracepoints do not pass the request (before
 * v6.1) but the kernel has io_uring (vmlinux: its BTF, NULL if none).
 */
unsigned int vfs__not_followed(const struct iotrace *skel, const struct collector_config *cfg,
			       const struct btf *vmlinux);

/*
 * After vfs__configure(): the file events its programs record, for
 * people: "create, delete, rename", or "create" on a kernel whose
 * programs cannot resolve paths (before 5.17).
 */
const char *vfs__file_events(const struct iotrace *skel);

/*
 * After load: with --vfs, enter and exit of every traced call; without,
 * the exits of the open calls (Create events) and enter and exit of
 * unlink and rename (Delete, MoveFrom, MoveTo); with or without, the
 * rename exits that have renamed files' names sent again. A call whose
 * tracepoints this kernel lacks is left out. Returns 0 or -errno.
 *
 * Attached, any of them sends every system call of every task on the
 * node through the kernel's tracing path: 56-78 ns more for a cached
 * pread64 (bench/vfs-overhead), 68 ns for a null call (perf bench
 * syscall basic, 165 -> 233 ns; with --vfs about 0.5 us). So the
 * collector attaches them only once a file system on a traced device is
 * in use, with --vfs too.
 */
int vfs__attach(struct iotrace *skel, bool vfs, struct vfs_links *l);

/*
 * After load: how many of the calls --vfs records this kernel has
 * tracepoints for (0: --vfs cannot work), known before anything is
 * attached.
 */
size_t vfs__calls(const struct iotrace *skel);

/* How many file systems the programs' list holds at most. */
size_t vfs__fs_devs_max(void);

/* The file systems the programs trace calls on, *n of them (fs_devs.h). */
const uint32_t *vfs__fs_devs(const struct iotrace *skel, size_t *n);

/*
 * After a change of the mount table: adds the file systems on the traced
 * devices mounted since (fs_devs__update) to the programs' list, live.
 * The new ones are (*added)[0..*nadded). -E2BIG when the list is full.
 */
int vfs__add_fs_devs(struct iotrace *skel, const struct collector_config *cfg,
		     const uint32_t **added, size_t *nadded);

void vfs__detach(struct vfs_links *l);

#endif
