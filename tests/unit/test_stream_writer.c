// SPDX-License-Identifier: BSD-3-Clause
/*
 * Per-CPU stream files: framing on disk, O_EXCL, mode, failing writes;
 * compressed streams read back through the parser's reader, with sizes
 * that never exceed what the writer promised.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "delta.h"
#include "encode.h"
#include "framing.h"
#include "stream.h"
#include "stream_writer.h"

static char dir[PATH_MAX], path[PATH_MAX];

static int setup(void **state)
{
	strcpy(dir, "/tmp/iotrace-sw-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/octf.trace.0", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static size_t read_all(uint8_t *buf, size_t size)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, size, f);
	fclose(f);
	return n;
}

/*
 * A file size limit of bytes, standing in for a full disk (a write past
 * it fails with EFBIG, SIGXFSZ ignored); returns the limit to restore.
 */
static struct rlimit limit_file_size(rlim_t bytes)
{
	struct rlimit old, lim;

	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = bytes;
	setrlimit(RLIMIT_FSIZE, &lim);
	return old;
}

static void test_framed_records(void **state)
{
	static uint8_t big[300];
	struct stream_writer *w = stream_writer__create(path, NULL);
	uint8_t buf[512];
	struct stat st;

	assert_non_null(w);
	memset(big, 0xab, sizeof(big));
	assert_int_equal(stream_writer__append(w, (const uint8_t *)"abc", 3, 1), 0);
	assert_int_equal(stream_writer__append(w, big, sizeof(big), 2), 0);
	assert_int_equal(stream_writer__size_bound(w), 1 + 3 + 2 + 300);
	/* buffered, not yet on disk */
	assert_int_equal(stream_writer__records_written(w), 0);
	assert_int_equal(stream_writer__flush(w), 0);
	assert_int_equal(stream_writer__records_written(w), 2);
	assert_int_equal(stream_writer__bytes_written(w), 306);
	assert_int_equal(stream_writer__close(w), 0);

	assert_int_equal(read_all(buf, sizeof(buf)), 306);
	assert_int_equal(buf[0], 3);
	assert_memory_equal(buf + 1, "abc", 3);
	/* 300 = varint ac 02 */
	assert_int_equal(buf[4], 0xac);
	assert_int_equal(buf[5], 0x02);
	assert_memory_equal(buf + 6, big, sizeof(big));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
}

static void test_never_overwrites(void **state)
{
	struct stream_writer *w = stream_writer__create(path, NULL);

	assert_non_null(w);
	stream_writer__close(w);
	assert_null(stream_writer__create(path, NULL));
	assert_int_equal(errno, EEXIST);
}

/*
 * A write that fails midway (file size limit standing in for a full disk)
 * is reported, stays reported, and leaves the file at a record boundary
 * with every earlier flush intact, and with as much of the failed buffer
 * as fits in whole runs of records: less than a run's room is left.
 */
