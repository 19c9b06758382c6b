// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer target for the trace reader: bytes -> stream files -> reader
 * (sid merge) -> join -> every view. Also checks, for every record the
 * framing finds, that the fast decoder gives what protobuf-c gives; and,
 * reading the bytes as delta records, that records read as fields
 * (delta__decode_split(), decode__split()) are the messages read whole.
 *
 * Input: byte 0 selects the streams (1-3, even split of the rest; bits
 * 0-1), one reader thread or two (bit 4; with two, the --io output must
 * be one thread's), the LBA histogram's bucket size, the time series'
 * interval and the cache line (bits 5-7), a second pass through the
 * filters with --final-names and --wall-clock (bit 2), and a split run of
 * --statistics, whose output must be one pass's (bit 3); the rest is the streams' bytes (raw framed
 * records, or zstd frames: the reader tells them apart by their first
 * bytes). The input's last byte also picks the filters (glob bits 0-1,
 * comm 2, window 3 and 7, whose end stops the reading as window_end.h
 * has it, pid 4-5; with bit 6 also device, latency and cgroup), the
 * time series' by-completion (bit 6) and the split's output
 * format; in that pass the views have cgroup paths, and with bit 5 roll
 * them up (--cgroup-depth). The streams' bytes are also read as a
 * trace's iotrace.cgroups.
 *
 * Built with libFuzzer when IOTRACE_FUZZ is on; tests/fuzz/regression.c
 * replays the corpus through the same function in every test run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_names.h"
#include "decode.h"
#include "delta.h"
#include "filter.h"
#include "framing.h"
#include "fuzz_dir.h"
#include "join.h"
#include "merge.h"
#include "raw_view.h"
#include "reader.h"
#include "split.h"
#include "trace.h"
#include "view.h"
#include "window_end.h"

#define MAX_STREAMS 3

static char dir[96];
static FILE *devnull;

static void cleanup(void)
{
	char path[128];
	int i;

	for (i = 0; i < MAX_STREAMS; i++) {
		snprintf(path, sizeof(path), "%s/octf.trace.%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

/* --cgroup of the root cgroup: the one id a fuzzed record is likely to carry */
static struct u64map root_cgroup;
/* the paths of the ids a fuzzed record is likely to carry, and --cgroup-depth 1 of them */
static struct cgroup_names names;
static struct u64map rollup;

static void setup(void)
{
	if (dir[0])
		return;
	if (u64map__put(&root_cgroup, 1, 1) || cgroup_names__add(&names, 1, "/") ||
	    cgroup_names__add(&names, 2, "/a") || cgroup_names__add(&names, 3, "/a/b\"\t,c") ||
	    cgroup_names__rollup(&names, 1, &rollup))
		abort();
	fuzz_dir__make(dir, sizeof(dir), "trace");
	atexit(cleanup);
	/* the split's edge cases are in traces of a few records */
	split__set_min_events(2);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
}

static void write_stream(int i, const uint8_t *data, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/octf.trace.%d", dir, i);
	f = fopen(path, "w");
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f))
		abort();
}

/* Events decoded two ways: the same (every field of the hot types and vfs) */
static bool same_event(const struct event *a, const struct event *b)
{
	if (a->type != b->type || a->sid != b->sid || a->ts != b->ts)
		return false;
	switch (a->type) {
	case EV_IO:
		return a->io.id == b->io.id && a->io.lba == b->io.lba && a->io.dev == b->io.dev &&
		       a->io.part == b->io.part && a->io.cgroup == b->io.cgroup &&
		       a->io.vfs_call == b->io.vfs_call && a->io.len == b->io.len &&
		       a->io.io_class == b->io.io_class && a->io.write_hint == b->io.write_hint &&
		       a->io.pid == b->io.pid && a->io.tid == b->io.tid && a->io.op == b->io.op &&
		       a->io.flags == b->io.flags && !strcmp(a->io.comm, b->io.comm);
	case EV_COMPLETION:
		return a->cpl.ref == b->cpl.ref && a->cpl.lba == b->cpl.lba &&
		       a->cpl.dev == b->cpl.dev && a->cpl.len == b->cpl.len &&
		       a->cpl.status == b->cpl.status && a->cpl.error == b->cpl.error;
	case EV_FS_META:
		return a->meta.ref == b->meta.ref && a->meta.fid.part == b->meta.fid.part &&
		       a->meta.fid.ino == b->meta.fid.ino && a->meta.fid.sec == b->meta.fid.sec &&
		       a->meta.fid.nsec == b->meta.fid.nsec && a->meta.offset == b->meta.offset &&
		       a->meta.size == b->meta.size;
	case EV_SPLIT:
		return a->split.id == b->split.id && a->split.parent == b->split.parent &&
		       a->split.dev == b->split.dev && a->split.lba == b->split.lba &&
		       a->split.parent_lba == b->split.parent_lba && a->split.len == b->split.len;
	case EV_DISPATCH:
		return a->disp.id == b->disp.id && a->disp.dev == b->disp.dev &&
		       a->disp.lba == b->disp.lba && a->disp.rq == b->disp.rq &&
		       a->disp.len == b->disp.len && a->disp.bios == b->disp.bios;
	case EV_VFS: {
		const struct event_vfs *x = a->vfs, *y = b->vfs;

		return x && y && x->id == y->id && x->size == y->size && x->duration == y->duration &&
		       x->dev == y->dev && x->cgroup == y->cgroup && x->offset == y->offset &&
		       x->offset2 == y->offset2 && x->result == y->result && x->call == y->call &&
		       x->fd == y->fd && x->fd2 == y->fd2 && x->pid == y->pid && x->tid == y->tid &&
		       x->flags == y->flags && x->uring_op == y->uring_op &&
		       x->created == y->created && x->has_fid == y->has_fid &&
		       x->has_fid2 == y->has_fid2 && !memcmp(&x->fid, &y->fid, sizeof(x->fid)) &&
		       !memcmp(&x->fid2, &y->fid2, sizeof(x->fid2)) && !strcmp(x->comm, y->comm);
	}
	default:
		return true;
	}
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
		if (!rf && !same_event(&fast, &slow))
			abort();
		if (!rf)
			decode__release(&fast);
		if (!rs)
			decode__release(&slow);
		pos += used + (size_t)rlen;
	}
}

