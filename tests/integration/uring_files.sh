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
# its unlinks and renames were neither followed nor counted; then its
# renames sent no Moves, and a request linked after another, which the
# io-wq worker runs next without handing it off, was missed. On a traced
# ext4, without --vfs, uring_ns (a test helper) and python make:
#   1. /d/f, created and written (python);
#   2. d renamed to e through io_uring, then f written again: f is named
#      again, as /e/f (the trace had named d: its chain is sent again);
#   3. /e/n created through io_uring and written: its Create, its write
#      under /e/n;
#   4. /e/x created into a fixed file slot; /e/n renamed to /e/m, then
#      unlinked; /v, made before the trace and never named in it,
#      unlinked; an empty /z removed (AT_REMOVEDIR); a file renamed in a
#      directory of /tmp: all through io_uring. The rename sends its
#      Moves, the unlinks their Deletes; the fixed open is counted, not
#      the rmdir, nor the rename on /tmp, which changes no traced path;
#   5. through a ring with a kernel thread of its own (SQPOLL): /e/s
#      created, written and unlinked: its Create, write and Delete; the
#      same, with a rename between, through a ring whose completions run
#      in its task when it waits (DEFER_TASKRUN), after the worker is done:
#      /e/w1's Create, Moves to /e/w2 and Delete;
#   6. /e/p and /e/q created, exchanged, then p renamed onto q: the
#      exchange's four Moves, then q's Delete and p's Moves;
#   7. linked requests: /e/b unlinked after /e/a (the worker runs it:
#      ext4's tracepoint names the file), /e/c after a nop (handed off):
#      their Deletes; /e/g unlinked with no completion (CQE_SKIP_SUCCESS):
#      counted; /e/h renamed to /e/i, then, linked, to /e/j (in the worker,
#      not walked where it was linked: looked up at its completion, on a
#      copy of its paths), then /e/j to /e/k after a nop: the Moves of all
#      three, and a write of /e/k under its name; /e/v1 unlinked with no
#      completion after a nop (handed off) and /e/v3 after /e/v2's unlink
#      (in the worker): each counted once, and v2's Delete; /e/x2 renamed
#      onto /e/x3 after /e/x1's unlink (in the worker, where ext4 names
#      the file it replaces only as the one it dirties with no link left):
#      x3's Delete and x2's Moves. The summary counts 4 calls, and the
#      tracer and the parser say so.
# On xfs, then btrfs: /u, written, renamed to /w, and, linked, onto /y
# (in the worker), never written; then /y and /v, never written,
# unlinked, all through io_uring: the Moves of both renames, the Delete
# of the /y replaced, nothing counted, and the Deletes
# (xfs's tracepoints name the files; btrfs names a file only at its
# eviction, in the worker, where the request's path is walked for the one
# the trace had not named).
# Then, traced with --vfs: /e/o created through io_uring and /e/f opened
# through it, each written, then o renamed to /e/r and unlinked through
# it: o's Create, Moves and Delete; an io_uring:openat record for each
# open, with its path, its fd, its open flags, and the created flag on
# o's only; an io_uring:renameat and an io_uring:unlinkat record, on the
# file's path when each returned. Then as a kernel before 6.2 traces
# (IOTRACE_NO_PATH_WALK=1: the syscalls' unlinks and renames are not
# followed either): /e/t created, renamed to /e/u and written, /e/f
# unlinked after a nop: t's Create, its writes under the name of their
# time, the rename and the unlink counted, and the tracer, the summary
# (tags.notFollowed) and the parser say that Deletes and Moves are not
# followed. Then as a kernel before 6.1 traces (IOTRACE_NO_URING=1), with
# --vfs: no io_uring program loads, io_uring's create, rename and unlink
# leave nothing and are not counted, and all three say so.
#
# Needs root, BTF, loop devices, io_uring and python3; a missing one is a
# failure, never a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binaries uring_ns "$@"
URING_NS=$HELPER
iotrace_test_harness

# file_events CSV: the file events of a -P --io CSV, as Type:path
file_events() {
	python3 -c '
import csv, sys
print(" ".join("%s:%s" % (r["file.eventType"], r["file.path"]) for r in csv.DictReader(open(sys.argv[1]))
               if r["file.eventType"] not in ("", "Access")))' "$1"
}