static void test_failed_write_keeps_flushed(void **state)
{
	struct rlimit old;
	static uint8_t rec[1000];
	struct stream_writer *w;
	struct stat st;
	uint64_t sid = 0;
	int err = 0;

	old = limit_file_size(1500000);

	w = stream_writer__create(path, NULL);
	assert_non_null(w);
	assert_int_equal(stream_writer__append(w, rec, sizeof(rec), sid++), 0);
	assert_int_equal(stream_writer__flush(w), 0);
	assert_int_equal(stream_writer__unwritten_sid(w), UINT64_MAX);
	/* the second buffer's flush fails */
	while (!err && sid < 3000) {
		err = stream_writer__append(w, rec, sizeof(rec), sid);
		sid += !err;
	}
	assert_int_equal(err, -EFBIG);
	/* what is counted as written is exactly what the file holds */
	uint64_t on_disk = stream_writer__bytes_written(w);
	uint64_t records = stream_writer__records_written(w);
	/* the first flush (1 MiB) fitted; of the second, all but under 16 KiB + a record */
	assert_true(on_disk > 1500000 - (16384 + 1002));
	assert_int_equal(records + stream_writer__unwritten(w), sid);
	/* raw: the bound is exact, and counts the records written once */
	assert_int_equal(stream_writer__size_bound(w), on_disk + stream_writer__unwritten(w) * 1002);
	/* sids in order: the first record the file lacks is the one after its last */
	assert_int_equal(stream_writer__unwritten_sid(w), records);
	assert_int_equal(stream_writer__append(w, rec, sizeof(rec), sid), -EFBIG);
	assert_int_equal(stream_writer__close(w), -EFBIG);
	setrlimit(RLIMIT_FSIZE, &old);

	assert_int_equal(stat(path, &st), 0);
	/* whole records only: each is 2 bytes of length + 1000 */
	assert_true(st.st_size >= 1002);
	assert_int_equal(st.st_size % 1002, 0);
	assert_int_equal(st.st_size, on_disk);
	assert_int_equal(records * 1002, on_disk);
}

/* Event i: header and an io body, as the collector's encoder writes them */
static size_t make_event(uint8_t *m, size_t i)
{
	uint8_t body[64];
	size_t n = 0, b = 0;

	b += framing__put_varint(body + b, 1 << 3);
	b += framing__put_varint(body + b, 8 + (i * 7919 % 100000) * 8);
	b += framing__put_varint(body + b, 2 << 3);
	b += framing__put_varint(body + b, 8);
	b += framing__put_varint(body + b, 9 << 3);
	b += framing__put_varint(body + b, 0xffff888100000000ull + (i % 37) * 0x100);
	m[n++] = 0x0a;
	m[n++] = 0;
	n += framing__put_varint(m + n, 1 << 3);
	n += framing__put_varint(m + n, 1 + i);
	n += framing__put_varint(m + n, 2 << 3);
	n += framing__put_varint(m + n, 1000000000 + i * 3000);
	m[1] = (uint8_t)(n - 2);
	m[n++] = 0x12;
	m[n++] = (uint8_t)b;
	memcpy(m + n, body, b);
	return n + b;
}

static void expect_events(size_t first, size_t count)
{
	struct stream *s = stream__open(path);
	const uint8_t *msg;
	uint8_t want[128];
	size_t i, len;

	assert_non_null(s);
	for (i = first; i < first + count; i++) {
		assert_int_equal(stream__next(s, &msg, &len), 1);
		assert_int_equal(len, make_event(want, i));
		assert_memory_equal(msg, want, len);
	}
	assert_int_equal(stream__next(s, &msg, &len), 0);
	stream__free(s);
}

static void test_compressed(void **state)
{
	struct stream_zstd *z = stream_zstd__new(3);
	struct stream_writer *w;
	uint8_t m[128], head[DELTA_STREAM_HEADER_LEN];
	uint64_t bound;
	struct stat st;
	size_t i, len;

	assert_non_null(z);
	w = stream_writer__create(path, z);
	assert_non_null(w);
	/* the header is on disk at once */
	assert_int_equal(stream_writer__bytes_written(w), DELTA_STREAM_HEADER_LEN);
	assert_int_equal(stream_writer__size_bound(w), DELTA_STREAM_HEADER_LEN);
	for (i = 0; i < 50000; i++) {
		uint64_t before = stream_writer__size_bound(w);

		len = make_event(m, i);
		bound = stream_writer__append_bound(w, len);
		assert_int_equal(stream_writer__append(w, m, len, i), 0);
		assert_true(stream_writer__size_bound(w) - before <= bound);
		if (i == 20000) {
			/* what is promised holds once flushed */
			bound = stream_writer__size_bound(w);
			assert_int_equal(stream_writer__flush(w), 0);
			assert_true(stream_writer__bytes_written(w) <= bound);
			assert_int_equal(stream_writer__records_written(w), 20001);
			assert_int_equal(stream_writer__size_bound(w), stream_writer__bytes_written(w));
		}
	}
	bound = stream_writer__size_bound(w);
	assert_int_equal(stream_writer__flush(w), 0);
	assert_true(stream_writer__bytes_written(w) <= bound);
	assert_int_equal(stream_writer__records_written(w), 50000);
	/* a few bytes per record: the delta records did their work */
	assert_true(stream_writer__bytes_written(w) < 50000 * 12);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, stream_writer__bytes_written(w));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stream_writer__close(w), 0);

	assert_int_equal(read_all(head, sizeof(head)), sizeof(head));
	assert_memory_equal(head, DELTA_STREAM_HEADER, DELTA_STREAM_HEADER_LEN);
	expect_events(0, 50000);
	/* never overwrites */
	assert_null(stream_writer__create(path, z));
	assert_int_equal(errno, EEXIST);
	stream_zstd__free(z);
}

