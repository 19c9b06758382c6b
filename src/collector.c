// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bench_toggle.h"
#include "cgroup_names.h"
#include "cli.h"
#include "clock_ns.h"
#include "collector_state.h"
#include "detach.h"
#include "fs_devs.h"
#include "inflight.h"
#include "iotrace.skel.h"
#include "iotrace_event.h"
#include "kernel_probe.h"
#include "not_followed.h"
#include "path_filter.h"
#include "programs.h"
#include "verifier_stats.h"
#include "ring_plan.h"
#include "stream_writer.h"
#include "trace_filters.h"
#include "vfs_attach.h"

/* How often buffered records reach the disk and the summary is rewritten. */
#define FLUSH_INTERVAL_NS 1000000000ull
#define POLL_TIMEOUT_MS 100
/*
 * The longest a stopping tracer waits for the completions of the I/Os in
 * its trace (finish_inflight()), and how often it looks meanwhile.
 */
#define STOP_WAIT_MAX_NS 5000000000ull
#define STOP_LOOK_MS 2
#define STOP_SAY_WAIT_NS 1000000000ull
#define POLL_FAIL_MAX_NS 10000000000ull
#define POLL_FAIL_NAP_MS 10

static int set_error(struct collector *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_error(struct collector *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return err;
}

bool collector__started(const struct collector *c)
{
	return c->started;
}

const char *collector__error(const struct collector *c)
{
	return c ? c->err : "";
}

const char *collector__warning(const struct collector *c)
{
	return c ? c->warning : "";
}

/* Why the syscall tracepoints are missing, into buf. */
static const char *no_syscalls_why(const struct collector *c, char *buf, size_t size)
{
	if (c->tracefs < 0)
		snprintf(buf, size, "tracefs is not mounted and mounting it on %s failed: %s",
			 TRACEFS_MOUNT, strerror(-c->tracefs));
	else
		snprintf(buf, size, "this kernel has none (CONFIG_FTRACE_SYSCALLS)");
	return buf;
}

/*
 * Says what this kernel does not let the tracer follow (nf:
 * not_followed.h), which the trace will not count either, once files are
 * followed: a raw device's user hears nothing of files. Without syscall
 * tracepoints collector__warning() has said it of the file events.
 */
static void note_not_followed(unsigned int nf)
{
	char tag[128], text[512];

	if (nf & NF_CREATE)
		nf &= ~NF_FILE_EVENTS;
	if (!nf)
		return;
	not_followed__tag(nf, tag, sizeof(tag));
	not_followed__describe(tag, nf, text, sizeof(text));
	cli_note("this kernel's tracepoints do not let the tracer follow these, nor count them: "
		 "%s (see tags.notFollowed in the README)", text);
}

/* A pattern through a symbolic link is matched as its target too: said, as no trace shows it. */
static void note_real_globs(const struct path_filter *pf)
{
	const char *glob, *real;
	size_t i;

	for (i = 0; (real = path_filter__real_glob(pf, i, &glob)); i++)
		if (*real)
			cli_note("--paths: '%s' is matched as '%s' too, its directories' real path",
				 glob, real);
}

int collector__open(struct collector **cp, const struct collector_config *cfg)
{
	struct btf *btf;
	struct collector *c;
	const char *online;
	size_t i;
	int err;

	programs__quiet_libbpf();
	*cp = c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->cfg = cfg;
	c->mounts_fd = -1;
	c->size_limit = cfg->size_mib << 20;
	c->first_refused_sid = UINT64_MAX;
	/* records then wait in their stage until it is full or the trace ends: for tests */
	c->no_stage_flush = probe__asked("IOTRACE_NO_STAGE_FLUSH");
	c->toggle_ms = bench_toggle__period_ms();
	if (c->toggle_ms < 0)
		return set_error(c, -EINVAL, "%s must be a whole number of milliseconds, 10 to 3600000",
				 BENCH_TOGGLE_ENV);
	c->toggle_what = bench_toggle__what();
	if (c->toggle_what < 0)
		return set_error(c, -EINVAL, "%s must be programs or collector", BENCH_TOGGLE_WHAT_ENV);
	if (c->toggle_ms)
		cli_warn("%s=%ld: %s every other %ld ms; a benchmark's trace, not a complete one",
			 BENCH_TOGGLE_ENV, c->toggle_ms,
			 c->toggle_what == BENCH_TOGGLE_COLLECTOR ? "the collector drops the records"
								  : "the block programs are off",
			 c->toggle_ms);

	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus <= 0)
		return set_error(c, c->ncpus ? c->ncpus : -ENODEV, "cannot count CPUs");

	c->skel = iotrace__open();
	if (!c->skel) {
		err = -errno;
		return set_error(c, err, "cannot open BPF programs: %s%s", strerror(-err),
				 programs__load_hint(err));
	}
	if (cfg->ndevs > IOTRACE_MAX_DEVICES)
		return set_error(c, -E2BIG, "too many devices");
	for (i = 0; i < cfg->ndevs; i++) {
		c->skel->rodata->targ_devs[i] = cfg->devs[i].dev;
		c->skel->rodata->targ_seq[i] = cfg->devs[i].diskseq;
	}
	c->skel->rodata->targ_ndevs = (__u32)cfg->ndevs;
	c->skel->rodata->page_shift = (__u32)__builtin_ctz((unsigned)getpagesize());
	/*
	 * once: the online CPUs the share is of could change before the rings
	 * are made. IOTRACE_CPUS_ONLINE lets a test take a CPU as brought
	 * online after the start, which CI cannot do for real.
	 */
	online = getenv("IOTRACE_CPUS_ONLINE");
	err = ring_plan__init(&c->rings, cfg->buffer_mib, c->ncpus,
			      online && *online ? online : RING_PLAN_ONLINE_PATH);
	if (err)
		return set_error(c, err, "cannot plan the per-CPU buffers: %s", strerror(-err));
	c->skel->rodata->trace_dispatch = cfg->dispatch;
	/*
	 * The rings are made in collector__run(). An inner ring may differ
	 * from the template in size (the kernel's bpf_map_meta_equal() does
	 * not compare max_entries), which is as well: libbpf 1.1 crashes
	 * resizing an inner map template.
	 */
	bpf_map__set_max_entries(c->skel->maps.rings, (__u32)c->ncpus);
	bpf_map__set_max_entries(c->skel->maps.stages, (__u32)c->ncpus);

	/* before anything looks for a classic tracepoint; none is used without file events */
	c->tracefs = cfg->no_file_events ? 0 : probe__tracefs_mount();
	/* parsed once: several programs are picked by their prototypes */
	btf = btf__load_vmlinux_btf();
	programs__pick(c->skel, btf);
	programs__defer_attach(c->skel);
	/* watching before the mount table is read: no mount falls between */
	c->mounts_fd = cfg->no_file_events ? -1 : fs_devs__watch("/proc/self/mountinfo");
	err = vfs__configure(c->skel, cfg, btf);
	c->not_followed = vfs__not_followed(c->skel, cfg, btf);
	btf__free(btf);
	if (err && cfg->vfs)
		return set_error(c, err, "too many partitions and file systems on the traced "
				 "devices for --vfs (at most %zu)", vfs__fs_devs_max());
	/* file events are a part of the trace: block I/O goes on without the rest */
	c->fs_devs_full = err != 0;
	if (err && !cfg->no_file_events)
		cli_warn("file events on some file systems of the traced devices are not traced: "
			 "more than %zu partitions and file systems", vfs__fs_devs_max());
	/* with --vfs, the same cause is an error in collector__run() */
	if (!vfs__watch_renames(c->skel) && !cfg->vfs && !cfg->no_file_events) {
		char why[160];

		snprintf(c->warning, sizeof(c->warning), "no Create, Delete or Move events are "
			 "traced, and files renamed while tracing keep their old names in the trace "
			 "(no syscall tracepoints: %s)",
			 no_syscalls_why(c, why, sizeof(why)));
	}
	if (cfg->paths) {
		char bad[256];
		size_t n;
		const uint32_t *fs = vfs__fs_devs(c->skel, &n);

		/* the file systems vfs__configure found */
		err = path_filter__new(&c->paths, cfg->paths, "/proc/self/mountinfo", fs, n,
				       bad, sizeof(bad));
		if (err)
			return set_error(c, err, "cannot use --paths: %s", strerror(-err));
		note_real_globs(c->paths);
	}

	verifier_stats__ask(c->skel->obj);
	err = iotrace__load(c->skel);
	verifier_stats__print(c->skel->obj, !err);
	if (err)
		return set_error(c, err, "cannot load BPF programs: %s%s", strerror(-err),
				 programs__load_hint(err));
	err = vfs__know_self(c->skel, cfg->filters.npids > 0);
	if (err)
		return set_error(c, err, "cannot use --pids in a pid namespace of the tracer's "
				 "own (a container's): the kernel does not run the program that "
				 "tells its numbers from the host's (%s); run the tracer in the "
				 "host's pid namespace, or use --comm or --cgroup",
				 strerror(-err));
	return 0;
}