# data_writes CSV: the paths of a -P --io CSV's data writes, in order
data_writes() {
	python3 -c '
import csv, sys
rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: int(r["header.sid"]))
print(" ".join(r["file.path"] for r in rows if r["io.lba"] and r["io.operation"] == "Write"
               and r["file.path"] and r["io.flags.metadata"] == "false"))' "$1"
}

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
iotrace_check_uring_complete ""
python3 -c 'import sys, fsync_write; fsync_write.write(sys.argv[1], create=True)' "$MNT/d/f" ||
	die "cannot write /d/f"
"$URING_NS" rename "$MNT/d" "$MNT/e" || die "uring_ns cannot rename d"
python3 -c 'import sys, fsync_write; fsync_write.write(sys.argv[1])' "$MNT/e/f" ||
	die "cannot write /e/f"
"$URING_NS" create "$MNT/e/n" create-fixed "$MNT/e/x" rename "$MNT/e/n" "$MNT/e/m" \
	unlink "$MNT/e/m" unlink "$MNT/v" rmdir "$MNT/z" rename "$T/x/g" "$T/x/h" ||
	die "uring_ns failed"
"$URING_NS" --sqpoll create "$MNT/e/s" unlink "$MNT/e/s" || die "uring_ns --sqpoll failed"
"$URING_NS" --defer create "$MNT/e/w1" rename "$MNT/e/w1" "$MNT/e/w2" unlink "$MNT/e/w2" ||
	die "uring_ns --defer failed"
"$URING_NS" create "$MNT/e/p" create "$MNT/e/q" exchange "$MNT/e/p" "$MNT/e/q" \
	rename "$MNT/e/p" "$MNT/e/q" || die "uring_ns failed to exchange and rename"
"$URING_NS" create "$MNT/e/a" create "$MNT/e/b" create "$MNT/e/c" create "$MNT/e/g" \
	create "$MNT/e/h" unlink "$MNT/e/a" +unlink "$MNT/e/b" nop +unlink "$MNT/e/c" \
	unlink-quiet "$MNT/e/g" +nop rename "$MNT/e/h" "$MNT/e/i" +rename "$MNT/e/i" "$MNT/e/j" \
	nop +rename "$MNT/e/j" "$MNT/e/k" || die "uring_ns failed on linked requests"
"$URING_NS" create "$MNT/e/v1" create "$MNT/e/v2" create "$MNT/e/v3" \
	nop +unlink-quiet "$MNT/e/v1" +nop unlink "$MNT/e/v2" +unlink-quiet "$MNT/e/v3" +nop ||
	die "uring_ns failed on linked requests with no completion"
"$URING_NS" create "$MNT/e/x1" create "$MNT/e/x2" create "$MNT/e/x3" \
	unlink "$MNT/e/x1" +rename "$MNT/e/x2" "$MNT/e/x3" || die "uring_ns failed on a linked rename onto a file"
python3 -c 'import sys, fsync_write; fsync_write.write(sys.argv[1], offset=4096)' "$MNT/e/k" ||
	die "cannot write /e/k"
iotrace_test_stop_tracer "" "$T/out" "$T/err"
check "nothing said to be out of the tracer's reach" bash -c "! grep -q 'do not let the tracer follow' '$T/err'"
got=$(iotrace_json_get "$T/out" tags notFollowed)
check "no tags.notFollowed (${got:-none})" [ -z "$got" ]

said=$(grep -c "^iotrace: warning: 4 renames, unlinks or creating opens were made through io_uring" "$T/err")
check "the tracer says 4 io_uring calls were not followed (said $said times)" [ "$said" = 1 ]
got=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" tags uringCallsNotFollowed)
check "tags.uringCallsNotFollowed is 4 (got $got)" [ "$got" = 4 ]
"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
check "-P --io exit 0" [ $? = 0 ]
check "the parser notes the 4 calls" grep -q "^iotrace: 4 renames, unlinks or creating opens" "$T/parse.err"
got=$(data_writes "$T/io.csv")
check "the writes under the paths of their time ($got)" \
	[ "$got" = "/d/f /e/f /e/n /e/s /e/w1 /e/p /e/q /e/a /e/b /e/c /e/g /e/h /e/v1 /e/v2 /e/v3 /e/x1 /e/x2 /e/x3 /e/k" ]
