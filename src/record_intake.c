// SPDX-License-Identifier: BSD-3-Clause
/*
 * Records on their way from the kernel into the trace: out of the per-CPU
 * rings and stages, through --paths, encoded, into the CPU's stream under
 * the size limit. Part of the collector (collector_state.h).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench_toggle.h"
#include "cli.h"
#include "collector_state.h"
#include "encode.h"
#include "fs_devs.h"
#include "iotrace.skel.h"
#include "iotrace_event.h"
#include "path_filter.h"
#include "round_batch.h"
#include "stream_writer.h"
#include "trace_store.h"
#include "vfs_attach.h"

int intake__open_stream(struct collector *c, int cpu)
{
	char path[PATH_MAX];
	struct stream_writer *w;

	snprintf(path, sizeof(path), "%s/%s%d%s", c->dir, STORE_STREAM_PREFIX, cpu,
		 c->zstd ? STORE_ZSTD_SUFFIX : "");
	w = stream_writer__create(path, c->zstd);
	if (!w)
		return -errno;
	stream_writer__time_writes(w, &c->longest_write_ns);
	/* a compressed stream starts with its header */
	c->bytes += stream_writer__size_bound(w);
	c->streams[cpu] = w;
	return 0;
}

/*
 * The stream of a CPU that came online while tracing, at its first
 * record: false if it cannot have one (the size limit counts its header)
 */
static bool late_stream(struct collector *c, int cpu)
{
	int err;

	if (c->size_limit && c->zstd && c->bytes + DELTA_STREAM_HEADER_LEN > c->size_limit) {
		c->size_reached = true;
		return false;
	}
	err = intake__open_stream(c, cpu);
	if (err)
		c->write_err = err;
	return !err;
}

/* msg[0..len), or if msg is NULL the message of s, of at most len bytes */
static int append(struct collector *c, int cpu, const uint8_t *msg, size_t len,
		  const struct delta_split *s)
{
	struct stream_writer *w = c->streams[cpu];
	uint64_t before = 0;
	int err;

	/* only the size limit needs the sum, which takes 4% of the collector's time */
	if (c->size_limit)
		before = stream_writer__size_bound(w);
	err = msg ? stream_writer__append(w, msg, len, c->cur_sid) :
		    stream_writer__append_fields(w, s, len, c->cur_sid);
	if (c->size_limit)
		c->bytes += stream_writer__size_bound(w) - before;
	return err;
}

int intake__append(struct collector *c, int cpu, const uint8_t *msg, size_t len)
{
	return append(c, cpu, msg, len, NULL);
}

/*
 * Whether a len-byte message still fits under the size limit, so that
 * the files never exceed it. Compressed streams count their buffers at
 * zstd's worst case; when that does not fit they are flushed, which turns
 * the worst case into the real, far smaller, size.
 */
static bool fits(struct collector *c, int cpu, size_t len)
{
	int i, err;

	if (c->bytes + stream_writer__append_bound(c->streams[cpu], len) <= c->size_limit)
		return true;
	if (!c->zstd)
		return false;
	err = intake__flush_all(c);
	if (err) {
		c->write_err = err;
		return false;
	}
	c->bytes = 0;
	for (i = 0; i < c->ncpus; i++)
		if (c->streams[i])
			c->bytes += stream_writer__size_bound(c->streams[i]);
	return c->bytes + stream_writer__append_bound(c->streams[cpu], len) <= c->size_limit;
}

/* msg[0..len) (len 0: none), or if msg is NULL the message of s, of at most len bytes */
static void put(struct collector *c, int cpu, const uint8_t *msg, size_t len,
		const struct delta_split *s)
{
	int err;

	if (!len || c->write_err || c->size_reached)
		return;
	if (!c->streams[cpu] && !late_stream(c, cpu))
		return;
	if (c->size_limit && !fits(c, cpu, len)) {
		if (!c->write_err)
			c->size_reached = true;
		return;
	}
	err = append(c, cpu, msg, len, s);
	if (err)
		c->write_err = err;
}

/*
 * A hot event (encode.h): its message buf[0..len) for a raw stream; a
 * compressed one codes its fields s, whose message was not built (len is
 * a bound of its length, worked out only for the size limit).
 */
static inline void put_hot(struct collector *c, int cpu, size_t len, const uint8_t *buf,
			   const struct delta_split *s)
{
	if (!c->zstd)
		put(c, cpu, buf, len, NULL);
	else if (len)
		put(c, cpu, NULL, c->size_limit ? delta__split_len(s) : len, s);
}

/*
 * Whether the syscall programs trace the file system numbered dev: a file
 * of it named before they are attached is worth attaching them for
 * (collector.c); one of a file system they filter out (on a device-mapper
 * volume over a traced disk, say) is not.
 */
static bool fs_listed(const struct collector *c, uint32_t dev)
{
	size_t n;
	const uint32_t *fs = vfs__fs_devs(c->skel, &n);

	return fs_devs__has(fs, n, dev);
}

