#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: which renames make the tracer send files' name
# chains again.
#
#   usage: tests/integration/name_resend.sh PATH/TO/iotrace
#
# A file's chain is sent once, at its first I/O, and again after a rename
# that may have changed its path: one of a directory above it. A rename of
# a regular file changes no other file's path; it used to have every
# file's chain sent again at its next I/O all the same (11,804 name records
# where 2,113 do, in README's example). So did any rename on a file system
# the trace has no file of (the root's, a tmpfs): journals and package
# managers rename there all the time. On ext4, with /d/a, /d/b and /e/c:
#   1. a and c are written (each named);
#   2. b is renamed to b2, then a new file renamed onto b2 (an atomic
#      save): their Moves and the replaced file's Delete;
#   3. a file and a directory are renamed on the root file system, on
#      /dev/shm and on a btrfs of an untraced loop device, by absolute and
#      relative paths;
#   4. a and c are written again: no name sent again for either;
#   5. the directory e is renamed to e2;
#   6. c and a are written again: both named again, c under /e2;
#   7. through an overlayfs whose upper layer is on the traced ext4 (its
#      own device is not traced), /upper/u/f is written, the directory u
#      renamed to u2, and f written again: named again, under /upper/u2;
#   8. in a tmpfs, 4,200 more are mounted, and /q of the traced ext4 is
#      bound there twice: after the first 300 (more than the walk looked
#      through before 938d45b) and after all of them (more than the 4,096
#      it looks through now). Through the first, g is renamed to h: its
#      Moves. Through the second, /q/r/f is written, r renamed to s, f
#      written again: named again, as /q/s/f (the walk may have missed
#      the mount, so it cannot say the rename was elsewhere). Then, on
#      /tmp, /q is bound and h renamed to h2 through it, the bind mount
#      replaced by one of /e2, and k renamed to k2 through that: the walk
#      does not keep to the mount it crossed into there before;
#   9. /w/d/x is renamed to y, with 40 entries made in /w after d (past
#      the 16 newest, where the walk asks what it found before), then d
#      renamed to d0, and a new d made with an x, 40 more entries after
#      it, and x renamed to y again: the Moves name /w/d both times (the
#      walk does not keep to the d it found before, now d0);
#  10. while the collector is stopped (SIGSTOP), so before it learns of
#      them, a traced btrfs is mounted (btrfs numbers itself apart), and
#      an ext4 on a partition made then on a third traced device: on each
#      /d/f is written, the directory d renamed to e, f written again:
#      named again, as /e/f.
# Each of a and c is named exactly twice, and the writes are under the
# paths of their time.
#
# Needs root, BTF, loop devices, overlayfs, btrfs and addpart; a missing
# one is a failure, not a skip. Everything set up is torn down at exit,
# also on failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, mount, BPF" losetup addpart partx mkfs.ext4 mkfs.btrfs mount umount mountpoint python3
iotrace_require_loop
grep -qw overlay /proc/filesystems || die "the kernel has no overlayfs (not in /proc/filesystems)"
grep -qw btrfs /proc/filesystems || die "the kernel has no btrfs (not in /proc/filesystems)"

CROWD='' OVL='' SHM='' IMG2='' LOOP2='' MNT2='' IMG3='' LOOP3='' MNT3='' IMG4='' LOOP4='' MNT4=''
iotrace_test_undo() {
	[ -n "$TRACER_PID" ] && kill -CONT "$TRACER_PID" 2>/dev/null
	[ -n "${T:-}" ] && mountpoint -q "$T/rebind" && umount "$T/rebind"
	# lazily: one call takes the whole tree down
	if [ -n "$CROWD" ]; then
		mountpoint -q "$CROWD" && umount -l "$CROWD"
		rmdir "$CROWD"
	fi
	iotrace_undo_fs "$OVL" "" ""
	[ -n "$SHM" ] && rm -rf "$SHM"
	iotrace_undo_fs "$MNT2" "$LOOP2" "$IMG2"
	iotrace_undo_fs "$MNT4" "$LOOP4" "$IMG4"
	if [ -n "$MNT3" ]; then
		mountpoint -q "$MNT3" && umount "$MNT3"
		rmdir "$MNT3"
	fi
	[ -n "$LOOP3" ] && partx -d "$LOOP3" 2>/dev/null
	iotrace_undo_fs "" "$LOOP3" "$IMG3"
}

