// SPDX-License-Identifier: BSD-3-Clause
/*
 * Shared maps: a trace's files mapped once and lent to another opening of
 * the same directory; nothing shared past the size bound or when there is
 * nothing to map.
 */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "shared_maps.h"
#include "stream.h"
#include "trace.h"

static char dir[64];	/* short: paths below it fit PATH_MAX */

static int setup(void **state)
{
	strcpy(dir, "/tmp/iotrace-maps-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void clear_dir(void)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/*", dir);
	assert_int_equal(system(cmd), 0);
}

/* name in dir holds one framed record: the byte `tag`, len times */
static void write_stream(const char *name, uint8_t tag, size_t len)
{
	char path[PATH_MAX];
	uint8_t b[128];
	FILE *f;

	assert_true(len < 128);
	b[0] = (uint8_t)len;
	memset(b + 1, tag, len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len + 1, f), len + 1);
	assert_int_equal(fclose(f), 0);
}

/* name becomes a new file (a mapping follows its file, not the name) */
static void replace_stream(const char *name, uint8_t tag, size_t len)
{
	char from[PATH_MAX], to[PATH_MAX];

	write_stream("new", tag, len);
	snprintf(from, sizeof(from), "%s/new", dir);
	snprintf(to, sizeof(to), "%s/%s", dir, name);
	assert_int_equal(rename(from, to), 0);
}

/* a file of size bytes, sparse: no disk or memory used */
static void write_sparse(const char *name, off_t size)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	assert_int_equal(close(fd), 0);
}

/* The first record of stream i of t: its first byte and length */
static void expect_first(struct trace *t, size_t i, uint8_t tag, size_t len)
{
	const uint8_t *msg;
	size_t got;

	assert_int_equal(stream__next(trace__stream(t, i), &msg, &got), 1);
	assert_int_equal(got, len);
	assert_int_equal(msg[0], tag);
}

/*
 * Lent streams read the bytes mapped when the maps were made: files
 * replaced since then still read as they were. The empty stream is not
 * mapped and reads empty.
 */
static void test_lend(void **state)
{
	struct shared_maps *m;
	struct trace *t, *t2;
	const uint8_t *msg;
	size_t len;

	clear_dir();
	write_stream("octf.trace.0", 'a', 10);
	write_stream("octf.trace.1", 'b', 20);
	write_sparse("octf.trace.2", 0);
	t = trace__open(dir);
	assert_non_null(t);
	m = shared_maps__new(t);
	assert_non_null(m);

	replace_stream("octf.trace.0", 'c', 30);
	replace_stream("octf.trace.1", 'd', 40);
	t2 = trace__open(dir);
	assert_non_null(t2);
	shared_maps__lend(m, t2);
	expect_first(t2, 0, 'a', 10);
	expect_first(t2, 1, 'b', 20);
	assert_int_equal(stream__next(trace__stream(t2, 2), &msg, &len), 0);
	trace__free(t2);
	/* not lent anything: the files as they are */
	t2 = trace__open(dir);
	assert_non_null(t2);
	expect_first(t2, 0, 'c', 30);
	expect_first(t2, 1, 'd', 40);
	trace__free(t2);
	trace__free(t);
	shared_maps__free(m);
}

/* A trace with other files at the same places lends none of them. */
static void test_other_paths(void **state)
{
	char sub[PATH_MAX];
	struct shared_maps *m;
	struct trace *t, *t2;

	clear_dir();
	write_stream("octf.trace.0", 'a', 10);
	t = trace__open(dir);
	assert_non_null(t);
	m = shared_maps__new(t);
	assert_non_null(m);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	write_stream("sub/octf.trace.0", 'z', 5);
	t2 = trace__open(sub);
	assert_non_null(t2);
	shared_maps__lend(m, t2);
	expect_first(t2, 0, 'z', 5);
	trace__free(t2);
	trace__free(t);
	shared_maps__free(m);
}

/* Past SHARED_MAPS_MAX in all, or with nothing to map: no maps. */
static void test_none(void **state)
{
	struct shared_maps *m;
	struct trace *t;

	clear_dir();
	write_sparse("octf.trace.0", (off_t)(SHARED_MAPS_MAX / 2));
	write_sparse("octf.trace.1", (off_t)(SHARED_MAPS_MAX / 2));
	t = trace__open(dir);
	assert_non_null(t);
	m = shared_maps__new(t);
	assert_non_null(m);
	shared_maps__free(m);
	trace__free(t);

	write_sparse("octf.trace.1", (off_t)(SHARED_MAPS_MAX / 2 + 1));
	t = trace__open(dir);
	assert_non_null(t);
	assert_null(shared_maps__new(t));
	trace__free(t);

	clear_dir();
	write_sparse("octf.trace.0", 0);
	write_sparse("octf.summary", 10);
	t = trace__open(dir);
	assert_non_null(t);
	assert_null(shared_maps__new(t));
	trace__free(t);
	shared_maps__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lend),
		cmocka_unit_test(test_other_paths),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
