// SPDX-License-Identifier: BSD-3-Clause
/*
 * bench/intake: the collector's user-space path alone, on kernel records
 * rebuilt from an existing trace.
 *
 *   intake [-r ROUNDS] [-l LEVEL] [-o DIR] TRACE_DIR
 *
 * Takes every block I/O record of TRACE_DIR (one of iotrace's own traces,
 * compressed or not) back into the kernel's record form (iotrace_event.h):
 * an io and its filesystemMeta become one QUEUE record, a completion, split
 * or dispatch one record each; the other records (device descriptions,
 * file names, VFS and file system events) are left out, and counted.
 * Then, ROUNDS times (default 10), it hands them to the collector's intake
 * (intake__on_ring_record()) as the rings would, in batches of up to one
 * stage (IOTRACE_STAGE_BYTES) per CPU in turn, with a stream per CPU of the
 * trace written to a fresh directory under DIR (default /dev/shm) at zstd
 * level LEVEL (default 1; 0: --compress none), and flushes and closes the
 * streams: in-flight map, OCTF and delta encoding, zstd and the write(2)s.
 * Prints the CPU time per record without fio's noise around it, and the
 * bytes written and a checksum (FNV-1a) of the messages the parser reads
 * back from them: a collector change that keeps the trace must keep the
 * checksum (the bytes move with where frames end).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "collector_state.h"
#include "delta.h"
#include "iotrace_event.h"
#include "stream.h"
#include "stream_writer.h"
#include "trace.h"

/* One CPU's kernel records, back to back as a ring holds them */
struct cpu_recs {
	uint8_t *buf;
	size_t used, cap, n;
};

/* Event's body field numbers (proto/trace.proto) */
enum { T_IO = 2, T_FS_META = 4, T_COMPLETION = 5, T_SPLIT = 20, T_DISPATCH = 21 };

static uint64_t num(const struct delta_split *s, uint32_t field)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (s->f[i].field == field && !s->f[i].p)
			return s->f[i].v;
	return 0;
}

static const struct delta_field *bytes(const struct delta_split *s, uint32_t field)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (s->f[i].field == field && s->f[i].p)
			return &s->f[i];
	return NULL;
}

static void *add(struct cpu_recs *c, uint32_t type)
{
	uint32_t sz = iotrace_record_size(type);
	void *r;

	if (c->used + sz > c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1 << 20;
		c->buf = xrealloc(c->buf, c->cap);
	}
	r = c->buf + c->used;
	memset(r, 0, sz);
	c->used += sz;
	c->n++;
	return r;
}

static void header(struct iotrace_event *e, const struct delta_split *s, uint32_t type)
{
	e->sid = s->sid;
	e->ts = s->ts;
	e->type = (uint8_t)type;
}

/* The varints of a FileId (and its Timestamp) into f */
static void file_id(struct iotrace_file_id *f, const uint8_t *p, const uint8_t *end, bool in_ts)
{
	while (p < end) {
		uint64_t tag = 0, v = 0;
		unsigned sh;

		for (sh = 0; p < end; sh += 7) {
			tag |= (uint64_t)(*p & 0x7f) << sh;
			if (!(*p++ & 0x80))
				break;
		}
		for (sh = 0; p < end; sh += 7) {
			v |= (uint64_t)(*p & 0x7f) << sh;
			if (!(*p++ & 0x80))
				break;
		}
		if ((tag & 7) == 2) {
			if (!in_ts && tag >> 3 == 3 && v <= (uint64_t)(end - p))
				file_id(f, p, p + v, true);
			p += v < (uint64_t)(end - p) ? v : (uint64_t)(end - p);
			continue;
		}
		if (in_ts && tag >> 3 == 1)
			f->ctime_sec = (int64_t)v;
		else if (in_ts && tag >> 3 == 2)
			f->ctime_nsec = (uint32_t)v;
		else if (tag >> 3 == 1)
			f->dev = (uint32_t)v;
		else if (tag >> 3 == 2)
			f->ino = v;
	}
}