/*
 * A failing write leaves whole frames: the reader gets exactly the records
 * counted as written and a clean end.
 */
static void test_compressed_failed_write(void **state)
{
	struct stream_zstd *z = stream_zstd__new(1);
	struct rlimit old;
	struct stream_writer *w;
	uint8_t m[128];
	struct stat st;
	size_t i;
	int err = 0;

	assert_non_null(z);
	old = limit_file_size(100000);

	w = stream_writer__create(path, z);
	assert_non_null(w);
	for (i = 0; i < 1000000 && !err; i++) {
		err = stream_writer__append(w, m, make_event(m, i), i);
		/* small frames, as a collector flushing every second writes them */
		if (!err && i % 500 == 499)
			err = stream_writer__flush(w);
	}
	assert_int_equal(err, -EFBIG);
	assert_int_equal(stream_writer__flush(w), -EFBIG);
	assert_int_equal(stream_writer__error(w), -EFBIG);
	assert_true(stream_writer__records_written(w) > 1000);
	assert_int_equal(stream_writer__records_written(w) % 500, 0);
	/* the flush that failed lost its frame's records, and says how many */
	assert_int_equal(stream_writer__unwritten(w), 500);
	assert_int_equal(stream_writer__records_written(w) + 500, i);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, stream_writer__bytes_written(w));
	i = stream_writer__records_written(w);
	assert_int_equal(stream_writer__close(w), -EFBIG);
	setrlimit(RLIMIT_FSIZE, &old);
	expect_events(0, i);
	stream_zstd__free(z);
}

/*
 * A whole buffer whose frame does not fit: the leading runs of records
 * that do are written as frames of their own, and the file reads back as
 * exactly the records counted, where before it kept none. Sids out of
 * order (a record nested in an interrupt) still give the lowest unwritten.
 */
static void test_compressed_partial_buffer(void **state)
{
	struct stream_zstd *z = stream_zstd__new(1);
	struct rlimit old;
	struct stream_writer *w;
	uint8_t m[128];
	struct stat st;
	uint64_t records, low;
	size_t i;
	int err = 0;

	assert_non_null(z);
	old = limit_file_size(60000);

	w = stream_writer__create(path, z);
	assert_non_null(w);
	/* no flush but the full buffer's: its frame is far larger than 60,000 bytes */
	for (i = 0; i < 2000000 && !err; i++)
		err = stream_writer__append(w, m, make_event(m, i), i % 1000 == 999 ? i - 500 : i);
	assert_int_equal(err, -EFBIG);
	records = stream_writer__records_written(w);
	assert_true(records > 1000);
	assert_int_equal(records + stream_writer__unwritten(w), i - 1);
	low = stream_writer__unwritten_sid(w);
	assert_true(low <= records);
	assert_true(low + 500 >= records);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, stream_writer__bytes_written(w));
	assert_int_equal(stream_writer__close(w), -EFBIG);
	setrlimit(RLIMIT_FSIZE, &old);
	expect_events(0, records);
	stream_zstd__free(z);
}

