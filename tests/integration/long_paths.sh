#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: unlink and rename paths the tracer's walk of the
# dentry cache cannot resolve, and paths of many steps, on xfs and ext4,
# whose own tracepoints name the file where the walk cannot, or is not
# asked to (xfs: an unlink's file, a rename's replaced file; ext4: an
# unlink's file, a rename's files).
#
#   usage: tests/integration/long_paths.sh PATH/TO/iotrace
#
# The tracer reads an unlink's or a rename's path into a buffer of 256
# bytes and walks it through the dentry cache. A longer path used to be
# read cut short and walked as it was: it named another file, whose
# Delete was sent in place of the one removed, or a directory, and the
# call was lost without a count. Paths of more than 32 steps ('.' and
# '..' included) were lost without a count too. On each file system the
# test:
#   - unlinks a file whose absolute path is 280 bytes long while a file
#     named by its first 255 bytes exists: a Delete of the file removed,
#     by its whole path, none of that other file;
#   - renames a file onto a long name while the name's first 255 bytes
#     name a file: no Delete of that file, which the rename does not touch;
#   - unlinks a long path whose first 255 bytes end at a directory;
#   - unlinks a file by a relative path of 60 './' steps: a Delete;
#   - unlinks a file 21 directories below the file system's root: its
#     Delete names it by its lowest 16 levels (the tracer sends at most 16
#     names of a chain), then creates a file 7 levels down in the same
#     directories: it is named by its whole path. The deep file's chain
#     used to mark its top directory as named, whose parents never were,
#     and every file below it was named from there;
#   - unlinks, oldest first, 4500 files of one directory: a Delete for
#     each. The walk leaves an unlink's file to the file system's
#     tracepoints on both (it would look for each among the newest 4096
#     cached entries);
#   - writes a file through a name older than the 200 other entries of
#     its directory, unlinks that name, and writes the file again through
#     its other hard link: no Delete, nothing unresolved, the second I/O
#     under the other name, and the unlink's --vfs record with the file's
#     id (on xfs only the inode number is left to find the file by:
#     xfs_iunlink does not fire for a link that is not the last, and
#     xfs_remove's name is not among the newest entries);
#   - renames a file onto one older than the 200 other entries of its
#     directory: the replaced file's Delete (the walk does not look for a
#     rename's new name: xfs_iunlink, ext4_mark_inode_dirty name the file
#     it replaces), and another onto an old name of a file with a second
#     link: no Delete;
#   - renames, oldest first, 4500 files of another directory into a third:
#     a MoveFrom and MoveTo for each. On ext4 ext4_mark_inode_dirty names
#     each; on xfs the 404 oldest are found neither by the walk nor by
#     xfs's rename (which looks for the name the same way), but at the
#     call's exit, first in their new directory, and their old names,
#     which the trace had not sent, are sent before their MoveFrom;
#   - renames a file older than the 64 other entries of its directory,
#     both its paths 284 bytes long: cut short, neither can be walked (nor
#     matched by ext4's program), and xfs's rename does not find the name:
#     the call is counted as unresolved, and the tracer and the parser say
#     so on stderr.
# This part is traced with --vfs.
# Then, after the kernel's caches were dropped (where the walk finds no
# component), renames (to a new name, onto a file, an exchange), unlinks
# of one of two hard links and of a symbolic link, and an rm -rf of 300
# files more: on xfs each has its events and nothing is unresolved; on
# ext4 the first rename, before which the directory is not cached, is
# named at its exit; on both each has its events, nothing is unresolved,
# and each file rm -rf removed has its Delete under the name it had then.
# Two of the renames are onto a file in a directory not cached, one from
# that directory, one from a cached one: the walk of the new name stops
# short of its directory, and ext4's program takes the file it dirties
# with no link left as the one replaced. It used to lose its Delete
# without a count.
#
# Needs root, BTF, loop devices, mkfs.ext4 and mkfs.xfs; a missing one is
# a failure, not a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup mkfs.ext4 mkfs.xfs
iotrace_require_loop
iotrace_fs_test_start long-paths "traces"

