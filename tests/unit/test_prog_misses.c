// SPDX-License-Identifier: BSD-3-Clause
/*
 * prog_misses__read() over the tracer's own BPF object, opened, not
 * loaded: which programs have an fd, and what the kernel says of each, are
 * wrapped (-Wl,--wrap), since no test can make the kernel skip a run.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "iotrace.skel.h"
#include "prog_misses.h"

/* the programs "loaded" (an fd each, in this order) and their misses; -1: info fails */
static const char *const loaded[] = { "handle_bio_queue", "handle_rq_complete", "handle_split" };
static long long misses[3];

int __wrap_bpf_program__fd(const struct bpf_program *prog)
{
	size_t i;

	for (i = 0; i < sizeof(loaded) / sizeof(*loaded); i++)
		if (!strcmp(bpf_program__name(prog), loaded[i]))
			return 100 + (int)i;
	return -EINVAL;
}

int __wrap_bpf_obj_get_info_by_fd(int fd, void *info, __u32 *len)
{
	struct bpf_prog_info *p = info;

	assert_in_range(fd, 100, 102);
	assert_int_equal(*len, sizeof(*p));
	if (misses[fd - 100] < 0)
		return -EPERM;
	p->recursion_misses = (__u64)misses[fd - 100];
	return 0;
}

static int setup(void **state)
{
	*state = iotrace__open();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	iotrace__destroy(*state);
	return 0;
}

static uint64_t read_misses(void **state, char *names, size_t size)
{
	struct iotrace *skel = *state;

	return prog_misses__read(skel->obj, names, size);
}

static void test_none(void **state)
{
	char names[64] = "x";

	memset(misses, 0, sizeof(misses));
	assert_int_equal(read_misses(state, names, sizeof(names)), 0);
	assert_string_equal(names, "");
}

/* summed over the loaded programs, named in the object's order; a failed read counts none */
static void test_summed_and_named(void **state)
{
	char names[128];

	misses[0] = 1;
	misses[1] = 3;
	misses[2] = -1;
	assert_int_equal(read_misses(state, names, sizeof(names)), 4);
	assert_true(!strcmp(names, "handle_bio_queue 1, handle_rq_complete 3") ||
		    !strcmp(names, "handle_rq_complete 3, handle_bio_queue 1"));
	misses[0] = 0;
	misses[2] = 5;
	assert_int_equal(read_misses(state, names, sizeof(names)), 8);
	assert_true(strstr(names, "handle_rq_complete 3") && strstr(names, "handle_split 5"));
	assert_null(strstr(names, "handle_bio_queue"));
}

/* names that do not fit are cut, and say so; the sum is whole */
static void test_cut(void **state)
{
	char names[16];

	misses[0] = 1;
	misses[1] = 3;
	misses[2] = 5;
	assert_int_equal(read_misses(state, names, sizeof(names)), 9);
	assert_int_equal(strlen(names), sizeof(names) - 1);
	assert_string_equal(names + sizeof(names) - 4, "...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_summed_and_named),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
