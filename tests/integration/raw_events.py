# SPDX-License-Identifier: BSD-3-Clause
"""What the check_*.py scripts share: ok:/FAIL: reporting, and reading the
FileIds and name chains of `iotrace -P --io --raw` events."""


class Checks:
    """Prints "ok: MSG" or "FAIL: MSG: DETAIL" per check, counts failures;
    label is put before every message (one checker serves several runs)."""

    def __init__(self):
        self.failures = 0
        self.label = ""

    def check(self, cond, msg, detail=""):
        msg = self.label + msg
        if cond:
            print("ok: " + msg)
        else:
            self.failures += 1
            print("FAIL: " + msg + (": " + detail if detail else ""))

    def measure(self, msg):
        print("measure: " + self.label + msg)


def fid(f):
    """A FileId as a hashable tuple (partition, inode, creation date)."""
    f = f or {}
    ts = f.get("creationDate", {})
    return (int(f.get("partitionId", 0)), int(f.get("id", 0)),
            int(ts.get("seconds", 0)), int(ts.get("nanos", 0)))


def path_of(names, f):
    """The path of FileId f from names (FileId -> (name, parent FileId)),
    up to the root (its own parent, named "/"); None if a link is missing."""
    parts = []
    for _ in range(64):
        if f not in names:
            return None
        name, parent = names[f]
        if parent == f:
            return "/" + "/".join(reversed(parts))
        parts.append(name)
        f = parent
    return None
