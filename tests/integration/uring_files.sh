#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: the file events of io_uring's opens, unlinks and
# renames.
#
#   usage: tests/integration/uring_files.sh PATH/TO/iotrace PATH/TO/uring_ns
#
# io_uring requests pass no syscall tracepoint. Before, an open that
# created a file through io_uring sent no Create, a directory renamed
# through it kept its old name in the chains of the files below it, and
# its unlinks and renames were neither followed nor counted. On a traced
# ext4, without --vfs, uring_ns (a test helper) and python make:
#   1. /d/f, created and written (python);
#   2. d renamed to e through io_uring, then f written again: f is named
#      again, as /e/f (the rename moved the rename epoch);
#   3. /e/n created through io_uring and written: its Create, its write
#      under /e/n;
#   4. /e/x created into a fixed file slot; /e/n renamed to /e/m, then
#      unlinked; /v, made before the trace and never named in it,
#      unlinked; an empty /z removed (AT_REMOVEDIR); a file renamed in a
#      directory of /tmp: all through io_uring. The unlinks send their
#      Deletes (ext4's tracepoint names the file, in the io-wq worker).
#      The summary counts the fixed open and the renames (d's too, and
#      the one on /tmp: the count is of any file system), 4, not the
#      rmdir; the tracer and the parser say so;
#   5. through a ring with a kernel thread of its own (SQPOLL): /e/s
#      created, written and unlinked: its Create, write and Delete.
# On xfs, then btrfs: /u, written, and /v, not, are unlinked through
# io_uring: their Deletes, nothing counted (xfs's tracepoints name the
# files; btrfs names a file only at its eviction, in the worker, where
# the request's path is walked for the one the trace had not named).
# Then, traced with --vfs: /e/o created through io_uring and /e/f opened
# through it, each written: a Create for o, and an io_uring:openat record
# for each, with its path, its fd, its open flags, and the created flag
# on o's only.
#
# Needs root, BTF, loop devices, io_uring and python3; a missing one is a
# failure, never a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 PATH/TO/iotrace PATH/TO/uring_ns" >&2; exit 1; }
URING_NS=$(realpath -e "$2") || { echo "FAIL: no uring_ns at '$2'" >&2; exit 1; }
iotrace_test_binary "$1"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, BPF" losetup mkfs.ext4 mkfs.xfs mkfs.btrfs mount umount python3
iotrace_require_loop

iotrace_fs_test_start uring-files "traces"
iotrace_tracefs || die "$SETUP_ERR"
[ -e "$TRACEFS/events/io_uring/io_uring_complete" ] ||
	die "kernel has no io_uring tracepoints (CONFIG_IO_URING)"
iotrace_quiet_ext4 64M uring-files "$T" || die "$SETUP_ERR"
mkdir "$MNT/d" "$MNT/z" "$T/x" && touch "$T/x/g" "$MNT/v" || die "cannot make the directories"
sync -f "$MNT"

iotrace_test_start_tracer "" "$T/out" "$T/err" -S -d "$LN"
python3 -c 'import sys, fsync_write; fsync_write.write(sys.argv[1], create=True)' "$MNT/d/f" ||
	die "cannot write /d/f"
"$URING_NS" rename "$MNT/d" "$MNT/e" || die "uring_ns cannot rename d"
python3 -c 'import sys, fsync_write; fsync_write.write(sys.argv[1])' "$MNT/e/f" ||
	die "cannot write /e/f"
"$URING_NS" create "$MNT/e/n" create-fixed "$MNT/e/x" rename "$MNT/e/n" "$MNT/e/m" \
	unlink "$MNT/e/m" unlink "$MNT/v" rmdir "$MNT/z" rename "$T/x/g" "$T/x/h" ||
	die "uring_ns failed"
"$URING_NS" --sqpoll create "$MNT/e/s" unlink "$MNT/e/s" || die "uring_ns --sqpoll failed"
iotrace_test_stop_tracer "" "$T/out" "$T/err"

