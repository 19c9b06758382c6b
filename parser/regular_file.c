// SPDX-License-Identifier: BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "regular_file.h"

int regular_file__open_fd(const char *path, int flags)
{
	int fd = open(path, flags | O_NOFOLLOW);
	struct stat st;

	if (fd >= 0 || errno != ELOOP || lstat(path, &st))
		return fd;
	if (!S_ISLNK(st.st_mode)) {
		errno = ELOOP;
		return -1;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		errno = REGULAR_FILE_THEIR_LINK;
		return -1;
	}
	return open(path, flags);
}

FILE *regular_file__open(const char *path)
{
	int fd = regular_file__open_fd(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), err;
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
	if (err == REGULAR_FILE_THEIR_LINK)
		return "a symbolic link of another user, not followed";
	return err == ENOSTR ? "not a regular file" : strerror(err);
}
