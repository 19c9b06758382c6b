/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Turns kernel event records (iotrace_event.h) and device descriptions
 * into packed octf.proto.trace.Event messages. No allocation: messages are
 * built on the stack and packed into the caller's buffer.
 */
#ifndef IOTRACE_ENCODE_H
#define IOTRACE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "iotrace_event.h"

/* Room for the largest message we encode (a device description with a long model). */
#define ENCODE_MAX 512

/*
 * Packs e into buf (ENCODE_MAX bytes). Returns the length, or 0 for a
 * record of unknown type (a newer BPF object than this collector).
 */
size_t encode__event(const struct iotrace_event *e, uint8_t *buf);

/* Packs a deviceDescription event for d. */
size_t encode__device(const struct device_info *d, uint64_t sid, uint64_t ts, uint8_t *buf);

#endif
