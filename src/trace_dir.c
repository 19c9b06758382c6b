// SPDX-License-Identifier: BSD-3-Clause
/*
 * What the collector writes into the trace directory besides the
 * records: the device descriptions that open stream 0, the summary's
 * figures, and the empty streams Open-CAS tools expect. Part of the
 * collector (collector_state.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli.h"
#include "clock_ns.h"
#include "collector_state.h"
#include "devices.h"
#include "encode.h"
#include "fs_devs.h"
#include "iotrace.skel.h"
#include "iotrace_event.h"
#include "not_followed.h"
#include "prog_misses.h"
#include "stream_writer.h"
#include "summary.h"
#include "trace_store.h"
#include "vfs_attach.h"

/* Records lost per CPU: the programs count the records their ring refused. */
static uint64_t count_dropped(struct collector *c, char *per_queue, size_t size)
{
	struct iotrace_counters *vals;
	uint64_t total = 0, lost;
	size_t off = 0;
	__u32 key = 0;
	int i, fd;

	vals = calloc(c->ncpus, sizeof(*vals));
	fd = bpf_map__fd(c->skel->maps.counters);
	if (vals && bpf_map_lookup_elem(fd, &key, vals))
		memset(vals, 0, c->ncpus * sizeof(*vals));
	for (i = 0; i < c->ncpus; i++) {
		lost = vals ? vals[i].lost : 0;
		total += lost;
		if (per_queue && off < size)
			off += snprintf(per_queue + off, size - off, "%s%llu", i ? "," : "",
					(unsigned long long)lost);
	}
	free(vals);
	return total;
}

/*
 * The partitions of a traced disk: a file system on one names it as its
 * device (vfs events, FileIds), so readers need its name and size too.
 */
static int describe_partitions(struct collector *c, const struct device_info *disk,
			       uint64_t *sid, uint64_t ts)
{
	char names[IOTRACE_MAX_DEVICES][DEVICE_NAME_MAX];
	uint32_t devs[IOTRACE_MAX_DEVICES];
	uint8_t buf[ENCODE_MAX];
	struct device_info part;
	size_t i, n = 0;
	int err;

	/* a disk with more partitions still traces; the rest go undescribed */
	devices__partitions("/sys", disk->name, devs, names, IOTRACE_MAX_DEVICES, &n);
	for (i = 0; i < n; i++) {
		if (devices__resolve("/sys", names[i], &part))
			continue;
		err = intake__append(c, 0, buf, encode__device(&part, ++*sid, ts, buf));
		if (err)
			return err;
	}
	return 0;
}

/* Device descriptions take sids 1..n in stream 0, before any kernel event. */
int tdir__write_descriptions(struct collector *c, struct summary *s)
{
	uint64_t ts = clock_ns(CLOCK_MONOTONIC), sid = 0, real = clock_ns(CLOCK_REALTIME);
	uint64_t after = clock_ns(CLOCK_MONOTONIC);
	uint8_t buf[ENCODE_MAX];
	size_t i, len;
	int err;

	/* the clocks read as one moment: the realtime read halfway between the two */
	ts += (after - ts) / 2;
	s->timestamp_origin_ns = (int64_t)real;
	s->timestamp_origin_clock_ns = ts;

	for (i = 0; i < c->cfg->ndevs; i++) {
		const struct device_info *d = &c->cfg->devs[i];
		struct device_info disk;
		size_t k;

		/* a partition's I/O carries its disk's id: describe the disk too, once */
		for (k = 0; k < i && c->cfg->devs[k].disk_dev != d->disk_dev; k++)
			;
		if (d->is_partition && k == i) {
			/* its own size and model; the partition's if it went meanwhile */
			if (devices__resolve("/sys", d->disk_name, &disk) || disk.dev != d->disk_dev) {
				disk = *d;
				snprintf(disk.name, sizeof(disk.name), "%s", d->disk_name);
				disk.dev = d->disk_dev;
				disk.is_partition = false;
				disk.size = 0;
			}
			len = encode__device(&disk, ++sid, ts, buf);
			err = intake__append(c, 0, buf, len);
			if (err)
				return err;
		}
		len = encode__device(d, ++sid, ts, buf);
		err = intake__append(c, 0, buf, len);
		if (err)
			return err;
		if (!d->is_partition) {
			err = describe_partitions(c, d, &sid, ts);
			if (err)
				return err;
		}
	}
	c->skel->data_ids->next_sid = sid;
	return 0;
}

/*
 * tags.notFollowed: what the kernel gave the programs no way to follow,
 * and the file systems past their list, which one mounted while tracing
 * can add (fs_devs_full; with --no-file-events no file system is watched)
 */
static void tag_not_followed(const struct collector *c, struct summary *s)
{
	unsigned int nf = c->not_followed;

	if (c->fs_devs_full && !c->cfg->no_file_events)
		nf |= NF_FS_OVER_LIMIT;
	not_followed__tag(nf, s->not_followed, sizeof(s->not_followed));
}

/*
 * Counts what is on disk: the summary never claims events a full disk
 * refused. The duration is the time traced, start_ns to end_ns: a stop
 * asked for at 8 s says 8, however long the stop itself then takes
 * (closing the system calls' tracepoints can take seconds).
 */
