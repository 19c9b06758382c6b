// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
/*
 * The overhead floor: the same tracepoints iotrace uses, with the same
 * in-kernel device filter, but each program only counts. What a traced
 * workload loses with this attached is the price of running BPF on those
 * tracepoints at all; the rest of iotrace's cost (reading the bio, the
 * record, the perf buffer, the collector) is measured against it.
 *
 * Each tracepoint has its own count: where block_rq_complete counts fewer
 * than block_rq_issue for the same I/Os, the kernel ran no program for
 * some completions (on the project's VMs, those in a PID 1 thread's
 * context; README, "--io"), and no BPF tracer can report them.
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "iotrace_event.h"
#include "floor.h"

const volatile __u32 targ_dev = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FLOOR_NR_COUNTS);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&hits, &which);

	if (n)
		(*n)++;
}

static __always_inline bool traced_disk(struct gendisk *disk)
{
	return disk && IOTRACE_MKDEV(disk->major, disk->first_minor) == targ_dev;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(floor_bio_queue, struct bio *bio)
{
	if (traced_disk(bio->bi_bdev->bd_disk))
		count(FLOOR_QUEUE);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(floor_rq_issue, struct request *rq)
{
	if (traced_disk(rq->q->disk))
		count(FLOOR_ISSUE);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(floor_rq_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	if (traced_disk(rq->q->disk))
		count(FLOOR_COMPLETE);
	return 0;
}

/*
 * iotrace's completion program runs on every io_uring completion once a
 * traced device's file system is mounted (bpf/uring.bpf.h): its floor.
 * No block workload of bench/overhead passes it.
 */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(floor_uring_complete, struct io_ring_ctx *rctx, void *req, struct io_uring_cqe *cqe)
{
	count(FLOOR_URING);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
