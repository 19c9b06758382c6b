// SPDX-License-Identifier: BSD-3-Clause
/*
 * Which io_uring programs the tracer picks, from the kernel's BTF: the
 * tracepoint prototypes of kernels this machine does not run (v5.15,
 * v5.19, v6.1, v6.13), built by hand as BTF the way those kernels
 * describe them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <bpf/btf.h>

#include "kernel_probe.h"

/* The types the prototypes below use, by id. */
struct types {
	struct btf *btf;
	int u64, s32, boolean, vptr, req_ptr, ctx_ptr, cqe_ptr;
};

static int add_struct_ptr(struct btf *btf, const char *name)
{
	int id = btf__add_struct(btf, name, 8);

	assert_true(id > 0);
	return btf__add_ptr(btf, id);
}

static void types_new(struct types *t)
{
	t->btf = btf__new_empty();
	assert_non_null(t->btf);
	t->u64 = btf__add_int(t->btf, "long long unsigned int", 8, 0);
	t->s32 = btf__add_int(t->btf, "int", 4, BTF_INT_SIGNED);
	t->boolean = btf__add_int(t->btf, "_Bool", 1, BTF_INT_BOOL);
	t->vptr = btf__add_ptr(t->btf, 0);
	t->req_ptr = add_struct_ptr(t->btf, "io_kiocb");
	t->ctx_ptr = add_struct_ptr(t->btf, "io_ring_ctx");
	t->cqe_ptr = add_struct_ptr(t->btf, "io_uring_cqe");
	assert_true(t->u64 > 0 && t->s32 > 0 && t->boolean > 0 && t->vptr > 0 &&
		    t->req_ptr > 0 && t->ctx_ptr > 0 && t->cqe_ptr > 0);
}

/*
 * btf_trace_<tp>, as the kernel declares each tracepoint for tp_btf
 * programs: a pointer to a prototype whose first parameter is the
 * private data pointer, then the n parameters of types params.
 */
static void add_tp(struct types *t, const char *tp, int n, const int *params)
{
	char name[128];
	int proto, i;

	proto = btf__add_func_proto(t->btf, t->s32);
	assert_true(proto > 0);
	assert_int_equal(btf__add_func_param(t->btf, "__data", t->vptr), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(btf__add_func_param(t->btf, "arg", params[i]), 0);
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	assert_true(btf__add_typedef(t->btf, name, btf__add_ptr(t->btf, proto)) > 0);
}

/* trace_event_raw_io_uring_complete, the classic tracepoint's record, with fields named */
static void add_record(struct types *t, const char *const *fields, int n)
{
	int id, i;

	id = btf__add_struct(t->btf, "trace_event_raw_io_uring_complete", 8 + 8 * n);
	assert_true(id > 0);
	for (i = 0; i < n; i++)
		assert_int_equal(btf__add_field(t->btf, fields[i], t->u64, (8 + 8 * i) * 8, 0), 0);
}

static const char *const record_fields[] = { "ctx", "req", "user_data", "res", "cflags",
					     "extra1", "extra2" };

static int teardown(void **state)
{
	unsetenv("IOTRACE_URING_TRACEPOINT");
	unsetenv("IOTRACE_NO_URING");
	btf__free(*state);
	return 0;
}

/* v6.13 on: io_uring_complete(ctx, req, cqe), the tp_btf program; the knob picks the other */
/* The switches are "1" exactly: a "10", "0x1" or "yes" is no switch. */
static void test_asked(void **state)
{
	static const char *const no[] = { "", "0", "10", "1 ", "0x1", "yes", "true" };
	size_t i;

	assert_int_equal(unsetenv("IOTRACE_TEST_SWITCH"), 0);
	assert_false(probe__asked("IOTRACE_TEST_SWITCH"));
	assert_int_equal(setenv("IOTRACE_TEST_SWITCH", "1", 1), 0);
	assert_true(probe__asked("IOTRACE_TEST_SWITCH"));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		assert_int_equal(setenv("IOTRACE_TEST_SWITCH", no[i], 1), 0);
		assert_false(probe__asked("IOTRACE_TEST_SWITCH"));
	}
	unsetenv("IOTRACE_TEST_SWITCH");
}

