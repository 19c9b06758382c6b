#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the seed corpus of fuzz_trace (tests/fuzz/corpus/).

Each input is a selector byte (streams, threads, LBA bucket size; see
fuzz_trace.c) and stream bytes: records from the upstream sample trace,
synthetic traces using our extensions (splits, dispatch, lost
completions, renames, VFS calls), zstd frames, and damaged copies.

usage: make_corpus.py SAMPLE_TRACE_DIR [OUT_DIR]

With IOTRACE_PACK_TRACE set to a built bench/pack_trace, also the delta
record streams the collector writes by default (whole, cut, damaged), and
their records uncompressed. The delta-v1-* seeds are streams of version 1
(before completions had ranges), kept as that collector wrote them; this
script does not write them.
"""
import glob
import os
import subprocess
import sys
import tempfile

# the parser tests' encoder: varint (a negative as int64 fields take it), sub, framed
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "parser"))
from octf_rec import field as f, framed, sub, varint  # noqa: E402


def rec(sid, ts, num, body):
    return framed(sub(1, f(1, sid) + f(2, ts)) + sub(num, body))


def file_id(ino, part=8388609):
    return f(1, part) + f(2, ino) + sub(3, f(1, 1593672775) + f(2, 5))


DEV = 8388608


def io(sid, ts, id_, lba, ln, op=2, extra=b""):
    return rec(sid, ts, 2, f(1, lba) + f(2, ln) + f(4, DEV) + f(5, op) + f(9, id_) + extra)


def done(sid, ts, ref, err=0, lba=0, ln=0):
    """A completion; proto3 leaves out the range's fields that are 0."""
    rng = (f(1, lba) if lba else b"") + (f(2, ln) if ln else b"")
    return rec(sid, ts, 5, rng + f(3, err) + f(4, DEV) + f(5, ref))


def meta(sid, ts, ref, ino, off):
    return rec(sid, ts, 4, f(1, ref) + sub(2, file_id(ino)) + f(3, off) + f(4, 64))


def name(sid, ino, parent, n):
    return rec(sid, 1, 6, sub(1, file_id(ino)) + sub(2, file_id(parent)) + sub(3, n.encode()))


def fevent(sid, ts, ino, kind):
    return rec(sid, ts, 7, sub(1, file_id(ino)) + f(2, kind))


def split(sid, ts, child, parent, lba, ln, plba):
    return rec(sid, ts, 20, f(1, child) + f(2, parent) + f(3, DEV) + f(4, lba) + f(5, ln) + f(6, plba))


def disp(sid, ts, first, lba, ln, bios):
    return rec(sid, ts, 21, f(1, first) + f(2, DEV) + f(3, lba) + f(4, ln) + f(5, bios) + f(6, 0xABC))


def vfs(sid, ts, id_, call, pid, ino, off, size, result, dur, ino2=None, extra=b""):
    body = f(1, id_) + f(2, call) + f(3, pid) + f(4, pid + 1) + f(5, 3)
    if ino:
        body += sub(6, file_id(ino))
    body += (f(7, off) + f(8, size) + f(9, result)
             + f(10, dur) + f(11, 8388609) + f(12, 77) + sub(13, b"fio"))
    if ino2:
        body += f(16, 4) + sub(17, file_id(ino2)) + f(18, 512)
    return rec(sid, ts, 22, body + extra)


def vfs_seed():
    """VFS calls: open, a read and the block I/O it queued, a failed write,
    a copy to a second file, an io_uring request, one without a file."""
    return (device(1) + name(2, 1, 1, "/") + name(3, 2, 1, "a") + name(4, 3, 2, "f.dat")
            + name(5, 4, 1, "g.dat")
            + vfs(6, 90, 1, 12, 42, 3, 0, 0, 3, 40, extra=f(15, 1))
            + io(7, 100, 0x10, 1000, 8, op=1, extra=f(26, 42) + f(31, 2))
            + meta(8, 100, 0x10, 3, 0) + done(9, 150, 0x10)
            + vfs(10, 160, 2, 3, 42, 3, 0, 4096, 4096, 70)
            + vfs(11, 170, 3, 1, 42, 3, -1, 4096, -28, 5)
            + vfs(12, 180, 4, 24, 43, 3, 0, 8192, 8192, 9, ino2=4)
            + vfs(13, 190, 5, 27, 42, 3, 4096, 4096, 4096, 30, extra=f(19, 4))
            + vfs(14, 200, 6, 15, 42, 0, 0, 0, -9, 1)
            + vfs(15, 210, 7, 99, 42, 3, 0, 0, 0, 1))


