#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: the kernel's verifier does a bounded amount of
# work on each BPF program, so the tracer keeps starting fast. Most of a
# start is the verifier's (bench/verifier, bench/start-stop): a loop
# whose body inlines a map lookup or a chain walk is verified once per
# possible pass, and such a loop took 0.29 s of a 1.4 s start alone.
# The count is the instructions the verifier processed, which it reports
# itself (IOTRACE_VERIFIER_STATS=1, src/verifier_stats.h): the same on
# every run of one build on one kernel, unlike a time.
#
#   usage: tests/integration/verifier_budget.sh PATH/TO/iotrace
#
# Started with --vfs on an ext4 loop device, so that every program this
# kernel takes is loaded:
#   1. the tracer starts and stops (exit 0) with the figures asked for;
#   2. the block, system-call and file-system programs all report them;
#   3. each program stays within BUDGET instructions (at most 21,000 on
#      kernel 6.18 when this was written, 444,000 before);
#   4. all of them together within TOTAL_BUDGET.
#
# Needs root, BTF, loop devices and ext4; a missing one is a failure, not
# a skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

BUDGET=50000
TOTAL_BUDGET=300000

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, ext4, BPF" losetup mkfs.ext4
iotrace_fs_test_start verifier-budget
iotrace_quiet_ext4 64M verifier-budget "$T" || die "$SETUP_ERR"

IOTRACE_VERIFIER_STATS=1 "$BIN" -S -d "$LN" --vfs -t 1 >"$T/out" 2>"$T/err"
rc=$?
check "tracer exit 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/      stderr: /' "$T/err" | head -3
# "iotrace: verifier: NAME USEC us INSNS insns STATES states"
awk '$2 == "verifier:" { print $3, $6 }' "$T/err" | sort -k2,2nr >"$T/insns"

has() { grep -Eq "^($1) [0-9]+$" "$T/insns"; }
check "figures for the queue program" has 'handle_bio_queue(_cast|_old)?'
check "figures for the completion program" has handle_rq_complete
check "figures for the system-call programs" has handle_ns_enter
check "figures for ext4's programs" has handle_ext4_dirty

while read -r name n; do
	check "$name: $n instructions verified, within $BUDGET" [ "$n" -le "$BUDGET" ]
done < <(head -3 "$T/insns")
over=$(awk -v b="$BUDGET" '$2 > b { print $1 " (" $2 ")" }' "$T/insns" | paste -sd' ')
check "no program over $BUDGET instructions${over:+: $over}" [ -z "$over" ]
total=$(awk '{ n += $2 } END { print n + 0 }' "$T/insns")
within_total() { [ "$total" -gt 0 ] && [ "$total" -le "$TOTAL_BUDGET" ]; }
check "all $(wc -l <"$T/insns") programs: $total instructions, within $TOTAL_BUDGET" within_total
finish