/*
 * Every record starts with a struct iotrace_event (on_sample() checked
 * the size for it); its type says whether a longer record follows
 * (QUEUE, FILE_NAME). A QUEUE of a regular file becomes two events, io
 * and filesystemMeta, with the two sids the kernel reserved for it.
 */
static void sample(struct collector *c, int cpu, const void *data, uint32_t size)
{
	uint8_t buf[ENCODE_MAX];
	struct delta_split split;
	bool pack = !c->zstd;
	union {
		struct iotrace_event e;
		struct iotrace_queue_event q;
		struct iotrace_name_event n;
		struct iotrace_vfs_event v;
		struct iotrace_fs_event f;
	} r;

	if (c->write_err || c->size_reached)
		return;
	/* perf samples are only 4-byte aligned */
	memcpy(&r.e, data, sizeof(r.e));
	inflight__note(&c->open, &r.e);
	switch (r.e.type) {
	case IOTRACE_EV_QUEUE:
	case IOTRACE_EV_RQ_QUEUE:
		if (size < sizeof(r.q))
			break;
		memcpy(&r.q, data, sizeof(r.q));
		cgroup_paths__note(&c->cgroups, r.q.cgroup);
		put_hot(c, cpu, encode__io(&r.q, &split, buf, pack), buf, &split);
		put_hot(c, cpu, encode__fs_meta(&r.q, &split, buf, pack), buf, &split);
		return;
	case IOTRACE_EV_FILE_NAME:
		if (size < sizeof(r.n))
			return;
		memcpy(&r.n, data, sizeof(r.n));
		if (!c->fs_watch && !c->files_named)
			c->files_named = fs_listed(c, r.n.file.dev);
		put(c, cpu, buf, encode__file_name(&r.n, buf), NULL);
		return;
	case IOTRACE_EV_VFS:
		if (size < sizeof(r.v))
			return;
		memcpy(&r.v, data, sizeof(r.v));
		if (c->paths && !path_filter__match(c->paths, &r.v.file) &&
		    !(r.v.file2.ino && path_filter__match(c->paths, &r.v.file2)))
			return;
		cgroup_paths__note(&c->cgroups, r.v.cgroup);
		put_hot(c, cpu, encode__vfs(&r.v, &split, buf, pack), buf, &split);
		return;
	case IOTRACE_EV_FS:
		if (size < sizeof(r.f))
			return;
		memcpy(&r.f, data, sizeof(r.f));
		if (c->paths && !path_filter__match(c->paths, &r.f.file))
			return;
		put(c, cpu, buf, encode__fs_event(&r.f, buf), NULL);
		return;
	default:
		break;
	}
	put_hot(c, cpu, encode__event(&r.e, &split, buf, pack), buf, &split);
}

/*
 * A record, and where the streams stop holding every event: once the
 * size limit or a write error stops them, at the first record they
 * refuse (or take only a part of: a queue record is two events).
 */
static void on_sample(struct collector *c, int cpu, const void *data, uint32_t size)
{
	uint64_t sid;

	if (size < sizeof(struct iotrace_event))
		return;
	memcpy(&sid, (const char *)data + offsetof(struct iotrace_event, sid), sizeof(sid));
	c->cur_sid = sid;
	sample(c, cpu, data, size);
	if ((c->write_err || c->size_reached) && sid < c->first_refused_sid)
		c->first_refused_sid = sid;
}

/* One record of CPU cpu: written now, or kept for the round's end (round_batch.h). */
static void take_record(struct collector *c, int cpu, const void *data, uint32_t sz)
{
	if (!c->batching)
		on_sample(c, cpu, data, sz);
	else if (batch__push(&c->batches[cpu], data, sz))
		c->write_err = -ENOMEM;
}

/*
 * The records of one batch (iotrace_event.h), each as long as its type
 * says. A record of an unknown type ends the batch: what follows it
 * cannot be found (programs and collector are built together).
 */
static void take_batch(struct collector *c, int cpu, const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (size - off >= sizeof(struct iotrace_event)) {
		const struct iotrace_event *e = (const void *)(data + off);
		uint32_t sz = iotrace_record_size(e->type);

		if (!sz || sz > size - off)
			return;
		take_record(c, cpu, data + off, sz);
		off += sz;
	}
}

int intake__on_ring_record(void *ctx, void *data, size_t size)
{
	struct ring_ctx *rc = ctx;

	/* IOTRACE_BENCH_TOGGLE=collector, in an off window (bench_toggle.h) */
	if (!rc->c->toggle_on && rc->c->toggle_what == BENCH_TOGGLE_COLLECTOR)
		return 0;
	take_batch(rc->c, rc->cpu, data, size);
	return 0;
}

static void write_record(void *ctx, int cpu, const void *rec, uint32_t sz)
{
	on_sample(ctx, cpu, rec, sz);
}

static void learn_link(void *ctx, int cpu, const void *rec, uint32_t sz)
{
	struct collector *c = ctx;
	struct iotrace_name_event n;

	if (sz < sizeof(n) || ((const struct iotrace_event *)rec)->type != IOTRACE_EV_FILE_NAME)
		return;
	memcpy(&n, rec, sizeof(n));
	if (path_filter__add_name(c->paths, &n))
		c->write_err = -ENOMEM;
}

