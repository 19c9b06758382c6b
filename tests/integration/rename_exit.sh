#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: renames whose file the tracer finds only at the
# call's exit, on btrfs (no tracepoints of its own: the walk of the
# dentry cache alone) and xfs (whose xfs_rename looks for the old name
# among the 64 newest cached entries of its directory).
#
#   usage: tests/integration/rename_exit.sh PATH/TO/iotrace
#
# The walk leaves a rename's old name to the exit, where the kernel has
# just put the moved dentry first among its new directory's children. In
# a directory of 5000 files, the test renames:
#   - the oldest file, which the trace has not met, to a new name in the
#     same directory: its old name is sent before its MoveFrom (from the
#     old path's directory and last component), and a write after the
#     rename is under the new name;
#   - the second oldest, written under trace before, to a new name: its
#     Moves, by the name the trace already had;
#   - the third oldest into another directory;
#   - the fourth oldest onto a file created last: the replaced file's
#     Delete, found by the walk before the call, and the Moves;
#   - the fifth oldest exchanged with the sixth (renameat2
#     RENAME_EXCHANGE), neither met by the trace: the other file is looked
#     up at the exit too, at the old path, where d_exchange() put it
#     first; both old names, then the Moves of both, and a write after
#     the exchange under the name the other file took;
#   - a file created after the 5000 exchanged with the seventh oldest:
#     the new one found before or in the call (on xfs by xfs_rename,
#     among the 64 newest entries), the old one only at the exit; before,
#     its Moves were missing and nothing was counted;
#   - a directory of the file system's root, holding a file written
#     before: no event, and --final-names shows the write under the new
#     path;
#   - unlinks two of the oldest files, one the trace has met and one it
#     has not, and renames a new file onto a third: each removed file's
#     Delete, under its name. On btrfs the walk does not find them, and
#     they are met at their eviction inside the call
#     (btrfs_events.bpf.h), the one the trace had not met named at the
#     exit from the call's path; before, the unlinks were unresolved and
#     the replaced file had no Delete. On xfs, xfs_iunlink names them.
# Nothing is unresolved. Before the exit was looked at, every rename in
# a directory of more than 4096 cached entries newer than the file was
# unresolved: counted, its events missing; and until 2026-11-29 (16th
# sitting) the exchange still was.
# Then, on btrfs, calls after a rename counted as unresolved, which leaves
# the file's old name in the trace (a new name of 280 bytes, which the
# exit cannot walk); the old name of a later call is walked at the exit
# (rename) or met in it (unlink: btrfs_events.bpf.h):
#   - a file written, renamed to a long name, then renamed again by a
#     short path: its MoveFrom under the long name's path, not the name
#     the write gave it (it did show that: 5 runs in 116 of fs_churn's
#     drops mode on btrfs);
#   - the same, then the caches dropped and the file unlinked: its
#     Delete under the long name's path (it showed the write's);
#   - a file the trace never named renamed from a long path: its old
#     name cannot be walked, so the call is counted and sends nothing
#     (its MoveFrom had no path, not counted).
# Three calls counted, and nothing else missing.
#
# Needs root, BTF, loop devices, mkfs.btrfs and mkfs.xfs; a missing one
# is a failure, not a skip. Everything set up is torn down at exit, also
# on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup mkfs.btrfs mkfs.xfs
iotrace_require_loop
iotrace_fs_test_start rename-exit "traces"

# the files, before the trace
make_files() {
	python3 - "$MNT" <<'PY'
import os, sys
mnt = sys.argv[1]
os.makedirs(mnt + "/big")
os.makedirs(mnt + "/other")
os.makedirs(mnt + "/dir")
for n in ("old", "known", "away", "onto", "xa", "xb", "xold", "gone", "seen", "replaced"):
    open(mnt + "/big/" + n, "w").close()
for i in range(5000):
    open(mnt + "/big/%d" % i, "w").close()
open(mnt + "/big/last", "w").close()
open(mnt + "/big/fresh", "w").close()
open(mnt + "/big/xnew", "w").close()
open(mnt + "/dir/in", "w").close()
PY
}

# the calls, under trace
rename_files() {
	python3 - "$MNT" <<'PY'
import os, sys
from exchange import exchange
from fsync_write import write
mnt = sys.argv[1]
write(mnt + "/big/known")
write(mnt + "/dir/in")
os.rename(mnt + "/big/old", mnt + "/big/old.new")
os.rename(mnt + "/big/known", mnt + "/big/known.new")
os.rename(mnt + "/big/away", mnt + "/other/away")
os.rename(mnt + "/big/onto", mnt + "/big/last")
os.rename(mnt + "/dir", mnt + "/dir.new")
exchange(mnt + "/big/xa", mnt + "/big/xb")
exchange(mnt + "/big/xnew", mnt + "/big/xold")
write(mnt + "/big/old.new")
write(mnt + "/big/xa")
write(mnt + "/big/seen")
os.unlink(mnt + "/big/gone")
os.unlink(mnt + "/big/seen")
os.rename(mnt + "/big/fresh", mnt + "/big/replaced")
PY
}

