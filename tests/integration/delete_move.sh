#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: which unlink and rename calls send Delete,
# MoveFrom and MoveTo events, and which file they name.
#
#   usage: tests/integration/delete_move.sh PATH/TO/iotrace
#
# The tracer resolves unlink and rename paths itself, through the dentry
# cache. A mount on a mount point goes on the root of the mount already
# there: /dev/shm on some nodes is two tmpfs, one over the other, and
# containers stack mounts the same way; the walk used to stop at the
# lower mount of a stack and send nothing, without counting the call as
# unresolved. In a mount namespace of its own, the test mounts two tmpfs
# on one directory and the traced ext4 (bind-mounted) inside the upper
# one, then, through that stack:
#   - renames and removes files by absolute and relative paths, and
#     through '..' out of the ext4: a MoveFrom and MoveTo for each rename,
#     a Delete for each unlink;
#   - renames a file over another: a Delete for the one replaced;
#   - removes one of two hard links (no Delete: the file lives on), then
#     the other (Delete);
#   - removes the first name of a file linked since (o, then p): a write
#     through the name left is the file's under that name, /p, not /o,
#     which its chain was sent under at the unlink;
#   - exchanges two files (renameat2 RENAME_EXCHANGE): no Delete, a
#     MoveFrom and MoveTo for each;
#   - writes a file in a directory, then renames the directory: no event,
#     and --final-names shows the write under the new name (files with no
#     I/O after a directory's rename kept its old name);
#   - removes a file that does not exist: no event, and not counted as
#     unresolved;
#   - removes and renames files through symbolic links on the tmpfs into
#     the ext4 (/data -> /mnt/nvme0 is the usual way into a mount): an
#     absolute one, a relative one, and a link to a link.
#
# Needs root, BTF, unshare, loop devices and mkfs.ext4; a missing one is
# a failure, not a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "mount namespaces, loop devices, BPF" unshare losetup mkfs.ext4
iotrace_require_loop
if [ -z "${IOTRACE_DELETE_MOVE_NS:-}" ]; then
	# shellcheck disable=SC2093 # die runs only if exec fails
	IOTRACE_DELETE_MOVE_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
	die "unshare --mount failed"
fi

iotrace_fs_test_start delete-move "traces"
iotrace_quiet_ext4 64M delete-move "$T" || die "$SETUP_ERR"
# the namespace's mounts go with it; these unmounts are for a run without one
iotrace_test_undo() {
	umount "$T/stack/inner" 2>/dev/null
	umount "$T/stack" 2>/dev/null
	umount "$T/stack" 2>/dev/null
}
mkdir "$T/stack" && mount -t tmpfs lower "$T/stack" && mount -t tmpfs upper "$T/stack" &&
	mkdir "$T/stack/inner" && mount --bind "$MNT" "$T/stack/inner" ||
	die "cannot stack the mounts"
S=$T/stack/inner
mkdir "$MNT/dir1" || die "cannot make $MNT/dir1"
for f in a b c d e f g i j k l m n o dir1/q; do
	echo "$f" >"$MNT/$f" || die "cannot write $MNT/$f"
done
ln "$MNT/g" "$MNT/h" && ln "$MNT/o" "$MNT/p" || die "cannot make the hard links"
ln -s "$S" "$T/stack/abs" && ln -s inner "$T/stack/rel" && ln -s abs "$T/stack/chain" ||
	die "cannot make the symbolic links"
sync -f "$MNT"

iotrace_test_start_tracer "" "$T/out" "$T/err" -S -d "$LN"
mv "$S/a" "$S/a2" || die "mv by absolute path failed"
rm "$S/b" || die "rm by absolute path failed"
(cd "$T/stack" && mv inner/c inner/c2) || die "mv by relative path failed"
(cd "$S" && rm ../inner/d) || die "rm through .. failed"
rm -f "$S/nothing-here"
mv "$S/e" "$S/f" || die "mv over a file failed"
rm "$S/h" || die "rm of a hard link failed"
rm "$S/g" || die "rm of the last link failed"
rm "$S/o" || die "rm of a first name failed"
dd if=/dev/zero of="$S/p" bs=4k count=1 oflag=direct conv=notrunc status=none ||
	die "direct write to p failed"
python3 -c 'import sys, exchange; exchange.exchange(sys.argv[1], sys.argv[2])' "$S/i" "$S/j" ||
	die "renameat2 RENAME_EXCHANGE failed"
rm "$T/stack/abs/k" || die "rm through an absolute link failed"
mv "$T/stack/abs/l" "$T/stack/abs/l2" || die "mv through an absolute link failed"
(cd "$T/stack" && rm rel/m) || die "rm through a relative link failed"
rm "$T/stack/chain/n" || die "rm through a link to a link failed"
python3 -c 'import sys, fsync_write; fsync_write.write(sys.argv[1])' "$S/dir1/q" ||
	die "write to dir1/q failed"
mv "$S/dir1" "$S/dir2" || die "mv of a directory failed"
iotrace_test_stop_tracer "" "$T/out" "$T/err"

"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
check "-P --io exit 0" [ $? = 0 ]
events=$(python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["file.eventType"] not in ("", "Access")]
print(" ".join(sorted("%s:%s" % (r["file.eventType"], r["file.path"]) for r in rows)))' "$T/io.csv")
want="Delete:/b Delete:/d Delete:/f Delete:/g Delete:/k Delete:/m Delete:/n MoveFrom:/a MoveFrom:/c"
want="$want MoveFrom:/e MoveFrom:/i MoveFrom:/j MoveFrom:/l MoveTo:/a2 MoveTo:/c2 MoveTo:/f MoveTo:/i"
want="$want MoveTo:/j MoveTo:/l2"
check "the Delete and Move events of the calls ($events)" [ "$events" = "$want" ]
written=$(python3 -c '
import csv, sys
rows = csv.DictReader(open(sys.argv[1]))
print(" ".join(sorted(set(r["file.path"] for r in rows
                          if r["process.comm"] == "dd" and r["io.operation"] == "Write"))))' "$T/io.csv")
check "the write through the name left is of /p (got '$written')" [ "$written" = /p ]
"$BIN" -P --io --final-names -p "$TRACE" -f csv >"$T/final.csv" 2>"$T/parse.err"
check "-P --io --final-names exit 0" [ $? = 0 ]
moved=$(python3 -c '
import csv, sys
print(" ".join(sorted(set(r["file.path"] for r in csv.DictReader(open(sys.argv[1]))
                          if r["process.comm"] == "python3" and r["io.operation"] == "Write"
                          and r["io.flags.metadata"] == "false"))))' "$T/final.csv")
check "the write before its directory's rename is of /dir2/q with --final-names (got '$moved')" \
	[ "$moved" = /dir2/q ]
unresolved=$(iotrace_json_get "$T/out" tags unresolvedFileEvents)
check "the tracer printed its summary" bash -c 'python3 -m json.tool "$1" >/dev/null' _ "$T/out"
check "no call counted as unresolved (got '${unresolved:-none}')" [ -z "$unresolved" ]

finish