/*
 * --paths judges a VFS or FS record by its file's path, whose links may
 * have come from another CPU: the kernel sends a link once, then marks it
 * sent, and a program on another CPU that sees the mark sends none. That
 * link was in its ring before the mark was set, so before the record that
 * needs it was written: it is among the records of the same round, or an
 * earlier one, but in any ring. So each round is read out first, all its
 * links are learned, and then its records are judged and written, in sid
 * order across CPUs, each CPU's in its order.
 */
static void write_batches(struct collector *c, bool last)
{
	uint64_t upto = UINT64_MAX, sid;
	int cpu, left;

	if (!c->batching)
		return;
	if (c->paths)
		for (cpu = 0; cpu < c->ncpus; cpu++)
			batch__each(&c->batches[cpu], learn_link, c, cpu);
	/*
	 * Near the size limit, up to the oldest of the CPUs' newest records
	 * this round: a CPU whose ring was read early has newer records
	 * still in it, and the limit met past them would refuse those
	 * later, and cut the trace back to there. The rest waits for the
	 * next round, the last round takes all.
	 */
	for (cpu = 0; cpu < c->ncpus && c->near_limit && !last; cpu++)
		if (batch__newest(&c->batches[cpu], &sid) && sid < upto)
			upto = sid;
	left = batch__merge(c->batches, c->ncpus, upto, write_record, c);
	if (left < 0) {
		c->write_err = left;
		batch__clear(c->batches, c->ncpus);
	}
	c->batches_held = left > 0;
}

/* What the stages still hold once the programs are detached: nothing writes to them any more. */
static void drain_stages(struct collector *c)
{
	int cpu;

	for (cpu = 0; cpu < c->ncpus; cpu++) {
		const struct iotrace_stage *st = &c->stages[cpu];

		if (st->len <= sizeof(st->buf))
			take_batch(c, cpu, (const uint8_t *)st->buf, st->len);
	}
}

/*
 * A round is read out before it is written with --paths, and once the
 * room left under the size limit is less than a round may bring: the
 * streams then stop at one sid for all CPUs. Records a quiet CPU's stage
 * held back would come after that sid and move the cut back to theirs:
 * near the limit every stage is output into the round.
 */
static void start_round(struct collector *c, bool stages)
{
	c->near_limit = c->size_limit && c->bytes + c->batch_margin >= c->size_limit;
	/* records kept back from the last round come before the new ones */
	c->batching = c->paths || c->near_limit || c->batches_held;
	if (c->near_limit && !stages && !c->size_reached)
		intake__flush_stages(c, true);
}

int intake__read_round(struct collector *c, bool stages)
{
	int n;

	start_round(c, stages);
	n = ring_buffer__consume(c->rb);
	if (stages)
		drain_stages(c);
	write_batches(c, stages);
	return n < 0 ? n : 0;
}

/*
 * Has each CPU whose stage holds records that waited a whole round (it
 * was not output since the last look), or with all every CPU whose stage
 * holds records, output them, by running flush_stage on that CPU: the
 * records of a quiet CPU then wait at most two rounds, and a busy or idle
 * CPU costs no interrupt. A stage found in use is left to the next round.
 * Without the run-on-CPU test run (refused), records wait until their
 * stage is full or the trace ends. Returns whether every stage it looked
 * at was output (none was in use); a round that also found no offline
 * CPU holding records is counted in clean_stage_rounds.
 */
bool intake__flush_stages(struct collector *c, bool all)
{
	int fd = bpf_program__fd(c->skel->progs.flush_stage), cpu;
	bool done = !c->no_stage_flush, held = false;

	for (cpu = 0; cpu < c->ncpus && !c->no_stage_flush; cpu++) {
		const volatile struct iotrace_stage *st = &c->stages[cpu];
		uint64_t flushes = st->flushes;
		bool waited = flushes == c->stage_flushes[cpu];
		LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = (__u32)cpu);

		c->stage_flushes[cpu] = flushes;
		if (!st->len || !(waited || all))
			continue;
		if (!bpf_prog_test_run_opts(fd, &opts)) {
			done = done && !opts.retval;
		} else if (errno == ENXIO) {
			/* an offline CPU's records wait for it, or for the stop */
			held = true;
		} else {
			cli_warn("cannot have CPU %d output its staged records: %s; from now on a quiet CPU's records reach the trace only when its stage fills or the tracer stops",
				 cpu, strerror(errno));
			c->no_stage_flush = true;
			done = false;
		}
		c->stage_flushes[cpu] = st->flushes;
	}
	if (done && !held)
		c->clean_stage_rounds++;
	return done;
}

int intake__flush_all(struct collector *c)
{
	int i, err, first = 0;

	for (i = 0; i < c->ncpus; i++) {
		err = c->streams[i] ? stream_writer__flush(c->streams[i]) : 0;
		if (err && !first)
			first = err;
	}
	return first;
}
