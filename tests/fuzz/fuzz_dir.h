/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fuzz target's scratch directory, in /dev/shm (else /tmp), named
 * iotrace-fuzz-TAG-PID-XXXXXX. A target removes its own at exit, but a
 * crash or a killed campaign skips that: each start removes the ones of
 * processes that are gone, so they do not pile up in memory.
 */
#ifndef IOTRACE_FUZZ_DIR_H
#define IOTRACE_FUZZ_DIR_H

#include <stddef.h>

/* The new directory's path in dir (size len); aborts if none can be made. */
void fuzz_dir__make(char *dir, size_t len, const char *tag);

#endif
