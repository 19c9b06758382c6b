// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer target for the trace reader: bytes -> stream files -> reader
 * (sid merge) -> join -> every view. Also checks, for every record the
 * framing finds, that the fast decoder gives what protobuf-c gives.
 *
 * Input: byte 0 selects the streams (1-3, even split of the rest), one
 * thread or two, and the LBA histogram's bucket size; the rest is the
 * streams' bytes (raw framed records, or zstd frames: the reader tells
 * them apart by their first bytes).
 *
 * Built with libFuzzer when IOTRACE_FUZZ is on; tests/fuzz/regression.c
 * replays the corpus through the same function in every test run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "framing.h"
#include "join.h"
#include "reader.h"
#include "trace.h"
#include "view.h"

#define MAX_STREAMS 3

static char dir[64];
static FILE *devnull;

static void cleanup(void)
{
	char path[96];
	int i;

	for (i = 0; i < MAX_STREAMS; i++) {
		snprintf(path, sizeof(path), "%s/octf.trace.%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

static void setup(void)
{
	if (dir[0])
		return;
	strcpy(dir, "/dev/shm/iotrace-fuzz-XXXXXX");
	if (!mkdtemp(dir)) {
		strcpy(dir, "/tmp/iotrace-fuzz-XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	atexit(cleanup);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
}

static void write_stream(int i, const uint8_t *data, size_t len)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "%s/octf.trace.%d", dir, i);
	f = fopen(path, "w");
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f))
		abort();
}

/* Every record framed in data: the fast decoder agrees with protobuf-c. */
static void check_decoder(const uint8_t *data, size_t len)
{
	size_t pos = 0, used;
	uint64_t rlen;

	while (pos < len && framing__get_varint(data + pos, len - pos, &rlen, &used) == 1 &&
	       rlen <= len - pos - used) {
		const uint8_t *msg = data + pos + used;
		struct event fast, slow;
		int rf = decode__event(msg, (size_t)rlen, &fast, EV_ALL);
		int rs = decode__event_slow(msg, (size_t)rlen, &slow);
		enum event_type peeked;

		if (rf != rs)
			abort();
		/* readers skip by the type read without decoding: it must be the decoded one */
		if (!rs && decode__peek_type(msg, (size_t)rlen, &peeked) && peeked != slow.type)
			abort();
		if (!rf && (fast.type != slow.type || fast.sid != slow.sid || fast.ts != slow.ts ||
			    (fast.type == EV_IO &&
			     (fast.io.id != slow.io.id || fast.io.lba != slow.io.lba ||
			      fast.io.len != slow.io.len || fast.io.flags != slow.io.flags ||
			      fast.io.vfs_call != slow.io.vfs_call ||
			      strcmp(fast.io.comm, slow.io.comm))) ||
			    (fast.type == EV_COMPLETION && fast.cpl.ref != slow.cpl.ref) ||
			    (fast.type == EV_FS_META &&
			     (fast.meta.ref != slow.meta.ref || fast.meta.fid.ino != slow.meta.fid.ino ||
			      fast.meta.fid.nsec != slow.meta.fid.nsec))))
			abort();
		if (!rf)
			decode__release(&fast);
		if (!rs)
			decode__release(&slow);
		pos += used + (size_t)rlen;
	}
}

struct views {
	const struct view_ops *ops[18];
	void *v[18];
	size_t n;
};

static void fan_out(void *ctx, const struct io_rec *r)
{
	struct views *vs = ctx;
	size_t i;

	for (i = 0; i < vs->n; i++)
		vs->ops[i]->record(vs->v[i], r);
}

static void fan_out_vfs(void *ctx, const struct vfs_rec *r)
{
	struct views *vs = ctx;
	size_t i;

	for (i = 0; i < vs->n; i++) {
		if (vs->ops[i]->vfs)
			vs->ops[i]->vfs(vs->v[i], r);
	}
}

static void add_view(struct views *vs, const struct view_ops *ops, enum view_format fmt,
		     uint64_t bucket)
{
	struct view_opts o = { .format = fmt, .bucket_size = bucket, .subrange_end = UINT64_MAX };
	void *v = ops->create(devnull, &o);

	if (!v)
		return;
	vs->ops[vs->n] = ops;
	vs->v[vs->n++] = v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct views vs = { .n = 0 };
	struct join_sink sink = { fan_out, &vs, fan_out_vfs };
	unsigned int nstreams, threads;
	const struct event *ev;
	struct reader *r = NULL;
	struct join *j = NULL;
	struct trace *t = NULL;
	uint64_t bucket;
	size_t i, chunk;

	setup();
	if (!size)
		return 0;
	nstreams = 1 + (data[0] & 3) % MAX_STREAMS;
	threads = data[0] & 0x10 ? 2 : 1;
	bucket = 1ull << ((data[0] >> 5) * 4);	/* 1 .. 2^28 sectors */
	data++;
	size--;
	chunk = size / nstreams;
	for (i = 0; i < MAX_STREAMS; i++) {
		size_t off = i * chunk, len = i + 1 == nstreams ? size - off : chunk;

		if (i < nstreams) {
			write_stream((int)i, data + off, len);
			check_decoder(data + off, len);
		} else {
			char path[96];

			snprintf(path, sizeof(path), "%s/octf.trace.%zu", dir, i);
			unlink(path);
		}
	}

	add_view(&vs, &io_view_ops, VIEW_JSON, 1);
	add_view(&vs, &io_view_ops, VIEW_CSV, 1);
	add_view(&vs, &io_view_ops, VIEW_TABLE, 1);
	add_view(&vs, &stats_view_ops, VIEW_JSON, 1);
	add_view(&vs, &stats_view_ops, VIEW_TABLE, 1);
	add_view(&vs, &latency_hist_ops, VIEW_TABLE, 1);
	add_view(&vs, &size_hist_ops, VIEW_CSV, 1);
	add_view(&vs, &qd_hist_ops, VIEW_JSON, 1);
	add_view(&vs, &lba_hist_ops, VIEW_CSV, bucket);
	add_view(&vs, &fs_view_ops, VIEW_TABLE, 1);
	add_view(&vs, &fs_view_ops, VIEW_JSON, 1);
	add_view(&vs, &devices_view_ops, VIEW_CSV, 1);
	add_view(&vs, &vfs_view_ops, VIEW_JSON, 1);
	add_view(&vs, &vfs_view_ops, VIEW_CSV, 1);
	add_view(&vs, &vfs_view_ops, VIEW_TABLE, 1);
	add_view(&vs, &file_stats_view_ops, VIEW_JSON, 1);
	add_view(&vs, &file_stats_view_ops, VIEW_TABLE, 1);
	add_view(&vs, &process_view_ops, VIEW_CSV, 1);

	t = trace__open(dir);
	j = t ? join__new(JOIN_PATHS | JOIN_VFS, &sink) : NULL;
	r = j ? reader__new(t, EV_ALL, threads) : NULL;
	if (r) {
		while (reader__next(r, &ev) == 1) {
			if (join__event(j, ev))
				break;
		}
		join__finish(j);
		for (i = 0; i < vs.n; i++)
			vs.ops[i]->finish(vs.v[i], j);
		/* what a damaged stream reports is there to read */
		for (i = 0; i < reader__error_count(r); i++) {
			if (!reader__error(r, i)->path)
				abort();
		}
	}
	for (i = 0; i < vs.n; i++)
		vs.ops[i]->destroy(vs.v[i]);
	reader__free(r);
	join__free(j);
	trace__free(t);
	clearerr(devnull);
	return 0;
}