def device(sid):
    return rec(sid, 1, 3, f(1, DEV) + sub(2, b"sda") + f(3, 1 << 30) + sub(4, b"QEMU HARDDISK"))


def sample_streams(trace, n, records):
    """The first records of n streams of the upstream sample."""
    out = []
    for path in sorted(glob.glob(os.path.join(trace, "octf.trace.*")))[:n]:
        b = open(path, "rb").read()
        i = k = 0
        while i < len(b) and k < records:
            ln, s = 0, 0
            while True:
                c = b[i]
                i += 1
                ln |= (c & 0x7F) << s
                s += 7
                if c < 0x80:
                    break
            i += ln
            k += 1
        out.append(b[:i])
    return out


def joined(streams, sel):
    """Streams cut to equal lengths as fuzz_trace splits them."""
    n = len(streams)
    size = max(len(s) for s in streams)
    data = b"".join(s.ljust(size, b"\0")[:size] if k + 1 < n else s for k, s in enumerate(streams))
    return bytes([sel | (n - 1)]) + data


def delta_stream(pack, framed):
    """framed OCTF records as the collector compresses them: the delta
    stream header, then zstd frames of delta records."""
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "in"))
        with open(os.path.join(d, "in", "octf.trace.0"), "wb") as out:
            out.write(framed)
        subprocess.run([pack, "-l", "3", "-o", d, os.path.join(d, "in")], stdout=subprocess.DEVNULL, check=True)
        with open(os.path.join(d, "octf.trace.0.zst"), "rb") as f:
            return f.read()