iotrace_fs_test_start name-resend "traces"
iotrace_quiet_ext4 64M name-resend "$T" || die "$SETUP_ERR"
mkdir "$MNT/d" "$MNT/e" && touch "$MNT/d/a" "$MNT/d/b" "$MNT/e/c" "$MNT/e/k" || die "cannot make the files"
mkdir -p "$MNT/lower" "$MNT/upper/u" "$MNT/work" && touch "$MNT/upper/u/f" ||
	die "cannot make the overlay's layers"
mkdir -p "$MNT/q/r" && touch "$MNT/q/r/f" "$MNT/q/g" || die "cannot make /q/r/f and /q/g"
sync -f "$MNT"
OVL=$(mktemp -d /tmp/iotrace-name-resend-ovl.XXXXXX) || die "cannot make a mount point"
mount -t overlay overlay -o "lowerdir=$MNT/lower,upperdir=$MNT/upper,workdir=$MNT/work" "$OVL" ||
	die "cannot mount an overlayfs over $MNT"
SHM=$(mktemp -d /dev/shm/iotrace-name-resend.XXXXXX) || die "cannot make a directory in /dev/shm"
IMG4=$(mktemp /dev/shm/iotrace-name-resend-4.XXXXXX.img) && truncate -s 256M "$IMG4" ||
	die "cannot make an untraced image in /dev/shm"
LOOP4=$(losetup -f --show "$IMG4") || { LOOP4=''; die "losetup cannot attach an untraced loop device"; }
mkfs.btrfs -q -f "$LOOP4" >"$T/mkfs4.log" 2>&1 || die "mkfs.btrfs failed: $(cat "$T/mkfs4.log")"
MNT4=$(mktemp -d /tmp/iotrace-name-resend-mnt4.XXXXXX) || die "cannot make a mount point"
mount -o noatime "$LOOP4" "$MNT4" || die "cannot mount $LOOP4"
mkdir "$T/x" "$SHM/x" "$MNT4/x" && touch "$T/x/f" "$SHM/x/f" "$MNT4/x/f" ||
	die "cannot make the untraced files"
IMG2=$(mktemp /dev/shm/iotrace-name-resend-2.XXXXXX.img) && truncate -s 256M "$IMG2" ||
	die "cannot make a second image in /dev/shm"
LOOP2=$(losetup -f --show "$IMG2") || { LOOP2=''; die "losetup cannot attach a second loop device"; }
mkfs.btrfs -q -f "$LOOP2" >"$T/mkfs2.log" 2>&1 || die "mkfs.btrfs failed: $(cat "$T/mkfs2.log")"
MNT2=$(mktemp -d /tmp/iotrace-name-resend-mnt2.XXXXXX) || die "cannot make a mount point"
IMG3=$(mktemp /dev/shm/iotrace-name-resend-3.XXXXXX.img) && truncate -s 80M "$IMG3" ||
	die "cannot make a third image in /dev/shm"
LOOP3=$(losetup -f --show "$IMG3") || { LOOP3=''; die "losetup cannot attach a third loop device"; }
MNT3=$(mktemp -d /tmp/iotrace-name-resend-mnt3.XXXXXX) || die "cannot make a mount point"