/* The inverse of encode__io(): fields, flags and op from the io's message fields */
static void queue_record(struct cpu_recs *c, const struct delta_split *s)
{
	struct iotrace_queue_event *q = add(c, num(s, 24) ? IOTRACE_EV_RQ_QUEUE : IOTRACE_EV_QUEUE);
	const struct delta_field *comm = bytes(s, 29);
	uint64_t op = num(s, 5), ioclass = num(s, 3);

	header(&q->io, s, num(s, 24) ? IOTRACE_EV_RQ_QUEUE : IOTRACE_EV_QUEUE);
	q->io.sector = num(s, 1);
	q->io.nr_sector = (uint32_t)num(s, 2);
	q->io.dev = (uint32_t)num(s, 4);
	q->io.op = num(s, 25)	 ? IOTRACE_OP_WRITE_ZEROES
		   : op == 1	 ? IOTRACE_OP_READ
		   : op == 3	 ? IOTRACE_OP_DISCARD
		   : op == 2	 ? IOTRACE_OP_WRITE
				 : IOTRACE_OP_OTHER;
	q->io.flags = (uint16_t)((num(s, 6) ? IOTRACE_F_PREFLUSH : 0) |
				 (num(s, 7) ? IOTRACE_F_FUA : 0) | (num(s, 21) ? IOTRACE_F_SYNC : 0) |
				 (num(s, 22) ? IOTRACE_F_META : 0) |
				 (num(s, 23) ? IOTRACE_F_RAHEAD : 0) |
				 (num(s, 30) ? IOTRACE_F_DIRECT : 0));
	q->io.write_hint = (uint8_t)num(s, 8);
	q->io.id = num(s, 9);
	q->io.part = (uint32_t)num(s, 20);
	q->io.pid = (uint32_t)num(s, 26);
	q->io.tid = (uint32_t)num(s, 27);
	q->cgroup = num(s, 28);
	if (comm)
		memcpy(q->comm, comm->p, comm->v < IOTRACE_COMM_LEN ? comm->v : IOTRACE_COMM_LEN);
	q->vfs_call = num(s, 31);
	/* a regular file's class is set again by its filesystemMeta */
	q->file_kind = ioclass == 7 ? IOTRACE_FILE_DIR : ioclass == 23 ? IOTRACE_FILE_OTHER
						    : ioclass == 1 ? IOTRACE_FILE_BDEV
								   : IOTRACE_FILE_NONE;
}

/* The filesystemMeta of the QUEUE record just added, if it is that io's */
static bool fs_meta(struct cpu_recs *c, size_t last, const struct delta_split *s)
{
	struct iotrace_queue_event *q = (void *)(c->buf + last);
	const struct delta_field *fid = bytes(s, 2);

	if (c->used - last != sizeof(*q) || q->io.type != IOTRACE_EV_QUEUE || num(s, 1) != q->io.id ||
	    s->sid != q->io.sid + 1 || !fid)
		return false;
	q->file_kind = IOTRACE_FILE_REG;
	file_id(&q->file, fid->p, fid->p + fid->v, false);
	q->file_offset = num(s, 3);
	q->file_size = num(s, 4);
	return true;
}

static void event_record(struct cpu_recs *c, const struct delta_split *s)
{
	struct iotrace_event *e;

	switch (s->type) {
	case T_COMPLETION:
		e = add(c, IOTRACE_EV_COMPLETE);
		header(e, s, IOTRACE_EV_COMPLETE);
		e->sector = num(s, 1);
		e->nr_sector = (uint32_t)num(s, 2);
		e->dev = (uint32_t)num(s, 4);
		e->id = num(s, 5);
		e->error = (int16_t)num(s, 20);
		break;
	case T_SPLIT:
		e = add(c, IOTRACE_EV_SPLIT);
		header(e, s, IOTRACE_EV_SPLIT);
		e->id = num(s, 1);
		e->ref = num(s, 2);
		e->dev = (uint32_t)num(s, 3);
		e->sector = num(s, 4);
		e->nr_sector = (uint32_t)num(s, 5);
		e->aux64 = num(s, 6);
		break;
	case T_DISPATCH:
		e = add(c, IOTRACE_EV_ISSUE);
		header(e, s, IOTRACE_EV_ISSUE);
		e->id = num(s, 1);
		e->dev = (uint32_t)num(s, 2);
		e->sector = num(s, 3);
		e->nr_sector = (uint32_t)num(s, 4);
		e->aux = (uint32_t)num(s, 5);
		e->ref = num(s, 6);
		break;
	default:
		break;
	}
}