static void test_complete_6_13(void **state)
{
	struct types t;

	types_new(&t);
	*state = t.btf;
	add_tp(&t, "io_uring_complete", 3, (const int[]){ t.ctx_ptr, t.vptr, t.cqe_ptr });
	add_record(&t, record_fields, 7);
	assert_int_equal(probe__uring_complete_of(t.btf, true), PROBE_URING_COMPLETE_BTF);
	/* without tracefs too: it needs none */
	assert_int_equal(probe__uring_complete_of(t.btf, false), PROBE_URING_COMPLETE_BTF);
	setenv("IOTRACE_URING_TRACEPOINT", "1", 1);
	assert_int_equal(probe__uring_complete_of(t.btf, true), PROBE_URING_COMPLETE_TRACEPOINT);
	assert_int_equal(probe__uring_complete_of(t.btf, false), PROBE_URING_COMPLETE_NONE);
	/* as a kernel before v6.1: neither */
	setenv("IOTRACE_NO_URING", "1", 1);
	assert_int_equal(probe__uring_complete_of(t.btf, true), PROBE_URING_COMPLETE_NONE);
	unsetenv("IOTRACE_URING_TRACEPOINT");
	assert_int_equal(probe__uring_complete_of(t.btf, true), PROBE_URING_COMPLETE_NONE);
}

/*
 * v5.19 to v6.12: io_uring_complete(ctx, req, user_data, res, cflags,
 * extra1, extra2), the classic tracepoint's program, where tracefs has it
 */
static void test_complete_6_1(void **state)
{
	struct types t;

	types_new(&t);
	*state = t.btf;
	add_tp(&t, "io_uring_complete", 7,
	       (const int[]){ t.vptr, t.vptr, t.u64, t.s32, t.s32, t.u64, t.u64 });
	add_record(&t, record_fields, 7);
	assert_int_equal(probe__uring_complete_of(t.btf, true), PROBE_URING_COMPLETE_TRACEPOINT);
	assert_int_equal(probe__uring_complete_of(t.btf, false), PROBE_URING_COMPLETE_NONE);
}

/* v5.15: a record with no request, so neither program */
static void test_complete_5_15(void **state)
{
	static const char *const fields[] = { "ctx", "user_data", "res", "cflags" };
	struct types t;

	types_new(&t);
	*state = t.btf;
	add_tp(&t, "io_uring_complete", 4, (const int[]){ t.vptr, t.u64, t.s32, t.s32 });
	add_record(&t, fields, 4);
	assert_int_equal(probe__uring_complete_of(t.btf, true), PROBE_URING_COMPLETE_NONE);
	assert_int_equal(probe__uring_complete_of(NULL, true), PROBE_URING_COMPLETE_NONE);
}

/*
 * The submission: io_uring_submit_req(req) from v6.3; io_uring_submit_sqe(req,
 * force_nonblock) in v6.1 and v6.2, whose program is the same
 */
static void test_submit_6_1(void **state)
{
	struct types t;

	types_new(&t);
	*state = t.btf;
	add_tp(&t, "io_uring_submit_req", 1, (const int[]){ t.req_ptr });
	add_tp(&t, "io_uring_submit_sqe", 2, (const int[]){ t.req_ptr, t.boolean });
	assert_true(probe__tp_btf_takes(t.btf, "io_uring_submit_req", 1, "io_kiocb"));
	assert_true(probe__tp_btf_takes(t.btf, "io_uring_submit_sqe", 2, "io_kiocb"));
	assert_false(probe__tp_btf_takes(t.btf, "io_uring_submit_sqe", 1, "io_kiocb"));
	assert_false(probe__tp_btf_takes(t.btf, "io_uring_submit_sqe", 2, "io_ring_ctx"));
	assert_false(probe__tp_btf_takes(t.btf, "io_uring_link", 2, "io_kiocb"));
	assert_false(probe__tp_btf_takes(NULL, "io_uring_submit_req", 1, "io_kiocb"));
	assert_int_equal(probe__tp_btf_args(t.btf, "io_uring_submit_sqe"), 2);
	assert_int_equal(probe__tp_btf_args(t.btf, "io_uring_link"), -1);
}

/* v5.19's io_uring_submit_sqe(ctx, req, ...) passes the request second, as a void pointer */
static void test_submit_5_19(void **state)
{
	struct types t;

	types_new(&t);
	*state = t.btf;
	add_tp(&t, "io_uring_submit_sqe", 7,
	       (const int[]){ t.vptr, t.vptr, t.u64, t.s32, t.s32, t.boolean, t.boolean });
	assert_false(probe__tp_btf_takes(t.btf, "io_uring_submit_sqe", 2, "io_kiocb"));
	assert_false(probe__tp_btf_takes(t.btf, "io_uring_submit_sqe", 7, "io_kiocb"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_asked),
		cmocka_unit_test_teardown(test_complete_6_13, teardown),
		cmocka_unit_test_teardown(test_complete_6_1, teardown),
		cmocka_unit_test_teardown(test_complete_5_15, teardown),
		cmocka_unit_test_teardown(test_submit_6_1, teardown),
		cmocka_unit_test_teardown(test_submit_5_19, teardown),
	};

	unsetenv("IOTRACE_URING_TRACEPOINT");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
