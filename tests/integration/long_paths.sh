#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Root integration test: unlink and rename paths too long for the
# tracer's path buffer, and paths of many steps.
#
#   usage: tests/integration/long_paths.sh PATH/TO/iotrace
#
# The tracer reads an unlink's or a rename's path into a buffer of 256
# bytes and walks it through the dentry cache. A longer path used to be
# read cut short and walked as it was: it named another file, whose
# Delete was sent in place of the one removed, or a directory, and the
# call was lost without a count. Paths of more than 32 steps ('.' and
# '..' included) were lost without a count too. The test, on ext4:
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
# and checks that the summary counts the two long unlinks as unresolved
# (the rename is sent: its own file's path is short), and that the tracer
# and the parser say so on stderr.
#
# Needs root, BTF, loop devices and mkfs.ext4; a missing one is a
# failure, not a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup mkfs.ext4
iotrace_require_loop

iotrace_fs_test_start long-paths "traces"
iotrace_quiet_ext4 64M long-paths "$T" || die "$SETUP_ERR"

# the names, relative to the mount, in a file the checks read back
python3 - "$MNT" "$T/names" <<'PY' || die "cannot make the files"
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
names = [victim, victim[:255], dest, dest[:255], d + "/gone", deep + "/bottom"]
open(out, "w").write("\n".join(n[len(mnt):] for n in names) + "\n")
PY
mapfile -t NAME <"$T/names"
sync -f "$MNT"

iotrace_test_start_tracer "" "$T/out" "$T/err" -S -d "$LN"
python3 - "$MNT" "${NAME[@]}" <<'PY' || die "the unlinks and renames failed"
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
PY
iotrace_test_stop_tracer "" "$T/out" "$T/err"

"$BIN" -P --io -p "$TRACE" -f csv >"$T/io.csv" 2>"$T/parse.err"
check "-P --io exit 0" [ $? = 0 ]
events=$(python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["file.eventType"] not in ("", "Access")]
print(" ".join(sorted("%s:%s" % (r["file.eventType"], r["file.path"]) for r in rows)))' "$T/io.csv")
want="Create:/deep/0/1/2/3/4/5/shallow Delete:/lp/dotted Delete:$(seq -s / 5 19)/bottom"
want="$want MoveFrom:/lp/src MoveTo:${NAME[2]}"
check "the Delete and Move events of the calls ($events)" [ "$events" = "$want" ]
unresolved=$(iotrace_json_get "$T/out" tags unresolvedFileEvents)
check "the two long unlinks counted as unresolved (got '${unresolved:-none}')" [ "$unresolved" = 2 ]
check "the tracer says so on stderr" grep -q "^iotrace: .*2 unlink or rename calls .* not resolved" "$T/err"
check "the parser says so on stderr" grep -q "2 unlink or rename calls were not resolved" "$T/parse.err"

finish
