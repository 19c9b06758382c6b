// SPDX-License-Identifier: BSD-3-Clause
/* iotrace -S|--start-tracing: record block I/O of devices into a new trace. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "cli.h"
#include "collector.h"
#include "devices.h"
#include "path_filter.h"
#include "iotrace_event.h"
#include "stream_writer.h"
#include "summary.h"
#include "trace_store.h"

/* Open-CAS iotrace's: MiB for all CPUs together */
#define DEFAULT_BUFFER_MIB 100
/*
 * Open-CAS iotrace's default limit, so that a trace started without one
 * cannot fill the disk; at about 14 bytes an I/O that is 75 million I/Os
 */
#define DEFAULT_SIZE_MIB 1000
#define MAX_BUFFER_MIB 1024
#define MAX_TIME_S 4294967295ull
#define MAX_SIZE_MIB (1ull << 30)
/*
 * Levels whose cost the collector absorbs at full rate (3: about 65 ns a
 * record more than 1, bench/README), and a gap between reads of the rings
 * too long for a round's work (100 ms rounds)
 */
#define COMPRESS_LEVEL_FAST_MAX 3
#define STALL_LONG_NS 200000000ull

static volatile sig_atomic_t stop_requested;

/* counted: a second signal cuts short the wait for the last completions */
static void on_signal(int sig)
{
	if (stop_requested < 2)
		stop_requested = stop_requested + 1;
}

void cmd_tracing_help(FILE *out)
{
	fputs("Usage: iotrace -S|--start-tracing -d|--devices DEV[,DEV...] [OPTIONS]\n\n"
	      "Trace block I/O on the devices into a new trace in the repository. Runs until\n"
	      "Ctrl+C (SIGINT), SIGTERM, SIGHUP, a limit, or until no traced device is left\n"
	      "(removed, or a loop device detached); then prints the trace summary (JSON).\n\n"
	      "Options:\n"
	      "  -d, --devices DEV[,DEV]  block devices, with or without /dev/ (nvme0n1, /dev/sdb,\n"
	      "                           sda1); partitions allowed; at most 32\n"
	      "  -t, --time SECONDS       stop after this many seconds (1-4294967295)\n"
	      "  -s, --size MiB           stop when the trace reaches this size (1-1073741824;\n"
	      "                           default 1000, as Open-CAS iotrace)\n"
	      "  -b, --buffer MiB         kernel buffers, all CPUs together (1-1024, default 100)\n"
	      "  -l, --label TEXT         free text stored in the summary (at most 4095 bytes)\n"
	      "      --compress zstd|none trace files: zstd (default), octf.trace.<cpu>.zst,\n"
	      "                           about 14 bytes per block I/O; none, octf.trace.<cpu>,\n"
	      "                           Open-CAS's raw OCTF (about 100 bytes per I/O)\n"
	      "      --compress-level N   zstd level (1-19, default 1)\n"
	      "      --dispatch           also record each request's dispatch to the driver:\n"
	      "                           queue and device time per I/O (Q2D, D2C), at the cost\n"
	      "                           of a third record per I/O\n"
	      "      --no-file-events     no Create/Delete/Move events, and renamed files keep\n"
	      "                           their first names: no syscall tracepoint is used, so\n"
	      "                           no system call on the node pays for tracing\n"
	      "      --vfs                also trace system calls on files of the traced devices:\n"
	      "                           read/write families, open, close, fsync, lseek, mmap,\n"
	      "                           ... and io_uring requests (iotrace -P --vfs shows them)\n"
	      "      --pids PID[,PID]     only calls of these processes (in the kernel; --vfs)\n"
	      "      --comm NAME[,NAME]   only calls of tasks with this name (in the kernel; --vfs)\n"
	      "      --cgroup CG[,CG]     only calls of tasks in this cgroup v2 or below it (path\n"
	      "                           under the cgroup2 mount, or id; in the kernel; --vfs). Block I/O\n"
	      "                           is filtered by device only: writeback runs in kernel\n"
	      "                           threads on behalf of every process\n"
	      "      --paths GLOB[,GLOB]  only calls on files whose full path matches (fnmatch,\n"
	      "                           '*' also crosses '/': '/data/run42/*'); in the\n"
	      "                           collector, before anything is written; --vfs\n"
	      "  -H, --help               show this help\n\n"
	      "Needs root (or CAP_SYS_ADMIN) and a kernel with BTF.\n"
	      "Exit status: 0 complete, 1 error, 2 bad command line, 3 events were lost.\n\n"
	      "Examples:\n"
	      "  sudo iotrace --start-tracing --devices nvme0n1\n"
	      "  sudo iotrace -S -d /dev/sdb,sdc1 -t 600 -s 1024 -l 'nightly backup'\n", out);
}