got=$(file_events "$T/io.csv")
want="Create:/d/f Create:/e/n MoveFrom:/e/n MoveTo:/e/m Delete:/e/m Delete:/v"
want+=" Create:/e/s Delete:/e/s Create:/e/w1 MoveFrom:/e/w1 MoveTo:/e/w2 Delete:/e/w2"
want+=" Create:/e/p Create:/e/q MoveFrom:/e/p MoveTo:/e/q"
want+=" MoveFrom:/e/q MoveTo:/e/p Delete:/e/q MoveFrom:/e/p MoveTo:/e/q Create:/e/a Create:/e/b"
want+=" Create:/e/c Create:/e/g Create:/e/h Delete:/e/a Delete:/e/b Delete:/e/c"
want+=" MoveFrom:/e/h MoveTo:/e/i MoveFrom:/e/i MoveTo:/e/j MoveFrom:/e/j MoveTo:/e/k"
want+=" Create:/e/v1 Create:/e/v2 Create:/e/v3 Delete:/e/v2"
want+=" Create:/e/x1 Create:/e/x2 Create:/e/x3 Delete:/e/x1 Delete:/e/x3 MoveFrom:/e/x2 MoveTo:/e/x3"
check "the file events: Creates, Moves of renames and the exchange, Deletes, linked ones too ($got)" \
	[ "$got" = "$want" ]