iotrace_test_start_tracer "" "$T/out" "$T/err" -S -d "$LN,${LOOP2#/dev/},${LOOP3#/dev/}"
python3 - "$MNT" "$OVL" "$T" "$SHM" "$MNT4" <<'PY' || die "the workload failed"
import os, sys
import fsync_write
m, ovl, elsewhere = sys.argv[1], sys.argv[2], sys.argv[3:]
def write(p):
    fsync_write.write(m + p)
write("/d/a")
write("/e/c")
os.rename(m + "/d/b", m + "/d/b2")
os.close(os.open(m + "/d/t", os.O_CREAT | os.O_WRONLY, 0o644))
os.rename(m + "/d/t", m + "/d/b2")
for top in elsewhere:
    os.rename(top + "/x/f", top + "/x/g")
    os.rename(top + "/x", top + "/y")
    os.chdir(top)
    os.rename("y/g", "y/f")
    os.rename("y", "x")
write("/d/a")
write("/e/c")
os.rename(m + "/e", m + "/e2")
write("/e2/c")
write("/d/a")
m = ovl
write("/u/f")
os.rename(ovl + "/u", ovl + "/u2")
write("/u2/f")
PY
CROWD=$(mktemp -d /tmp/iotrace-name-resend-crowd.XXXXXX) || die "cannot make a directory"
mount -t tmpfs -o size=4m tmpfs "$CROWD" && mkdir "$CROWD/mid" "$CROWD/late" "$CROWD/m" ||
	die "cannot mount a tmpfs on $CROWD"
# by mount(2) from one process: a mount(8) each would take half a minute
python3 - "$CROWD" "$MNT/q" <<'PY' || die "cannot mount the crowd of file systems"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
crowd, q = sys.argv[1], sys.argv[2]
MS_BIND = 4096
def mount(src, dst, fstype, flags, data):
    if libc.mount(src.encode(), dst.encode(), fstype and fstype.encode(), flags, data and data.encode()):
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), dst)
for i in range(4200):
    if i == 300:
        mount(q, crowd + "/mid", None, MS_BIND, None)
    d = "%s/m/%d" % (crowd, i)
    os.mkdir(d)
    mount("tmpfs", d, "tmpfs", 0, "size=16k")
mount(q, crowd + "/late", None, MS_BIND, None)
PY
mkdir "$T/rebind" || die "cannot make $T/rebind"
python3 - "$CROWD" "$MNT" "$T/rebind" <<'PY' || die "the workload through the bind mounts failed"
import ctypes, os, sys
from fsync_write import write
libc = ctypes.CDLL(None, use_errno=True)
mid, late = sys.argv[1] + "/mid", sys.argv[1] + "/late"
def bind(src, dst):
    if libc.mount(src.encode(), dst.encode(), None, 4096, None):
        sys.exit("cannot bind %s on %s: %s" % (src, dst, os.strerror(ctypes.get_errno())))
os.rename(mid + "/g", mid + "/h")
for p in ("/r/f", "/s/f"):
    write(late + p)
    if p == "/r/f":
        os.rename(late + "/r", late + "/s")
m, rb = sys.argv[2], sys.argv[3]
bind(m + "/q", rb)
os.rename(rb + "/h", rb + "/h2")
if libc.umount2(rb.encode(), 0):
    sys.exit("cannot unmount %s: %s" % (rb, os.strerror(ctypes.get_errno())))
bind(m + "/e2", rb)
os.rename(rb + "/k", rb + "/k2")
if libc.umount2(rb.encode(), 0):
    sys.exit("cannot unmount %s: %s" % (rb, os.strerror(ctypes.get_errno())))
PY
python3 - "$MNT/w" <<'PY' || die "the workload in /w failed"
import os, sys
w = sys.argv[1]
def make(p):
    os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o644))
def fill(tag):
    for i in range(40):
        make("%s/%s%d" % (w, tag, i))
