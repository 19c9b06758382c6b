#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a tracer started on a device at full rate begins
# its trace clean. fio's 4 KiB random reads (libaio, direct, queue depth
# 32) keep a raw loop device over /dev/shm busy; the tracer runs for a
# second, four times. The only completions in a trace whose I/O it does
# not hold must be those of the I/Os in flight when it opened: at most 32.
# Its block programs record nothing until all are attached (bpf
# iotrace.bpf.c, IOTRACE_STOP_START); attached one by one and recording
# at once, they let in the completions of the I/Os queued in the
# milliseconds between the completion program's attach and the queue
# program's: 103-132 in three of four such traces here.
#
#   usage: tests/integration/busy_start.sh PATH/TO/iotrace
#
# Needs root, BTF, loop devices and fio; a missing one is a failure, never
# a skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup fio
iotrace_require_loop

iotrace_fs_test_start busy-start "traces"
FIO_PIDS=()
iotrace_test_undo() {
	iotrace_kill_wait "${FIO_PIDS[@]}"
}

DEPTH=32
iotrace_fs_loop 1G busy-start || die "$SETUP_ERR"
# a thread, not a forked job: a forked one would outlive its killed parent
fio --name=busy --filename="$LOOP" --ioengine=libaio --direct=1 --thread --time_based \
	--runtime=300 --rw=randread --bs=4k --iodepth=$DEPTH --output="$T/fio.out" \
	</dev/null >/dev/null 2>&1 &
FIO_PIDS+=($!)
sleep 1
kill -0 "${FIO_PIDS[0]}" 2>/dev/null || die "fio did not start: $(cat "$T/fio.out")"

for round in 1 2 3 4; do
	label="round $round: "
	iotrace_test_start_tracer "$label" "$T/$round.out" "$T/$round.err" -S -d "$LN"
	sleep 1
	iotrace_test_stop_tracer "$label" "$T/$round.out" "$T/$round.err"
	timeout -k 5 120 "$BIN" -P --statistics -p "$TRACE" >/dev/null 2>"$T/$round.stats.err"
	rc=$?
	check "${label}-P --statistics exit 0 (got $rc)" [ "$rc" = 0 ]
	ios=$(sed -n 's/^iotrace: warning: \([0-9]*\) completions\{0,1\} match\(es\)\{0,1\} no I\/O.*/\1/p' \
		"$T/$round.stats.err")
	check "${label}completions of I/Os the trace does not hold: ${ios:-0}, at most the $DEPTH in flight at its start" \
		[ "${ios:-0}" -le "$DEPTH" ]
	"$BIN" -M -R -p "$TRACE" >/dev/null 2>&1 || fail "${label}cannot remove the trace"
done

finish
