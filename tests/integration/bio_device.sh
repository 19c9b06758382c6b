#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a bio-based device, whose I/O completes through
# block_bio_complete (handle_bio_complete) instead of block_rq_complete.
#
#   usage: tests/integration/bio_device.sh PATH/TO/iotrace
#
# A zram device (bio-based, like dm and md) of its own (hot_add, removed at
# exit) gets fio's 4 KiB random reads and writes, 64 KiB writes and
# discards, direct, from two jobs, while the tracer runs; twice, with the
# default compression and with --compress none. Each trace must hold every
# I/O with its completion, each completion with its I/O's range
# (check_trace.py), and the read and write sectors must equal the device's
# own accounting (/sys/block/<dev>/stat) over the workload. zram does not
# account discards there: theirs must be what fio issued.
#
# Needs root, BTF, zram (/sys/class/zram-control), fio and python3; a missing
# one is a failure, never a skip. Everything set up is torn down at exit,
# also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
HERE=$(cd "$(dirname "$0")" && pwd)
iotrace_test_harness

iotrace_require_root_bpf "zram, BPF" fio python3
[ -w /sys/class/zram-control/hot_add ] ||
	die "no zram support (/sys/class/zram-control; modprobe zram)"

iotrace_fs_test_start bio-device "traces, parsed events"
ZRAM=
iotrace_test_undo() {
	[ -n "$ZRAM" ] && echo "${ZRAM#zram}" >/sys/class/zram-control/hot_remove
}

ZRAM=zram$(cat /sys/class/zram-control/hot_add) || die "zram hot_add failed"
echo 128M >"/sys/block/$ZRAM/disksize" || die "cannot size $ZRAM"
command -v udevadm >/dev/null && udevadm settle
IFS=: read -r major minor <"/sys/block/$ZRAM/dev"
DEVT=$(((major << 20) | minor))

TRIMS=100

round=0
for args in "" "--compress none"; do
	round=$((round + 1))
	label="round $round${args:+ ($args)}: "
	# shellcheck disable=SC2086 # the round's options, split on purpose
	iotrace_test_start_tracer "$label" "$T/$round.out" "$T/$round.err" -S -d "$ZRAM" $args
	cp "/sys/block/$ZRAM/stat" "$T/$round.before"
	fio --filename="/dev/$ZRAM" --direct=1 --ioengine=psync --thread --size=64M \
		--name=small --rw=randrw --bs=4k --number_ios=3000 \
		--name=large --rw=randwrite --bs=64k --number_ios=300 \
		--name=trim --rw=randtrim --bs=64k --number_ios=$TRIMS \
		--output="$T/$round.fio" >/dev/null 2>&1
	rc=$?
	cp "/sys/block/$ZRAM/stat" "$T/$round.after"
	check "${label}fio exit 0 (got $rc)" [ "$rc" = 0 ]
	iotrace_test_stop_tracer "$label" "$T/$round.out" "$T/$round.err"

	read -r rd wr _ < <(iotrace_stat_sectors "$T/$round.before" "$T/$round.after")
	timeout -k 5 120 "$BIN" -P --io --raw -p "$TRACE" >"$T/$round.jsonl" 2>"$T/$round.raw.err"
	rc=$?
	check "${label}-P --io --raw exit 0 (got $rc)" [ "$rc" = 0 ]
	python3 "$HERE/check_trace.py" "$T/$round.jsonl" --dev "$DEVT" --name "$ZRAM" \
		--min-io 3400 --read-sectors "$rd" --write-sectors "$wr" \
		--discard-sectors $((TRIMS * 128)) --discard-from "fio's $TRIMS trims of 64 KiB" --no-dispatch >"$T/$round.check" 2>&1
	iotrace_test_relay "$T/$round.check" $? check_trace.py
done

finish