/* root, or the capabilities that loading and attaching tracing programs need */
static bool may_trace(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	uint64_t eff;

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = ((uint64_t)data[1].effective << 32) | data[0].effective;
	if (eff & (1ull << CAP_SYS_ADMIN))
		return true;
	/* CAP_BPF (39) and CAP_PERFMON (38) since Linux 5.8 */
	return (eff & (1ull << 39)) && (eff & (1ull << 38));
}

static int device_error(const struct devices_error *e)
{
	switch (e->err) {
	case -ENODEV:
		cli_err("unknown device '%s': no such block device", e->name);
		return EXIT_USAGE;
	case -ENOTBLK:
		cli_err("'%s' is not a block device", e->name);
		return EXIT_USAGE;
	case -ENOMEDIUM:
		cli_err("device '%s' has no medium (size 0): attach a file to it (losetup), give it "
			"a size (zram) or put one in first",
			e->name);
		return EXIT_USAGE;
	case -EEXIST:
		cli_err("device '%s' given twice (overlaps '%s')", e->name, e->other);
		return EXIT_USAGE;
	case -E2BIG:
		cli_err("too many devices: at most %d", IOTRACE_MAX_DEVICES);
		return EXIT_USAGE;
	default:
		cli_err("invalid --devices list: empty device name");
		return EXIT_USAGE;
	}
}

enum { OPT_VFS = 1000, OPT_PIDS, OPT_COMM, OPT_CGROUP, OPT_PATHS, OPT_COMPRESS, OPT_COMPRESS_LEVEL,
       OPT_DISPATCH, OPT_NO_FILE_EVENTS };

/* --paths: absolute patterns only, the collector matches full paths */
static int check_globs(const char *list)
{
	const char *p = list, *end;
	size_t len, n = 0;

	do {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (!len || p[0] != '/') {
			cli_err("--paths: '%.*s' is not an absolute path pattern (e.g. '/data/run42/*')",
				(int)len, p);
			return EXIT_USAGE;
		}
		if (++n > PATH_FILTER_MAX_GLOBS) {
			cli_err("--paths: at most %d patterns", PATH_FILTER_MAX_GLOBS);
			return EXIT_USAGE;
		}
		p = end + 1;
	} while (end);
	return 0;
}

/*
 * A --pids entry no process has now is kept, for one that starts later
 * (a job's launcher takes the pids in turn), but said: a mistyped pid
 * would otherwise give an empty trace of calls without a word.
 */
static void warn_absent_pids(const struct trace_filters *f)
{
	size_t i;

	for (i = 0; i < f->npids; i++)
		if (kill((pid_t)f->pids[i], 0) && errno == ESRCH)
			cli_warn("--pids %u: no process has that pid now; its calls are traced "
				 "if one takes it", f->pids[i]);
}

/* Returns 0, or the exit status after printing the error. */
static int parse_filter(struct trace_filters *f, int opt, const char *list)
{
	const char *name = opt == OPT_PIDS ? "--pids" : opt == OPT_COMM ? "--comm" : "--cgroup";
	char bad[256], root[PATH_MAX];
	int err;

	if (opt == OPT_PIDS)
		err = trace_filters__parse_pids(f, list, bad, sizeof(bad));
	else if (opt == OPT_COMM)
		err = trace_filters__parse_comms(f, list, bad, sizeof(bad));
	else
		err = trace_filters__parse_cgroups(f, list,
						   trace_filters__cgroup2_root("/proc/self/mounts",
									       root, sizeof(root)),
						   bad, sizeof(bad));
	switch (err) {
	case 0:
		return 0;
	case -E2BIG:
		cli_err("%s: at most %d entries", name, TRACE_FILTER_MAX);
		break;
	case -ENAMETOOLONG:
		cli_err("%s: '%s' is too long (task names have at most 15 bytes)", name, bad);
		break;
	case -ENOENT:
		cli_err("%s: no cgroup '%s' (give a cgroup v2 directory or id)", name, bad);
		break;
	case -ERANGE:
		cli_err("%s: '%s' is not a valid process id", name, bad);
		break;
	default:
		cli_err("%s: invalid value '%s'", name, bad);
		break;
	}
	return EXIT_USAGE;
}

