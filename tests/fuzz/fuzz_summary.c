// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer target for the summary reader (src/summary.c). Every command
 * that lists, shows or parses a trace reads its octf.summary, which may
 * be damaged, cut, or written by another tool: one it refuses must come
 * with the reason, and one it accepts must survive what -M -G and the
 * tracer do with it, printed and written back: read again, it prints
 * the same bytes.
 *
 * Input: the bytes of octf.summary.
 *
 * Built with libFuzzer when IOTRACE_FUZZ is on; tests/fuzz/regression.c
 * replays the corpus (tests/fuzz/summary_corpus) in every test run.
 */
#define _GNU_SOURCE	/* memmem */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_dir.h"
#include "summary.h"
#include "trace_store.h"

static char dir[96];
static char path[128];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

static void setup(void)
{
	if (dir[0])
		return;
	fuzz_dir__make(dir, sizeof(dir), "summary");
	snprintf(path, sizeof(path), "%s/%s", dir, STORE_SUMMARY_NAME);
	atexit(cleanup);
}

/* s printed into a new buffer (*len bytes), or abort */
static char *printed(const struct summary *s, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f || summary__print(f, s) || fclose(f))
		abort();
	return buf;
}

/*
 * s written back as the tracer and -M -G write it, and read again: what
 * it then prints (*len bytes), or abort if it is refused
 */
static char *round_trip(const struct summary *s, const char *before, size_t len_before,
			struct summary *back, size_t *len)
{
	int err;

	if (summary__write(dir, s))
		abort();
	err = summary__read(dir, back);
	if (err) {
		fprintf(stderr, "the summary written back is refused: %s\n%.*s\n",
			summary__strerror(back, err), (int)len_before, before);
		abort();
	}
	return printed(back, len);
}

static void same(const char *a, size_t la, const char *b, size_t lb)
{
	if (la != lb || memcmp(a, b, la)) {
		fprintf(stderr, "read back, the summary prints otherwise:\n--- before\n%.*s\n"
			"--- read back\n%.*s\n", (int)la, a, (int)lb, b);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct summary a, b;
	char *first, *second;
	size_t l1, l2;
	FILE *f;
	int err;

	setup();
	f = fopen(path, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	err = summary__read(dir, &a);
	if (err) {
		/* refused: with a reason, one line */
		if (err != -EBADMSG || !a.error[0] || strchr(a.error, '\n') ||
		    !memchr(a.error, 0, sizeof(a.error)))
			abort();
		return 0;
	}
	first = printed(&a, &l1);
	second = round_trip(&a, first, l1, &b, &l2);
	/*
	 * Bytes that are not UTF-8 are printed as the escape \ufffd, which
	 * reads back as the character U+FFFD, printed as itself: one round
	 * trip later it must hold.
	 */
	if (memmem(first, l1, "\\ufffd", 6)) {
		free(first);
		first = second;
		l1 = l2;
		second = round_trip(&b, first, l1, &a, &l2);
	}
	same(first, l1, second, l2);
	free(first);
	free(second);
	return 0;
}