/*
 * The records of one stream of the trace. Splits are what a stream of
 * delta records gives; other streams' messages are read as the
 * compressed form would give them, by coding and decoding each.
 */
static bool load_stream(struct stream *st, struct cpu_recs *c, size_t *skipped)
{
	struct delta *enc = delta__new(), *dec = delta__new();
	uint8_t *coded = xmalloc(DELTA_ENCODED_MAX(FRAMING_RECORD_MAX));
	struct delta_split split;
	struct stream_rec rec;
	size_t last = (size_t)-1;
	int r;

	if (!enc || !dec)
		return false;
	while ((r = stream__next_rec(st, &rec)) == 1) {
		const struct delta_split *s = rec.split;
		size_t n, used, before = c->used;
		const uint8_t *msg;

		if (!s) {
			n = delta__encode(enc, rec.msg, rec.len, coded);
			if (delta__decode_split(dec, coded, n, &split, &msg, &n, &used) != DELTA_FIELDS) {
				++*skipped;
				continue;
			}
			s = &split;
		}
		if (s->type == T_IO) {
			queue_record(c, s);
			last = before;
		} else if (s->type == T_FS_META) {
			if (last == (size_t)-1 || !fs_meta(c, last, s))
				++*skipped;
		} else {
			event_record(c, s);
			if (c->used == before)
				++*skipped;
		}
	}
	delta__free(enc);
	delta__free(dec);
	free(coded);
	if (r < 0)
		fprintf(stderr, "intake: %s: %s\n", stream__path(st), strerror(-r));
	return r == 0;
}

/* Feeds every CPU's records to the intake, a stage at a time, CPUs in turn */
static void feed(struct collector *c, const struct cpu_recs *cpus)
{
	size_t *off = xcalloc((size_t)c->ncpus, sizeof(*off));
	bool more = true;
	int i;

	while (more) {
		more = false;
		for (i = 0; i < c->ncpus; i++) {
			const struct cpu_recs *cr = &cpus[i];
			struct ring_ctx rc = { .c = c, .cpu = i };
			size_t end = off[i];

			while (end < cr->used) {
				uint32_t sz = iotrace_record_size(
					((const struct iotrace_event *)(cr->buf + end))->type);

				if (end + sz - off[i] > IOTRACE_STAGE_BYTES)
					break;
				end += sz;
			}
			if (end == off[i])
				continue;
			intake__on_ring_record(&rc, cr->buf + off[i], end - off[i]);
			off[i] = end;
			more = true;
		}
	}
	free(off);
}

/* Messages read back from the streams: their count, and their FNV-1a into *hash */
static uint64_t read_back(const char dir[4000], int ncpus, uint64_t *hash, uint64_t *bytes)
{
	uint64_t n = 0;
	char path[4096];
	int i;

	for (i = 0; i < ncpus; i++) {
		struct stream *st;
		const uint8_t *msg;
		struct stat sb;
		size_t len, k;
		int r;

		snprintf(path, sizeof(path), "%s/octf.trace.%d", dir, i);
		st = stream__open(path);
		if (!st || stat(path, &sb)) {
			fprintf(stderr, "intake: %s: %s\n", path, strerror(errno));
			exit(1);
		}
		*bytes += (uint64_t)sb.st_size;
		while ((r = stream__next(st, &msg, &len)) == 1) {
			for (k = 0; k < len; k++)
				*hash = (*hash ^ msg[k]) * 0x100000001b3ull;
			n++;
		}
		if (r < 0) {
			fprintf(stderr, "intake: %s: %s\n", path, strerror(-r));
			exit(1);
		}
		stream__free(st);
	}
	return n;
}

static void remove_streams(const char dir[4000], int ncpus)
{
	char path[4096];
	int i;

	for (i = 0; i < ncpus; i++) {
		snprintf(path, sizeof(path), "%s/octf.trace.%d", dir, i);
		unlink(path);
	}
}

