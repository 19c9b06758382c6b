// SPDX-License-Identifier: BSD-3-Clause
#include "mount_escape.h"

static int octal(char c)
{
	return c >= '0' && c <= '7';
}

void mount_unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		/* \4xx and up would not fit a byte: the kernel never writes them */
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && octal(s[2]) && octal(s[3])) {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = 0;
}