iotrace_test_start_tracer "--vfs " "$T/out2" "$T/err2" -S -d "$LN" --vfs
"$URING_NS" create "$MNT/e/o" open "$MNT/e/f" rename "$MNT/e/o" "$MNT/e/r" unlink "$MNT/e/r" ||
	die "uring_ns failed with --vfs"
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
got=$(python3 -c '
import csv, sys
print(" ".join("%s:%s:%s" % (r["vfs.call"], r["file.path"], r["vfs.result"])
               for r in csv.DictReader(open(sys.argv[1]))
               if r["vfs.call"] in ("io_uring:renameat", "io_uring:unlinkat")))' "$T/vfs.csv")
check "an io_uring:renameat and an io_uring:unlinkat record, on the file's path ($got)" \
	[ "$got" = "io_uring:renameat:/e/r:0 io_uring:unlinkat:/e/r:0" ]
"$BIN" -P --io -p "$TRACE" -f csv >"$T/io2.csv" 2>"$T/parse2.err"
got=$(file_events "$T/io2.csv")
check "with --vfs, o's Create, Moves and Delete ($got)" \
	[ "$got" = "Create:/e/o MoveFrom:/e/o MoveTo:/e/r Delete:/e/r" ]

# as a kernel before 6.2 traces: no unlink or rename followed, io_uring's counted
export IOTRACE_NO_PATH_WALK=1
iotrace_test_start_tracer "no walk: " "$T/out4" "$T/err4" -S -d "$LN"
unset IOTRACE_NO_PATH_WALK
iotrace_check_uring_complete "no walk: " _nowalk
"$URING_NS" create "$MNT/e/t" rename "$MNT/e/t" "$MNT/e/u" nop +unlink "$MNT/e/f" ||
	die "uring_ns failed without the walk"
python3 -c 'import sys, fsync_write; fsync_write.write(sys.argv[1], offset=4096)' "$MNT/e/u" ||
	die "cannot write /e/u"
iotrace_test_stop_tracer "no walk: " "$T/out4" "$T/err4"
"$BIN" -P --io -p "$TRACE" -f csv >"$T/io4.csv" 2>"$T/parse4.err"
got="$(file_events "$T/io4.csv") / $(data_writes "$T/io4.csv")"
counted=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" tags uringCallsNotFollowed)
check "no walk: t's Create, its writes before and after its rename, 2 counted ($got, ${counted:-none})" \
	[ "$got ${counted:-none}" = "Create:/e/t / /e/t /e/u 2" ]
check "no walk: the tracer says it follows no Delete or Move" grep -qxF "iotrace: this kernel's tracepoints do not let the tracer follow these, nor count them: Delete and Move events (see tags.notFollowed in the README)" "$T/err4"
got=$(iotrace_json_get "$T/out4" tags notFollowed)
check "no walk: tags.notFollowed is delete,move ($got)" [ "$got" = delete,move ]
check "no walk: the parser says so too" grep -qxF "iotrace: this trace's tracer had no way to follow these: Delete and Move events; any such event is missing from this trace, and not counted" "$T/parse4.err"

# as a kernel before 6.1 traces (IOTRACE_NO_URING=1: io_uring's
# tracepoints do not pass the request), with --vfs: no io_uring program
# loads; /e/y created, renamed to /e/y2 and unlinked through io_uring
# leave no file event and no record, and are not counted; /e/z made by
# python has its Create and its calls; the tracer, the summary and the
# parser say what is not followed
export IOTRACE_NO_URING=1
iotrace_test_start_tracer "no io_uring: " "$T/out5" "$T/err5" -S -d "$LN" --vfs
unset IOTRACE_NO_URING
got=$(bpftool prog show | grep -oE "name handle_uring_[a-z_]*" | sort -u | tr '\n' ' ')
check "no io_uring: no io_uring program loaded (${got:-none})" [ -z "$got" ]
"$URING_NS" create "$MNT/e/y" rename "$MNT/e/y" "$MNT/e/y2" unlink "$MNT/e/y2" ||
	die "uring_ns failed as before 6.1"
python3 -c 'import sys, fsync_write; fsync_write.write(sys.argv[1], create=True)' "$MNT/e/z" ||
	die "cannot write /e/z"
iotrace_test_stop_tracer "no io_uring: " "$T/out5" "$T/err5"
uring_nf="io_uring's opens, unlinks and renames (their Create, Delete and Move events)"
check "no io_uring: the tracer says what it does not follow" grep -qxF "iotrace: this kernel's tracepoints do not let the tracer follow these, nor count them: $uring_nf; io_uring requests' --vfs records (see tags.notFollowed in the README)" "$T/err5"
got=$(iotrace_json_get "$T/out5" tags notFollowed)/$(iotrace_json_get "$T/out5" tags uringCallsNotFollowed)
check "no io_uring: tags.notFollowed io_uring-files,io_uring-vfs, nothing counted ($got)" \
	[ "$got" = io_uring-files,io_uring-vfs/ ]
"$BIN" -P --io -p "$TRACE" -f csv >"$T/io5.csv" 2>"$T/parse5.err"
got=$(file_events "$T/io5.csv")
check "no io_uring: z's Create only ($got)" [ "$got" = Create:/e/z ]
check "no io_uring: the parser's --io names io_uring's file events" grep -qxF "iotrace: this trace's tracer had no way to follow these: $uring_nf; any such event is missing from this trace, and not counted" "$T/parse5.err"
"$BIN" -P --vfs -p "$TRACE" -f csv >"$T/vfs5.csv" 2>"$T/parse5v.err"
got=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(sum(r["vfs.call"].startswith("io_uring:") for r in rows), sum(r["file.path"] == "/e/z" for r in rows))' "$T/vfs5.csv")
read -r uring_calls z_calls <<<"$got"
check "no io_uring: no io_uring record, z's calls recorded ($uring_calls, $z_calls)" \
	[ "$uring_calls $((z_calls >= 3))" = "0 1" ]
check "no io_uring: the parser's --vfs names both" grep -qxF "iotrace: this trace's tracer had no way to follow these: $uring_nf; io_uring requests' --vfs records; any such event is missing from this trace, and not counted" "$T/parse5v.err"
iotrace_teardown_fs

for fs in xfs btrfs; do
	iotrace_test_fs "$fs" uring-files "$T" || die "$SETUP_ERR"
	touch "$MNT/u" "$MNT/v" "$MNT/y" && sync -f "$MNT" || die "cannot make the files on $fs"
	iotrace_test_start_tracer "$fs: " "$T/out3" "$T/err3" -S -d "$LN"
	python3 -c 'import sys, fsync_write; fsync_write.write(sys.argv[1])' "$MNT/u" ||
		die "cannot write /u on $fs"
	"$URING_NS" rename "$MNT/u" "$MNT/w" +rename "$MNT/w" "$MNT/y" unlink "$MNT/y" \
		unlink "$MNT/v" || die "uring_ns failed on $fs"
	iotrace_test_stop_tracer "$fs: " "$T/out3" "$T/err3"
	"$BIN" -P --io -p "$TRACE" -f csv >"$T/io3.csv" 2>"$T/parse3.err"
	got=$(file_events "$T/io3.csv")
	counted=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" tags uringCallsNotFollowed)
	want="MoveFrom:/u MoveTo:/w Delete:/y MoveFrom:/w MoveTo:/y Delete:/y Delete:/v none"
	check "$fs: the Moves of the renames, the Deletes of the y replaced, the y unlinked and v, what is counted ($got ${counted:-none})" \
		[ "$got ${counted:-none}" = "$want" ]
	iotrace_teardown_fs
done

finish
