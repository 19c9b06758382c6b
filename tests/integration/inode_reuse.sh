#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: files that reuse a freed inode number keep
# FileIds of their own.
#
#   usage: tests/integration/inode_reuse.sh PATH/TO/iotrace
#
# A FileId is (partition, inode number, creation date), and the date is
# the inode's ctime at first sight, which ext4 moves in steps of a clock
# tick (4 ms). A file created, written and removed 200 times in a row gets
# the same inode number over and over, within one tick several times: QA
# saw 17 FileIds for the 200 files, and --final-names put 183 of the 200
# writes on another file's name. The test does that on ext4 and checks
# 200 FileIds among the writes and the Create events, the same, and that with
# --final-names each write is on its own file's name.
#
# Needs root, BTF, loop devices and mkfs.ext4; a missing one is a
# failure, not a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup mkfs.ext4
iotrace_require_loop

iotrace_fs_test_start inode-reuse "traces"
iotrace_quiet_ext4 64M inode-reuse "$T" || die "$SETUP_ERR"
mkdir "$MNT/reuse" || die "cannot make $MNT/reuse"
sync -f "$MNT"

iotrace_test_start_tracer "" "$T/out" "$T/err" -S -d "$LN"
python3 - "$MNT/reuse" <<'PY' || die "the file workload failed"
import os, sys
from fsync_write import write
# no stat(): asking for the ctime makes the kernel's next one fine-grained
for i in range(200):
    p = "%s/tmp%03d" % (sys.argv[1], i)
    write(p, create=True)
    os.unlink(p)
PY
iotrace_test_stop_tracer "" "$T/out" "$T/err"

"$BIN" -P --io --final-names -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
check "-P --io --final-names exit 0" [ $? = 0 ]
read -r writes inodes write_ids creates create_ids same wrong < <(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
# by sid: an I/O whose completion the trace lacks is listed last
w = sorted((r for r in rows if r["io.operation"] == "Write" and r["file.path"].startswith("/reuse/")
            and r["io.flags.metadata"] == "false"), key=lambda r: int(r["header.sid"]))
c = [r for r in rows if r["file.eventType"] == "Create"]
fid = lambda r: (r["file.id"], r["file.creationDate"])
wrong = sum(r["file.path"] != "/reuse/tmp%03d" % i for i, r in enumerate(w))
print(len(w), len(set(r["file.id"] for r in w)), len(set(map(fid, w))), len(c),
      len(set(map(fid, c))), int(set(map(fid, w)) == set(map(fid, c))), wrong)' "$T/io.csv")
check "200 data writes (got $writes)" [ "$writes" = 200 ]
check "ext4 reused inode numbers, the case tested (got $inodes for 200 files)" [ "$inodes" -le 20 ]
check "200 FileIds among them (got $write_ids)" [ "$write_ids" = 200 ]
check "200 Create events of 200 FileIds (got $creates of $create_ids)" \
	[ "$creates/$create_ids" = 200/200 ]
check "the writes' FileIds are the Create events'" [ "$same" = 1 ]
check "each write on its own file's name with --final-names ($wrong wrong)" [ "$wrong" = 0 ]

finish
