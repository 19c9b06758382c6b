/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who the tracer is, as the programs see it, wherever it runs. Its pid
 * namespace may be a container's own: there getpid() is a number of
 * that namespace (1 is its init), while the programs see every task by
 * its number in the initial namespace, and the --pids the user gives are
 * numbers of the tracer's namespace.
 *
 * whoami() fills these in: user space runs it once, in its own context
 * (BPF_PROG_TEST_RUN), after load and before anything is attached.
 * Included by iotrace.bpf.c before vfs.bpf.h, whose programs use them.
 */
#ifndef IOTRACE_PID_NS_BPF_H
#define IOTRACE_PID_NS_BPF_H

/*
 * The tracer's process as the initial pid namespace numbers it: its
 * system calls are its bookkeeping (a repository on a traced device gets
 * a summary renamed into place every second), never recorded. 0 until
 * whoami() ran, or where it cannot: nothing is left out then.
 */
__u32 self_tgid = 0;
/*
 * The tracer's pid namespace, which numbers --pids: its depth (0: the
 * initial namespace, where a task's tgid is that number already) and
 * its address, to compare a task's numbers with.
 */
__u32 self_ns_level = 0;
__u64 self_ns = 0;

/* A pid's number in the namespace at level: numbers[] is indexed by depth. */
static __always_inline struct upid *upid_at(struct pid *pid, __u32 level)
{
	return (void *)((char *)pid + bpf_core_field_offset(struct pid, numbers) +
			(__u64)level * bpf_core_type_size(struct upid));
}

/* Whether tgid (a task's, or bpf_get_current_pid_tgid()'s upper half) is the tracer's. */
static __always_inline bool is_self(__u32 tgid)
{
	return self_tgid && tgid == self_tgid;
}

/*
 * The current task's process id as the tracer's namespace numbers it
 * (task_tgid_nr_ns()); 0 for a task it cannot see: one of an enclosing
 * namespace, or of a sibling. tgid: the current task's in the initial
 * namespace, which it is when the tracer runs there.
 */
static __always_inline __u32 tgid_seen(__u32 tgid)
{
	struct task_struct *task;
	struct pid *pid;
	struct upid *up;
	__u32 level = self_ns_level;

	if (!level)
		return tgid;
	task = (void *)bpf_get_current_task();
	pid = BPF_CORE_READ(task, group_leader, thread_pid);
	if (!pid || BPF_CORE_READ(pid, level) < level)
		return 0;
	up = upid_at(pid, level);
	return (__u64)BPF_CORE_READ(up, ns) == self_ns ? (__u32)BPF_CORE_READ(up, nr) : 0;
}

/* Run, never attached: returns the tracer's tgid as the initial namespace numbers it. */
SEC("raw_tp")
int whoami(void *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct pid *pid = BPF_CORE_READ(task, thread_pid);
	__u32 level;

	if (!pid)
		return 0;
	/* a task's own namespace is the deepest its pid has a number in */
	level = BPF_CORE_READ(pid, level);
	self_ns = (__u64)BPF_CORE_READ(upid_at(pid, level), ns);
	self_ns_level = level;
	self_tgid = bpf_get_current_pid_tgid() >> 32;
	return self_tgid;
}

#endif