# make_files: the files, before the trace; their names, relative to the
# mount, into $T/names
make_files() {
	python3 - "$MNT" "$T/names" <<'PY'
import os, sys
mnt, out = sys.argv[1], sys.argv[2]
def make(p):
    fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o644)
    os.write(fd, b"z" * 4096)
    os.close(fd)
base = mnt + "/lp/" + "A" * (200 - len(mnt))
os.makedirs(base)
victim = base + "/victim" + "x" * 60          # 280 bytes
make(victim)
make(victim[:255])
dest = base + "/dest" + "y" * 60
make(dest[:255])
make(mnt + "/lp/src")
# a file older than 70 others, to be renamed by paths too long to walk
old = mnt + "/lp/" + "C" * (200 - len(mnt)) + "/old" + "o" * 80
os.makedirs(os.path.dirname(old))
open(old, "w").close()
for i in range(70):
    open(os.path.dirname(old) + "/%d" % i, "w").close()
# a directory whose name ends at byte 255
d = mnt + "/lp/" + "B" * (255 - len(mnt + "/lp/"))
os.makedirs(d)
make(d + "/gone")
deep = mnt + "/deep" + "".join("/%d" % k for k in range(20))
os.makedirs(deep)
make(deep + "/bottom")
make(mnt + "/lp/dotted")
for bulk in ("many", "moved"):
    os.makedirs(mnt + "/" + bulk)
    for i in range(4500):
        open(mnt + "/%s/%d" % (bulk, i), "w").close()
os.makedirs(mnt + "/moved2")
# the name unlinked the newest alias of its file, the oldest of its directory
os.makedirs(mnt + "/links")
os.makedirs(mnt + "/links2")
make(mnt + "/links2/b")
os.link(mnt + "/links2/b", mnt + "/links/a")
for i in range(200):
    open(mnt + "/links/%d" % i, "w").close()
# a rename onto the oldest name of a directory, and onto a file of two links
os.makedirs(mnt + "/onto")
make(mnt + "/onto/t")
# its name in onto/ the newest of its two: the dentry the inode gives first
make(mnt + "/links2/u")
os.link(mnt + "/links2/u", mnt + "/onto/u")
for i in range(200):
    open(mnt + "/onto/%d" % i, "w").close()
make(mnt + "/onto/s")
make(mnt + "/onto/s2")
names = [victim, victim[:255], dest, dest[:255], d + "/gone", deep + "/bottom"]
open(out, "w").write("\n".join(n[len(mnt):] for n in names) + "\n")
PY
}

# the calls, under trace
remove_files() {
	python3 - "$MNT" "${NAME[@]}" <<'PY'
import os, sys
from fsync_write import write
mnt = sys.argv[1]
victim, _, dest, _, gone, bottom = (mnt + n for n in sys.argv[2:])
write(mnt + "/links/a")
os.unlink(mnt + "/links/a")
write(mnt + "/links2/b", offset=4096)
os.rename(mnt + "/onto/s", mnt + "/onto/t")
os.rename(mnt + "/onto/s2", mnt + "/onto/u")
os.unlink(victim)
os.rename(mnt + "/lp/src", dest)
old = mnt + "/lp/" + "C" * (200 - len(mnt)) + "/old" + "o" * 80
os.rename(old, old.replace("/old", "/new"))
os.unlink(gone)
os.unlink(bottom)
os.chdir(mnt + "/lp")
os.unlink("./" * 60 + "dotted")
write(mnt + "/deep/0/1/2/3/4/5/shallow", create=True)
for i in range(4500):
    os.unlink(mnt + "/many/%d" % i)
for i in range(4500):
    os.rename(mnt + "/moved/%d" % i, mnt + "/moved2/%d" % i)
PY
}

# file_events CSV: the file events but those of many/ and moved*/, sorted;
# the count of Deletes in many/; the count of MoveFrom in moved/ whose
# MoveTo, next, is in moved2/; the paths of the I/Os of links*/, in order
file_events() {
	python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["file.eventType"] not in ("", "Access")]
