# SPDX-License-Identifier: BSD-3-Clause
"""Protobuf encoding by hand for the OCTF traces the parser's tests write
(tests/parser/lib.sh puts this directory on PYTHONPATH)."""


def varint(v):
    """v as a varint; a negative v as its 64-bit two's complement, as int64 fields take it"""
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7f | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field(num, v):
    """a varint field"""
    return varint(num << 3) + varint(v)


def sub(num, body):
    """a length-delimited field: a message, a string"""
    return varint(num << 3 | 2) + varint(len(body)) + body


def framed(event):
    """an Event as a trace file holds it: its length, then it"""
    return varint(len(event)) + event
