# SPDX-License-Identifier: BSD-3-Clause
"""What the check_*.py scripts share: ok:/FAIL: reporting, and reading the
FileIds and name chains of `iotrace -P --io --raw` events."""
import json


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


def ints(s):
    """"7:3:12" -> (7, 3, 12): the colon-separated numbers of an argument."""
    return tuple(int(x) for x in s.split(":"))


def fid(f):
    """A FileId as a hashable tuple (partition, inode, creation date, as
    --raw prints it: an RFC 3339 string)."""
    f = f or {}
    return (int(f.get("partitionId", 0)), int(f.get("id", 0)), f.get("creationDate", ""))


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


def sectors(g):
    """Sectors of the I/Os in g, a list of (io, filesystemMeta, path)."""
    return sum(io["len"] for io, _, _ in g)


def covered(g):
    """The file's sectors the I/Os in g, (io, filesystemMeta, path), cover."""
    cov = set()
    for io, m, _ in g:
        off = int(m["fileOffset"])
        cov.update(range(off, off + io["len"]))
    return cov


class RawTrace:
    """`iotrace -P --io --raw` output (JSON Lines) read in sid order:
    events (all of them), names (FileId -> (name, parent FileId), as last
    sent), name_events (how many), ios (sid -> io) and attributed: for each
    filesystemMeta, (io, filesystemMeta, path as named by then). A
    filesystemMeta must follow its io (sid - 1, same id): one that does not
    fails a check of checks and is left out."""

    def __init__(self, path, checks):
        self.events = [json.loads(line) for line in open(path)]
        self.events.sort(key=lambda e: int(e["header"]["sid"]))
        self.names, self.ios, self.attributed = {}, {}, []
        self.name_events = 0
        for e in self.events:
            sid = int(e["header"]["sid"])
            if "filesystemFileName" in e:
                n = e["filesystemFileName"]
                self.names[fid(n["fileId"])] = (n["fileName"], fid(n["fileParentId"]))
                self.name_events += 1
            elif "io" in e:
                self.ios[sid] = e["io"]
            elif "filesystemMeta" in e:
                m = e["filesystemMeta"]
                io = self.ios.get(sid - 1)
                if io is None or io["id"] != m["refSid"]:
                    checks.check(False, "filesystemMeta sid %d follows its io (sid - 1, same id)" % sid)
                    continue
                self.attributed.append((io, m, path_of(self.names, fid(m["fileId"]))))
