#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: the gate of ext4's program on
# ext4_mark_inode_dirty (fs_events.bpf.h), which runs each time any ext4
# inode on the node is dirtied, is raised only by renames in progress
# that left a name to it, and is down again once they end.
#
#   usage: tests/integration/rename_gate.sh PATH/TO/iotrace
#
# The gate is the program's global ns_deferred, read with bpftool. On
# ext4, xfs and btrfs in turn, traced with --vfs:
#   - a rename onto an existing file, held inside the call by a frozen
#     file system (fsfreeze: the call waits for write access after the
#     tracer's entry program ran): on ext4 the gate is 1 (the new name is
#     left to ext4's program); on xfs and btrfs 0 (before, every xfs
#     rename raised it: xfs names the replaced file itself). Once thawed,
#     the rename has its Delete, MoveFrom and MoveTo;
#   - 1,000 renames more, among them to new names, onto files,
#     exchanges, of directories, and failing ones (no such file, no such
#     directory, onto a directory, across file systems), and 200 unlinks: the
#     gate is 0 after them (a call that raised it and did not lower it
#     would leave ext4's program looking up every inode dirtied until the
#     trace ends); nothing unresolved.
#
# Needs root, BTF, loop devices, mkfs.ext4, mkfs.xfs, mkfs.btrfs, fsfreeze
# and bpftool; a missing one is a failure, not a skip. Everything set up
# is torn down at exit, also on failure (a frozen file system thawed
# first).
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, fsfreeze, bpftool, BPF" \
	losetup mkfs.ext4 mkfs.xfs mkfs.btrfs fsfreeze bpftool python3
iotrace_require_loop
iotrace_fs_test_start rename-gate "traces"
FROZEN=
HELD=
iotrace_test_undo() {
	[ -n "$FROZEN" ] && fsfreeze -u "$FROZEN"
	iotrace_kill_wait "$HELD"
}

# ns_deferred of the newest tracer's programs, or why it cannot be read
gate() {
	python3 - <<'PY'
import json, subprocess
def tool(*a):
    return json.loads(subprocess.run(["bpftool", "-j", *a], check=True,
                                     capture_output=True, text=True).stdout)
ids = [m["id"] for m in tool("map", "show") if m.get("name") == "iotrace.bss"]
if not ids:
    print("no iotrace.bss map")
else:
    for part in tool("map", "dump", "id", str(max(ids)))[0]["formatted"]["value"][".bss"]:
        if "ns_deferred" in part:
            print(part["ns_deferred"])
PY
}

# the calls after the held rename, under trace
more_renames() {
	python3 - "$MNT" "$T" <<'PY'
import errno, os, sys
from exchange import exchange
mnt, other = sys.argv[1] + "/d", sys.argv[2]
def fails(code, call, *args):
    try:
        call(*args)
    except OSError as e:
        if e.errno != code:
            raise
    else:
        raise SystemExit("%s%s did not fail" % (call.__name__, args))
os.mkdir(mnt + "/sub")
os.mkdir(mnt + "/todir")
for i in range(100):
    a, b, c = ("%s/%s%d" % (mnt, n, i) for n in "abc")
    for p in (a, b):
        open(p, "w").close()
    os.rename(a, c)                    # to a new name
    os.rename(c, b)                    # onto a file
    open(a, "w").close()
    exchange(a, b)
    os.rename(b, mnt + "/sub/%d" % i)  # into another directory
    os.rename(mnt + "/sub", mnt + "/sub2")   # a directory
    os.rename(mnt + "/sub2", mnt + "/sub")
    fails(errno.ENOENT, os.rename, mnt + "/none%d" % i, c)
    fails(errno.ENOENT, os.rename, a, mnt + "/nodir/x")
    fails(errno.EISDIR, os.rename, a, mnt + "/todir")
    fails(errno.EXDEV, os.rename, a, other + "/x%d" % i)
    os.unlink(a)
    os.unlink(mnt + "/sub/%d" % i)
PY
}

# the file events of the trace, sorted
events() {
	python3 -c '
import csv, sys
print(" ".join(sorted("%s:%s" % (r["file.eventType"], r["file.path"])
                      for r in csv.DictReader(open(sys.argv[1]))
                      if r["file.eventType"] not in ("", "Access"))))' "$1"
}

for fs in ext4 xfs btrfs; do
	iotrace_test_fs "$fs" rename-gate "$T" || die "$SETUP_ERR"
	mkdir "$MNT/d" && touch "$MNT/d/a" "$MNT/d/t" || die "cannot make the files on $fs"
	sync -f "$MNT"

	iotrace_test_start_tracer "$fs: " "$T/out" "$T/err" -S -d "$LN" --vfs
	check "$fs: the gate is down before any rename (got '$(gate)')" [ "$(gate)" = 0 ]

	fsfreeze -f "$MNT" || die "$fs: fsfreeze cannot freeze $MNT"
	FROZEN=$MNT
	python3 -c 'import os, sys; os.rename(sys.argv[1], sys.argv[2])' "$MNT/d/a" "$MNT/d/t" &
	HELD=$!
	# the call waits for the thaw in the kernel (state D)
	for _ in $(seq 100); do
		[ "$(awk '{ print $3 }' "/proc/$HELD/stat" 2>/dev/null)" = D ] && break
		sleep 0.05
	done
	held=$(gate)
	want=0
	[ "$fs" = ext4 ] && want=1
	check "$fs: the rename is held in the kernel" [ "$(awk '{ print $3 }' "/proc/$HELD/stat" 2>/dev/null)" = D ]
	check "$fs: a rename in progress leaves the gate at $want (got '$held')" [ "$held" = "$want" ]
	fsfreeze -u "$MNT"
	FROZEN=
	wait "$HELD"
	rc=$?
	HELD=
	check "$fs: the held rename succeeds once thawed" [ "$rc" = 0 ]

	more_renames || fail "$fs: the renames did not go as expected"
	check "$fs: the gate is down after 1,000 renames and 200 unlinks (got '$(gate)')" [ "$(gate)" = 0 ]
	iotrace_test_stop_tracer "$fs: " "$T/out" "$T/err"

	"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
	check "$fs: -P --io exit 0" [ $? = 0 ]
	got=$(events "$T/io.csv")
	for e in Delete:/d/t MoveFrom:/d/a MoveTo:/d/t; do
		check "$fs: the held rename's $e" grep -qw "$e" <<<"$got"
	done
	unresolved=$(iotrace_json_get "$T/out" tags unresolvedFileEvents)
	check "$fs: nothing unresolved (got '${unresolved:-none}')" [ -z "$unresolved" ]
	iotrace_teardown_fs
done

finish
