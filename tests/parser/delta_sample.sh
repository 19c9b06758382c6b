#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The delta encoder on the upstream sample trace: the records it gives
# must be those the first release gave (a frozen digest in test_delta).
#
# usage: delta_sample.sh TEST_DELTA_BINARY DIR_WITH_octf-sample-trace.tar.xz
set -u

bin=$1
tarball=$2/octf-sample-trace.tar.xz

if [ ! -r "$tarball" ]; then
	echo "delta_sample: $tarball not found" >&2
	exit 1
fi
tmp=$(mktemp -d /tmp/iotrace-delta-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
# the reader's own files, read in place as a trace of root's is by root (parser/stream.c)
tar --no-same-owner -xJf "$tarball" -C "$tmp" || exit 1
trace=$(dirname "$(find "$tmp" -name octf.summary | head -n 1)")
"$bin" "$trace"
