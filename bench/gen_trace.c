// SPDX-License-Identifier: BSD-3-Clause
/*
 * Writes a synthetic trace for the parser benchmark (bench/parser): N
 * events in S per-CPU streams, in the framing and encoding the collector
 * writes. The mix is a busy file server's: every I/O is an io, a
 * filesystemMeta and a completion; 64 I/Os in flight on one device, bio
 * ids reused from a pool as the kernel reuses bio addresses; 1000 files in
 * 20 directories, named once; latencies spread over 20 us - 5 ms.
 *
 * The trace is as long as asked but its working set is fixed (files,
 * ids, queue depth): a parser whose memory grows with the trace shows it.
 *
 * usage: gen_trace DIR EVENTS [STREAMS]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEV 271581186ull	/* 259:2 */
#define PART 271581186ull
#define QD 64
#define FILES 1000
#define DIRS 20
#define MAX_STREAMS 256

static FILE *streams[MAX_STREAMS];
static unsigned int nstreams;
static uint64_t sid;

static size_t varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* a field: tag then varint; skipped when 0, as protobuf writes proto3 */
static size_t field(uint8_t *p, unsigned int num, uint64_t v)
{
	size_t n;

	if (!v)
		return 0;
	n = varint(p, (uint64_t)num << 3);
	return n + varint(p + n, v);
}

static size_t sub(uint8_t *p, unsigned int num, const uint8_t *body, size_t len)
{
	size_t n = varint(p, (uint64_t)num << 3 | 2);

	n += varint(p + n, len);
	memcpy(p + n, body, len);
	return n + len;
}

/* Writes header + event body (field num) as one framed record, to the stream of its sid. */
static void emit(uint64_t ts, unsigned int num, const uint8_t *body, size_t len)
{
	uint8_t hdr[32], ev[512], out[520];
	size_t h = 0, e = 0, o;

	sid++;
	h += field(hdr + h, 1, sid);
	h += field(hdr + h, 2, ts);
	e += sub(ev + e, 1, hdr, h);
	e += sub(ev + e, num, body, len);
	o = varint(out, e);
	memcpy(out + o, ev, e);
	if (fwrite(out, 1, o + e, streams[sid % nstreams]) != o + e) {
		perror("gen_trace: write");
		exit(1);
	}
}

static size_t file_id(uint8_t *p, uint64_t ino)
{
	uint8_t ts[32], b[64];
	size_t t = 0, n = 0;

	t += field(ts + t, 1, 1593672775);
	t += field(ts + t, 2, 712990641);
	n += field(b + n, 1, PART);
	n += field(b + n, 2, ino);
	n += sub(b + n, 3, ts, t);
	memcpy(p, b, n);
	return n;
}

static void name(uint64_t ino, uint64_t parent, const char *s)
{
	uint8_t a[64], b[64], body[256];
	size_t na = file_id(a, ino), nb = file_id(b, parent), n = 0;

	n += sub(body + n, 1, a, na);
	n += sub(body + n, 2, b, nb);
	n += sub(body + n, 3, (const uint8_t *)s, strlen(s));
	emit(1000, 6, body, n);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	static char buffers[MAX_STREAMS][1 << 16];
	uint64_t events, ts = 1000000, done_ts[QD], ids[QD], file_off[FILES] = { 0 };
	uint8_t body[256], fid[64];
	char path[4096], s[64];
	unsigned int i;
	uint64_t n, k;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: gen_trace DIR EVENTS [STREAMS]\n");
		return 2;
	}
	events = strtoull(argv[2], NULL, 10);
	nstreams = argc > 3 ? (unsigned int)atoi(argv[3]) : 8;
	if (!nstreams || nstreams > MAX_STREAMS || (mkdir(argv[1], 0700) && errno != EEXIST)) {
		fprintf(stderr, "gen_trace: bad arguments or cannot create %s\n", argv[1]);
		return 1;
	}
	for (i = 0; i < nstreams; i++) {
		snprintf(path, sizeof(path), "%s/octf.trace.%u", argv[1], i);
		streams[i] = fopen(path, "w");
		if (!streams[i]) {
			perror(path);
			return 1;
		}
		setvbuf(streams[i], buffers[i], _IOFBF, sizeof(buffers[i]));
	}

	/* one device description per stream, as the collector writes them first */
	for (i = 0; i < nstreams; i++) {
		n = 0;
		n += field(body + n, 1, DEV);
		n += sub(body + n, 2, (const uint8_t *)"nvme0n1", 7);
		n += field(body + n, 3, 732585168);
		n += sub(body + n, 4, (const uint8_t *)"BENCH SSD", 9);
		emit(1000, 3, body, n);
	}
	name(2, 2, "/");
	for (i = 0; i < DIRS; i++) {
		snprintf(s, sizeof(s), "dir%02u", i);
		name(100 + i, 2, s);
	}
	for (i = 0; i < FILES; i++) {
		snprintf(s, sizeof(s), "%06u.%s", i, i % 3 ? "sst" : "log");
		name(1000 + i, 100 + i % DIRS, s);
	}

	for (i = 0; i < QD; i++) {
		done_ts[i] = 0;
		ids[i] = 0xffff888100000000ull + (uint64_t)i * 0x100;
	}
	/*
	 * Each I/O: io, meta, and the completion of the one QD slots back; the
	 * last QD completions close the trace.
	 */
	for (k = 0; sid + 3 + QD <= events; k++) {
		unsigned int slot = (unsigned int)(k % QD), file = (unsigned int)(next_rand() % FILES);
		uint64_t len = 8u << (next_rand() % 6), lba = 1000000 + file * 100000ull +
							     file_off[file] % 90000;

		if (k >= QD) {
			n = 0;
			n += field(body + n, 4, DEV);
			n += field(body + n, 5, ids[slot]);
			emit(done_ts[slot], 5, body, n);
		}
		ts += 10000;
		n = 0;
		n += field(body + n, 1, lba);
		n += field(body + n, 2, len);
		n += field(body + n, 3, 19);
		n += field(body + n, 4, DEV);
		n += field(body + n, 5, 2);
		n += field(body + n, 9, ids[slot]);
		emit(ts, 2, body, n);
		n = 0;
		n += field(body + n, 1, ids[slot]);
		n += sub(body + n, 2, fid, file_id(fid, 1000 + file));
		n += field(body + n, 3, file_off[file]);
		n += field(body + n, 4, file_off[file] + len);
		emit(ts, 4, body, n);
		file_off[file] += len;
		done_ts[slot] = ts + 20000 + next_rand() % 5000000;
	}
	for (i = 0; i < QD && i < k; i++) {
		unsigned int slot = (unsigned int)((k + i) % QD);

		n = 0;
		n += field(body + n, 4, DEV);
		n += field(body + n, 5, ids[slot]);
		emit(done_ts[slot], 5, body, n);
	}

	for (i = 0; i < nstreams; i++) {
		if (fclose(streams[i])) {
			perror("gen_trace: close");
			return 1;
		}
	}
	snprintf(path, sizeof(path), "%s/octf.summary", argv[1]);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "{\n \"tracePath\": \"bench\",\n \"state\": \"COMPLETE\",\n"
		   " \"tracedEvents\": \"%llu\",\n \"droppedEvents\": \"0\",\n"
		   " \"queueCount\": \"%u\",\n \"version\": 1\n}\n",
		(unsigned long long)sid, nstreams);
	fclose(f);
	printf("%llu events in %u streams\n", (unsigned long long)sid, nstreams);
	return 0;
}