bulk = ("/many/", "/moved/", "/moved2/")
print(" ".join(sorted("%s:%s" % (r["file.eventType"], r["file.path"]) for r in rows
                      if not r["file.path"].startswith(bulk))))
print(sum(r["file.eventType"] == "Delete" and r["file.path"].startswith("/many/") for r in rows))
print(sum(a["file.eventType"] == "MoveFrom" and a["file.path"].startswith("/moved/") and
          b["file.eventType"] == "MoveTo" and b["file.path"] == "/moved2/" + a["file.path"][7:]
          for a, b in zip(rows, rows[1:])))
print(" ".join(r["file.path"] for r in csv.DictReader(open(sys.argv[1]))
               if r["io.lba"] and r["file.path"].startswith(("/links/", "/links2/"))))' "$1"
}

# the cold part's files, before the trace
make_cold() {
	mkdir "$MNT/cold" && for i in $(seq 300); do : >"$MNT/cold/$i"; done &&
		for f in r_a r_c r_d r_e r_f h1; do echo "$f" >"$MNT/cold/$f"; done &&
		ln "$MNT/cold/h1" "$MNT/cold/h2" && ln -s 1 "$MNT/cold/sl" &&
		mkdir "$MNT/cold2" "$MNT/cold3" && echo r_g >"$MNT/cold2/r_g" &&
		echo r_h >"$MNT/cold2/r_h" && echo r_i >"$MNT/cold/r_i" &&
		echo r_j >"$MNT/cold3/r_j"
}

# the cold part's calls, under trace; python's go straight to the kernel
# (mv looks its names up first)
cold_calls() {
	python3 - "$MNT/cold" <<'PY'
import os, sys
from exchange import exchange
c = sys.argv[1] + "/"
# renames onto a file in a directory not cached: the walk of the new name
# stops short of it; from one such directory, and from a cached one
os.rename(c[:-1] + "2/r_g", c[:-1] + "2/r_h")
os.rename(c + "r_a", c + "r_b")
os.rename(c + "r_i", c[:-1] + "3/r_j")
os.rename(c + "r_c", c + "r_d")
exchange(c + "r_e", c + "r_f")
os.unlink(c + "h1")
os.unlink(c + "sl")
PY
}

# cold_events CSV: the file events in cold/ but the Deletes of 1..300,
# sorted; the number of files of those, and of those Deletes
cold_events() {
	python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["file.eventType"] not in ("", "Access") and r["file.path"].startswith("/cold")]
num = [r for r in rows if r["file.eventType"] == "Delete" and
       r["file.path"].startswith("/cold/") and r["file.path"][6:].isdigit()]
print(" ".join(sorted("%s:%s" % (r["file.eventType"], r["file.path"]) for r in rows
                      if r not in num)))
print(len(set(r["file.path"] for r in num)), len(num))' "$1"
}

