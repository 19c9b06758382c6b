#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: a file the tracer's table of files (65,536
# entries, least recently used dropped first) has dropped keeps its
# FileId and its path when it is met again.
#
#   usage: tests/integration/file_eviction.sh PATH/TO/iotrace
#
# On xfs, a file born before the trace is written, then files are created
# (each a Create event and an entry in the table), 25,000 at a time on
# each CPU in turn (an entry waits in its CPU's list until that CPU takes
# another), until bpftool no longer finds the file in the table: up to
# 400,000 (else the test fails, proving nothing). Then the file is written
# again: its ctime moved in between. Its data I/O must carry one FileId,
# whose date is its birth time, under its path. Before the date was the
# birth time, it was the ctime at first sight, and the second write got a
# new FileId: one file, two entries in the per-file views.
#
# Needs root, BTF, loop devices, mkfs.xfs and bpftool; a missing one is a failure,
# not a skip. Everything set up is torn down at exit, also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup mkfs.xfs bpftool taskset
iotrace_require_loop

iotrace_fs_test_start file-eviction "traces"
export TZ=UTC
BATCH=25000

iotrace_shm_fs xfs 1G file-eviction "$T" || die "$SETUP_ERR"
dd if=/dev/urandom of="$MNT/f" bs=64k count=1 conv=fsync status=none || die "cannot write $MNT/f"
mkdir "$MNT/many" || die "cannot make $MNT/many"
sync -f "$MNT"
birth=$(iotrace_birth_time "$MNT/f")
ino=$(stat -c %i "$MNT/f")

# in_table: whether the tracer's table of files holds /f's inode: "yes",
# "no", or why bpftool could not say
in_table() {
	bpftool -j map dump name files 2>&1 | python3 -c '
import json, sys
text = sys.stdin.read()
try:
    m = json.loads(text)
    print("yes" if any(e["formatted"]["key"]["ino"] == int(sys.argv[1]) for e in m) else "no")
except (ValueError, KeyError, TypeError):
    print("bpftool: " + text[:200].replace("\n", " "))' "$ino"
}

# create_files CPU FIRST: BATCH files in many/, on CPU
create_files() {
	taskset -c "$1" python3 - "$MNT/many" "$2" "$BATCH" <<'PY'
import os, sys
d, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(first, first + n):
    os.close(os.open("%s/%d" % (d, i), os.O_CREAT | os.O_WRONLY, 0o644))
PY
}

iotrace_test_start_tracer "" "$T/out" "$T/err" -S -d "$LN"
wrc=0
dd if=/dev/urandom of="$MNT/f" bs=4k count=4 conv=notrunc,fsync status=none || wrc=1
seen=$(in_table)
check "the tracer's table holds /f once it is written (got $seen)" [ "$seen" = yes ]
nfiles=0
while [ "$nfiles" -lt 400000 ] && [ "$seen" = yes ]; do
	create_files $((nfiles / BATCH % 2)) "$nfiles" || { wrc=1; break; }
	nfiles=$((nfiles + BATCH))
	seen=$(in_table)
done
check "the table dropped /f after $nfiles files were created (got $seen)" [ "$seen" = no ]
ctime1=$(stat -c %z "$MNT/f")
dd if=/dev/urandom of="$MNT/f" bs=4k count=4 seek=4 conv=notrunc,fsync status=none || wrc=1
ctime2=$(stat -c %z "$MNT/f")
check "the workload ran" [ "$wrc" = 0 ]
iotrace_test_stop_tracer "" "$T/out" "$T/err"

"$BIN" -P --io -f csv -p "$TRACE" >"$T/io.csv" 2>"$T/parse.err"
check "-P --io exit 0" [ $? = 0 ]
# FileIds and dates of /f's data I/O; Creates in many/
read -r ios ids dates creates < <(python3 -c '
import csv, sys
ios, ids, dates, creates = 0, set(), set(), 0
for r in csv.DictReader(open(sys.argv[1])):
    if r["file.eventType"] == "Create" and r["file.path"].startswith("/many/"):
        creates += 1
    if r["file.path"] == "/f" and r["file.eventType"] == "Access" and r["io.flags.metadata"] == "false":
        ios += 1
        ids.add((r["file.id"], r["file.creationDate"]))
        dates.add(r["file.creationDate"])
print(ios, len(ids), "|".join(sorted(dates)), creates)' "$T/io.csv")
check "a Create for each of the $nfiles files (got $creates)" [ "$creates" = "$nfiles" ]
check "both writes of /f are in the trace (got $ios I/Os)" [ "$ios" -ge 2 ]
check "its ctime moved between them ($ctime1, $ctime2)" [ "$ctime1" != "$ctime2" ]
check "/f's I/O has one FileId, inode and date (got $ids)" [ "$ids" = 1 ]
check "its date is /f's birth time $birth (got $dates)" [ "$dates" = "$birth" ]

iotrace_teardown_fs
finish