/*
 * data as delta records, read by two decoders in step: delta__decode()
 * and delta__decode_split() agree on every result, and the split makes
 * the same message, which decode__split() reads as decode__event() does.
 */
static void check_delta(const uint8_t *data, size_t len)
{
	struct delta *whole = delta__new(), *parts = delta__new();
	static uint8_t back[DELTA_MSG_MAX];
	static struct delta_split s;
	size_t pos = 0;

	if (!whole || !parts)
		abort();
	while (pos < len) {
		const uint8_t *m1, *m2;
		size_t l1, l2, u1, u2;
		int r1 = delta__decode(whole, data + pos, len - pos, &m1, &l1, &u1);
		int r2 = delta__decode_split(parts, data + pos, len - pos, &s, &m2, &l2, &u2);
		struct event a, b;
		int ra, rb;

		if (r1 != (r2 == DELTA_FIELDS ? 1 : r2))
			abort();
		if (r1 != 1)
			break;
		if (u1 != u2)
			abort();
		if (r2 == DELTA_FIELDS) {
			l2 = delta__split_msg(&s, back);
			m2 = back;
		}
		if (l1 != l2 || memcmp(m1, m2, l1))
			abort();
		if (r2 == DELTA_FIELDS) {
			ra = decode__split(&s, &a, EV_ALL);
			rb = decode__event(m1, l1, &b, EV_ALL);
			if (ra != DECODE_UNSURE && (ra != rb || (!ra && !same_event(&a, &b))))
				abort();
			if (!ra)
				decode__release(&a);
			if (!rb)
				decode__release(&b);
		}
		pos += u1;
	}
	delta__free(whole);
	delta__free(parts);
}

/* room for every view add_view() is given below */
#define MAX_VIEWS 32

struct views {
	const struct view_ops *ops[MAX_VIEWS];
	void *v[MAX_VIEWS];
	size_t n;
};

