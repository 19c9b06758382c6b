#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a tracer stopped while its device is busy ends
# its trace with the completion of every I/O in it, and with nothing of
# the I/O that came after the stop.
#
#   usage: tests/integration/stop_busy.sh PATH/TO/iotrace
#
# fio keeps a loop device over /dev/shm busy from before the start to
# after the stop: 4 KiB random reads and writes at queue depth 32, and
# 1 MiB writes that the block layer splits (max_sectors_kb 128). The
# tracer runs for about a second, three times: by default, with
# --dispatch, and with --compress none. Each trace must begin clean: the
# only completions of I/Os it does not hold are those of the I/Os in
# flight when it opened, at most the 64 bios fio keeps in flight (its
# block programs attached one by one used to let a few hundred more in).
# And it must end clean: no
# io or split child without its ioCompletion, no completion, split or
# dispatch of an I/O the trace does not hold except those of I/Os begun
# before the trace (check_trace.py --busy). An I/O the trace holds without
# its completion fails, unless the kernel completed it in PID 1's context,
# where this project's VMs run no BPF program (ftrace's record of the
# disk's completions tells; see kernel_completions.py); the parser must
# report exactly those as never completed. Before the stop waited for the
# trace's I/Os, the 30 or so in flight at the stop had no completion.
#
# Needs root, BTF, tracefs, loop devices, fio and python3; a missing one is a
# failure, never a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
HERE=$(cd "$(dirname "$0")" && pwd)
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup fio python3
iotrace_require_loop

iotrace_fs_test_start stop-busy "traces, parsed events"
FIO_PIDS=()
iotrace_test_undo() {
	iotrace_kill_wait "${FIO_PIDS[@]}"
}

iotrace_fs_loop 256M stop-busy || die "$SETUP_ERR"
echo 128 >"/sys/block/$LN/queue/max_sectors_kb" || die "cannot set max_sectors_kb of $LN"
iotrace_kernel_completions_start "$DEVT" || die "$SETUP_ERR"

# busy_fio NAME ARGS...: a fio job on the loop device until killed (as a
# thread: a forked job would outlive its killed parent, and hold the loop
# device and the test's output open)
busy_fio() {
	local name=$1
	shift
	fio --name="$name" --filename="$LOOP" --ioengine=libaio --direct=1 --thread --time_based \
		--runtime=300 --output="$T/fio-$name.out" "$@" </dev/null >/dev/null 2>&1 &
	FIO_PIDS+=($!)
}
busy_fio small --rw=randrw --bs=4k --iodepth=32
busy_fio large --rw=randwrite --bs=1M --iodepth=4
# bios in flight at most: 32 small, 4 large of 8 pieces each (max_sectors_kb)
FIO_INFLIGHT=$((32 + 4 * 8))
sleep 1
for p in "${FIO_PIDS[@]}"; do
	kill -0 "$p" 2>/dev/null || die "fio did not start: $(cat "$T"/fio-*.out)"
done

# read_live LABEL: the trace read while it is recorded. Its summary, then
# at once a copy of its files: up to the summary's completeBelowSid they
# hold every event (live.raw, checked against the finished trace's
# below); a mark too far on would lack what the next flush, up to a
# second later, writes.
read_live() {
	local rc cut
	sleep 1
	cp "$IOTRACE_TRACE_DIR/$TRACE/octf.summary" "$T/live.summary" &&
		cp -a "$IOTRACE_TRACE_DIR/$TRACE" "$T/live"
	LIVE_MARK=$(iotrace_json_get "$T/live.summary" tags completeBelowSid)
	check "${1}while recording, the summary says below which sid the files hold every event (got '$LIVE_MARK')" \
		[ "${LIVE_MARK:-0}" -gt 1 ]
	timeout -k 5 120 "$BIN" -P --io --raw -p "$T/live" >"$T/live.raw" 2>"$T/live.raw.err"
	timeout -k 5 120 "$BIN" -P --statistics -p "$TRACE" >"$T/live.stats" 2>"$T/live.stats.err"
	rc=$?
	check "${1}-P --statistics while recording: exit 0 (got $rc)" [ "$rc" = 0 ]
	# up to the mark of the summary as it read it, rewritten since
	cut=$(sed -n 's/^iotrace: the events after sid \([0-9]*\) are left out: this trace is still being recorded, and not every CPU.s file holds them yet$/\1/p' "$T/live.stats.err")
	check "${1}... reads up to a later mark, and says why (after sid '$cut')" \
		[ "${cut:-0}" -ge "$((${LIVE_MARK:-1} - 1))" ]
	[ "$rc" = 0 ] || sed 's/^/      stderr: /' "$T/live.stats.err" | head -5
}

