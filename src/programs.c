// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "iotrace.skel.h"
#include "kernel_probe.h"
#include "programs.h"

/*
 * Block tracepoints lost their request_queue argument in 5.11 (commits
 * "block: remove the request_queue argument to the block_bio_queue /
 * block_split / block_rq_* tracepoints", v5.11-rc1). A tp_btf program must
 * match the kernel's prototype, so count the arguments in the kernel's BTF
 * (as libbpf-tools' biolatency does for block_rq_issue) and load the
 * matching program of each pair.
 */
void programs__pick(struct iotrace *skel, const struct btf *btf)
{
	const struct {
		const char *tp;
		int new_args;
		struct bpf_program *new_prog, *old_prog;
	} pairs[] = {
		{ "block_bio_queue", 1, skel->progs.handle_bio_queue, skel->progs.handle_bio_queue_old },
		{ "block_split", 2, skel->progs.handle_split, skel->progs.handle_split_old },
		{ "block_rq_issue", 1, skel->progs.handle_rq_issue, skel->progs.handle_rq_issue_old },
	};
	size_t i;

	bool cast;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		/* without BTF the load fails anyway, with a clearer message */
		bool old = btf && probe__tp_btf_args(btf, pairs[i].tp) == pairs[i].new_args + 1;

		bpf_program__set_autoload(pairs[i].new_prog, !old);
		bpf_program__set_autoload(pairs[i].old_prog, old);
	}
	/* a kernel without cgroups has no cgroup to name */
	bpf_program__set_autoload(skel->progs.handle_cgroup_rmdir,
				  btf && probe__tp_btf_args(btf, "cgroup_rmdir") == 2);
	/* the variant with helper-free loads, where it loads */
	cast = bpf_program__autoload(skel->progs.handle_bio_queue) && probe__cast_loads(btf);
	bpf_program__set_autoload(skel->progs.handle_bio_queue_cast, cast);
	if (cast)
		bpf_program__set_autoload(skel->progs.handle_bio_queue, false);
}

/*
 * The programs that end or follow an I/O, attached before the one that
 * begins it (programs__attach_block()); in the skeleton's order the queue
 * program went first, and an I/O queued and completed while the others
 * were being attached began the trace without its completion.
 */
struct early_prog {
	struct bpf_program *prog;
	struct bpf_link **link;
};

#define EARLY_PROGS 6

static void early_programs(struct iotrace *skel, struct early_prog *e)
{
	e[0] = (struct early_prog){ skel->progs.handle_rq_complete, &skel->links.handle_rq_complete };
	e[1] = (struct early_prog){ skel->progs.handle_bio_complete, &skel->links.handle_bio_complete };
	e[2] = (struct early_prog){ skel->progs.handle_rq_issue, &skel->links.handle_rq_issue };
	e[3] = (struct early_prog){ skel->progs.handle_rq_issue_old, &skel->links.handle_rq_issue_old };
	e[4] = (struct early_prog){ skel->progs.handle_split, &skel->links.handle_split };
	e[5] = (struct early_prog){ skel->progs.handle_split_old, &skel->links.handle_split_old };
}

static int attach_early(struct iotrace *skel)
{
	struct early_prog e[EARLY_PROGS];
	int i;

	early_programs(skel, e);
	for (i = 0; i < EARLY_PROGS; i++) {
		if (!bpf_program__autoload(e[i].prog))
			continue;
		*e[i].link = bpf_program__attach(e[i].prog);
		if (!*e[i].link)
			return -errno;
	}
	return 0;
}

int programs__attach_block(struct iotrace *skel)
{
	int err = attach_early(skel);

	return err ? err : iotrace__attach(skel);
}

/* the queue program of each variant, and where its link is kept */
#define QUEUE_PROGS 3

static void queue_programs(struct iotrace *skel, struct early_prog *q)
{
	q[0] = (struct early_prog){ skel->progs.handle_bio_queue, &skel->links.handle_bio_queue };
	q[1] = (struct early_prog){ skel->progs.handle_bio_queue_cast, &skel->links.handle_bio_queue_cast };
	q[2] = (struct early_prog){ skel->progs.handle_bio_queue_old, &skel->links.handle_bio_queue_old };
}

void programs__detach_block(struct iotrace *skel)
{
	struct early_prog e[EARLY_PROGS], q[QUEUE_PROGS];
	int i;

	queue_programs(skel, q);
	early_programs(skel, e);
	for (i = 0; i < QUEUE_PROGS; i++) {
		bpf_link__destroy(*q[i].link);
		*q[i].link = NULL;
	}
	for (i = 0; i < EARLY_PROGS; i++) {
		bpf_link__destroy(*e[i].link);
		*e[i].link = NULL;
	}
}

int programs__reattach_block(struct iotrace *skel)
{
	struct early_prog q[QUEUE_PROGS];
	int i, err = attach_early(skel);

	queue_programs(skel, q);
	for (i = 0; !err && i < QUEUE_PROGS; i++) {
		if (!bpf_program__autoload(q[i].prog))
			continue;
		*q[i].link = bpf_program__attach(q[i].prog);
		if (!*q[i].link)
			err = -errno;
	}
	return err;
}

/*
 * libbpf reports failures as multi-line logs (the verifier's included).
 * Our errors are one line; the logs are for IOTRACE_DEBUG=1.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static int debug = -1;

	if (debug < 0)
		debug = probe__asked("IOTRACE_DEBUG");
	return debug ? vfprintf(stderr, fmt, ap) : 0;
}

/*
 * libbpf 1.1 reads the kernel modules' BTF (BPF_BTF_GET_NEXT_ID), which
 * takes CAP_SYS_ADMIN: CAP_BPF and CAP_PERFMON alone get EPERM there.
 */
#define NEEDS_PRIVILEGE                                                                        \
	" -- tracing needs root or CAP_SYS_ADMIN (CAP_BPF and CAP_PERFMON are not enough for " \
	"the libbpf this build links)"

const char *programs__load_hint(int err)
{
	switch (err) {
	case -EACCES:
		/* as root, EACCES from a load is the verifier saying no */
		if (geteuid() == 0)
			return " -- the kernel's verifier rejected a program (IOTRACE_DEBUG=1 shows its log)";
		return NEEDS_PRIVILEGE;
	case -EPERM:
		return NEEDS_PRIVILEGE;
	case -ENOENT:
	case -ESRCH:
		return " -- does this kernel have BTF (/sys/kernel/btf/vmlinux) and block tracepoints?";
	case -EINVAL:
		return " -- kernel too old? tp_btf programs need 5.5 or later";
	default:
		return "";
	}
}

void programs__quiet_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

void programs__defer_attach(struct iotrace *skel)
{
	struct early_prog early[EARLY_PROGS];
	size_t i;

	/* run on a CPU by the collector, never attached */
	bpf_program__set_autoattach(skel->progs.flush_stage, false);
	bpf_program__set_autoattach(skel->progs.whoami, false);
	early_programs(skel, early);
	for (i = 0; i < EARLY_PROGS; i++)
		bpf_program__set_autoattach(early[i].prog, false);
}