for fs in xfs ext4; do
	iotrace_test_fs "$fs" long-paths "$T" || die "$SETUP_ERR"
	make_files || die "cannot make the files on $fs"
	mapfile -t NAME <"$T/names"
	sync -f "$MNT"

	iotrace_test_start_tracer "$fs: " "$T/out" "$T/err" -S -d "$LN" --vfs
	remove_files || die "the unlinks and renames failed on $fs"
	iotrace_test_stop_tracer "$fs: " "$T/out" "$T/err"

	"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
	check "$fs: -P --io exit 0" [ $? = 0 ]
	{ read -r events; read -r many; read -r moved; read -r links; } < <(file_events "$T/io.csv")
	unresolved=$(iotrace_json_get "$T/out" tags unresolvedFileEvents)
	want="Create:/deep/0/1/2/3/4/5/shallow Delete:${NAME[0]} Delete:${NAME[4]}"
	want="$want Delete:/lp/dotted Delete:$(seq -s / 5 19)/bottom"
	want="$want MoveFrom:/lp/src MoveTo:${NAME[2]}"
	want="$want Delete:/onto/t MoveFrom:/onto/s MoveTo:/onto/t MoveFrom:/onto/s2 MoveTo:/onto/u"
	want=$(python3 -c 'import sys; print(" ".join(sorted(sys.argv[1].split())))' "$want")
	check "$fs: the Delete and Move events of the calls ($events)" [ "$events" = "$want" ]
	check "$fs: a Delete for each of 4500 files (got $many)" [ "$many" = 4500 ]
	check "$fs: an old hard link's unlink: the file's next I/O under its other name ($links)" \
		[ "$links" = "/links/a /links2/b" ]
	"$BIN" -P --vfs -p "$TRACE" -f csv >"$T/vfs.csv" 2>"$T/parse.err"
	check "$fs: -P --vfs exit 0" [ $? = 0 ]
	got=$(python3 -c '
import csv, sys
print(" ".join(r["file.id"] for r in csv.DictReader(open(sys.argv[1]))
               if r["vfs.call"] == "unlink" and r["file.path"] == "/links/a"))' "$T/vfs.csv")
	want=$(stat -c %i "$MNT/links2/b")
	check "$fs: its --vfs record, with the file's id (got '$got', want '$want')" [ "$got" = "$want" ]
	check "$fs: a MoveFrom and MoveTo for each of 4500 renames (got $moved)" \
		[ "$moved" = 4500 ]
	check "$fs: the rename by paths too long unresolved (got '${unresolved:-none}')" \
		[ "$unresolved" = 1 ]
	check "$fs: the tracer says so on stderr" \
		grep -q "^iotrace: .*1 unlink or rename call on .* was not resolved to its file" "$T/err"
	check "$fs: the parser says so on stderr" \
		grep -q "1 unlink or rename call was not resolved to its file" "$T/parse.err"

	# a cold cache, where the walk finds no component
	make_cold || die "cannot make cold/ on $fs"
	sync -f "$MNT" && echo 3 >/proc/sys/vm/drop_caches || die "cannot drop the caches"
	iotrace_test_start_tracer "$fs, cold: " "$T/out" "$T/err" -S -d "$LN"
	cold_calls || die "the calls in cold/ failed on $fs"
	rm -rf "$MNT/cold" "$MNT/cold2" "$MNT/cold3" || die "rm -rf failed on $fs"
	iotrace_test_stop_tracer "$fs, cold: " "$T/out" "$T/err"
	"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
	check "$fs, cold: -P --io exit 0" [ $? = 0 ]
	{ read -r events; read -r deletes; } < <(cold_events "$T/io.csv")
	unresolved=$(iotrace_json_get "$T/out" tags unresolvedFileEvents)
	want="Delete:/cold/h2 Delete:/cold/r_b Delete:/cold/r_d Delete:/cold/r_e Delete:/cold/r_f"
	want="$want Delete:/cold/r_d MoveFrom:/cold/r_c MoveTo:/cold/r_d"
	want="$want MoveFrom:/cold/r_e MoveFrom:/cold/r_f MoveTo:/cold/r_e MoveTo:/cold/r_f"
	want="$want MoveFrom:/cold/r_a MoveTo:/cold/r_b"
	# each moved file too goes in the rm -rf
	want="$want Delete:/cold2/r_h Delete:/cold2/r_h MoveFrom:/cold2/r_g MoveTo:/cold2/r_h"
	want="$want Delete:/cold3/r_j Delete:/cold3/r_j MoveFrom:/cold/r_i MoveTo:/cold3/r_j"
	check "$fs, cold: nothing unresolved (got '${unresolved:-none}')" [ -z "$unresolved" ]
	want=$(tr ' ' '\n' <<<"$want" | sort | paste -sd ' ')
	check "$fs, cold: the events of the calls ($events)" [ "$events" = "$want" ]
	check "$fs, cold: a Delete for each of the 300 files rm -rf removed (got $deletes)" \
		[ "$deletes" = "300 300" ]
	iotrace_teardown_fs
done

finish
