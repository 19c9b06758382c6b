/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/*
 * How the programs hand records to user space: per-CPU ring buffers,
 * records staged per CPU and output in batches, lost records counted.
 * Part of iotrace.bpf.c (included once, after the globals it uses:
 * next_sid, stopping).
 */
#ifndef IOTRACE_RING_OUT_BPF_H
#define IOTRACE_RING_OUT_BPF_H

/*
 * One BPF ring buffer per CPU, so that each CPU's records go to its own
 * trace file, as upstream's per-CPU queues. User space creates them, of
 * the size of --buffer, and puts them here by CPU number; the size below
 * is only the template's. A record is copied into the ring with one
 * helper call; through a perf event array, perf's own bookkeeping made
 * the three programs of an I/O take 1.65 us instead of 1.09 (bpf_stats,
 * fio random reads at 100k IOPS).
 */
struct ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);	/* set to the number of possible CPUs */
	__type(key, __u32);
	__array(values, struct ring);
} rings SEC(".maps");

/* Each CPU's batch in the making, by CPU number; see iotrace_event.h. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);	/* set to the number of possible CPUs */
	__type(key, __u32);
	__type(value, struct iotrace_stage);
} stages SEC(".maps");

static __always_inline struct iotrace_stage *this_stage(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&stages, &cpu);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iotrace_counters);
} counters SEC(".maps");

/*
 * All CPUs' losses together, which the collector looks at after each
 * read of the rings (mapped, no system call) to learn in which gap
 * between reads events were lost. Shared, but only losing touches it.
 */
__u64 lost_total = 0;

static __always_inline void count_lost(__u64 n)
{
	struct iotrace_counters *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&counters, &zero);
	/* atomic: a program in an interrupt may nest on this CPU's slot */
	if (c)
		__sync_fetch_and_add(&c->lost, n);
	__sync_fetch_and_add(&lost_total, n);
}

/*
 * One ring record of n records. It wakes the collector only once its
 * ring is a quarter full; below that the collector reads the rings on its
 * own timer. A wakeup per record would cost the traced workload several
 * microseconds per I/O. Rings differ in size (ring_plan.h), so the
 * quarter is of this one's. The fill is looked at on each output: with
 * batches that is once per dozens of records.
 */
static __always_inline void ring_out(void *data, __u64 size, __u64 n)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 flags = BPF_RB_NO_WAKEUP;
	void *ring;

	ring = bpf_map_lookup_elem(&rings, &cpu);
	if (ring) {
		if (bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) + size >=
		    bpf_ringbuf_query(ring, BPF_RB_RING_SIZE) / 4)
			flags = BPF_RB_FORCE_WAKEUP;
		if (!bpf_ringbuf_output(ring, data, size, flags))
			return;
	}
	count_lost(n);
}

/* Outputs the staged records; the caller holds the stage (busy). */
static __always_inline void stage_flush(struct iotrace_stage *st)
{
	__u32 len = st->len, n = st->nrec;

	st->len = 0;
	st->nrec = 0;
	st->flushes++;
	if (!len || len > IOTRACE_STAGE_BYTES)
		return;
	ring_out(st->buf, len, n);
}

/*
 * Lets go of the stage. A plain store does: programs run with migration
 * disabled, so only programs on this CPU ever see the stage, in program
 * order; the barrier keeps the compiler from moving the stage's writes
 * past it.
 */
static __always_inline void stage_release(struct iotrace_stage *st)
{
	asm volatile("" ::: "memory");
	st->busy = 0;
}

/*
 * Outputs the staged records, unless a program that this one interrupted
 * is using the stage: false then.
 */
static __always_inline bool stage_try_flush(struct iotrace_stage *st)
{
	if (__sync_lock_test_and_set(&st->busy, 1))
		return false;
	stage_flush(st);
	stage_release(st);
	return true;
}

/* Outputs a record as a ring record of its own, with the sids it takes. */
static __always_inline void output_alone(struct iotrace_event *e, __u64 size, __u64 nsids)
{
	e->sid = __sync_fetch_and_add(&next_sid, nsids) + 1;
	ring_out(e, size, 1);
}

/*
 * Stages a filled, stamped record, after outputting the batch if it has
 * no room. The sid is taken last, once the stage is this program's: a
 * program nested in an interrupt on this CPU meanwhile outputs its record
 * alone, ahead of the staged ones, and a record that waits in the stage
 * is that much out of place in its stream, which the parser's window
 * absorbs. A record that cannot be output still consumes its sid: a gap
 * in sids is a lost record, also counted in counters.lost.
 */
static __always_inline void output_sized(struct iotrace_event *e,
					 __u64 size, __u64 nsids)
{
	struct iotrace_stage *st = this_stage();
	__u32 len;

	if (!st || __sync_lock_test_and_set(&st->busy, 1)) {
		output_alone(e, size, nsids);
		return;
	}
	len = st->len;
	if (len > IOTRACE_STAGE_BYTES - size) {
		stage_flush(st);
		len = 0;
	}
	e->sid = __sync_fetch_and_add(&next_sid, nsids) + 1;
	__builtin_memcpy(&st->buf[len / 8], e, size);
	st->len = len + size;
	st->nrec++;
	stage_release(st);
}

/*
 * Outputs a record at once, after what the stage holds: names, which
 * must be in the ring before the mark that they were sent is set.
 */
static __always_inline void output_now(struct iotrace_event *e, __u64 size)
{
	struct iotrace_stage *st;

	if (stopping == IOTRACE_STOP_CLOSED)
		return;
	st = this_stage();

	if (st)
		stage_try_flush(st);
	output_alone(e, size, 1);
}

static __always_inline void output(struct iotrace_event *e)
{
	output_sized(e, sizeof(*e), 1);
}

/*
 * A record of the block layer's own doing: no task, only the time. Not
 * calling bpf_get_current_pid_tgid() took the completion program from
 * 259 to 246 ns a run (bpf_stats medians of 6 alternated rounds, fio
 * random reads at full rate).
 */
static __always_inline void emit(struct iotrace_event *e)
{
	e->ts = bpf_ktime_get_ns();
	output(e);
}

#endif /* IOTRACE_RING_OUT_BPF_H */
