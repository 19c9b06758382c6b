/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A FileId's creation date as google.protobuf.Timestamp's JSON form
 * (RFC 3339, UTC, 0, 3, 6 or 9 fraction digits), as --io prints it.
 * Years outside 1..9999 have no RFC 3339 form: "seconds.nanoseconds".
 */
#ifndef IOTRACE_DATE_FMT_H
#define IOTRACE_DATE_FMT_H

#include <stddef.h>
#include <stdint.h>

#define DATE_FMT_MAX 40

/* Files repeat: the last date formatted is kept. */
struct date_fmt {
	int64_t sec;
	int32_t nsec;
	int valid;
	char text[DATE_FMT_MAX];
};

const char *date_fmt(struct date_fmt *c, int64_t sec, int32_t nsec);

#endif