# orphans FILE: how many completions matched no I/O, from the parser's stderr
orphans() {
	sed -n 's/^iotrace: warning: \([0-9]*\) completions\{0,1\} match\(es\)\{0,1\} no I\/O.*/\1/p' "$1"
}

# check_live LABEL PREFIX: what read_live read, against the finished trace
# (PREFIX.out, .jsonl and .csv.err)
check_live() {
	local live done_
	check "${1}the finished trace's summary has no completeBelowSid" \
		[ -z "$(iotrace_json_get "$2.out" tags completeBelowSid)" ]
	# what the files held below the mark while recording is what they hold
	check "${1}every event below sid ${LIVE_MARK:-?} was in the files while recording" python3 -c '
import json, sys
mark = int(sys.argv[3])
def below(path):
    return sorted(l for l in open(path) if int(json.loads(l)["header"]["sid"]) < mark)
live, done = below(sys.argv[1]), below(sys.argv[2])
print("      %d events below the mark, %d of them in the live files" % (len(done), len(live)))
sys.exit(0 if live == done and done else 1)' "$T/live.raw" "$2.jsonl" "${LIVE_MARK:-0}"
	# read up to the mark, the only completions without their I/O are
	# those of I/Os begun before the trace, as in the finished trace
	live=$(orphans "$T/live.stats.err")
	done_=$(orphans "$2.csv.err")
	check "${1}read while recording, as many completions lack their I/O as in the finished trace (${live:-0}, ${done_:-0})" \
		[ "${live:-0}" = "${done_:-0}" ]
}

round=0
for args in "" "--dispatch" "--compress none"; do
	round=$((round + 1))
	label="round $round${args:+ ($args)}: "
	iotrace_kernel_completions_record || die "cannot record the kernel's completions"
	# shellcheck disable=SC2086 # the round's options, split on purpose
	iotrace_test_start_tracer "$label" "$T/$round.out" "$T/$round.err" -S -d "$LN" $args
	sleep 1
	[ "$round" = 1 ] && read_live "$label"
	iotrace_test_stop_tracer "$label" "$T/$round.out" "$T/$round.err"
	iotrace_test_kernel_completions_take "$label" "$T/$round.kernel"

	timeout -k 5 120 "$BIN" -P --io --raw -p "$TRACE" >"$T/$round.jsonl" 2>"$T/$round.raw.err"
	rc=$?
	check "${label}-P --io --raw exit 0 (got $rc)" [ "$rc" = 0 ]
	dispatch=--no-dispatch
	[ "$args" = --dispatch ] && dispatch="--min-dispatch 1"
	# shellcheck disable=SC2086
	python3 "$HERE/check_trace.py" "$T/$round.jsonl" --dev "$DEVT" --name "$LN" \
		--min-io 1000 --min-split 1 --busy --kernel-completions "$T/$round.kernel" $dispatch \
		>"$T/$round.check" 2>&1
	iotrace_test_relay "$T/$round.check" $? check_trace.py
	# the block programs output nothing until all are attached: the only
	# completions of I/Os from before the trace are of those in flight then
	before=$(sed -n 's/^measure: of I\/Os from before the trace: \([0-9]*\) completions.*/\1/p' "$T/$round.check")
	check "${label}completions of I/Os from before the trace: ${before:-?}, at most the $FIO_INFLIGHT fio keeps in flight" \
		[ "${before:-999999}" -le "$FIO_INFLIGHT" ]

	timeout -k 5 120 "$BIN" -P --io -f csv -p "$TRACE" >"$T/$round.csv" 2>"$T/$round.csv.err"
	rc=$?
	check "${label}-P --io exit 0 (got $rc)" [ "$rc" = 0 ]
	# The parser counts as never completed the I/Os whose completion the
	# trace lacks, all of which check_trace.py has just explained.
	missing=$(sed -n 's/.*measure: completions missing: \([0-9]*\) of .*/\1/p' "$T/$round.check")
	never=$(sed -n 's/^iotrace: warning: \([0-9]*\) I\/Os\{0,1\} never completed .*/\1/p' "$T/$round.csv.err")
	check "${label}the parser's I/Os never completed (${never:-0}) are those missing their completion within the trace (${missing:-?})" \
		[ "${never:-0}" = "${missing:-?}" ]
	[ "$round" = 1 ] && check_live "$label" "$T/$round"
done

finish