/* One round: fresh streams in dir, every record through the intake; its CPU seconds */
static double run_round(const struct cpu_recs *cpus, int ncpus, int level, const char dir[4000])
{
	struct collector c = { .ncpus = ncpus };
	char path[4096];
	double t0;
	int i, err = 0;

	c.streams = xcalloc((size_t)ncpus, sizeof(*c.streams));
	if (level && !(c.zstd = stream_zstd__new(level))) {
		fprintf(stderr, "intake: zstd level %d: %s\n", level, strerror(errno));
		exit(1);
	}
	for (i = 0; i < ncpus; i++) {
		snprintf(path, sizeof(path), "%s/octf.trace.%d", dir, i);
		c.streams[i] = stream_writer__create(path, c.zstd);
		if (!c.streams[i]) {
			fprintf(stderr, "intake: %s: %s\n", path, strerror(errno));
			exit(1);
		}
	}
	t0 = cpu_now();
	feed(&c, cpus);
	for (i = 0; i < ncpus; i++) {
		int e = stream_writer__close(c.streams[i]);

		err = err ? err : e;
	}
	t0 = cpu_now() - t0;
	if (err || c.write_err) {
		fprintf(stderr, "intake: writing the streams: %s\n", strerror(-(err ? err : c.write_err)));
		exit(1);
	}
	stream_zstd__free(c.zstd);
	inflight__free(&c.open);
	free(c.streams);
	return t0;
}

int main(int argc, char **argv)
{
	const char *outdir = "/dev/shm";
	unsigned rounds = 10, k;
	int level = STREAM_ZSTD_LEVEL_DEFAULT, opt, ncpus, i;
	struct cpu_recs *cpus;
	size_t records = 0, skipped = 0;
	uint64_t hash = 0xcbf29ce484222325ull, bytes = 0, msgs = 0;
	double cpu = 0;
	/* room for the stream names after it */
	char dir[4000];
	struct trace *t;

	while ((opt = getopt(argc, argv, "r:l:o:")) != -1) {
		if (opt == 'r' && atoi(optarg) > 0)
			rounds = (unsigned)atoi(optarg);
		else if (opt == 'l' && atoi(optarg) >= 0 && atoi(optarg) <= STREAM_ZSTD_LEVEL_MAX)
			level = atoi(optarg);
		else if (opt == 'o')
			outdir = optarg;
		else
			goto usage;
	}
	if (optind + 1 != argc)
		goto usage;
	t = xtrace_open("intake", argv[optind]);
	ncpus = (int)trace__stream_count(t);
	cpus = xcalloc((size_t)ncpus + 1, sizeof(*cpus));
	for (i = 0; i < ncpus; i++) {
		struct stream *st = stream__open(stream__path(trace__stream(t, i)));

		if (!st || !load_stream(st, &cpus[i], &skipped)) {
			if (!st)
				fprintf(stderr, "intake: %s: %s\n",
					stream__path(trace__stream(t, i)), strerror(errno));
			return 1;
		}
		records += cpus[i].n;
		stream__free(st);
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s/iotrace-intake.XXXXXX", outdir) >= sizeof(dir)) {
		fprintf(stderr, "intake: %s: name too long\n", outdir);
		return 1;
	}
	if (!mkdtemp(dir)) {
		fprintf(stderr, "intake: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (k = 0; k < rounds; k++) {
		cpu += run_round(cpus, ncpus, level, dir);
		/* the same records each round: the first one's output stands for all */
		if (!k)
			msgs = read_back(dir, ncpus, &hash, &bytes);
		remove_streams(dir, ncpus);
	}
	rmdir(dir);
	printf("%zu kernel records from %d streams of %s (%zu other records left out), %u rounds, zstd level %d\n",
	       records, ncpus, argv[optind], skipped, rounds, level);
	printf("%.1f ns/record; %llu bytes (%.2f a record), %llu messages, checksum %016llx\n",
	       records ? cpu * 1e9 / ((double)records * rounds) : 0.0, (unsigned long long)bytes,
	       records ? (double)bytes / (double)records : 0.0, (unsigned long long)msgs,
	       (unsigned long long)hash);
	for (i = 0; i < ncpus; i++)
		free(cpus[i].buf);
	free(cpus);
	trace__free(t);
	return 0;
usage:
	fprintf(stderr, "usage: intake [-r ROUNDS] [-l LEVEL] [-o DIR] TRACE_DIR\n");
	return 2;
}
