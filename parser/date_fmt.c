// SPDX-License-Identifier: BSD-3-Clause
#include <stdio.h>
#include <time.h>

#include "date_fmt.h"

const char *date_fmt(struct date_fmt *c, int64_t sec, int32_t ns)
{
	time_t t = (time_t)sec;
	char *s = c->text;
	struct tm tm;
	size_t n;

	if (c->valid && c->sec == sec && c->nsec == ns)
		return s;
	c->valid = 1;
	c->sec = sec;
	c->nsec = ns;
	if (sec < -62135596800LL || sec > 253402300799LL || ns < 0 || ns > 999999999 ||
	    !gmtime_r(&t, &tm)) {
		snprintf(s, DATE_FMT_MAX, "%lld.%09d", (long long)sec, (int)ns);
		return s;
	}
	n = strftime(s, DATE_FMT_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
	if (ns % 1000000 == 0 && ns)
		n += (size_t)snprintf(s + n, DATE_FMT_MAX - n, ".%03d", (int)(ns / 1000000));
	else if (ns % 1000 == 0 && ns)
		n += (size_t)snprintf(s + n, DATE_FMT_MAX - n, ".%06d", (int)(ns / 1000));
	else if (ns)
		n += (size_t)snprintf(s + n, DATE_FMT_MAX - n, ".%09d", (int)ns);
	snprintf(s + n, DATE_FMT_MAX - n, "Z");
	return s;
}
