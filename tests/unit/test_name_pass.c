// SPDX-License-Identifier: BSD-3-Clause
/*
 * The first pass for paths (name_pass.c, join__preload_names): a file and
 * its directory renamed in the middle of a hand-built trace, the rename in
 * a stream read before the first name; the I/O before the rename gets the
 * final path, with one thread or two, and without the pass the path of
 * the names known when the record goes out. The same trace as our
 * compressed files hold it (delta records), read from the records' fields.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "delta.h"
#include "framing.h"
#include "join.h"
#include "reader.h"
#include "trace.h"

#define DEV 8388608u	/* 8:0 */
#define ROOT 2
#define DIR_INO 3
#define FILE_INO 12

static char dir[64];

static int setup(void **state)
{
	strcpy(dir, "/tmp/iotrace-names-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void put(FILE *f, uint64_t sid, Octf__Proto__Trace__Event *ev)
{
	Octf__Proto__Trace__EventHeader h = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	uint8_t msg[512], v[FRAMING_VARINT_MAX];
	size_t len, vn;

	h.sid = sid;
	h.timestamp = 1000 + sid * 10;
	ev->header = &h;
	len = octf__proto__trace__event__get_packed_size(ev);
	assert_true(len <= sizeof(msg));
	assert_int_equal(octf__proto__trace__event__pack(ev, msg), len);
	vn = framing__put_varint(v, len);
	assert_int_equal(fwrite(v, 1, vn, f), vn);
	assert_int_equal(fwrite(msg, 1, len, f), len);
}

static void put_name(FILE *f, uint64_t sid, uint64_t ino, uint64_t parent, const char *name)
{
	Octf__Proto__Trace__EventIoFilesystemFileName fnm =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_FILE_NAME__INIT;
	Octf__Proto__Trace__FileId id = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__FileId pid = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;

	id.partitionid = DEV;
	id.id = ino;
	pid.partitionid = DEV;
	pid.id = parent;
	fnm.fileid = &id;
	fnm.fileparentid = &pid;
	fnm.filename = (char *)name;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_NAME;
	ev.filesystemfilename = &fnm;
	put(f, sid, &ev);
}

/* An I/O of FILE_INO (io, its filesystemMeta, its completion): sids sid..sid+2. */
static void put_file_io(FILE *f, uint64_t sid, uint64_t bio)
{
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__EventIoFilesystemMeta meta =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_META__INIT;
	Octf__Proto__Trace__EventIoCompletion cpl = OCTF__PROTO__TRACE__EVENT_IO_COMPLETION__INIT;
	Octf__Proto__Trace__FileId id = OCTF__PROTO__TRACE__FILE_ID__INIT;
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;

	io.id = bio;
	io.lba = 100 + sid;
	io.len = 8;
	io.deviceid = DEV;
	io.operation = OCTF__PROTO__TRACE__IO_TYPE__Write;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
	ev.io = &io;
	put(f, sid, &ev);

	id.partitionid = DEV;
	id.id = FILE_INO;
	meta.refsid = bio;
	meta.fileid = &id;
	meta.filesize = 64;
	ev = (Octf__Proto__Trace__Event)OCTF__PROTO__TRACE__EVENT__INIT;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_META;
	ev.filesystemmeta = &meta;
	put(f, sid + 1, &ev);

	cpl.refid = bio;
	cpl.deviceid = DEV;
	ev = (Octf__Proto__Trace__Event)OCTF__PROTO__TRACE__EVENT__INIT;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION;
	ev.iocompletion = &cpl;
	put(f, sid + 2, &ev);
}

static FILE *open_stream(int n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/octf.trace.%d", dir, n);
	f = fopen(path, "wb");
	assert_non_null(f);
	return f;
}

/*
 * sids in sid order: 1-3 the first names (stream 1), 4-6 an I/O (stream
 * 1), 7 the file renamed, 8 its directory renamed (stream 0, which the
 * pass reads first), 9-11 an I/O after the renames (stream 1).
 */
static void write_trace(void)
{
	FILE *s0 = open_stream(0), *s1 = open_stream(1);

	put_name(s1, 1, ROOT, ROOT, "/");
	put_name(s1, 2, DIR_INO, ROOT, "tmpdir");
	put_name(s1, 3, FILE_INO, DIR_INO, "000015.dbtmp");
	put_file_io(s1, 4, 0xa000);
	put_name(s0, 7, FILE_INO, DIR_INO, "CURRENT");
	put_name(s0, 8, DIR_INO, ROOT, "db");
	put_file_io(s1, 9, 0xb000);
	assert_int_equal(fclose(s0), 0);
	assert_int_equal(fclose(s1), 0);
}

/* Stream n rewritten as the collector compresses it: octf.trace.<n>.zst of delta records */
static void to_delta(int n)
{
	uint8_t raw[8192], enc[65536], z[65536];
	char path[128];
	size_t len, pos = 0, elen = 0, zlen;
	struct delta *d = delta__new();
	FILE *f;

	assert_non_null(d);
	snprintf(path, sizeof(path), "%s/octf.trace.%d", dir, n);
	f = fopen(path, "rb");
	assert_non_null(f);
	len = fread(raw, 1, sizeof(raw), f);
	assert_true(len > 0 && len < sizeof(raw));
	fclose(f);
	assert_int_equal(unlink(path), 0);
	while (pos < len) {
		uint64_t rlen;
		size_t used;

		assert_int_equal(framing__get_varint(raw + pos, len - pos, &rlen, &used), 1);
		pos += used;
		assert_true(elen + DELTA_ENCODED_MAX(rlen) <= sizeof(enc));
		elen += delta__encode(d, raw + pos, (size_t)rlen, enc + elen);
		pos += (size_t)rlen;
	}
	delta__free(d);
	zlen = ZSTD_compress(z, sizeof(z), enc, elen, 1);
	assert_false(ZSTD_isError(zlen));
	snprintf(path, sizeof(path), "%s/octf.trace.%d.zst", dir, n);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(DELTA_STREAM_HEADER, 1, DELTA_STREAM_HEADER_LEN, f),
			 DELTA_STREAM_HEADER_LEN);
	assert_int_equal(fwrite(z, 1, zlen, f), zlen);
	assert_int_equal(fclose(f), 0);
}

struct seen {
	size_t n;
	uint64_t sid[4];
	char path[4][64];
};

static void on_record(void *ctx, const struct io_rec *r)
{
	struct seen *s = ctx;

	assert_true(s->n < 4);
	s->sid[s->n] = r->sid;
	snprintf(s->path[s->n], sizeof(s->path[0]), "%s", r->path ? r->path : "(none)");
	s->n++;
}

/* Joins the trace with paths; preload: with the first pass, on `threads`. */
static void run(struct seen *s, bool preload, unsigned int threads)
{
	struct join_sink sink = { .record = on_record, .ctx = s };
	const struct event *ev;
	struct reader *rd;
	struct trace *t;
	struct join *j;
	int r;

	memset(s, 0, sizeof(*s));
	j = join__new(JOIN_PATHS, &sink);
	assert_non_null(j);
	if (preload) {
		t = trace__open(dir);
		assert_non_null(t);
		assert_int_equal(join__preload_names(j, t, threads), 0);
		trace__free(t);
	}
	t = trace__open(dir);
	assert_non_null(t);
	rd = reader__new(t, join__event_types(j), threads);
	assert_non_null(rd);
	while ((r = reader__next(rd, &ev)) == 1)
		assert_int_equal(join__event(j, ev), 0);
	assert_int_equal(r, 0);
	assert_int_equal(join__finish(j), 0);
	reader__free(rd);
	trace__free(t);
	join__free(j);
}

static void expect_final_names(void)
{
	struct seen s;
	unsigned int threads;

	for (threads = 1; threads <= 2; threads++) {
		run(&s, true, threads);
		assert_int_equal(s.n, 2);
		assert_int_equal(s.sid[0], 4);
		assert_string_equal(s.path[0], "/db/CURRENT");
		assert_int_equal(s.sid[1], 9);
		assert_string_equal(s.path[1], "/db/CURRENT");
	}
}

static void test_final_names(void **state)
{
	write_trace();
	expect_final_names();
}

static void test_final_names_delta(void **state)
{
	write_trace();
	to_delta(0);
	to_delta(1);
	expect_final_names();
}

static void test_names_when_handed_out(void **state)
{
	struct seen s;

	write_trace();
	run(&s, false, 1);
	assert_int_equal(s.n, 2);
	/* the first I/O completes and goes out before the renames */
	assert_string_equal(s.path[0], "/tmpdir/000015.dbtmp");
	assert_string_equal(s.path[1], "/db/CURRENT");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_final_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_final_names_delta, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_when_handed_out, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
