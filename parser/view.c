// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

int view__flush(FILE *out)
{
	errno = 0;
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

void view__none(FILE *out, const char *what, bool filtered)
{
	fprintf(out, filtered ? "no %s in this trace matches the filters\n" : "no %s in this trace\n",
		what);
}

void *view__grow_to(void *arr, size_t *n, size_t size, size_t idx)
{
	size_t nn = idx + 1 > *n * 2 ? idx + 1 : *n * 2;
	char *na;

	if (idx < *n)
		return arr;
	na = realloc(arr, nn * size);
	if (!na)
		return NULL;
	memset(na + *n * size, 0, (nn - *n) * size);
	*n = nn;
	return na;
}
