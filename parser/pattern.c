// SPDX-License-Identifier: BSD-3-Clause
#include "pattern.h"

bool pattern__sequential(struct pattern_streams *s, uint64_t lba, uint32_t len)
{
	uint64_t end = lba + len;
	unsigned int i, oldest = 0, cont = PATTERN_STREAMS, same = PATTERN_STREAMS;

	/* a range past the last sector (a crafted trace) ends nowhere */
	if (!len || end < lba)
		return false;
	for (i = 0; i < PATTERN_STREAMS; i++) {
		/* end 0 marks a free slot (no I/O ends at sector 0), used 0 too */
		if (s->end[i] && s->end[i] == lba)
			cont = i;
		else if (s->end[i] && s->end[i] == end)
			same = i;
		if (s->used[i] < s->used[oldest])
			oldest = i;
	}
	s->clock++;
	/* two streams that meet go on as one: the table keeps distinct ends */
	if (same < PATTERN_STREAMS) {
		if (cont < PATTERN_STREAMS)
			s->end[cont] = s->used[cont] = 0;
		s->used[same] = s->clock;
		return cont < PATTERN_STREAMS;
	}
	/* else the stream used least recently gives way: one going on stays */
	i = cont < PATTERN_STREAMS ? cont : oldest;
	s->end[i] = end;
	s->used[i] = s->clock;
	return cont < PATTERN_STREAMS;
}

bool pattern__aligned(uint64_t lba, uint32_t len)
{
	return lba % PATTERN_ALIGN_SECTORS == 0 && len % PATTERN_ALIGN_SECTORS == 0;
}
