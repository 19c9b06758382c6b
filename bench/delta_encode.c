// SPDX-License-Identifier: BSD-3-Clause
/*
 * bench/delta_encode: the collector's delta encoder, alone, on the records
 * of an existing trace.
 *
 *   delta_encode [-r ROUNDS] TRACE_DIR
 *
 * Takes every record of every stream of TRACE_DIR (one of iotrace's own,
 * with delta records: they come out of the reader as the fields the
 * collector hands the encoder) into memory, then codes each stream's
 * records ROUNDS times (default 20) with a fresh encoder, as the collector
 * does, through delta__encode_fields(). Prints the CPU time per record, and
 * the bytes and a checksum (FNV-1a) of one round's output: an encoder
 * change that keeps the format must keep both. Each record's output is
 * also decoded again and compared with the record.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "delta.h"
#include "stream.h"
#include "trace.h"

struct record {
	struct delta_split *s;	/* NULL: a verbatim record, msg only */
	uint8_t *msg;
	size_t len;
};

struct records {
	struct record *r;
	size_t n, cap;
	size_t *stream_end;	/* index after each stream's last record */
	size_t nstreams;
};

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
	uint8_t *c = xmalloc(n);

	memcpy(c, p, n);
	return c;
}

/*
 * A copy of rec: its split, with copies of its bytes values, and its
 * message. The split is allocated for its n fields only (the encoder reads
 * no further): 1.5 KiB a record in full would not fit a long trace.
 */
static void keep(struct records *rs, struct stream *s, struct stream_rec *rec)
{
	struct record *r;
	unsigned i;

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 1 << 16;
		rs->r = xrealloc(rs->r, rs->cap * sizeof(*rs->r));
	}
	r = &rs->r[rs->n++];
	r->s = NULL;
	if (rec->split) {
		r->s = xmalloc(offsetof(struct delta_split, f) + rec->split->n * sizeof(r->s->f[0]));
		memcpy(r->s, rec->split,
		       offsetof(struct delta_split, f) + rec->split->n * sizeof(r->s->f[0]));
		for (i = 0; i < r->s->n; i++)
			if (r->s->f[i].p)
				r->s->f[i].p = dup_bytes(r->s->f[i].p, r->s->f[i].v);
	}
	stream__rec_msg(s, rec);
	r->msg = dup_bytes(rec->msg, rec->len);
	r->len = rec->len;
}

/* A stream of delta records starts with their header, outside the zstd frames */
static bool is_delta(const char *path)
{
	uint8_t h[DELTA_STREAM_HEADER_LEN];
	FILE *f = fopen(path, "rb");
	bool yes = f && fread(h, 1, sizeof(h), f) == sizeof(h) && delta__header_version(h);

	if (f)
		fclose(f);
	return yes;
}

/* The decoder gives back each record's message from what the encoder wrote */
static void check_round_trip(const struct records *rs, size_t from, size_t to, const uint8_t *out,
			     size_t olen)
{
	struct delta *d = delta__new();
	const uint8_t *msg;
	size_t pos = 0, len, used, i;

	for (i = from; i < to; i++) {
		if (delta__decode(d, out + pos, olen - pos, &msg, &len, &used) != 1 ||
		    len != rs->r[i].len || memcmp(msg, rs->r[i].msg, len)) {
			fprintf(stderr, "delta_encode: record %zu does not decode to its message\n", i);
			exit(1);
		}
		pos += used;
	}
	delta__free(d);
}

int main(int argc, char **argv)
{
	struct records rs = { 0 };
	unsigned rounds = 20, k;
	uint64_t bytes = 0, hash = 0xcbf29ce484222325ull;
	double t0, cpu = 0;
	struct trace *t;
	uint8_t *out;
	size_t i, j, cap = 0;
	int opt;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r' || atoi(optarg) <= 0)
			goto usage;
		rounds = (unsigned)atoi(optarg);
	}
	if (optind + 1 != argc)
		goto usage;
	t = xtrace_open("delta_encode", argv[optind]);
	rs.nstreams = trace__stream_count(t);
	rs.stream_end = xmalloc(rs.nstreams * sizeof(*rs.stream_end));
	for (i = 0; i < rs.nstreams; i++) {
		struct stream *s = stream__open(stream__path(trace__stream(t, i)));
		struct stream_rec rec;
		int r;

		if (!s) {
			fprintf(stderr, "delta_encode: %s: %s\n", stream__path(trace__stream(t, i)),
				strerror(errno));
			return 1;
		}
		if (!is_delta(stream__path(s))) {
			fprintf(stderr, "delta_encode: %s: not a stream of delta records\n",
				stream__path(s));
			return 1;
		}
		while ((r = stream__next_rec(s, &rec)) == 1)
			keep(&rs, s, &rec);
		if (r < 0) {
			fprintf(stderr, "delta_encode: %s: %s\n", stream__path(s), strerror(-r));
			return 1;
		}
		rs.stream_end[i] = rs.n;
		stream__free(s);
	}
	for (i = 0; i < rs.n; i++)
		cap += DELTA_ENCODED_MAX(rs.r[i].len);
	out = xmalloc(cap);

	for (k = 0; k < rounds; k++) {
		size_t from = 0, o = 0;

		for (j = 0; j < rs.nstreams; j++) {
			struct delta *d = delta__new();
			size_t start = o;

			if (!d)
				return 1;
			t0 = cpu_now();
			/* as the stream writer calls it */
			for (i = from; i < rs.stream_end[j]; i++)
				o += rs.r[i].s ? delta__encode_fields(d, rs.r[i].s, out + o)
					       : delta__encode(d, rs.r[i].msg, rs.r[i].len, out + o);
			cpu += cpu_now() - t0;
			delta__free(d);
			if (!k)
				check_round_trip(&rs, from, rs.stream_end[j], out + start, o - start);
			from = rs.stream_end[j];
		}
		if (!k) {
			bytes = o;
			for (i = 0; i < o; i++)
				hash = (hash ^ out[i]) * 0x100000001b3ull;
		}
	}
	printf("%zu records in %zu streams of %s, %u rounds\n", rs.n, rs.nstreams, argv[optind],
	       rounds);
	printf("%.1f ns/record; %llu bytes a round (%.2f a record), checksum %016llx\n",
	       rs.n ? cpu * 1e9 / ((double)rs.n * rounds) : 0.0, (unsigned long long)bytes,
	       rs.n ? (double)bytes / (double)rs.n : 0.0, (unsigned long long)hash);
	return 0;
usage:
	fprintf(stderr, "usage: delta_encode [-r ROUNDS] TRACE_DIR\n");
	return 2;
}