/*
 * Attaches the syscall programs: file events (Create, Delete, MoveFrom,
 * MoveTo), renamed files' names, and with --vfs the calls. Attached, they
 * make every system call on the node slower (vfs_attach.h), so this waits
 * until a traced device's file system is in use: a raw device's users pay
 * nothing for them, with --vfs or without. why: the reason said on stderr,
 * or NULL at the start. Should one fail to attach, none stays attached;
 * the block I/O is traced on with a warning, unless --vfs's calls, which
 * were asked for, fail at the start: that error is returned.
 */
static int watch_files(struct collector *c, const char *why)
{
	char what[96];
	int err;

	snprintf(what, sizeof(what), "%sfile events (%s)",
		 c->cfg->vfs ? "system calls (--vfs) and " : "", vfs__file_events(c->skel));

	c->fs_watch = true;
	err = vfs__attach(c->skel, c->cfg->vfs, &c->vfs);
	if (err) {
		vfs__detach(&c->vfs);
		if (!why && c->cfg->vfs)
			return err;
		cli_warn("%s are not traced: cannot attach to syscall tracepoints: %s", what,
			 strerror(-err));
	} else if (why && c->vfs.n) {
		/* none loaded (no tracefs): the start has warned already */
		cli_note("%s are traced from now on: %s", what, why);
	}
	if (!err)
		note_not_followed(c->not_followed);
	return 0;
}

