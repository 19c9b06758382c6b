#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: io_uring unlinks and renames in bulk, and those
# whose completion overflows the ring's completion queue.
#
#   usage: tests/integration/uring_batch.sh PATH/TO/iotrace PATH/TO/uring_batch
#
# Before, a batch of thousands of io_uring unlinks in flight at once (as a
# tool that removes a tree makes) overran the maps that follow them: 20,000
# unlinks on ext4 gave 4,339 Deletes, and the others were neither sent nor
# counted. A completion that finds the ring's CQ full is kept aside by the
# kernel and never passes io_uring_complete: its unlink or rename sent
# nothing and was not counted either. On ext4, xfs and btrfs, traced
# without --vfs, uring_batch (a test helper) makes, through io_uring:
#   1. 10,000 renames /b/fI -> /b/gI, all submitted before any is reaped
#      with no name cached (so that on btrfs each one's paths are kept to
#      be looked up again at its end), then 10,000 unlinks of /b/gI: their
#      Moves and Deletes, none counted;
#   2. through a ring whose CQ holds 4: 12 renames /o/fI -> /o/gI, then 12
#      unlinks of /o/gI, at least 8 of each overflowing: their Moves and
#      Deletes, none counted;
#   3. the same 12 unlinks of /s/fI, every request with user_data 0, so
#      that an overflow cannot tell them apart: each one sends its Delete
#      or is counted, and nothing else is sent;
#   4. 12 opens creating /c/fI through a ring whose CQ holds 4: their
#      Creates.
# Then, on ext4, traced with --vfs: 12 io_uring reads through a ring whose
# CQ holds 4: the 8 that overflow, whose records are missing, counted in
# tags.uringVfsRecordsMissing; 10,000 reads of /v/big, each linked after
# a read of an empty pipe, all in flight before any runs: those the tracer could not
# hold counted too, and the tracer and the parser say how many; 12
# unlinks through a CQ of 4: their records and Deletes. Then 12 unlinks
# submitted before the trace began, each linked after a splice from an
# empty pipe that an io-wq worker waits in, and run by that worker once
# the tracer runs: no program saw them start; counted. Then as a
# kernel before 6.2 traces (IOTRACE_NO_PATH_WALK=1: unlinks and renames
# are counted, not followed): 2. again, all 24 counted.
#
# Needs root, BTF, loop devices, io_uring and python3; a missing one is a
# failure, never a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binaries uring_batch "$@"
URING_BATCH=$HELPER
iotrace_test_harness

BIG=10000

# make_files DIR COUNT: empty files DIR/f0 ... DIR/f{COUNT-1}, on disk
make_files() {
	mkdir "$1" && python3 -c '
import sys
for i in range(int(sys.argv[2])):
    open("%s/f%d" % (sys.argv[1], i), "w").close()' "$1" "$2" && sync -f "$1"
}

# event_counts CSV DIR...: how many Create, MoveFrom, MoveTo and Delete
# events of a -P --io CSV are of files in each DIR (a path), one
# "DIR:Create=N,MoveFrom=N,MoveTo=N,Delete=N" word each, then "other=N":
# the events of other files
event_counts() {
	python3 -c '
import csv, sys
want = ("Create", "MoveFrom", "MoveTo", "Delete")
dirs = {d: dict.fromkeys(want, 0) for d in sys.argv[2:]}
other = 0
for r in csv.DictReader(open(sys.argv[1])):
    t, d = r["file.eventType"], r["file.path"].rpartition("/")[0]
    if t in want and d in dirs:
        dirs[d][t] += 1
    elif t not in ("", "Access"):
        other += 1
print(" ".join("%s:%s" % (d, ",".join("%s=%d" % (t, n[t]) for t in want)) for d, n in dirs.items()),
      "other=%d" % other)' "$@"
}

iotrace_require_root_bpf "loop devices, mount, BPF" losetup mkfs.ext4 mkfs.xfs mkfs.btrfs mount umount python3
iotrace_require_loop
iotrace_fs_test_start uring-batch "traces"
iotrace_tracefs || die "$SETUP_ERR"
[ -e "$TRACEFS/events/io_uring/io_uring_cqe_overflow" ] ||
	die "kernel has no io_uring tracepoints (CONFIG_IO_URING)"

