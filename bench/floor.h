/* SPDX-License-Identifier: BSD-3-Clause */
/* The floor's counts, one per tracepoint (slots of its hits map). */
#ifndef IOTRACE_BENCH_FLOOR_H
#define IOTRACE_BENCH_FLOOR_H

enum floor_count {
	FLOOR_QUEUE,	/* block_bio_queue */
	FLOOR_ISSUE,	/* block_rq_issue */
	FLOOR_COMPLETE, /* block_rq_complete */
	FLOOR_URING,	/* io_uring_complete (bench/uring-files) */
	FLOOR_NR_COUNTS,
};

#endif
