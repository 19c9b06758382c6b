/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integers to decimal text without printf: the writers format millions of
 * numbers per trace and the printf machinery dominated their cost. And
 * doubles, which both writers print alike.
 */
#ifndef IOTRACE_DECIMAL_H
#define IOTRACE_DECIMAL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* digits of UINT64_MAX, and of INT64_MIN with its sign */
#define DECIMAL_MAX 20

static const char decimal_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Two digits of v (< 100) ending at p; returns where they start */
static inline char *decimal_pair(char *p, uint32_t v)
{
	p -= 2;
	memcpy(p, decimal_pairs + v * 2, 2);
	return p;
}

/* Writes v ending at end (exclusive); returns where the text starts. */
static inline char *decimal_u32(char *end, uint32_t v)
{
	char *p = end;

	while (v >= 100) {
		uint32_t q = v / 100;

		p = decimal_pair(p, v - q * 100);
		v = q;
	}
	if (v >= 10)
		return decimal_pair(p, v);
	*--p = (char)('0' + v);
	return p;
}

/*
 * The same for 64 bits: 32-bit division by a constant takes fewer and
 * cheaper instructions, so the low 8 digits go first while v does not
 * fit in 32 bits (timestamps and addresses).
 */
static inline char *decimal_u64(char *end, uint64_t v)
{
	char *p = end;

	while (v > UINT32_MAX) {
		uint64_t q = v / 100000000;
		uint32_t lo = (uint32_t)(v - q * 100000000), i;

		for (i = 0; i < 4; i++) {
			uint32_t lq = lo / 100;

			p = decimal_pair(p, lo - lq * 100);
			lo = lq;
		}
		v = q;
	}
	return decimal_u32(p, (uint32_t)v);
}

/*
 * Digits of v, so that decimal_u64() can write straight to where the text
 * goes: reading back digits just stored two bytes at a time stalls the
 * CPU (the wide load cannot be forwarded from the narrow stores).
 */
static inline unsigned int decimal_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
		1000000000000ull, 10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	/* log10(2) ~ 1233 / 4096: t is the digit count or one less */
	unsigned int t = (unsigned int)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return v ? t + 1 - (v < pow10[t]) : 1;
}

static inline char *decimal_i64(char *end, int64_t v)
{
	char *p;

	if (v >= 0)
		return decimal_u64(end, (uint64_t)v);
	/* negate in unsigned arithmetic: -INT64_MIN does not fit */
	p = decimal_u64(end, -(uint64_t)v);
	*--p = '-';
	return p;
}

/* room for decimal_double()'s text and its NUL */
#define DECIMAL_DOUBLE_MAX 32

/*
 * A finite double as the shortest text that reads back as it (15 to 17
 * significant digits), into buf; returns its length. Rates and averages
 * are a few per row: printf is fine here.
 */
static inline int decimal_double(char buf[DECIMAL_DOUBLE_MAX], double v)
{
	int prec, n = 0;

	for (prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, DECIMAL_DOUBLE_MAX, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return n;
}

#endif