said=$(grep -c "^iotrace: warning: 4 renames, unlinks or creating opens were made through io_uring" "$T/err")
check "the tracer says 4 io_uring calls were not followed (said $said times)" [ "$said" = 1 ]
got=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" tags uringCallsNotFollowed)
check "tags.uringCallsNotFollowed is 4 (got $got)" [ "$got" = 4 ]
"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
check "-P --io exit 0" [ $? = 0 ]
check "the parser notes the 4 calls" grep -q "^iotrace: 4 renames, unlinks or creating opens" "$T/parse.err"
got=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(" ".join(r["file.path"] for r in rows if r["io.lba"] and r["io.operation"] == "Write"
               and r["file.path"] and r["io.flags.metadata"] == "false"))' "$T/io.csv")
check "the writes under the paths of their time ($got)" [ "$got" = "/d/f /e/f /e/n /e/s" ]
got=$(python3 -c '
import csv, sys
print(" ".join("%s:%s" % (r["file.eventType"], r["file.path"]) for r in csv.DictReader(open(sys.argv[1]))
               if r["file.eventType"] not in ("", "Access")))' "$T/io.csv")
check "the file events: the Creates of f and n, the Deletes of m and v, s's Create and Delete ($got)" \
	[ "$got" = "Create:/d/f Create:/e/n Delete:/e/m Delete:/v Create:/e/s Delete:/e/s" ]

iotrace_test_start_tracer "--vfs " "$T/out2" "$T/err2" -S -d "$LN" --vfs
"$URING_NS" create "$MNT/e/o" open "$MNT/e/f" || die "uring_ns failed with --vfs"
iotrace_test_stop_tracer "--vfs " "$T/out2" "$T/err2"
"$BIN" -P --vfs -p "$TRACE" -f csv >"$T/vfs.csv" 2>"$T/parse2.err"
check "-P --vfs exit 0" [ $? = 0 ]
got=$(python3 -c '
import csv, sys
out = []
for r in csv.DictReader(open(sys.argv[1])):
    if r["vfs.call"] == "io_uring:openat":
        fl = int(r["vfs.flags"])
        out.append("%s:%s:%s:%s" % (r["file.path"], r["vfs.result"] == r["vfs.fd"] and int(r["vfs.fd"]) >= 0,
                                    "creat" if fl & 0o301 == 0o301 else "wronly" if fl & 0o303 == 1 else fl,
                                    r["vfs.created"]))
print(" ".join(out))' "$T/vfs.csv")
check "an io_uring:openat record for o and f: fd, flags, created for o ($got)" \
	[ "$got" = "/e/o:True:creat:true /e/f:True:wronly:false" ]
"$BIN" -P --io -p "$TRACE" -f csv >"$T/io2.csv" 2>"$T/parse2.err"
got=$(python3 -c '
import csv, sys
print(" ".join("%s:%s" % (r["file.eventType"], r["file.path"]) for r in csv.DictReader(open(sys.argv[1]))
               if r["file.eventType"] not in ("", "Access")))' "$T/io2.csv")
check "with --vfs, o's Create ($got)" [ "$got" = "Create:/e/o" ]
iotrace_teardown_fs

for fs in xfs btrfs; do
	iotrace_test_fs "$fs" uring-files "$T" || die "$SETUP_ERR"
	touch "$MNT/u" "$MNT/v" && sync -f "$MNT" || die "cannot make the files on $fs"
	iotrace_test_start_tracer "$fs: " "$T/out3" "$T/err3" -S -d "$LN"
	python3 -c 'import sys, fsync_write; fsync_write.write(sys.argv[1])' "$MNT/u" ||
		die "cannot write /u on $fs"
	"$URING_NS" unlink "$MNT/u" unlink "$MNT/v" || die "uring_ns failed on $fs"
	iotrace_test_stop_tracer "$fs: " "$T/out3" "$T/err3"
	"$BIN" -P --io -p "$TRACE" -f csv >"$T/io3.csv" 2>"$T/parse3.err"
	got=$(python3 -c '
import csv, sys
print(" ".join("%s:%s" % (r["file.eventType"], r["file.path"]) for r in csv.DictReader(open(sys.argv[1]))
               if r["file.eventType"] not in ("", "Access")))' "$T/io3.csv")
	counted=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" tags uringCallsNotFollowed)
	check "$fs: the Deletes of u and v ($got), nothing counted (${counted:-none})" \
		[ "$got ${counted:-none}" = "Delete:/u Delete:/v none" ]
	iotrace_teardown_fs
done

finish
