// SPDX-License-Identifier: BSD-3-Clause
/*
 * bench/pack_trace: what compression does to an existing trace.
 *
 *   pack_trace [-l LEVEL]... [-o OUTDIR] TRACE_DIR
 *
 * Reads every stream of TRACE_DIR (raw, zstd or delta records; the upstream
 * sample works too) and packs its records the way the collector does: in
 * buffers of STREAM_WRITER_BUF bytes, one zstd frame each. Prints, for each
 * level (default 1 and 3), the bytes of the raw OCTF framing, of plain zstd
 * on it, of delta records alone and of delta records in zstd, per record,
 * and the CPU time per record of the delta encoder and of zstd.
 * With -o, also writes OUTDIR/octf.trace.<n>.zst as the collector would at
 * the last level given (how the fuzz seeds of delta streams are made).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "bench_util.h"
#include "delta.h"
#include "framing.h"
#include "stream.h"
#include "stream_writer.h"
#include "trace.h"

#define MAX_LEVELS 8

struct totals {
	uint64_t framed, zstd, delta, delta_zstd;
	double encode_s, zstd_s, delta_zstd_s;
};

/* Compresses buf as one frame; returns its size (and writes it to fd >= 0) */
static size_t frame(ZSTD_CCtx *cc, uint8_t *out, size_t cap, const uint8_t *buf, size_t len,
		    double *cpu, int fd)
{
	double t0 = cpu_now();
	size_t n = ZSTD_compress2(cc, out, cap, buf, len);

	*cpu += cpu_now() - t0;
	if (ZSTD_isError(n)) {
		fprintf(stderr, "pack_trace: zstd: %s\n", ZSTD_getErrorName(n));
		exit(1);
	}
	if (fd >= 0 && write(fd, out, n) != (ssize_t)n) {
		perror("pack_trace: write");
		exit(1);
	}
	return n;
}

struct packer {
	ZSTD_CCtx *cc;
	uint8_t *raw, *del, *out;
	size_t cap, rlen, dlen;
	struct delta *d;
	int fd;
	struct totals *tot;
};

/*
 * The framed records gathered in raw: plain zstd on them, and their delta
 * records, framed as the collector frames them. Timed per buffer, not per
 * record: a clock read costs as much as encoding a record.
 */
static void pack_raw(struct packer *p)
{
	double t0, frames = 0;
	size_t pos = 0, used;
	uint64_t len;

	p->tot->zstd += frame(p->cc, p->out, p->cap, p->raw, p->rlen, &p->tot->zstd_s, -1);
	t0 = cpu_now();
	while (pos < p->rlen && framing__get_varint(p->raw + pos, p->rlen - pos, &len, &used) == 1) {
		size_t n;

		pos += used;
		if (p->dlen + DELTA_ENCODED_MAX(len) > STREAM_WRITER_BUF) {
			double f0 = p->tot->delta_zstd_s;

			p->tot->delta_zstd += frame(p->cc, p->out, p->cap, p->del, p->dlen,
						    &p->tot->delta_zstd_s, p->fd);
			frames += p->tot->delta_zstd_s - f0;
			p->dlen = 0;
		}
		n = delta__encode(p->d, p->raw + pos, (size_t)len, p->del + p->dlen);
		p->tot->delta += n;
		p->dlen += n;
		pos += (size_t)len;
	}
	p->tot->encode_s += cpu_now() - t0 - frames;
	p->rlen = 0;
}

int main(int argc, char **argv)
{
	int levels[MAX_LEVELS], nlevels = 0, opt, l;
	struct totals tot[MAX_LEVELS] = {};
	const char *outdir = NULL;
	uint64_t records = 0;
	struct trace *t;
	size_t i, cap;
	uint8_t *raw, *del, *out;
	ZSTD_CCtx *cc;

	while ((opt = getopt(argc, argv, "l:o:")) != -1) {
		if (opt == 'l' && nlevels < MAX_LEVELS)
			levels[nlevels++] = atoi(optarg);
		else if (opt == 'o')
			outdir = optarg;
		else
			goto usage;
	}
	if (optind + 1 != argc)
		goto usage;
	if (!nlevels) {
		levels[nlevels++] = 1;
		levels[nlevels++] = 3;
	}
	t = xtrace_open("pack_trace", argv[optind]);
	cap = ZSTD_compressBound(STREAM_WRITER_BUF) + 64;
	raw = malloc(STREAM_WRITER_BUF);
	del = malloc(STREAM_WRITER_BUF);
	out = malloc(cap);
	cc = ZSTD_createCCtx();
	if (!raw || !del || !out || !cc)
		return 1;
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);

	for (l = 0; l < nlevels; l++) {
		ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, levels[l]);
		for (i = 0; i < trace__stream_count(t); i++) {
			struct stream *s = stream__open(stream__path(trace__stream(t, i)));
			struct packer p = { cc, raw, del, out, cap, 0, 0, delta__new(), -1, &tot[l] };
			const uint8_t *msg;
			size_t len, n;
			int r;

			if (!s || !p.d)
				return 1;
			if (outdir && l == nlevels - 1) {
				char path[4096];

				snprintf(path, sizeof(path), "%s/octf.trace.%zu.zst", outdir, i);
				p.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
				if (p.fd < 0 || write(p.fd, DELTA_STREAM_HEADER, DELTA_STREAM_HEADER_LEN) !=
							DELTA_STREAM_HEADER_LEN) {
					perror(path);
					return 1;
				}
			}
			tot[l].delta_zstd += DELTA_STREAM_HEADER_LEN;
			while ((r = stream__next(s, &msg, &len)) == 1) {
				if (l == 0)
					records++;
				if (p.rlen + FRAMING_VARINT_MAX + len > STREAM_WRITER_BUF)
					pack_raw(&p);
				n = framing__put_varint(raw + p.rlen, len);
				memcpy(raw + p.rlen + n, msg, len);
				p.rlen += n + len;
				tot[l].framed += n + len;
			}
			if (r < 0)
				fprintf(stderr, "pack_trace: %s: stops at byte %llu: %s\n", stream__path(s),
					(unsigned long long)stream__offset(s), strerror(-r));
			if (p.rlen)
				pack_raw(&p);
			if (p.dlen)
				tot[l].delta_zstd += frame(cc, out, cap, del, p.dlen, &tot[l].delta_zstd_s, p.fd);
			if (p.fd >= 0 && close(p.fd)) {
				perror("pack_trace: close");
				return 1;
			}
			delta__free(p.d);
			stream__free(s);
		}
	}

	printf("%llu records in %zu streams of %s\n", (unsigned long long)records,
	       trace__stream_count(t), argv[optind]);
	printf("level  bytes/record: framed   zstd  delta  delta+zstd   ns/record: zstd  delta  delta+zstd\n");
	for (l = 0; l < nlevels; l++) {
		double n = records ? (double)records : 1;

		printf("%5d  %20.2f %6.2f %6.2f %11.2f   %15.0f %6.0f %11.0f\n", levels[l],
		       tot[l].framed / n, tot[l].zstd / n, tot[l].delta / n, tot[l].delta_zstd / n,
		       tot[l].zstd_s * 1e9 / n, tot[l].encode_s * 1e9 / n,
		       (tot[l].encode_s + tot[l].delta_zstd_s) * 1e9 / n);
	}
	ZSTD_freeCCtx(cc);
	free(raw);
	free(del);
	free(out);
	trace__free(t);
	return 0;
usage:
	fprintf(stderr, "usage: pack_trace [-l LEVEL]... [-o OUTDIR] TRACE_DIR\n");
	return 2;
}
