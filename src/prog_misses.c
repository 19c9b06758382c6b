// SPDX-License-Identifier: BSD-3-Clause
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "prog_misses.h"

uint64_t prog_misses__read(struct bpf_object *obj, char *names, size_t size)
{
	struct bpf_program *prog;
	uint64_t total = 0;
	size_t off = 0;
	int n;

	if (size)
		names[0] = '\0';
	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) || !info.recursion_misses)
			continue;
		total += info.recursion_misses;
		if (off >= size)
			continue;
		n = snprintf(names + off, size - off, "%s%s %llu", off ? ", " : "",
			     bpf_program__name(prog), (unsigned long long)info.recursion_misses);
		off += n < 0 ? 0 : (size_t)n;
		/* cut: the reader is told so */
		if (off >= size && size > 4)
			strcpy(names + size - 4, "...");
	}
	return total;
}