/*
 * Adds an option getopt has taken to the summary's list, by its long
 * name (what the help shows): false once the list is full.
 */
static bool note_option(char *list, size_t size, const struct option *opts, int val,
			const char *arg)
{
	char name[64];

	while (opts->name && opts->val != val)
		opts++;
	if (!opts->name)
		return true;
	snprintf(name, sizeof(name), "--%s", opts->name);
	return cli_append_option(list, size, name, opts->has_arg ? arg : NULL);
}

int cmd_tracing(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "devices", required_argument, NULL, 'd' },
		{ "time", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "label", required_argument, NULL, 'l' },
		{ "vfs", no_argument, NULL, OPT_VFS },
		{ "dispatch", no_argument, NULL, OPT_DISPATCH },
		{ "no-file-events", no_argument, NULL, OPT_NO_FILE_EVENTS },
		{ "pids", required_argument, NULL, OPT_PIDS },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "paths", required_argument, NULL, OPT_PATHS },
		{ "compress", required_argument, NULL, OPT_COMPRESS },
		{ "compress-level", required_argument, NULL, OPT_COMPRESS_LEVEL },
		{ "help", no_argument, NULL, 'H' },
		{},
	};
	static const char shortopts[] = ":d:t:s:b:l:H";
	struct collector_config cfg = {
		.buffer_mib = DEFAULT_BUFFER_MIB,
		.size_mib = DEFAULT_SIZE_MIB,
		.compress = true,
		.compress_level = STREAM_ZSTD_LEVEL_DEFAULT,
	};
	bool have_level = false;
	struct device_info devs[IOTRACE_MAX_DEVICES];
	char dir[PATH_MAX], rel[PATH_MAX], why[PATH_MAX + 64];
	struct store_lock *lock = NULL;
	struct collector *c = NULL;
	struct devices_error derr;
	const char *devlist = NULL;
	unsigned long long v;
	struct sigaction sa = {};
	struct summary s;
	int opt, err, holder, ret = EXIT_ERROR;
	uint64_t seen = 0;
	bool have_filter = false, options_cut = false, help = false;
	char options[sizeof(s.options)] = "";

	optind = 1;
	opterr = 0;
	while ((opt = cli_getopt(argc, argv, shortopts, longopts)) != -1) {
		/* the filters' lists add up */
		if (opt != OPT_PIDS && opt != OPT_COMM && opt != OPT_CGROUP) {
			err = cli_once(longopts, opt, &seen, "-S");
			if (err)
				return err;
		}
		switch (opt) {
		case 'd':
			devlist = optarg;
			break;
		case 't':
			if (cli_parse_u64(optarg, 1, MAX_TIME_S, &v))
				return cli_bad_value("--time", optarg, "seconds, 1-4294967295");
			cfg.time_s = v;
			break;
		case 's':
			if (cli_parse_u64(optarg, 1, MAX_SIZE_MIB, &v))
				return cli_bad_value("--size", optarg, "MiB, 1-1073741824");
			cfg.size_mib = v;
			break;
		case 'b':
			if (cli_parse_u64(optarg, 1, MAX_BUFFER_MIB, &v))
				return cli_bad_value("--buffer", optarg, "MiB for all CPUs, 1-1024");
			cfg.buffer_mib = v;
			break;
		case 'l':
			/* the summary would keep a part of it */
			if (strlen(optarg) > SUMMARY_LABEL_MAX) {
				cli_err("--label is %zu bytes long: at most %d", strlen(optarg),
					SUMMARY_LABEL_MAX);
				return EXIT_USAGE;
			}
			cfg.label = optarg;
			break;
		case OPT_VFS:
			cfg.vfs = true;
			break;
		case OPT_DISPATCH:
			cfg.dispatch = true;
			break;
		case OPT_NO_FILE_EVENTS:
			cfg.no_file_events = true;
			break;
		case OPT_COMPRESS:
			if (strcmp(optarg, "zstd") && strcmp(optarg, "none"))
				return cli_bad_value("--compress", optarg, "zstd or none");
			cfg.compress = !strcmp(optarg, "zstd");
			break;
		case OPT_COMPRESS_LEVEL:
			if (cli_parse_u64(optarg, STREAM_ZSTD_LEVEL_MIN, STREAM_ZSTD_LEVEL_MAX, &v))
				return cli_bad_value("--compress-level", optarg, "a zstd level, 1-19");
			cfg.compress_level = (int)v;
			have_level = true;
			break;
		case OPT_PATHS:
			err = check_globs(optarg);
			if (err)
				return err;
			cfg.paths = optarg;
			have_filter = true;
			break;
		case OPT_PIDS:
		case OPT_COMM:
		case OPT_CGROUP:
			err = parse_filter(&cfg.filters, opt, optarg);
			if (err)
				return err;
			have_filter = true;
			break;
		case 'H':
			help = true;
			break;
		default:
			return cli_option_error(opt, argv, shortopts, longopts, "--start-tracing", "-S");
		}
		if (opt != 'd' && opt != 'l' && !options_cut)
			options_cut = !note_option(options, sizeof(options), longopts, opt, optarg);
	}
	cfg.options = options;
	if (optind < argc) {
		cli_err("unexpected argument '%s' (try 'iotrace -S -H')", argv[optind]);
		return EXIT_USAGE;
	}
	/* help asked for: the other options are not checked against each other */
	if (help) {
		cmd_tracing_help(stdout);
		return EXIT_OK;
	}
	if (have_level && !cfg.compress) {
		cli_err("--compress-level sets zstd's level: it does not go with --compress none");
		return EXIT_USAGE;
	}
	if (cfg.no_file_events && cfg.vfs) {
		cli_err("--vfs records system calls through syscall tracepoints, which "
			"--no-file-events leaves out: choose one");
		return EXIT_USAGE;
	}
	if (have_filter && !cfg.vfs) {
		cli_err("--pids, --comm, --cgroup and --paths select system calls: they need --vfs");
		return EXIT_USAGE;
	}
	if (!devlist) {
		cli_err("--devices is required: which block devices to trace (e.g. --devices nvme0n1)");
		return EXIT_USAGE;
	}
	err = devices__parse_list("/sys", devlist, devs, IOTRACE_MAX_DEVICES, &cfg.ndevs, &derr);
	if (err)
		return device_error(&derr);
	cfg.devs = devs;

	if (!may_trace()) {
		cli_err("tracing needs root (or CAP_SYS_ADMIN): run with sudo");
		return EXIT_ERROR;
	}
	/*
	 * Before the start, which takes a few tenths of a second (loading the
	 * programs): a stop asked for meanwhile ends the trace as soon as it
	 * has begun, instead of being lost (SIGINT ignored, as a script's
	 * background job inherits it) or killing the tracer half-started
	 */
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* a file size limit (ulimit -f) is a write error, with the trace kept, not a kill */
	signal(SIGXFSZ, SIG_IGN);

	err = store__lock(&lock, &holder);
	if (err == -EBUSY) {
		cli_err("another tracer is running (pid %d); stop it first, one tracer at a time", holder);
		return EXIT_ERROR;
	}
	if (err == -EPERM) {
		cli_err("the tracer lock %s is not a plain file of this user's alone (a symbolic "
			"or hard link, or another user's file): not used; remove it",
			store__lock_path());
		return EXIT_ERROR;
	}
	if (err) {
		cli_err("cannot take the tracer lock %s: %s", store__lock_path(), strerror(-err));
		return EXIT_ERROR;
	}

	err = collector__open(&c, &cfg);
	if (err) {
		cli_err("%s", collector__error(c));
		goto cleanup;
	}
	if (*collector__warning(c))
		cli_warn("%s", collector__warning(c));
	warn_absent_pids(&cfg.filters);
	err = store__create_trace(dir, sizeof(dir), rel, sizeof(rel), why, sizeof(why));
	if (err && *why) {
		cli_err("refusing to trace into a repository other users can change: %s "
			"(its files could be swapped for links to files of root's)", why);
		goto cleanup;
	}
	if (err) {
		cli_err("cannot create a trace in the repository: %s", strerror(-err));
		goto cleanup;
	}
	store__lock_set_trace(lock, dir);

	if (isatty(STDERR_FILENO))
		fprintf(stderr, "iotrace: tracing %s into %s; Ctrl+C stops\n", devlist, rel);
	err = collector__run(c, dir, rel, &stop_requested, &s);
	if (err && !collector__started(c)) {
		/* nothing was traced: no trace to list, no summary to print */
		cli_err("%s", collector__error(c));
		/* its descriptors first: out of them (EMFILE) the removal could not read the directory */
		collector__free(c);
		c = NULL;
		if (store__discard_trace(dir))
			cli_warn("cannot remove the empty trace '%s'", dir);
		goto cleanup;
	}
	summary__print(stdout, &s);
	fflush(stdout);
	if (err) {
		cli_err("%s", collector__error(c));
		goto cleanup;
	}
	ret = EXIT_OK;
	if (s.dropped_events) {
		char advice[160] = "try a larger --buffer";
		uint64_t gap, write;

		/* a short gap: rings too small; a long one, the disk if a write was as long, else CPU time */
		collector__stalls(c, &gap, &write);
		/*
		 * the collector compresses as it reads the rings: at a high
		 * level it falls behind at full rate (level 19: seconds-long
		 * gaps of short writes), and a larger buffer only delays that
		 */
		if (cfg.compress && cfg.compress_level > COMPRESS_LEVEL_FAST_MAX &&
		    gap >= STALL_LONG_NS && write * 2 < gap)
			snprintf(advice, sizeof(advice), "the collector did not keep up at "
				 "--compress-level %d, as it compresses what it reads: try a lower level",
				 cfg.compress_level);
		cli_warn("%llu %s lost (per CPU: %s): the buffers overflowed, "
			 "in gaps between reads of up to %.1f ms (the longest write of the trace "
			 "took %.1f ms); %s",
			 (unsigned long long)s.dropped_events,
			 ONE_MANY(s.dropped_events, "event was", "events were"), s.dropped_per_queue,
			 gap / 1e6, write / 1e6, advice);
		ret = EXIT_PARTIAL;
	}
	if (s.skipped_runs) {
		cli_warn("the kernel skipped %llu %s of the tracer's programs (%s), each nested in "
			 "a run of the same program on one CPU: %s (see tags.skippedProgramRuns in "
			 "the README)",
			 (unsigned long long)s.skipped_runs, ONE_MANY(s.skipped_runs, "run", "runs"),
			 collector__skipped_programs(c),
			 ONE_MANY(s.skipped_runs,
				  "its events, if it was for a traced device, are not in the trace",
				  "the events of those that were for traced devices are not in the trace"));
		ret = EXIT_PARTIAL;
	}
	if (s.unresolved_file_events)
		cli_warn("%llu unlink or rename %s on traced file systems %s not resolved to %s "
			 "file: %s Delete or Move %s not in the trace (see tags.unresolvedFileEvents "
			 "in the README)", (unsigned long long)s.unresolved_file_events,
			 ONE_MANY(s.unresolved_file_events, "call", "calls"),
			 ONE_MANY(s.unresolved_file_events, "was", "were"),
			 ONE_MANY(s.unresolved_file_events, "its", "their"),
			 ONE_MANY(s.unresolved_file_events, "its", "their"),
			 ONE_MANY(s.unresolved_file_events, "event is", "events are"));
	if (s.uring_unfollowed)
		cli_warn("%llu %s made through io_uring whose Move, Delete or Create the tracer "
			 "could not send (see tags.uringCallsNotFollowed in the README)",
			 (unsigned long long)s.uring_unfollowed,
			 ONE_MANY(s.uring_unfollowed, "rename, unlink or creating open was",
				  "renames, unlinks or creating opens were"));
	if (s.uring_vfs_missing)
		cli_warn("%llu io_uring %s on traced files %s no --vfs record: %s completion "
			 "found the ring's completion queue full, or more were in flight than the "
			 "tracer holds (see tags.uringVfsRecordsMissing in the README)",
			 (unsigned long long)s.uring_vfs_missing,
			 ONE_MANY(s.uring_vfs_missing, "request", "requests"),
			 ONE_MANY(s.uring_vfs_missing, "has", "have"),
			 ONE_MANY(s.uring_vfs_missing, "its", "their"));
cleanup:
	collector__free(c);
	store__unlock(lock);
	return ret;
}
