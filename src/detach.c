// SPDX-License-Identifier: BSD-3-Clause
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <bpf/libbpf.h>

#include "detach.h"

/* a thread only closes a file descriptor and frees a little memory */
#define DETACH_STACK (64 * 1024)

struct detacher {
	pthread_t th;
	struct bpf_link *link;
	bool started;
};

static void *detach_main(void *p)
{
	struct detacher *d = p;

	bpf_link__destroy(d->link);
	return NULL;
}

void detach__links(struct bpf_link **const *slots, size_t n)
{
	struct detacher *d = calloc(n ? n : 1, sizeof(*d));
	pthread_attr_t attr;
	bool attr_ok = !pthread_attr_init(&attr);
	size_t i;

	if (attr_ok)
		pthread_attr_setstacksize(&attr, DETACH_STACK);
	for (i = 0; d && i < n; i++) {
		d[i].link = *slots[i];
		if (d[i].link)
			d[i].started = !pthread_create(&d[i].th, attr_ok ? &attr : NULL, detach_main,
						       &d[i]);
	}
	for (i = 0; i < n; i++) {
		if (d && d[i].started)
			pthread_join(d[i].th, NULL);
		else
			bpf_link__destroy(*slots[i]);
		*slots[i] = NULL;
	}
	if (attr_ok)
		pthread_attr_destroy(&attr);
	free(d);
}
