// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "regular_file.h"

FILE *regular_file__open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), err;
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		err = errno;
	else if (S_ISDIR(st.st_mode))
		err = EISDIR;
	else if (!S_ISREG(st.st_mode))
		err = ENOSTR;
	else if ((f = fdopen(fd, "r")))
		return f;
	else
		err = errno;
	close(fd);
	errno = err;
	return NULL;
}

const char *regular_file__strerror(int err)
{
	return err == ENOSTR ? "not a regular file" : strerror(err);
}