static bool fs_mounted(const struct collector *c)
{
	return fs_devs__mounted("/sys", "/proc/self/mountinfo", c->cfg->devs, c->cfg->ndevs) ||
	       fs_devs__in_sysfs("/sys", c->cfg->devs, c->cfg->ndevs);
}

/*
 * A file system of a traced device mounted where this process cannot see
 * it (another mount namespace, whose mounts do not wake the wait): sysfs
 * lists it by device (ext4, xfs, f2fs, erofs), looked at once a round
 * (tick); of another type, the first I/O of one of its files tells.
 */
static void watch_unseen(struct collector *c, bool tick)
{
	if (c->files_named)
		watch_files(c, "files of a traced device are in use");
	else if (tick && fs_devs__in_sysfs("/sys", c->cfg->devs, c->cfg->ndevs))
		watch_files(c, "a file system on a traced device is mounted in another mount "
			    "namespace");
}

/*
 * Waits for a ring's wakeup (ring_out()) or a change of the mount table,
 * at most timeout_ms; the change is kept in c->mounts.changed, as the poll
 * has taken it from the watch. Returns >= 0 or -errno (-EINTR: a signal).
 */
static int wait_records(struct collector *c, int timeout_ms)
{
	struct pollfd p[2] = {
		{ .fd = ring_buffer__epoll_fd(c->rb), .events = POLLIN },
		{ .fd = c->mounts_fd, .events = POLLPRI },
	};
	int n = poll(p, c->mounts_fd >= 0 ? 2 : 1, timeout_ms);

	if (n < 0)
		return -errno;
	if (c->mounts_fd >= 0 && (p[1].revents & (POLLPRI | POLLERR)))
		c->mounts.changed = true;
	return n;
}

/*
 * A wait that failed is taken for one that timed out, and the rings are
 * read as after a timeout: ENOMEM passes, and a debugger calling into
 * the collector made poll() return the kernel's own ERESTART_RESTARTBLOCK
 * (516), which ended the trace. Meanwhile the collector naps
 * POLL_FAIL_NAP_MS between rounds, short enough for the rings, and takes
 * the mount table as changed, as the wait could not tell. Said once; only
 * a wait failing for POLL_FAIL_MAX_NS on end (say a broken descriptor)
 * ends the trace. Returns err, or 0 for a failure ridden out.
 */
static int ride_out_poll_failure(struct collector *c, int err, uint64_t now)
{
	struct timespec nap = { 0, POLL_FAIL_NAP_MS * 1000000L };

	if (err >= 0 || err == -EINTR) {
		c->poll_failing_since = 0;
		return err;
	}
	if (!c->poll_failing_since)
		c->poll_failing_since = now;
	if (now - c->poll_failing_since >= POLL_FAIL_MAX_NS)
		return err;
	if (!c->poll_failure_said) {
		c->poll_failure_said = true;
		cli_warn("waiting for records failed (%s); reading the buffers every %d ms "
			 "meanwhile", strerror(-err), POLL_FAIL_NAP_MS);
	}
	c->mounts.changed = true;
	nanosleep(&nap, NULL);
	return 0;
}

/*
 * After a mount or an unmount: a file system mounted from a traced device
 * under a number of its own (btrfs) is traced from now on, and --paths
 * learns where the file systems are mounted now. Said on stderr, as it
 * changes what the trace holds from then on.
 */