def delta_seeds(seeds, pack, ours, vfs_calls):
    z = delta_stream(pack, ours)
    seeds["delta"] = bytes([0]) + z
    seeds["delta-vfs"] = bytes([0x10]) + delta_stream(pack, vfs_calls)
    seeds["delta-cut"] = bytes([0]) + z[: len(z) - len(z) // 3]
    # the header alone (a CPU that saw nothing), then one damaged frame byte
    seeds["delta-header-only"] = bytes([0]) + z[:28]
    seeds["delta-damaged"] = bytes([0]) + z[:40] + bytes([z[40] ^ 0x20]) + z[41:]
    # the delta records themselves, uncompressed: what fuzz_trace's
    # check_delta() reads as records (the reader sees damage)
    for k, zz in (("delta-records", z), ("delta-records-vfs", delta_stream(pack, vfs_calls))):
        seeds[k] = bytes([0]) + subprocess.run(["zstd", "-q", "-d", "-c"], input=zz[28:],
                                               stdout=subprocess.PIPE, check=True).stdout


def main():
    trace = sys.argv[1]
    outdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "corpus")
    os.makedirs(outdir, exist_ok=True)
    seeds = {}

    s = sample_streams(trace, 3, 40)
    seeds["sample-3-streams"] = joined(s, 0)
    seeds["sample-1-stream"] = bytes([0x10]) + s[0]

    # ours: split, dispatch, requeue, lost completion, names, rename, file events
    a = (device(1) + name(2, 1, 1, "/") + name(3, 2, 1, "db") + name(4, 3, 2, "000001.sst")
         + io(5, 100, 0x10, 1000, 256, extra=f(26, 42) + sub(29, b"rocksdb") + f(30, 1))
         + meta(6, 100, 0x10, 3, 0)
         + split(7, 110, 0x11, 0x10, 1000, 64, 1064)
         + disp(8, 120, 0x11, 1000, 64, 1) + disp(9, 125, 0x11, 1000, 64, 1)
         + disp(10, 130, 0x10, 1064, 192, 1)
         + io(11, 140, 0x20, 0, 8, op=1) + io(12, 150, 0x20, 8, 8)
         + done(13, 200, 0x11, lba=1000, ln=64) + done(14, 300, 0x10, lba=1064, ln=192)
         + done(15, 310, 0x20, 1, lba=8, ln=8)
         + name(16, 2, 1, "data") + fevent(17, 320, 3, 2) + done(18, 330, 0x99, lba=77, ln=8)
         + io(19, 400, 0x30, 0, 0, extra=f(6, 1) + f(24, 1)) + done(20, 410, 0x30))
    seeds["ours-split-dispatch"] = bytes([0]) + a

    # two streams with inversions and a duplicate sid
    x = io(3, 30, 1, 0, 8) + io(1, 10, 2, 8, 8) + done(6, 60, 1) + done(5, 50, 2) + io(5, 55, 3, 16, 8)
    y = io(2, 20, 4, 24, 8) + io(4, 40, 5, 32, 8) + done(8, 80, 4) + done(7, 70, 5)
    seeds["inversions-duplicates"] = joined([x, y], 0x10)

    # zstd frames
    z = subprocess.run(["zstd", "-q", "-c", "-1"], input=a, stdout=subprocess.PIPE, check=True).stdout
    seeds["zstd"] = bytes([0]) + z
    seeds["zstd-cut"] = bytes([0]) + z[: len(z) // 2]
    # two compressed streams read with two threads: the reader's helper
    # reads ahead only for compressed streams; each padded to the same
    # length with a skippable frame, so that neither is damaged
    zs = [subprocess.run(["zstd", "-q", "-c", "-1"], input=b, stdout=subprocess.PIPE, check=True).stdout
          for b in (x, y)]
    size = max(len(b) for b in zs) + 8
    zs = [b + (0x184D2A50).to_bytes(4, "little") + (size - len(b) - 8).to_bytes(4, "little")
          + bytes(size - len(b) - 8) for b in zs]
    seeds["zstd-2-streams-threads"] = bytes([0x10 | 1]) + b"".join(zs)

    # damage: cut record, bad varint, garbage record, huge length
    seeds["cut-record"] = bytes([0]) + a[: len(a) - 3]
    seeds["bad-varint"] = bytes([0]) + a[:40] + b"\xff" * 11 + a[40:]
    seeds["undecodable"] = bytes([0]) + a[:40] + b"\x03\x0a\x05\x08" + a[40:]
    seeds["huge-length"] = bytes([0]) + a[:40] + varint(1 << 30) + a[40:]
    # sids at the very top and far apart; a 4G-sector discard and 1-sector LBA buckets
    seeds["sparse-sids"] = bytes([0]) + io(1, 1, 1, 0, 8) + io(1 << 40, 2, 2, 8, 8) + io((1 << 64) - 1, 3, 3, 0, 8)
    seeds["ours-vfs"] = bytes([0x10]) + vfs_seed()
    seeds["huge-discard"] = bytes([0]) + io(1, 1, 1, 0, (1 << 32) - 1, op=3) + done(2, 2, 1)
    seeds["empty"] = b""
    # the second pass through the filters with --final-names (selector bit
    # 2), and the split run of --statistics checked against one pass (bit
    # 3); the last byte picks the filters
    seeds["sample-3-streams-split-filtered"] = joined(s, 0x0c)
    # two undamaged streams of one length (every value a one-byte
    # varint), so that the split runs through: I/Os interleaved by sid
    u = b"".join(io(4 * k + 1, 4 * k + 1, k + 1, 4 * k + 2, 8) + done(4 * k + 3, 4 * k + 9, k + 1, lba=4 * k + 2, ln=8)
                 for k in range(16))
    v = b"".join(io(4 * k + 2, 4 * k + 2, k + 65, 64 + 4 * k, 8, op=1)
                 + done(4 * k + 4, 4 * k + 6, k + 65, lba=64 + 4 * k, ln=8) for k in range(16))
    assert len(u) == len(v)
    seeds["two-streams-split"] = joined([u, v], 0x08)
    seeds["ours-filtered"] = bytes([0x0c]) + a + io(21, 500, 0x40, 16, 8)
    seeds["ours-vfs-filtered"] = bytes([0x14]) + vfs_seed()
    if os.environ.get("IOTRACE_PACK_TRACE"):
        delta_seeds(seeds, os.environ["IOTRACE_PACK_TRACE"], a, vfs_seed())

    for k, v in seeds.items():
        with open(os.path.join(outdir, k), "wb") as out:
            out.write(v)


if __name__ == "__main__":
    main()
