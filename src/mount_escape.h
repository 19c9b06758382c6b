/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel's mount tables (/proc/self/mountinfo, /proc/self/mounts)
 * write a blank, tab, line break or backslash in a path as its octal
 * escape (\040, \011, \012, \134), so that blanks part the fields.
 */
#ifndef IOTRACE_MOUNT_ESCAPE_H
#define IOTRACE_MOUNT_ESCAPE_H

/* Back to the path itself, in place; other backslashes are kept. */
void mount_unescape(char *s);

#endif