static void follow_mounts(struct collector *c, uint64_t now)
{
	const uint32_t *added, *fs;
	uint64_t start, took;
	size_t i, n;
	int err;

	/* the file systems' list and --paths serve the syscall programs only */
	if (c->cfg->no_file_events || !mount_gate__due(&c->mounts, now))
		return;
	start = clock_ns(CLOCK_MONOTONIC);
	if (!c->fs_watch && fs_mounted(c))
		watch_files(c, "a file system on a traced device is mounted");
	err = vfs__add_fs_devs(c->skel, c->cfg, &added, &n);
	for (i = 0; i < n; i++) {
		unsigned int ma = IOTRACE_MAJOR(added[i]), mi = IOTRACE_MINOR(added[i]);
		char name[NAME_MAX + 1];

		/* a partition made since the last look, mounted or not yet */
		if (fs_devs__partition("/sys", added[i], name, sizeof(name)))
			cli_note("partition %s (%u:%u), new on a traced device: its files are traced "
				 "from now on", name, ma, mi);
		else
			cli_note("file system %u:%u, mounted from a traced device, is traced from now "
				 "on", ma, mi);
	}
	if (err == -E2BIG && !c->fs_devs_full) {
		c->fs_devs_full = true;
		cli_warn("a file system mounted from a traced device is not traced: more than %zu "
			 "partitions and file systems", vfs__fs_devs_max());
	}
	fs = vfs__fs_devs(c->skel, &n);
	err = c->paths ? path_filter__add_mounts(c->paths, "/proc/self/mountinfo", fs, n) : 0;
	if (err)
		cli_warn("--paths does not know the new mounts: %s", strerror(-err));
	took = clock_ns(CLOCK_MONOTONIC) - start;
	mount_gate__looked(&c->mounts, start, took);
}

/*
 * Takes every program off its tracepoint, all at once (detach.h); out of
 * memory for the list, one at a time.
 */
static void detach_all(struct collector *c)
{
	const struct bpf_object_skeleton *sk = c->skel->skeleton;
	struct bpf_link ***slots = calloc((size_t)sk->prog_cnt + c->vfs.n + 1, sizeof(*slots));
	size_t n = 0, i;
	int p;

	/* whatever stays attached a while (below) adds nothing to the trace; no bss before load */
	if (c->skel->bss)
		__atomic_store_n(&c->skel->bss->stopping, IOTRACE_STOP_CLOSED, __ATOMIC_SEQ_CST);
	for (p = 0; slots && p < sk->prog_cnt; p++) {
		const struct bpf_prog_skeleton *ps =
			(const void *)((const char *)sk->progs + (size_t)p * sk->prog_skel_sz);

		if (*ps->link)
			slots[n++] = ps->link;
	}
	/* tp_btf and raw_tp links go at once; before the hand-off, so no helper keeps them */
	detach__links(slots, n);
	for (i = 0; slots && i < c->vfs.n; i++)
		slots[i] = &c->vfs.link[i];
	if (slots)
		detach__hand_off(slots, c->vfs.n);
	free(slots);
	vfs__detach(&c->vfs);
	iotrace__detach(c->skel);
}

/* how a stop's wait for the I/Os in flight ended */
enum stop_wait {
	STOP_WAIT_DONE,		/* every one completed */
	STOP_WAIT_GAVE_UP,	/* the others outlasted the patience */
	STOP_WAIT_MAX,		/* STOP_WAIT_MAX_NS */
	STOP_WAIT_SIGNAL,	/* a second signal */
	STOP_WAIT_CUT,		/* a failed read or write, the size limit */
};

/*
 * Lets the I/Os already in the trace complete before the programs go:
 * without this, those of the last moments (a journal commit, the queue of
 * a busy device) ended the trace without completion. The programs take no
 * new I/O from here on (IOTRACE_STOP_DRAIN), and the wait ends when every
 * I/O of the trace has completed or was given up on
 * (inflight__patience()), after STOP_WAIT_MAX_NS, or at a second signal.
 * Then the programs output nothing more (IOTRACE_STOP_CLOSED) while they
 * are detached. Staged records are output at each look: the wait depends
 * on them.
 */
static enum stop_wait wait_inflight(struct collector *c, volatile sig_atomic_t *stop,
				    uint64_t start)
{
	uint64_t now = start;
	sig_atomic_t signals = *stop;
	bool all_out;

	for (;;) {
		/*
		 * A program that saw no stop may still be outputting: its
		 * records are in once a look, a while after, finds every stage
		 * idle. Where stages cannot be flushed, their records are seen
		 * only at the end, and the wait is for what the rings hold.
		 */
		all_out = intake__flush_stages(c, true) || c->no_stage_flush;
		if (intake__read_round(c, false) || c->write_err || c->size_reached)
			return STOP_WAIT_CUT;
		if (all_out && now - start >= STOP_LOOK_MS * 1000000ull &&
		    !inflight__waiting(&c->open, now, inflight__patience(&c->open, STOP_WAIT_MAX_NS)))
			return inflight__waiting(&c->open, now, now - start + STOP_WAIT_MAX_NS) ?
				STOP_WAIT_GAVE_UP : STOP_WAIT_DONE;
		if (now - start >= STOP_WAIT_MAX_NS)
			return STOP_WAIT_MAX;
		if (*stop != signals)
			return STOP_WAIT_SIGNAL;
		ring_buffer__poll(c->rb, STOP_LOOK_MS);
		now = clock_ns(CLOCK_MONOTONIC);
	}
}

/*
 * A stop that takes a second or more is said, with why: a user who
 * pressed Ctrl+C wants to know what the tracer waits for (a stuck device,
 * a latency long enough to make it patient).
 */