for fs in ext4 xfs btrfs; do
	iotrace_test_fs "$fs" uring-batch "$T" || die "$SETUP_ERR"
	make_files "$MNT/b" "$BIG" && make_files "$MNT/o" 12 && make_files "$MNT/s" 12 &&
		make_files "$MNT/c" 0 || die "cannot make the files on $fs"

	iotrace_test_start_tracer "$fs: " "$T/out" "$T/err" -S -d "$LN"
	# no name cached: the walks find nothing, and the renames are looked up again at their ends
	echo 3 >/proc/sys/vm/drop_caches
	"$URING_BATCH" rename "$MNT/b/f" "$MNT/b/g" "$BIG" && "$URING_BATCH" unlink "$MNT/b/g" "$BIG" ||
		die "uring_batch failed on $fs"
	"$URING_BATCH" --cq 4 rename "$MNT/o/f" "$MNT/o/g" 12 &&
		"$URING_BATCH" --cq 4 unlink "$MNT/o/g" 12 ||
		die "uring_batch --cq 4 failed on $fs"
	"$URING_BATCH" --cq 4 --same-data unlink "$MNT/s/f" 12 ||
		die "uring_batch --same-data failed on $fs"
	"$URING_BATCH" --cq 4 create "$MNT/c/f" 12 || die "uring_batch --cq 4 create failed on $fs"
	iotrace_test_stop_tracer "$fs: " "$T/out" "$T/err"
	counted=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" tags uringCallsNotFollowed)
	"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err" ||
		die "$fs: -P --io failed: $(tail -1 "$T/parse.err")"

	read -r b o s c other <<<"$(event_counts "$T/io.csv" /b /o /s /c)"
	check "$fs: $BIG renames and $BIG unlinks at once: all their events ($b)" \
		[ "$b" = "/b:Create=0,MoveFrom=$BIG,MoveTo=$BIG,Delete=$BIG" ]
	check "$fs: 12 renames and 12 unlinks overflowing a CQ of 4: all their events ($o)" \
		[ "$o" = "/o:Create=0,MoveFrom=12,MoveTo=12,Delete=12" ]
	check "$fs: 12 creating opens overflowing a CQ of 4: their Creates ($c)" \
		[ "$c" = "/c:Create=12,MoveFrom=0,MoveTo=0,Delete=0" ]
	deletes=${s#/s:Create=0,MoveFrom=0,MoveTo=0,Delete=}
	check "$fs: 12 unlinks with one user_data overflowing: each one's Delete or counted, nothing else ($s, ${counted:-0} counted, $other)" \
		[ "$((deletes + ${counted:-0})) $other" = "12 other=0" ]
	iotrace_teardown_fs
done

iotrace_test_fs ext4 uring-batch "$T" || die "$SETUP_ERR"
make_files "$MNT/v" 12 && head -c 4096 /dev/zero >"$MNT/v/big" && sync -f "$MNT" ||
	die "cannot make the files"
iotrace_test_start_tracer "--vfs: " "$T/out" "$T/err" -S -d "$LN" --vfs
iotrace_check_uring_complete "--vfs: "
"$URING_BATCH" --cq 4 read "$MNT/v/f0" 12 && "$URING_BATCH" --pipe read "$MNT/v/big" "$BIG" &&
	"$URING_BATCH" --cq 4 unlink "$MNT/v/f" 12 || die "uring_batch failed with --vfs"
iotrace_test_stop_tracer "--vfs: " "$T/out" "$T/err"
missing=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" tags uringVfsRecordsMissing)
said=$(grep -c "^iotrace: warning: ${missing:-none} io_uring requests on traced files have no --vfs record" "$T/err")
"$BIN" -P --vfs -p "$TRACE" -f csv >"$T/vfs.csv" 2>"$T/parse.err" ||
	die "--vfs: -P --vfs failed: $(tail -1 "$T/parse.err")"
read -r reads piped unlinks <<<"$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
reads = [r for r in rows if r["vfs.call"] == "io_uring:read"]
unlinks = set(r["file.path"] for r in rows if r["vfs.call"] == "io_uring:unlinkat" and r["vfs.result"] == "0")
print(sum(r["file.path"] != "/v/big" for r in reads), sum(r["file.path"] == "/v/big" for r in reads),
      "%d:%s" % (len(unlinks), all(p.startswith("/v/f") for p in unlinks)))' "$T/vfs.csv")"
check "--vfs: of 12 reads through a CQ of 4, the 4 that did not overflow have records ($reads)" \
	[ "$reads" = 4 ]
# each condition inside its check: a '&& [ ... ]' after one would be outside it
counted=no
[ $((piped + ${missing:-0})) = $((BIG + 8)) ] && [ "${missing:-0}" -gt 8 ] && counted=yes
check "--vfs: those 8, and of $BIG reads in flight at once those without a record, are counted, some ($piped records, ${missing:-none} counted)" \
	[ "$counted" = yes ]
told=no
[ "$said" = 1 ] && grep -q "^iotrace: ${missing:-none} io_uring requests on traced files have no record" "$T/parse.err" && told=yes
check "--vfs: the tracer and the parser say how many are missing (said $said)" [ "$told" = yes ]
check "--vfs: all 12 unlinks through a CQ of 4 have their records, with their files ($unlinks)" \
	[ "$unlinks" = "12:True" ]
"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
read -r v other <<<"$(event_counts "$T/io.csv" /v)"
check "--vfs: the 12 unlinks' Deletes ($v $other)" \
	[ "$v $other" = "/v:Create=0,MoveFrom=0,MoveTo=0,Delete=12 other=0" ]

# unlinks linked before the trace began, run in it by io-wq workers
make_files "$MNT/h" 12 || die "cannot make the files"
"$URING_BATCH" --pipe --splice --hold "$T/go" unlink "$MNT/h/f" 12 >"$T/held" &
HELD=$!
# the helper waits for go, and its io-wq workers in the splices, until it is killed
iotrace_test_undo() { kill "$HELD" 2>/dev/null; wait "$HELD" 2>/dev/null; }
for _ in $(seq 100); do
	grep -q submitted "$T/held" && break
	sleep 0.1
done
iotrace_test_start_tracer "held: " "$T/out" "$T/err" -S -d "$LN"
touch "$T/go"
wait "$HELD" || die "uring_batch --pipe --splice --hold failed"
unset -f iotrace_test_undo
iotrace_test_stop_tracer "held: " "$T/out" "$T/err"
counted=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" tags uringCallsNotFollowed)
"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
read -r h other <<<"$(event_counts "$T/io.csv" /h)"
check "12 unlinks submitted before the trace, run in it: counted (${counted:-none}; $h $other)" \
	[ "${counted:-none} $h $other" = "12 /h:Create=0,MoveFrom=0,MoveTo=0,Delete=0 other=0" ]

make_files "$MNT/o" 12 || die "cannot make the files"
export IOTRACE_NO_PATH_WALK=1
iotrace_test_start_tracer "no walk: " "$T/out" "$T/err" -S -d "$LN"
unset IOTRACE_NO_PATH_WALK
iotrace_check_uring_complete "no walk: " _nowalk
"$URING_BATCH" --cq 4 rename "$MNT/o/f" "$MNT/o/g" 12 &&
	"$URING_BATCH" --cq 4 unlink "$MNT/o/g" 12 ||
	die "uring_batch failed without the walk"
iotrace_test_stop_tracer "no walk: " "$T/out" "$T/err"
counted=$(iotrace_json_get "$T/repo/$TRACE/octf.summary" tags uringCallsNotFollowed)
check "no walk: 12 renames and 12 unlinks overflowing a CQ of 4: all 24 counted (${counted:-none})" \
	[ "${counted:-none}" = 24 ]
iotrace_teardown_fs

finish