# events CSV: the file events, sorted; the paths of the I/Os, in order
events() {
	python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(" ".join(sorted("%s:%s" % (r["file.eventType"], r["file.path"]) for r in rows
                      if r["file.eventType"] not in ("", "Access"))))
print(" ".join(r["file.path"] for r in rows if r["io.lba"] and r["file.path"]))' "$1"
}

# traced AT FS MAKE CALLS: on a new FS, the files MAKE makes, then CALLS
# under trace; the trace parsed into T/io.csv, and from it got (the file
# events, sorted) and ios (the I/Os' paths, in order). AT names the checks.
traced() {
	local at=$1 fs=$2

	iotrace_shm_fs "$fs" 512M rename-exit "$T" || die "$SETUP_ERR"
	"$3" || die "cannot make the files on $fs"
	sync -f "$MNT"
	iotrace_test_start_tracer "$at: " "$T/out" "$T/err" -S -d "$LN"
	"$4" || die "the calls failed on $fs"
	iotrace_test_stop_tracer "$at: " "$T/out" "$T/err"
	"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
	check "$at: -P --io exit 0" [ $? = 0 ]
	{ read -r got; read -r ios; } < <(events "$T/io.csv")
}

for fs in btrfs xfs; do
	traced "$fs" "$fs" make_files rename_files
	want="Delete:/big/gone Delete:/big/last Delete:/big/replaced Delete:/big/seen"
	want="$want MoveFrom:/big/away MoveFrom:/big/fresh MoveFrom:/big/known MoveFrom:/big/old"
	want="$want MoveFrom:/big/onto MoveFrom:/big/xa MoveFrom:/big/xb MoveFrom:/big/xnew"
	want="$want MoveFrom:/big/xold MoveTo:/big/known.new MoveTo:/big/last MoveTo:/big/old.new"
	want="$want MoveTo:/big/replaced MoveTo:/big/xa MoveTo:/big/xb MoveTo:/big/xnew"
	want="$want MoveTo:/big/xold MoveTo:/other/away"
	check "$fs: the Delete and Move events ($got)" [ "$got" = "$want" ]
	check "$fs: the I/Os under the names they had ($ios)" \
		[ "$(tr ' ' '\n' <<<"$ios" | sort -u | paste -sd ' ')" = "/big/known /big/old.new /big/seen /big/xa /dir/in" ]
	unresolved=$(iotrace_json_get "$T/out" tags unresolvedFileEvents)
	check "$fs: nothing unresolved (got '${unresolved:-none}')" [ -z "$unresolved" ]
	"$BIN" -P --io --final-names -p "$TRACE" -f csv >"$T/final.csv" 2>"$T/parse.err"
	check "$fs: -P --io --final-names exit 0" [ $? = 0 ]
	{ read -r got; read -r ios; } < <(events "$T/final.csv")
	check "$fs: --final-names: the write in the renamed directory under its new path ($ios)" \
		grep -qw "/dir.new/in" <<<"$ios"
	iotrace_teardown_fs
done

# the calls after a counted rename (btrfs): see the note above
stale_calls() {
	python3 - "$MNT" <<'PY'
import os, sys
from fsync_write import write
mnt = sys.argv[1]
# more than the tracer's 256-byte path buffer: the exit cannot walk it
def long(name):
    return mnt + "/st/" + "./" * 140 + name
write(mnt + "/st/a")
os.rename(mnt + "/st/a", long("a2"))
os.rename(mnt + "/st/a2", mnt + "/st/a3")
write(mnt + "/st/b")
os.rename(mnt + "/st/b", long("b2"))
with open("/proc/sys/vm/drop_caches", "w") as f:
    f.write("2")
os.unlink(mnt + "/st/b2")
os.rename(long("c"), mnt + "/st/c2")
PY
}

stale_files() {
	mkdir "$MNT/st" && touch "$MNT/st/a" "$MNT/st/b" "$MNT/st/c"
}

traced "btrfs, after a counted rename" btrfs stale_files stale_calls
check "btrfs, after a counted rename: the events under the names the calls took ($got)" \
	[ "$got" = "Delete:/st/b2 MoveFrom:/st/a2 MoveTo:/st/a3" ]
check "btrfs, after a counted rename: the writes under the names they had ($ios)" \
	[ "$(tr ' ' '\n' <<<"$ios" | sort -u | paste -sd ' ')" = "/st/a /st/b" ]
unresolved=$(iotrace_json_get "$T/out" tags unresolvedFileEvents)
check "btrfs, after a counted rename: 3 calls counted unresolved (got '${unresolved:-none}')" \
	[ "$unresolved" = 3 ]
iotrace_teardown_fs

finish