static void say_stop_wait(struct collector *c, enum stop_wait how, uint64_t start)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	double took = (double)(now - start) / 1e9, patience;
	size_t left;

	if (now - start < STOP_SAY_WAIT_NS || how == STOP_WAIT_CUT)
		return;
	/* those submitted within the longest wait before the stop */
	left = inflight__waiting(&c->open, now, now - start + STOP_WAIT_MAX_NS);
	patience = (double)inflight__patience(&c->open, STOP_WAIT_MAX_NS) / 1e9;
	if (how == STOP_WAIT_DONE)
		cli_note("the stop waited %.1f s for the I/Os in flight to complete", took);
	else if (how == STOP_WAIT_GAVE_UP)
		cli_note("the stop waited %.1f s for the I/Os in flight, and gave up on %zu in "
			 "flight for %.1f s (4 times the longest latency seen): in the trace without "
			 "completion",
			 took, left, patience);
	else if (how == STOP_WAIT_MAX)
		cli_note("the stop waited %.1f s, its most, for the I/Os in flight; %zu had not "
			 "completed: in the trace without completion", took, left);
	else
		cli_note("a second signal ended the stop's wait for the I/Os in flight after %.1f s; "
			 "%zu had not completed: in the trace without completion", took, left);
}

static void finish_inflight(struct collector *c, volatile sig_atomic_t *stop)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC);

	__atomic_store_n(&c->skel->bss->stopping, IOTRACE_STOP_DRAIN, __ATOMIC_SEQ_CST);
	/*
	 * Switched off and on (bench_toggle.h), the trace lost completions
	 * at every switch and its programs matched new I/Os to old ones:
	 * the wait would be for nothing, and for up to its maximum.
	 */
	if (!c->toggle_ms)
		say_stop_wait(c, wait_inflight(c, stop, start), start);
	__atomic_store_n(&c->skel->bss->stopping, IOTRACE_STOP_CLOSED, __ATOMIC_SEQ_CST);
}

/* The stages, mapped for reading (the map is BPF_F_MMAPABLE). */
static int map_stages(struct collector *c)
{
	c->stages_size = (size_t)c->ncpus * sizeof(struct iotrace_stage);
	c->stages = mmap(NULL, c->stages_size, PROT_READ, MAP_SHARED,
			 bpf_map__fd(c->skel->maps.stages), 0);
	if (c->stages == MAP_FAILED) {
		c->stages = NULL;
		return -errno;
	}
	c->stage_flushes = calloc((size_t)c->ncpus, sizeof(*c->stage_flushes));
	return c->stage_flushes ? 0 : -ENOMEM;
}

static int open_streams(struct collector *c, const char *dir)
{
	char root[PATH_MAX];
	int i, err;

	c->streams = calloc(c->ncpus, sizeof(*c->streams));
	c->dir = strdup(dir);
	if (!c->streams || !c->dir)
		return set_error(c, -ENOMEM, "out of memory");
	err = cgroup_paths__init(&c->cgroups, dir,
				 trace_filters__cgroup2_root("/proc/self/mounts", root, sizeof(root)));
	if (err)
		return set_error(c, err, "out of memory");
	if (bpf_program__autoload(c->skel->progs.handle_cgroup_rmdir))
		cgroup_paths__watch_removals(&c->cgroups, bpf_map__fd(c->skel->maps.cgroups_gone));
	if (c->cfg->compress) {
		c->zstd = stream_zstd__new(c->cfg->compress_level);
		if (!c->zstd)
			return set_error(c, -errno, "cannot set up zstd level %d: %s",
					 c->cfg->compress_level, strerror(errno));
	}
	/* one stream per CPU online, as Open-CAS iotrace writes; others come with their records */
	for (i = 0; i < c->ncpus; i++) {
		if (i && !c->rings.online[i])
			continue;
		err = intake__open_stream(c, i);
		if (err)
			return set_error(c, err, "cannot create the stream of CPU %d in '%s': %s", i,
					 dir, strerror(-err));
	}
	return 0;
}

static const char *const device_changes[] = {
	[DEVICE_REMOVED] = "was removed",
	[DEVICE_EMPTY] = "lost its medium (a loop device detached, a drive ejected)",
	[DEVICE_NEW_MEDIUM] = "holds a new medium (a loop device attached again, a drive swapped)",
	[DEVICE_MOVED] = "starts elsewhere on its disk (re-partitioned)",
};

/*
 * A traced device removed, emptied or given a new medium is said on
 * stderr and in the summary; the programs leave out the I/O of another
 * medium (other_medium()). Whether any traced device is left.
 */
