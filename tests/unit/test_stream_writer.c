// SPDX-License-Identifier: BSD-3-Clause
/* Per-CPU stream files: framing on disk, O_EXCL, mode, failing writes. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

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

static void test_framed_records(void **state)
{
	static uint8_t big[300];
	struct stream_writer *w = stream_writer__create(path);
	uint8_t buf[512];
	struct stat st;

	assert_non_null(w);
	memset(big, 0xab, sizeof(big));
	assert_int_equal(stream_writer__append(w, (const uint8_t *)"abc", 3), 0);
	assert_int_equal(stream_writer__append(w, big, sizeof(big)), 0);
	assert_int_equal(stream_writer__bytes(w), 1 + 3 + 2 + 300);
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
	struct stream_writer *w = stream_writer__create(path);

	assert_non_null(w);
	stream_writer__close(w);
	assert_null(stream_writer__create(path));
	assert_int_equal(errno, EEXIST);
}

/*
 * A write that fails midway (file size limit standing in for a full disk)
 * is reported, stays reported, and leaves the file at a record boundary
 * with every earlier flush intact.
 */
static void test_failed_write_keeps_flushed(void **state)
{
	struct rlimit old, lim;
	static uint8_t rec[1000];
	struct stream_writer *w;
	struct stat st;
	int i, err = 0;

	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 1500000;
	setrlimit(RLIMIT_FSIZE, &lim);

	w = stream_writer__create(path);
	assert_non_null(w);
	assert_int_equal(stream_writer__append(w, rec, sizeof(rec)), 0);
	assert_int_equal(stream_writer__flush(w), 0);
	for (i = 0; i < 3000 && !err; i++)
		err = stream_writer__append(w, rec, sizeof(rec));
	if (!err)
		err = stream_writer__flush(w);
	assert_int_equal(err, -EFBIG);
	/* what is counted as written is exactly what the file holds */
	uint64_t on_disk = stream_writer__bytes_written(w);
	uint64_t records = stream_writer__records_written(w);
	assert_int_equal(stream_writer__append(w, rec, sizeof(rec)), -EFBIG);
	assert_int_equal(stream_writer__close(w), -EFBIG);
	setrlimit(RLIMIT_FSIZE, &old);

	assert_int_equal(stat(path, &st), 0);
	/* whole records only: each is 2 bytes of length + 1000 */
	assert_true(st.st_size >= 1002);
	assert_int_equal(st.st_size % 1002, 0);
	assert_int_equal(st.st_size, on_disk);
	assert_int_equal(records * 1002, on_disk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_framed_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_never_overwrites, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_keeps_flushed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