/*
 * One join for all the views: those in submission order (view_ops.in_order)
 * get what join_sink.in_order hands out, the others what they get alone:
 * no record in its place (pending), the end list's unmarked.
 */
static void fan_out(void *ctx, const struct io_rec *r)
{
	struct views *vs = ctx;
	struct io_rec plain;
	size_t i;

	for (i = 0; i < vs->n; i++) {
		if (vs->ops[i]->in_order || (r->state != IO_PENDING && !r->passed)) {
			vs->ops[i]->record(vs->v[i], r);
		} else if (r->passed) {
			plain = *r;
			plain.passed = false;
			vs->ops[i]->record(vs->v[i], &plain);
		}
	}
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

static void add_view(struct views *vs, const struct view_ops *ops, const struct view_opts *base,
		     enum view_format fmt)
{
	struct view_opts o = *base;
	void *v;

	if (vs->n == MAX_VIEWS)
		abort();
	o.format = fmt;
	v = ops->create(devnull, &o);
	if (!v)
		return;
	vs->ops[vs->n] = ops;
	vs->v[vs->n++] = v;
}

/*
 * The views fed by one pass, as the parser runs them: through f when
 * given (the filtered views and --final-names, stopping where f's window
 * can change no more), else every view.
 */
static void run_views(unsigned int threads, const struct view_opts *o, const struct filter *f)
{
	struct views vs = { .n = 0 };
	struct join_sink sink = { fan_out, &vs, fan_out_vfs, true };
	unsigned int flags = JOIN_PATHS | JOIN_VFS;
	struct filter_sink fsink;
	struct window_end we;
	const struct event *ev;
	struct reader *r = NULL;
	struct join *j = NULL;
	struct trace *t = NULL;
	size_t i;

	add_view(&vs, &io_view_ops, o, VIEW_JSON);
	add_view(&vs, &stats_view_ops, o, VIEW_TABLE);
	add_view(&vs, &series_view_ops, o, VIEW_JSON);
	add_view(&vs, &series_view_ops, o, VIEW_TABLE);
	add_view(&vs, &fs_view_ops, o, VIEW_JSON);
	add_view(&vs, &vfs_view_ops, o, VIEW_CSV);
	add_view(&vs, &file_stats_view_ops, o, VIEW_JSON);
	add_view(&vs, &process_view_ops, o, VIEW_TABLE);
	add_view(&vs, &pattern_view_ops, o, VIEW_TABLE);
	add_view(&vs, &hit_ratio_view_ops, o, VIEW_TABLE);
	if (!f) {
		add_view(&vs, &io_view_ops, o, VIEW_CSV);
		add_view(&vs, &io_view_ops, o, VIEW_TABLE);
		add_view(&vs, &stats_view_ops, o, VIEW_JSON);
		add_view(&vs, &latency_hist_ops, o, VIEW_TABLE);
		add_view(&vs, &size_hist_ops, o, VIEW_CSV);
		add_view(&vs, &qd_hist_ops, o, VIEW_JSON);
		add_view(&vs, &lba_hist_ops, o, VIEW_CSV);
		add_view(&vs, &fs_view_ops, o, VIEW_TABLE);
		add_view(&vs, &devices_view_ops, o, VIEW_CSV);
		add_view(&vs, &vfs_view_ops, o, VIEW_JSON);
		add_view(&vs, &vfs_view_ops, o, VIEW_TABLE);
		add_view(&vs, &file_stats_view_ops, o, VIEW_TABLE);
		add_view(&vs, &process_view_ops, o, VIEW_CSV);
		add_view(&vs, &series_view_ops, o, VIEW_CSV);
		add_view(&vs, &pattern_view_ops, o, VIEW_JSON);
		add_view(&vs, &pattern_view_ops, o, VIEW_CSV);
		add_view(&vs, &hit_ratio_view_ops, o, VIEW_JSON);
		add_view(&vs, &hit_ratio_view_ops, o, VIEW_CSV);
	} else {
		sink = filter__sink(&fsink, f, &sink);
		flags |= filter__join_flags(f);
	}

	t = trace__open(dir);
	j = t ? join__new(flags, &sink) : NULL;
	if (j && f)
		filter__sink_join(&fsink, j);
	/* --final-names: a first pass over the trace for the names */
	if (j && f && join__preload_names(j, t, threads)) {
		join__free(j);
		j = NULL;
	}
	r = j ? reader__new(t, EV_ALL, threads) : NULL;
	window_end__init(&we, f ? f->to_ns : UINT64_MAX);
	if (r) {
		while (reader__next(r, &ev) == 1) {
			if (join__event(j, ev) || window_end__reached(&we, j, ev))
				break;
		}
		if (we.stopped) {
			join__finish_before(j, we.to);
			reader__forget_damage_past(r, we.stopped_sid);
		} else {
			join__finish(j);
		}
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
}

/* --io --raw: every event as recorded, in both formats */
static void run_raw(void)
{
	const Octf__Proto__Trace__Event *ev;
	struct raw_view *json = NULL, *csv = NULL;
	struct trace *t = trace__open(dir);
	struct merge *m = t ? merge__new(t) : NULL;

	json = m ? raw_view__new(devnull, RAW_JSON) : NULL;
	csv = json ? raw_view__new(devnull, RAW_CSV) : NULL;
	if (csv) {
		while (merge__next(m, &ev) == 1) {
			raw_view__write(json, ev);
			raw_view__write(csv, ev);
		}
		raw_view__finish(json);
		raw_view__finish(csv);
	}
	raw_view__free(csv);
	raw_view__free(json);
	merge__free(m);
	trace__free(t);
	clearerr(devnull);
}

/*
 * A view in one pass into out, its reader with threads threads: the
 * records read, or -1 if it could not run or met damage.
 */
static int64_t one_pass(const struct view_ops *ops, const struct view_opts *o, FILE *out,
			unsigned int threads)
{
	const struct event *ev;
	struct trace *t = trace__open(dir);
	struct reader *r = NULL;
	struct join *j = NULL;
	int64_t records = -1;
	struct views vs = { .n = 0 };
	struct join_sink sink = { fan_out, &vs, NULL };
	void *v = ops->create(out, o);

	if (v) {
		vs.ops[0] = ops;
		vs.v[vs.n++] = v;
	}
	j = t && v ? join__new(ops->join_flags, &sink) : NULL;
	r = j ? reader__new(t, join__event_types(j), threads) : NULL;
	if (r) {
		int e = 0;

		while (!e && reader__next(r, &ev) == 1)
			e = join__event(j, ev);
		if (!e && !join__finish(j) && !ops->finish(v, j) && !reader__error_count(r))
			records = (int64_t)reader__records(r);
	}
	if (v)
		ops->destroy(v);
	reader__free(r);
	join__free(j);
	trace__free(t);
	return records;
}

/* Two runs' outputs are the same, or both are shown and the run aborts. */
static void expect_same(const char *what_a, const char *a, size_t alen, const char *what_b,
			const char *b, size_t blen)
{
	if (alen == blen && !memcmp(a, b, alen))
		return;
	fprintf(stderr, "%s and %s differ:\n--- %s\n%.*s\n--- %s\n%.*s\n", what_a, what_b, what_a,
		(int)alen, a, what_b, (int)blen, b);
	abort();
}

/* A split run (split.h) that goes through writes what one pass writes. */
static void check_split(const struct view_ops *ops, const struct view_opts *o)
{
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	FILE *fa = open_memstream(&a, &alen), *fb = open_memstream(&b, &blen);
	struct split *sp = NULL;
	int64_t records;
	int err;

	if (!fa || !fb)
		abort();
	records = one_pass(ops, o, fa, 1);
	if (records > 0)
		sp = split__run(dir, (uint64_t)records, ops, fb, o, ops->join_flags, &err);
	/* as the parser does: a split that read other than one pass is not used */
	if (sp && split__records(sp) == (uint64_t)records &&
	    !ops->finish(split__view(sp), split__join(sp))) {
		fflush(fa);
		fflush(fb);
		expect_same("one pass", a, alen, "split", b, blen);
	}
	split__free(sp);
	fclose(fa);
	fclose(fb);
	free(a);
	free(b);
}

/* The reader's helper thread changes nothing of a view's output, damage included. */
static void check_threads(const struct view_ops *ops, const struct view_opts *o)
{
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	FILE *fa = open_memstream(&a, &alen), *fb = open_memstream(&b, &blen);

	if (!fa || !fb)
		abort();
	one_pass(ops, o, fa, 1);
	one_pass(ops, o, fb, 2);
	fflush(fa);
	fflush(fb);
	expect_same("one thread", a, alen, "two threads", b, blen);
	fclose(fa);
	fclose(fb);
	free(a);
	free(b);
}

/* The input as a trace's iotrace.cgroups: read, looked through, rolled up. */
static void check_cgroup_names(const uint8_t *data, size_t size)
{
	struct cgroup_names cn = { 0 };
	struct u64map ids = { 0 }, up = { 0 };
	char path[128];
	size_t bad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, CGROUP_NAMES_FILE);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	if (cgroup_names__load(&cn, dir, &bad) == -ENOMEM ||
	    cgroup_names__subtree(&cn, "/a", &ids) < 0 || cgroup_names__rollup(&cn, 2, &up))
		abort();
	unlink(path);
	u64map__free(&ids);
	u64map__free(&up);
	cgroup_names__free(&cn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct view_opts o = { .subrange_end = UINT64_MAX };
	unsigned int nstreams, threads, sel;
	struct filter f;
	uint8_t last;
	size_t i, chunk;

	setup();
	if (!size)
		return 0;
	sel = data[0];
	nstreams = 1 + (sel & 3) % MAX_STREAMS;
	threads = sel & 0x10 ? 2 : 1;
	o.bucket_size = 1ull << ((sel >> 5) * 4);	/* 1 .. 2^28 sectors */
	o.interval_ns = 1000ull << ((sel >> 5) * 4);	/* 1 us .. 268 s */
	o.line_sectors = 8ull << ((sel >> 5) & 3);	/* 4 .. 32 KiB */
	data++;
	size--;
	last = size ? data[size - 1] : 0;
	o.by_completion = last & 0x40;
	chunk = size / nstreams;
	for (i = 0; i < MAX_STREAMS; i++) {
		size_t off = i * chunk, len = i + 1 == nstreams ? size - off : chunk;

		if (i < nstreams) {
			write_stream((int)i, data + off, len);
			check_decoder(data + off, len);
			check_delta(data + off, len);
		} else {
			char path[128];

			snprintf(path, sizeof(path), "%s/octf.trace.%zu", dir, i);
			unlink(path);
		}
	}

	check_cgroup_names(data, size);
	run_views(threads, &o, NULL);
	run_raw();
	if (sel & 0x04) {
		/* the input's last byte picks the filters */
		static const char *const globs[] = { NULL, "*", "/*a*", "*.sst" };

		filter__init(&f, globs[last & 3], last >> 4 & 3, last & 4 ? "fio" : NULL);
		filter__set_window(&f, (last >> 3 & 1) * 1000, last & 0x80 ? 1000000 : UINT64_MAX);
		/* device, latency and cgroup share bits with the others: their combinations still vary */
		if (last & 0x40) {
			filter__set_device(&f, last & 0x01 ? "sda" : "nvme0n1");
			filter__set_latency(&f, 1000, last & 0x20 ? 100000000 : UINT64_MAX);
			filter__set_cgroups(&f, last & 0x08 ? &root_cgroup : NULL);
		}
		o.filtered = filter__active(&f);
		/* --wall-clock, and an origin where the times run past int64 */
		o.wall_origin_ns = last & 0x10 ? INT64_MAX : 1796032800123456789LL;
		/* a trace that names its cgroups, by --cgroup-depth 1 or not */
		o.cgroups = &names;
		o.cgroup_rollup = last & 0x20 ? &rollup : NULL;
		run_views(threads, &o, &f);
		o.filtered = false;
		o.wall_origin_ns = 0;
		o.cgroups = NULL;
		o.cgroup_rollup = NULL;
	}
	if (sel & 0x08) {
		o.format = (enum view_format)(last % 3);
		check_split(&stats_view_ops, &o);
	}
	if (threads == 2) {
		o.format = VIEW_JSON;
		check_threads(&io_view_ops, &o);
	}
	return 0;
}