static bool watch_devices(struct collector *c, struct summary *s, uint64_t since_ns)
{
	size_t i, left = 0;

	for (i = 0; i < c->cfg->ndevs; i++) {
		const struct device_info *d = &c->cfg->devs[i];
		enum device_change change;

		if (c->devs_gone & (1u << i))
			continue;
		change = devices__check("/sys", d);
		if (change == DEVICE_SAME) {
			left++;
			continue;
		}
		c->devs_gone |= 1u << i;
		cli_warn("device %s (%u:%u) %s %.1f s into the trace: %s", d->name,
			 IOTRACE_MAJOR(d->dev), IOTRACE_MINOR(d->dev), device_changes[change],
			 (double)since_ns / 1e9,
			 change == DEVICE_MOVED
				 ? "its I/O from then on is traced as that of the partition described "
				   "at the start"
			 : d->diskseq ? "its I/O from then on is not traced"
				      : "this kernel has no diskseq, so I/O under its number from "
					"then on is traced as the device described at the start");
		if (s->devices_gone[0])
			strncat(s->devices_gone, ",",
				sizeof(s->devices_gone) - strlen(s->devices_gone) - 1);
		strncat(s->devices_gone, d->name,
			sizeof(s->devices_gone) - strlen(s->devices_gone) - 1);
	}
	return left;
}

/*
 * The rings have all been read. Events lost since the last read were
 * lost in the gap between the two: the longest such gap is kept. Gaps
 * without a loss do not count, so a trace that idled between the poll
 * timeouts does not blame them.
 */
static void note_read(struct collector *c)
{
	uint64_t t = clock_ns(CLOCK_MONOTONIC);
	uint64_t lost = __atomic_load_n(&c->skel->bss->lost_total, __ATOMIC_RELAXED);

	if (lost != c->lost_seen && t - c->read_at_ns > c->lossy_gap_ns)
		c->lossy_gap_ns = t - c->read_at_ns;
	c->lost_seen = lost;
	c->read_at_ns = t;
}

/* A rename on a busy journal can wait for its commit, as long as a write */
static int timed_summary_write(struct collector *c, const char *dir, const struct summary *s)
{
	uint64_t t = clock_ns(CLOCK_MONOTONIC);
	int err = summary__write(dir, s);

	t = clock_ns(CLOCK_MONOTONIC) - t;
	if (t > c->longest_write_ns)
		c->longest_write_ns = t;
	return err;
}

const char *collector__skipped_programs(const struct collector *c)
{
	return c->skipped_programs;
}

void collector__stalls(const struct collector *c, uint64_t *lossy_gap_ns, uint64_t *write_ns)
{
	*lossy_gap_ns = c->lossy_gap_ns;
	*write_ns = c->longest_write_ns;
}

/*
 * The per-CPU rings, into the programs' array of rings, and the stages
 * before them. The programs wake the collector only when a ring is a
 * quarter full (ring_out()); the poll loop reads every ring each round,
 * and has waiting stages output, so records still reach the streams
 * within two rounds (POLL_TIMEOUT_MS) when the rate is low.
 */
static int open_rings(struct collector *c)
{
	int i, fd, outer = bpf_map__fd(c->skel->maps.rings);
	/* rounds are read out before they are written (record_intake.c) */
	bool batched = c->paths || c->size_limit;

	c->ring_fds = malloc(c->ncpus * sizeof(*c->ring_fds));
	c->ring_ctx = calloc(c->ncpus, sizeof(*c->ring_ctx));
	if (batched)
		c->batches = calloc(c->ncpus, sizeof(*c->batches));
	if (!c->ring_fds || !c->ring_ctx || (batched && !c->batches))
		return -ENOMEM;
	for (i = 0; i < c->ncpus; i++)
		c->ring_fds[i] = -1;
	for (i = 0; i < c->ncpus; i++) {
		__u32 key = (__u32)i;

		fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "iotrace_ring", 0, 0,
				    (__u32)ring_plan__bytes(&c->rings, i), NULL);
		if (fd < 0)
			return fd;
		c->ring_fds[i] = fd;
		/*
		 * a round brings about what the rings hold at most (one is
		 * read once a quarter full), and fewer bytes once encoded:
		 * twice that is room enough unless the collector fell behind
		 */
		c->batch_margin += 2 * ring_plan__bytes(&c->rings, i);
		if (bpf_map_update_elem(outer, &key, &fd, BPF_ANY))
			return -errno;
		c->ring_ctx[i].c = c;
		c->ring_ctx[i].cpu = i;
		if (!c->rb)
			c->rb = ring_buffer__new(fd, intake__on_ring_record, &c->ring_ctx[i], NULL);
		else if (ring_buffer__add(c->rb, fd, intake__on_ring_record, &c->ring_ctx[i]))
			return -errno;
		if (!c->rb)
			return -errno;
	}
	return map_stages(c);
}

