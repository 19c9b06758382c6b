#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a CPU that comes online while tracing. Such a CPU
# gets a 64 KiB buffer and no trace file at the start, so that a VM's empty
# hot-plug slots cost neither memory nor files; its stream is created with
# its first record, and its I/O is in the trace like any other.
#
#   usage: tests/integration/late_cpu.sh PATH/TO/iotrace
#
# CI cannot take a CPU offline and bring it back, so the tracer is told
# that only CPU 0 was online at the start (IOTRACE_CPUS_ONLINE); then
# reads pinned to CPU 1 must create octf.trace.1[.zst] and all be in the
# trace, completed. Both --compress zstd and none. Then, with none, a trace
# in which CPU 1 has no record: it still ends with an (empty) octf.trace.1,
# as Open-CAS's parser opens octf.trace.0 .. queueCount - 1 and gives up
# at a missing one.
#
# Needs root, BTF, loop devices and two CPUs; a missing one is a failure,
# not a skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup taskset
[ "$(nproc)" -ge 2 ] || die "needs two CPUs online, has $(nproc)"
iotrace_loop_test late-cpu 64M
# blkid's probe of the new device must not be what creates a stream
udevadm settle 2>/dev/null
echo 0 >"$T/online"
export IOTRACE_CPUS_ONLINE=$T/online
READS=256
possible=$(iotrace_cpus_of /sys/devices/system/cpu/possible | wc -l)

# the stream files of trace directory $1, by name, one line
streams_of() {
	(cd "$1" && ls octf.trace.* 2>/dev/null | paste -sd ' ')
}

for mode in zstd none; do
	suffix=
	[ "$mode" = zstd ] && suffix=.zst
	export IOTRACE_TRACE_DIR=$T/repo-$mode
	iotrace_test_start_tracer "$mode: " "$T/out" "$T/err" \
		--start-tracing --devices "$DEV" --compress "$mode"
	dir=$IOTRACE_TRACE_DIR/$TRACE

	rings=$(iotrace_rings_of "$TRACER_PID" | paste -sd ' ')
	# 100 MiB for one CPU is 64 MiB; each other possible CPU 64 KiB
	want="$(printf '65536 %.0s' $(seq $((possible - 1))))67108864"
	check "$mode: CPU 0 takes the whole --buffer, the others 64 KiB (rings '$rings')" \
		[ "$rings" = "$want" ]
	files=$(streams_of "$dir")
	check "$mode: at the start, CPU 0's stream only (found '$files')" [ "$files" = "octf.trace.0$suffix" ]

	taskset -c 1 dd if="/dev/$DEV" of=/dev/null bs=4k count=$READS iflag=direct status=none ||
		fail "$mode: dd on CPU 1 failed"
	iotrace_test_stop_tracer "$mode: " "$T/out" "$T/err"

	files=$(streams_of "$dir")
	check "$mode: CPU 1 got its stream with its records (found '$files')" \
		[ "$files" = "octf.trace.0$suffix octf.trace.1$suffix" ]
	if [ "$mode" = zstd ]; then
		check "$mode: octf.trace.1.zst starts with the delta stream header" \
			iotrace_has_delta_header "$dir/octf.trace.1.zst"
	fi
	"$BIN" --trace-parser --io --path "$dir" --format csv >"$T/io.csv" 2>"$T/parse.err"
	rc=$?
	check "$mode: the parser reads the trace (exit $rc)" [ "$rc" = 0 ]
	reads=$(python3 - "$T/io.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(sum(1 for r in rows if r["process.comm"] == "dd" and r["io.operation"] == "Read"
          and r["io.len"] == "8" and r["io.latency"] not in ("", "0")))
EOF
)
	check "$mode: all $READS reads of CPU 1 are in the trace, completed (found $reads)" [ "$reads" = "$READS" ]
done

export IOTRACE_TRACE_DIR=$T/repo-idle
iotrace_test_start_tracer "idle: " "$T/out" "$T/err" --start-tracing --devices "$DEV" --compress none
dir=$IOTRACE_TRACE_DIR/$TRACE
files=$(streams_of "$dir")
check "idle: while tracing, CPU 0's stream only (found '$files')" [ "$files" = "octf.trace.0" ]
iotrace_test_stop_tracer "idle: " "$T/out" "$T/err"
files=$(streams_of "$dir")
want=$(for ((i = 0; i < possible; i++)); do echo "octf.trace.$i"; done | sort | paste -sd ' ')
check "idle: at the end a stream for each of the $possible possible CPUs (found '$files')" [ "$files" = "$want" ]
check "idle: queueCount $possible" [ "$(iotrace_json_get "$T/out" queueCount)" = "$possible" ]
check "idle: the streams of CPUs without records are empty" [ ! -s "$dir/octf.trace.$((possible - 1))" ]
"$BIN" --trace-parser --io --raw --path "$dir" >/dev/null 2>"$T/parse.err"
rc=$?
check "idle: the parser reads it (exit $rc)" [ "$rc" = 0 ]
finish
