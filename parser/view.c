// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>

#include "view.h"

int view__flush(FILE *out)
{
	errno = 0;
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
