#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: unlink and rename paths the tracer's walk of the
# dentry cache cannot resolve, and paths of many steps, on xfs (the walk
# alone) and on ext4 (whose unlink tracepoint names the file where the
# walk cannot).
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
#     named by its first 255 bytes exists: no Delete of that other file;
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
#   - unlinks, oldest first, 4500 files of one directory, where the walk
#     looks among the newest 4096 cached entries.
# On xfs the two long unlinks and the 404 oldest files are counted as
# unresolved, and the tracer and the parser say so on stderr; on ext4
# each has its Delete, the long ones under their whole path, and nothing
# is unresolved. Then, on ext4, 300 files removed by rm -rf after the
# kernel's caches were dropped (where the walk finds nothing) each have
# their Delete.
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
# a directory whose name ends at byte 255
d = mnt + "/lp/" + "B" * (255 - len(mnt + "/lp/"))
os.makedirs(d)
make(d + "/gone")
deep = mnt + "/deep" + "".join("/%d" % k for k in range(20))
os.makedirs(deep)
make(deep + "/bottom")
make(mnt + "/lp/dotted")
os.makedirs(mnt + "/many")
for i in range(4500):
    open(mnt + "/many/%d" % i, "w").close()
names = [victim, victim[:255], dest, dest[:255], d + "/gone", deep + "/bottom"]
open(out, "w").write("\n".join(n[len(mnt):] for n in names) + "\n")
PY
}

# the calls, under trace
remove_files() {
	python3 - "$MNT" "${NAME[@]}" <<'PY'
import os, sys
mnt = sys.argv[1]
victim, _, dest, _, gone, bottom = (mnt + n for n in sys.argv[2:])
os.unlink(victim)
os.rename(mnt + "/lp/src", dest)
os.unlink(gone)
os.unlink(bottom)
os.chdir(mnt + "/lp")
os.unlink("./" * 60 + "dotted")
fd = os.open(mnt + "/deep/0/1/2/3/4/5/shallow", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(fd, b"s" * 4096)
os.fsync(fd)
os.close(fd)
for i in range(4500):
    os.unlink(mnt + "/many/%d" % i)
PY
}

# file_events CSV: the file events but those of many/, sorted; their count
file_events() {
	python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["file.eventType"] not in ("", "Access")]
print(" ".join(sorted("%s:%s" % (r["file.eventType"], r["file.path"]) for r in rows
                      if not r["file.path"].startswith("/many/"))))
print(sum(r["file.path"].startswith("/many/") for r in rows))' "$1"
}

for fs in xfs ext4; do
	if [ "$fs" = ext4 ]; then
		iotrace_quiet_ext4 256M long-paths "$T" || die "$SETUP_ERR"
	else
		iotrace_shm_fs xfs 512M long-paths "$T" || die "$SETUP_ERR"
	fi
	make_files || die "cannot make the files on $fs"
	mapfile -t NAME <"$T/names"
	sync -f "$MNT"

	iotrace_test_start_tracer "$fs: " "$T/out" "$T/err" -S -d "$LN"
	remove_files || die "the unlinks and renames failed on $fs"
	iotrace_test_stop_tracer "$fs: " "$T/out" "$T/err"

	"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
	check "$fs: -P --io exit 0" [ $? = 0 ]
	{ read -r events; read -r many; } < <(file_events "$T/io.csv")
	unresolved=$(iotrace_json_get "$T/out" tags unresolvedFileEvents)
	want="Create:/deep/0/1/2/3/4/5/shallow"
	if [ "$fs" = ext4 ]; then
		want="$want Delete:${NAME[0]} Delete:${NAME[4]}"
		want="$want Delete:/lp/dotted Delete:$(seq -s / 5 19)/bottom"
		want="$want MoveFrom:/lp/src MoveTo:${NAME[2]}"
		check "$fs: the Delete and Move events of the calls ($events)" [ "$events" = "$want" ]
		check "$fs: a Delete for each of 4500 files (got $many)" [ "$many" = 4500 ]
		check "$fs: none unresolved (got '${unresolved:-none}')" [ -z "$unresolved" ]
		check "$fs: the tracer says nothing of it" bash -c '! grep -q "not resolved" "$1"' _ "$T/err"
	else
		want="$want Delete:/lp/dotted Delete:$(seq -s / 5 19)/bottom"
		want="$want MoveFrom:/lp/src MoveTo:${NAME[2]}"
		check "$fs: the Delete and Move events of the calls ($events)" [ "$events" = "$want" ]
		check "$fs: a Delete for the newest 4096 of 4500 files (got $many)" [ "$many" = 4096 ]
		check "$fs: the two long unlinks and 404 files unresolved (got '${unresolved:-none}')" \
			[ "$unresolved" = 406 ]
		check "$fs: the tracer says so on stderr" \
			grep -q "^iotrace: .*406 unlink or rename calls .* not resolved" "$T/err"
		check "$fs: the parser says so on stderr" \
			grep -q "406 unlink or rename calls were not resolved" "$T/parse.err"
	fi
	[ "$fs" = ext4 ] || iotrace_teardown_fs
done

# ext4 still mounted: a cold cache, where the walk finds no component
mkdir "$MNT/cold" && for i in $(seq 300); do : >"$MNT/cold/$i"; done || die "cannot make cold/"
sync -f "$MNT" && echo 3 >/proc/sys/vm/drop_caches || die "cannot drop the caches"
iotrace_test_start_tracer "cold: " "$T/out" "$T/err" -S -d "$LN"
rm -rf "$MNT/cold" || die "rm -rf failed"
iotrace_test_stop_tracer "cold: " "$T/out" "$T/err"
"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
deletes=$(python3 -c '
import csv, sys
print(sum(r["file.eventType"] == "Delete" and r["file.path"].startswith("/cold/")
          for r in csv.DictReader(open(sys.argv[1]))))' "$T/io.csv")
check "ext4, cold cache: a Delete for each of the 300 files rm -rf removed (got $deletes)" \
	[ "$deletes" = 300 ]

finish