/* How write_events() appends each message */
enum append_as { WHOLE, FIELDS, FIELDS_BOUND };

/*
 * The file of 30,000 block I/O events appended whole, or as their fields
 * with their exact length or with ENCODE_MAX for it, as the collector
 * appends them when it does not count the bytes.
 */
static size_t write_events(const char *file, struct stream_zstd *z, enum append_as as,
			   uint8_t *buf, size_t cap)
{
	struct stream_writer *w = stream_writer__create(file, z);
	static const uint8_t types[] = { IOTRACE_EV_QUEUE, IOTRACE_EV_ISSUE, IOTRACE_EV_COMPLETE };
	struct iotrace_event e = { .nr_sector = 8, .dev = 7u << 20, .pid = 42 };
	struct delta_split s;
	uint8_t m[ENCODE_MAX];
	FILE *f;
	size_t i, len;

	assert_non_null(w);
	for (i = 0; i < 30000; i++) {
		e.sid = 1 + i;
		e.ts = 1000000000 + i * 3000;
		e.type = types[i % 3];
		e.id = 0xffff888100000000ull + (i / 3 % 37) * 0x100;
		e.sector = (i / 3 * 7919 % 100000) * 8;
		len = encode__event(&e, &s, m, true);
		assert_true(len > 0);
		if (as == WHOLE)
			assert_int_equal(stream_writer__append(w, m, len, e.sid), 0);
		else
			assert_int_equal(stream_writer__append_fields(w, &s, as == FIELDS ? len : ENCODE_MAX,
								      e.sid),
					 0);
	}
	assert_int_equal(stream_writer__close(w), 0);
	f = fopen(file, "rb");
	assert_non_null(f);
	len = fread(buf, 1, cap, f);
	fclose(f);
	return len;
}

/* The messages of two files are the same */
static void expect_same_messages(const char *a, const char *b)
{
	struct stream *sa = stream__open(a), *sb = stream__open(b);
	const uint8_t *ma, *mb;
	size_t la, lb, n = 0;
	int ra, rb;

	assert_non_null(sa);
	assert_non_null(sb);
	do {
		ra = stream__next(sa, &ma, &la);
		rb = stream__next(sb, &mb, &lb);
		assert_int_equal(ra, rb);
		if (ra == 1) {
			assert_int_equal(la, lb);
			assert_memory_equal(ma, mb, la);
			n++;
		}
	} while (ra == 1);
	assert_int_equal(ra, 0);
	assert_int_equal(n, 30000);
	stream__free(sa);
	stream__free(sb);
}

/*
 * Appending a message as its fields writes the same file, raw or
 * compressed; with a bound for its length, the same records, though a
 * compressed file's frames may end elsewhere.
 */
static void test_split_same_file(void **state)
{
	static uint8_t whole[1 << 20], parts[1 << 20];
	struct stream_zstd *z = stream_zstd__new(3);
	char other[PATH_MAX + 8];
	struct stream_zstd *zz;
	size_t len;
	int compressed;

	assert_non_null(z);
	snprintf(other, sizeof(other), "%s.split", path);
	for (compressed = 0; compressed < 2; compressed++) {
		zz = compressed ? z : NULL;
		len = write_events(path, zz, WHOLE, whole, sizeof(whole));
		assert_int_equal(write_events(other, zz, FIELDS, parts, sizeof(parts)), len);
		assert_memory_equal(whole, parts, len);
		unlink(other);
		write_events(other, zz, FIELDS_BOUND, parts, sizeof(parts));
		expect_same_messages(path, other);
		unlink(path);
		unlink(other);
	}
	stream_zstd__free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_framed_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_never_overwrites, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_keeps_flushed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compressed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compressed_failed_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compressed_partial_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_same_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