void tdir__fill_summary(struct collector *c, struct summary *s, uint64_t start_ns,
			uint64_t end_ns)
{
	uint64_t bytes = 0, records = 0;
	int i;

	for (i = 0; i < c->ncpus; i++) {
		struct stream_writer *w = c->streams[i];

		if (!w)
			continue;
		bytes += stream_writer__bytes_written(w);
		records += stream_writer__records_written(w);
		/* a failed write lost (a part of) its buffer: the files lack those events too */
		if (stream_writer__error(w) && stream_writer__unwritten_sid(w) < c->first_refused_sid)
			c->first_refused_sid = stream_writer__unwritten_sid(w);
	}
	s->duration_s = (end_ns - start_ns) / 1000000000ull;
	s->size_mib = (bytes + (1u << 20) - 1) >> 20;
	s->traced_events = records;
	s->dropped_events = count_dropped(c, s->dropped_per_queue, sizeof(s->dropped_per_queue));
	s->unresolved_file_events = c->skel->bss->ns_unresolved;
	s->uring_unfollowed = c->skel->bss->uring_unfollowed;
	s->uring_vfs_missing = c->skel->bss->uring_vfs_missing;
	s->skipped_runs = prog_misses__read(c->skel->obj, c->skipped_programs,
					    sizeof(c->skipped_programs));
	tag_not_followed(c, s);
	s->incomplete = c->first_refused_sid != UINT64_MAX;
	s->incomplete_from_sid = c->first_refused_sid;
}

/*
 * A record takes its sid in the kernel and waits in its CPU's stage until
 * the stage fills or the collector has it output: two clean rounds
 * (intake__flush_stages()) after a mark, every record that had its sid
 * by then is out, and was read from the ring in its round; the flush
 * before tdir__mark_complete() wrote it. Records on their way in (a
 * program between its sid and its record when the mark is taken) are
 * microseconds behind; two rounds are 200 ms. A size limit or a failed
 * write may have kept some out: the mark stays below those.
 */
void tdir__take_mark(struct collector *c)
{
	unsigned int i = c->next_mark++ % (sizeof(c->marks) / sizeof(c->marks[0]));

	c->marks[i].sid = __atomic_load_n(&c->skel->data_ids->next_sid, __ATOMIC_ACQUIRE);
	c->marks[i].rounds = c->clean_stage_rounds;
}

void tdir__mark_complete(const struct collector *c, struct summary *s)
{
	uint64_t below = s->complete_below_sid;
	size_t i;

	if (c->no_stage_flush)
		return;
	for (i = 0; i < sizeof(c->marks) / sizeof(c->marks[0]); i++) {
		if (c->marks[i].sid && c->clean_stage_rounds - c->marks[i].rounds >= 2 &&
		    c->marks[i].sid + 1 > below)
			below = c->marks[i].sid + 1;
	}
	s->complete_below_sid = below < c->first_refused_sid ? below : c->first_refused_sid;
}

/*
 * An empty octf.trace.<cpu> for a CPU that had no record: Open-CAS opens
 * octf.trace.0 .. queueCount - 1 and gives up at a missing one, so a raw
 * trace has them all, as Open-CAS's own do.
 */
void tdir__empty_stream(const struct collector *c, int cpu)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s%d", c->dir, STORE_STREAM_PREFIX, cpu);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	else if (errno != EEXIST)
		cli_warn("cannot create the empty stream of CPU %d (%s): Open-CAS tools will not open "
			 "this trace", cpu, strerror(errno));
}

void tdir__init_summary(struct collector *c, struct summary *s, const char *rel)
{
	time_t now = time(NULL);
	struct tm tm;
	size_t i, off = 0;

	memset(s, 0, sizeof(*s));
	snprintf(s->trace_path, sizeof(s->trace_path), "%s", rel);
	strcpy(s->state, "RUNNING");
	localtime_r(&now, &tm);
	strftime(s->start, sizeof(s->start), "%Y-%m-%d %H:%M", &tm);
	s->queue_count = (uint64_t)c->ncpus;
	s->version = SUMMARY_VERSION;
	snprintf(s->label, sizeof(s->label), "%s", c->cfg->label ? c->cfg->label : "");
	snprintf(s->tool_version, sizeof(s->tool_version), "%s", IOTRACE_VERSION);
	snprintf(s->options, sizeof(s->options), "%s", c->cfg->options ? c->cfg->options : "");
	s->size_limit_mib = c->cfg->size_mib;
	tag_not_followed(c, s);
	for (i = 0; i < c->cfg->ndevs && off < sizeof(s->devices); i++)
		off += snprintf(s->devices + off, sizeof(s->devices) - off, "%s%s", i ? "," : "",
				c->cfg->devs[i].name);
}

/*
 * Not refused: on a node with one disk the repository is on the disk a
 * user traces. The tracer's block I/O is the device's load like any
 * other, so it stays in the trace (its system calls and file events do
 * not: bpf/pid_ns.bpf.h, self_tgid); the user is told what it is.
 */
void tdir__warn_self_traced(const struct collector *c, const char *dir)
{
	char name[NAME_MAX + 1] = "";
	const uint32_t *fs;
	uint32_t dev;
	size_t n, i;

	fs = vfs__fs_devs(c->skel, &n);
	if (fs_devs__of_path("/proc/self/mountinfo", dir, &dev) || !fs_devs__has(fs, n, dev))
		return;
	for (i = 0; i < c->cfg->ndevs && !name[0]; i++)
		if (c->cfg->devs[i].dev == dev)
			snprintf(name, sizeof(name), "%s", c->cfg->devs[i].name);
	if (!name[0])
		fs_devs__partition("/sys", dev, name, sizeof(name));
	cli_warn("the trace is written to %s%s%s: its own block I/O is in it, the streams' and "
		 "the summary's, which is rewritten every second; a repository on another device "
		 "leaves it out (IOTRACE_TRACE_DIR, iotrace -C --set-trace-repository-path)",
		 name[0] ? "a traced device (" : "a file system of a traced device", name,
		 name[0] ? ")" : "");
}
