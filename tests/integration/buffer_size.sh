#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: --buffer means what it means to Open-CAS iotrace,
# MiB for all CPUs together, shared among the online CPUs (default 100).
#
#   usage: tests/integration/buffer_size.sh PATH/TO/iotrace
#
# A BPF ring is a power-of-two number of pages, so each online CPU's ring
# is its share rounded down, and no less than 64 KiB. A CPU offline when
# tracing starts gets a ring of 64 KiB. For no --buffer, --buffer 10 and
# --buffer 1 the running tracer's rings (the ring buffer maps among its
# file descriptors, /proc/PID/fdinfo) must be one per possible CPU, of
# those sizes.
#
# Needs root, BTF and loop devices; a missing one is a failure, not a
# skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup
iotrace_loop_test buffer 64M

possible=$(iotrace_cpus_of /sys/devices/system/cpu/possible | wc -l)
online=$(iotrace_cpus_of /sys/devices/system/cpu/online | wc -l)

# the rings' bytes: MiB shared among the online CPUs, 64 KiB for each offline one
expect_rings() {
	local share=$((($1 << 20) / online)) b=65536 i

	while [ $((b * 2)) -le "$share" ]; do b=$((b * 2)); done
	for ((i = 0; i < possible - online; i++)); do echo 65536; done
	for ((i = 0; i < online; i++)); do echo "$b"; done
}

for mib in "" 10 1; do
	want=$(expect_rings "${mib:-100}" | sort -n | paste -sd ' ')
	export IOTRACE_TRACE_DIR=$T/repo${mib:-default}
	iotrace_test_start_tracer "--buffer ${mib:-default}: " "$T/out" "$T/err" \
		--start-tracing --devices "$DEV" ${mib:+--buffer "$mib"}
	rings=$(iotrace_rings_of "$TRACER_PID" | paste -sd ' ')
	iotrace_stop "$TRACER_PID"
	TRACER_PID=
	if [ "$rings" = "$want" ]; then
		ok "--buffer ${mib:-default}: rings of $want bytes ($online of $possible CPUs online)"
	else
		fail "--buffer ${mib:-default}: rings '$rings', want '$want' ($online of $possible CPUs online)"
	fi
done
finish
