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
# where 2,113 do, in README's example). On ext4, with /d/a, /d/b and /e/c:
#   1. a and c are written (each named);
#   2. b is renamed to b2, then a new file renamed onto b2 (an atomic
#      save): their Moves and the replaced file's Delete;
#   3. a and c are written again: no name sent again for either;
#   4. the directory e is renamed to e2;
#   5. c and a are written again: both named again, c under /e2.
# Each of a and c is named exactly twice, and the writes are under the
# paths of their time.
#
# Needs root, BTF, loop devices and mkfs.ext4; a missing one is a
# failure, not a skip. Everything set up is torn down at exit, also on
# failure.
set -u
. "$(dirname "$(realpath "$0")")/../../scripts/tracer-lib.sh"

iotrace_test_binary "$@"
iotrace_test_harness

iotrace_require_root_bpf "loop devices, BPF" losetup mkfs.ext4 python3
iotrace_require_loop

iotrace_fs_test_start name-resend "traces"
iotrace_quiet_ext4 64M name-resend "$T" || die "$SETUP_ERR"
mkdir "$MNT/d" "$MNT/e" && touch "$MNT/d/a" "$MNT/d/b" "$MNT/e/c" || die "cannot make the files"
sync -f "$MNT"

iotrace_test_start_tracer "" "$T/out" "$T/err" -S -d "$LN"
python3 - "$MNT" <<'PY' || die "the workload failed"
import os, sys
m = sys.argv[1]
def write(p):
    fd = os.open(m + p, os.O_WRONLY)
    os.pwrite(fd, b"w" * 4096, 0)
    os.fsync(fd)
    os.close(fd)
write("/d/a")
write("/e/c")
os.rename(m + "/d/b", m + "/d/b2")
os.close(os.open(m + "/d/t", os.O_CREAT | os.O_WRONLY, 0o644))
os.rename(m + "/d/t", m + "/d/b2")
write("/d/a")
write("/e/c")
os.rename(m + "/e", m + "/e2")
write("/e2/c")
write("/d/a")
PY
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
	[ "$got" = "/d/a /e/c /d/a /e/c /e2/c /d/a" ]
got=$(python3 -c '
import csv, sys
print(" ".join("%s:%s" % (r["file.eventType"], r["file.path"]) for r in csv.DictReader(open(sys.argv[1]))
               if r["file.eventType"] in ("Delete", "MoveFrom", "MoveTo")))' "$T/io.csv")
check "the renames' events ($got)" \
	[ "$got" = "MoveFrom:/d/b MoveTo:/d/b2 Delete:/d/b2 MoveFrom:/d/t MoveTo:/d/b2" ]

finish
