#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a seeded random churn of files under trace, on
# ext4, xfs and btrfs, checked against what it did (churn.py). On each,
# in two directories of 5,000 and 500 files and four of 100 in them,
# 3,000 random operations: fsynced writes, renames, renames onto files,
# exchanges, unlinks, creates and renames of the four directories, with
# the kernel's caches dropped every 400 of them. The trace must have,
# exactly and in order, each Delete, MoveFrom and MoveTo under the path
# the file had then, and each write's I/O under its file's path of that
# time; nothing unresolved, nothing lost. Then all again with --vfs: the
# same, and in the --vfs view each write, rename, exchange and unlink
# call, in order, under the path its file had when the call returned.
#
# Cold caches found two defects the fixed cases did not: ext4 lost a
# replaced file's Delete when the new name's directory was not cached
# (9405588), and the parser gave a MoveFrom waiting behind an I/O in
# flight the name given after it (4ef550b).
#
#   usage: [IOTRACE_CHURN_SEED=N] tests/integration/fs_churn.sh PATH/TO/iotrace
#
# Needs root, BTF, loop devices, mkfs.ext4, mkfs.xfs and mkfs.btrfs; a
# missing one is a failure, not a skip. Everything set up is torn down at
# exit, also on failure. The seed (default 1) makes the operations the
# same from run to run; the kernel's timing is not.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

SEED=${IOTRACE_CHURN_SEED:-1}
iotrace_test_binary "$@"
iotrace_test_harness
CHURN="$(dirname "$(realpath "$0")")/churn.py"

iotrace_require_root_bpf "loop devices, BPF" losetup mkfs.ext4 mkfs.xfs mkfs.btrfs python3
iotrace_require_loop
iotrace_fs_test_start fs-churn "traces"

make_files() {
	python3 - "$MNT" <<'PY'
import os, sys
mnt = sys.argv[1]
for d, n in (("a", 5000), ("b", 500), ("a/s0", 100), ("a/s1", 100), ("b/s2", 100),
             ("b/s3", 100)):
    os.makedirs("%s/%s" % (mnt, d))
    for i in range(n):
        open("%s/%s/o%d" % (mnt, d, i), "w").close()
PY
}

for vfs in "" --vfs; do
for fs in ext4 xfs btrfs; do
	at="$fs${vfs:+ $vfs}"
	iotrace_test_fs "$fs" fs-churn "$T" || die "$SETUP_ERR"
	make_files || die "cannot make the files on $fs"
	sync -f "$MNT"

	iotrace_test_start_tracer "$at: " "$T/out" "$T/err" -S -d "$LN" $vfs
	python3 "$CHURN" run "$MNT" "$SEED" 3000 "$T/log.json" || die "the churn failed on $at"
	iotrace_test_stop_tracer "$at: " "$T/out" "$T/err"

	"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
	check "$at: -P --io exit 0" [ $? = 0 ]
	views=("$T/io.csv")
	if [ -n "$vfs" ]; then
		"$BIN" -P --vfs -p "$TRACE" -f csv >"$T/vfs.csv" 2>"$T/parse.err"
		check "$at: -P --vfs exit 0" [ $? = 0 ]
		views+=("$T/vfs.csv")
	fi
	python3 "$CHURN" check "$T/log.json" "${views[0]}" "$MNT" "${views[@]:1}" >"$T/check.out"
	rc=$?
	check "$at: the trace is the churn's ($(tail -1 "$T/check.out"))" [ "$rc" = 0 ]
	grep -v "file events," "$T/check.out" | sed 's/^/      /'
	unresolved=$(iotrace_json_get "$T/out" tags unresolvedFileEvents)
	check "$at: nothing unresolved (got '${unresolved:-none}')" [ -z "$unresolved" ]
	iotrace_teardown_fs
done
done

finish