os.mkdir(w)
os.mkdir(w + "/d")
make(w + "/d/x")
fill("a")
os.rename(w + "/d/x", w + "/d/y")
os.rename(w + "/d", w + "/d0")
os.mkdir(w + "/d")
make(w + "/d/x")
fill("b")
os.rename(w + "/d/x", w + "/d/y")
PY
kill -STOP "$TRACER_PID" || die "cannot stop the collector"
mount -o noatime "$LOOP2" "$MNT2" || die "cannot mount $LOOP2"
addpart "$LOOP3" 1 2048 $((76 * 2048)) || die "addpart cannot add a partition to $LOOP3"
mkfs.ext4 -q -F "${LOOP3}p1" >"$T/mkfs3.log" 2>&1 || die "mkfs.ext4 failed: $(cat "$T/mkfs3.log")"
mount -o noatime "${LOOP3}p1" "$MNT3" || die "cannot mount ${LOOP3}p1"
python3 - "$MNT2" "$MNT3" <<'PY' || die "the workload on the new file systems failed"
import os, sys
from fsync_write import write
for m in sys.argv[1:]:
    os.mkdir(m + "/d")
    for p in ("/d/f", "/e/f"):
        write(m + p, create=True)
        if p == "/d/f":
            os.rename(m + "/d", m + "/e")
PY
said=$(grep -c "traced from now on" "$T/err")
check "the collector had not learned of the new file systems yet (said $said times)" [ "$said" = 0 ]
kill -CONT "$TRACER_PID"
check "the collector learns of the btrfs" \
	iotrace_wait_said "$T/err" "mounted from a traced device, is traced from now on"
check "the collector learns of the partition" \
	iotrace_wait_said "$T/err" "partition ${LOOP3#/dev/}p1"
iotrace_test_stop_tracer "" "$T/out" "$T/err"

"$BIN" -P --io --raw -p "$TRACE" >"$T/raw.jsonl" 2>"$T/parse.err"
check "-P --io --raw exit 0" [ $? = 0 ]
"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
check "-P --io exit 0" [ $? = 0 ]
# how often a (by its FileId) and c were named; the writes' paths; the file events
read -r named_a named_c < <(python3 -c '
import json, sys
names, ids = [], {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    n = e.get("filesystemFileName")
    if n:
        f = n["fileId"]
        key = (f.get("partitionId"), f.get("id"), f.get("creationDate"))
        names.append(key)
        ids.setdefault(n["fileName"], key)
print(*(names.count(ids[k]) if k in ids else 0 for k in ("a", "c")))' "$T/raw.jsonl")
check "a named twice: first, and after e's rename, not after b's (got $named_a)" [ "$named_a" = 2 ]
check "c named twice: as /e/c, then as /e2/c (got $named_c)" [ "$named_c" = 2 ]
got=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(" ".join(r["file.path"] for r in rows if r["io.lba"] and r["io.operation"] == "Write"
               and r["file.path"] and r["io.flags.metadata"] == "false"))' "$T/io.csv")
check "the writes under the paths of their time ($got)" \
	[ "$got" = "/d/a /e/c /d/a /e/c /e2/c /d/a /upper/u/f /upper/u2/f /q/r/f /q/s/f /d/f /e/f /d/f /e/f" ]
got=$(python3 -c '
import csv, sys
print(" ".join("%s:%s" % (r["file.eventType"], r["file.path"]) for r in csv.DictReader(open(sys.argv[1]))
               if r["file.eventType"] in ("Delete", "MoveFrom", "MoveTo")))' "$T/io.csv")
check "the renames' events ($got)" \
	[ "$got" = "MoveFrom:/d/b MoveTo:/d/b2 Delete:/d/b2 MoveFrom:/d/t MoveTo:/d/b2 MoveFrom:/q/g MoveTo:/q/h MoveFrom:/q/h MoveTo:/q/h2 MoveFrom:/e2/k MoveTo:/e2/k2 MoveFrom:/w/d/x MoveTo:/w/d/y MoveFrom:/w/d/x MoveTo:/w/d/y" ]

finish