int collector__run(struct collector *c, const char *dir, const char *rel,
		   volatile sig_atomic_t *stop, struct summary *s)
{
	uint64_t start, now, last_flush, last_stages, deadline;
	bool tick;
	int err, werr;

	tdir__init_summary(c, s, rel);
	/*
	 * A summary before any file: a tracer killed while it starts (the
	 * programs' load and attach take a third of a second) leaves a trace
	 * that says it did not finish, not files without one
	 */
	strcpy(s->state, "INITIALIZING");
	err = summary__write(dir, s);
	strcpy(s->state, "RUNNING");
	if (err) {
		set_error(c, err, "cannot write summary in '%s': %s", dir, strerror(-err));
		goto finish;
	}
	err = open_streams(c, dir);
	if (err)
		goto finish;
	tdir__warn_self_traced(c, dir);
	err = tdir__write_descriptions(c, s);
	if (err) {
		set_error(c, err, "cannot write trace: %s", strerror(-err));
		goto finish;
	}

	err = open_rings(c);
	if (err) {
		set_error(c, err, "cannot create per-CPU buffers of %llu KiB (--buffer %llu): %s%s",
			  (unsigned long long)(c->rings.share >> 10),
			  (unsigned long long)c->cfg->buffer_mib, strerror(-err),
			  err == -ENOMEM || err == -EPERM ? " -- try a smaller --buffer or raise RLIMIT_MEMLOCK" : "");
		goto finish;
	}
	/* opened below, once every program that starts with the trace is attached */
	__atomic_store_n(&c->skel->bss->stopping, IOTRACE_STOP_START, __ATOMIC_SEQ_CST);
	err = programs__attach_block(c->skel);
	c->toggle_on = !err;
	if (err) {
		set_error(c, err, "cannot attach to block tracepoints: %s%s", strerror(-err),
			  programs__load_hint(err));
		goto finish;
	}
	if (c->cfg->vfs && !vfs__calls(c->skel)) {
		char why[160];

		err = -ENOENT;
		set_error(c, err, "--vfs needs syscall tracepoints: %s",
			  no_syscalls_why(c, why, sizeof(why)));
		goto finish;
	}
	/* --no-file-events: nothing is ever to attach */
	c->fs_watch = c->cfg->no_file_events;
	err = !c->fs_watch && fs_mounted(c) ? watch_files(c, NULL) : 0;
	if (err) {
		set_error(c, err, "--vfs cannot attach to syscall tracepoints: %s%s",
			  strerror(-err), programs__load_hint(err));
		goto finish;
	}
	__atomic_store_n(&c->skel->bss->stopping, IOTRACE_STOP_NONE, __ATOMIC_SEQ_CST);
	/* the first summary says RUNNING only once the programs are attached */
	err = summary__write(dir, s);
	if (err) {
		set_error(c, err, "cannot write summary in '%s': %s", dir, strerror(-err));
		goto finish;
	}
	c->started = true;
	/* said once tracing runs: a start that fails says its error alone */
	if (c->cfg->vfs && !c->fs_watch)
		cli_note("--vfs: no file system on the traced devices is mounted; calls on their "
			 "files are traced once one is");

	start = now = last_flush = last_stages = clock_ns(CLOCK_MONOTONIC);
	c->read_at_ns = start;
	deadline = c->cfg->time_s ? start + c->cfg->time_s * 1000000000ull : 0;
	/* none while running: the summaries written meanwhile must not claim one */
	s->stop_reason[0] = '\0';
	while (!*stop) {
		int timeout = POLL_TIMEOUT_MS;

		if (c->toggle_ms) {
			err = bench_toggle__step(c->skel, c->toggle_ms, c->toggle_what, &c->toggle_on);
			if (err < 0) {
				set_error(c, err, "cannot attach to block tracepoints again: %s",
					  strerror(-err));
				strcpy(s->stop_reason, "attach error");
				break;
			}
			timeout = err < timeout ? err : timeout;
		}
		timeout = mount_gate__timeout_ms(&c->mounts, clock_ns(CLOCK_MONOTONIC), timeout);
		/* woken or timed out, every ring is read: the wakeups are rare */
		err = wait_records(c, timeout);
		now = clock_ns(CLOCK_MONOTONIC);
		err = ride_out_poll_failure(c, err, now);
		if (err < 0 && err != -EINTR) {
			set_error(c, err, "waiting for records failed for %llu s on end: %s",
				  POLL_FAIL_MAX_NS / 1000000000ull, strerror(-err));
			strcpy(s->stop_reason, "read error");
			break;
		}
		tick = now - last_stages >= POLL_TIMEOUT_MS * 1000000ull;
		if (tick) {
			last_stages = now;
			intake__flush_stages(c, false);
			tdir__take_mark(c);
		}
		follow_mounts(c, now);
		if (err >= 0)
			err = intake__read_round(c, false);
		if (!c->fs_watch)
			watch_unseen(c, tick);
		note_read(c);
		if (err < 0 && err != -EINTR) {
			set_error(c, err, "cannot read the per-CPU buffers: %s", strerror(-err));
			strcpy(s->stop_reason, "read error");
			break;
		}
		err = 0;
		if (c->write_err)
			break;
		if (c->size_reached) {
			strcpy(s->stop_reason, "size limit");
			break;
		}
		if (deadline && now >= deadline) {
			strcpy(s->stop_reason, "time limit");
			break;
		}
		if (now - last_flush >= FLUSH_INTERVAL_NS) {
			last_flush = now;
			if (intake__flush_all(c))
				break;
			if (!watch_devices(c, s, now - start)) {
				cli_warn("no traced device is left; the trace ends");
				strcpy(s->stop_reason, "devices gone");
				break;
			}
			tdir__fill_summary(c, s, start, now);
			tdir__mark_complete(c, s);
			/* -M -R --force took it: writing on into unlinked files serves no one */
			if (timed_summary_write(c, dir, s) == -ENOENT) {
				err = -ENOENT;
				set_error(c, err, "the trace '%s' was removed while recording; stopped",
					  dir);
				strcpy(s->stop_reason, "trace removed");
				break;
			}
		}
	}

	if (*stop && !s->stop_reason[0])
		strcpy(s->stop_reason, "signal");
	/*
	 * A device that went away since the last round (up to a second ago)
	 * would be missing from the final summary's devicesGone otherwise.
	 */
	watch_devices(c, s, clock_ns(CLOCK_MONOTONIC) - start);
	/* stop the programs, then take what is still in the buffers */
	if (!err && !c->write_err && !c->size_reached)
		finish_inflight(c, stop);
	detach_all(c);
	if (!err && !c->write_err) {
		/* the stages' records come last: staged, they were not output */
		intake__read_round(c, true);
		note_read(c);
	}
	/*
	 * Every stream that can still write is flushed, also after another
	 * one failed (space its truncation freed may take more records),
	 * and before the summary counts what is on disk.
	 */
	werr = intake__flush_all(c);
	if (!werr)
		werr = c->write_err;
	tdir__fill_summary(c, s, start, now);
	if (werr && !err) {
		err = werr;
		/* how many: a disk full at the start may have taken none */
		set_error(c, err, "cannot write trace in '%s': %s; stopped, the %llu %s written "
			  "before %s kept", dir, strerror(-err),
			  (unsigned long long)s->traced_events,
			  s->traced_events == 1 ? "event" : "events",
			  s->traced_events == 1 ? "is" : "are");
		strcpy(s->stop_reason, err == -ENOSPC ? "disk full" :
				       err == -EDQUOT ? "disk quota" :
				       err == -EFBIG  ? "file size limit" : "write error");
	}

finish:
	/* the end's summary counts what is in; a mark would only say less */
	s->complete_below_sid = 0;
	strcpy(s->state, err ? "ERROR" : "COMPLETE");
	if (c->streams) {
		int i;

		for (i = 0; i < c->ncpus; i++) {
			if (!c->streams[i] && !c->cfg->compress && c->started)
				tdir__empty_stream(c, i);
			werr = stream_writer__close(c->streams[i]);
			c->streams[i] = NULL;
			(void)werr; /* already reported through intake__flush_all/write_err */
		}
	}
	werr = cgroup_paths__close(&c->cgroups);
	/* a trace stopped by a full disk says so once: its cgroups' file met the same disk */
	if (werr && !err)
		cli_warn("cannot write the paths of the trace's cgroups to '%s/%s': %s; its "
			 "views name some cgroups by id only", dir, CGROUP_NAMES_FILE, strerror(-werr));
	werr = summary__write(dir, s);
	if (werr && !err) {
		err = werr;
		set_error(c, err, "cannot write summary in '%s': %s", dir, strerror(-err));
	}
	return err;
}

void collector__free(struct collector *c)
{
	int i;

	if (!c)
		return;
	ring_buffer__free(c->rb);
	if (c->ring_fds)
		for (i = 0; i < c->ncpus; i++)
			if (c->ring_fds[i] >= 0)
				close(c->ring_fds[i]);
	free(c->ring_fds);
	free(c->ring_ctx);
	ring_plan__free(&c->rings);
	if (c->stages)
		munmap((void *)c->stages, c->stages_size);
	free(c->stage_flushes);
	if (c->batches)
		for (i = 0; i < c->ncpus; i++)
			free(c->batches[i].buf);
	free(c->batches);
	if (c->skel)
		detach_all(c);
	path_filter__free(c->paths);
	inflight__free(&c->open);
	cgroup_paths__close(&c->cgroups);
	if (c->mounts_fd >= 0)
		close(c->mounts_fd);
	iotrace__destroy(c->skel);
	probe__tracefs_unmount(c->tracefs);
	if (c->streams)
		for (i = 0; i < c->ncpus; i++)
			stream_writer__close(c->streams[i]);
	free(c->streams);
	free(c->dir);
	stream_zstd__free(c->zstd);
	free(c);
}
