// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE	/* timegm() */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "wall_clock.h"

/* n digits at *p into *v, advancing *p; false if they are not all digits */
static bool digits(const char **p, int n, int *v)
{
	int i;

	for (*v = 0, i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return false;
		*v = *v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return true;
}

static bool expect(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

/* ".fraction" (1 to 9 digits) into ns, or nothing */
static bool fraction(const char **p, long *ns)
{
	int n = 0;

	*ns = 0;
	if (!expect(p, '.'))
		return true;
	for (; **p >= '0' && **p <= '9'; (*p)++, n++)
		if (n < 9)
			*ns = *ns * 10 + (**p - '0');
	if (!n || n > 9)
		return false;
	for (; n < 9; n++)
		*ns *= 10;
	return true;
}

bool wall_clock__looks_like(const char *text)
{
	return strchr(text, ':') != NULL;
}

bool wall_clock__dated(const char *text)
{
	return strlen(text) > 10 && text[4] == '-';
}

int wall_clock__parse(const char *text, int64_t ref_ns, int64_t *ns)
{
	int year = 0, mon = 0, day = 0, hour, min, sec = 0;
	const char *p = text;
	struct tm tm = { 0 };
	bool utc, dated;
	time_t t;
	long frac;

	dated = wall_clock__dated(text);
	if (dated && !(digits(&p, 4, &year) && expect(&p, '-') && digits(&p, 2, &mon) &&
		       expect(&p, '-') && digits(&p, 2, &day) &&
		       (expect(&p, 'T') || expect(&p, ' '))))
		return -EINVAL;
	if (!digits(&p, 2, &hour) || !expect(&p, ':') || !digits(&p, 2, &min))
		return -EINVAL;
	if (expect(&p, ':') && !digits(&p, 2, &sec))
		return -EINVAL;
	if (!fraction(&p, &frac))
		return -EINVAL;
	utc = expect(&p, 'Z');
	if (*p || hour > 23 || min > 59 || sec > 59)
		return -EINVAL;
	if (!dated) {
		t = (time_t)(ref_ns / 1000000000);
		if (!(utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)))
			return -ERANGE;
		year = tm.tm_year + 1900;
		mon = tm.tm_mon + 1;
		day = tm.tm_mday;
	}
	if (mon < 1 || mon > 12 || day < 1 || day > 31)
		return -EINVAL;
	tm = (struct tm){ .tm_year = year - 1900, .tm_mon = mon - 1, .tm_mday = day,
			  .tm_hour = hour, .tm_min = min, .tm_sec = sec, .tm_isdst = -1 };
	t = utc ? timegm(&tm) : mktime(&tm);
	/* normalized: a day past the month's end, or an hour a DST change skips, is no time */
	if (tm.tm_mday != day || tm.tm_mon != mon - 1 || tm.tm_hour != hour || tm.tm_min != min)
		return -EINVAL;
	if (t < 0 || t > INT64_MAX / 1000000000 - 1)
		return -ERANGE;
	*ns = (int64_t)t * 1000000000 + frac;
	return 0;
}

void wall_fmt__init(struct wall_fmt *f, bool local)
{
	*f = (struct wall_fmt){ .local = local };
}

const char *wall_fmt(struct wall_fmt *f, int64_t ns)
{
	int64_t sec = ns / 1000000000, frac = ns % 1000000000;
	struct tm tm;
	time_t t;

	if (frac < 0) {
		sec--;
		frac += 1000000000;
	}
	if (!f->valid || f->sec != sec) {
		t = (time_t)sec;
		f->valid = true;
		f->sec = sec;
		f->len = 0;
		if ((f->local ? localtime_r(&t, &tm) : gmtime_r(&t, &tm)) && tm.tm_year >= -1899 &&
		    tm.tm_year <= 8099)
			f->len = strftime(f->text, sizeof(f->text),
					  f->local ? "%H:%M:%S" : "%Y-%m-%dT%H:%M:%S", &tm);
	}
	if (!f->len) {
		f->text[0] = 0;
		return f->text;
	}
	if (f->local)
		snprintf(f->text + f->len, sizeof(f->text) - f->len, ".%06d", (int)(frac / 1000));
	else
		snprintf(f->text + f->len, sizeof(f->text) - f->len, ".%09dZ", (int)frac);
	return f->text;
}
