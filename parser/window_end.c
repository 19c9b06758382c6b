// SPDX-License-Identifier: BSD-3-Clause
#include "window_end.h"

void window_end__init(struct window_end *w, uint64_t to)
{
	w->to = to;
	w->until = to > UINT64_MAX - WINDOW_END_GRACE_NS ? UINT64_MAX : to + WINDOW_END_GRACE_NS;
	w->countdown = 0;
	w->stopped = false;
	w->stopped_at = 0;
	w->stopped_sid = 0;
}

bool window_end__look(struct window_end *w, const struct join *j, const struct event *ev)
{
	uint64_t ts0 = join__first_ts(j), time;

	if (ev->ts < ts0)
		return false;
	time = ev->ts - ts0;
	if (time < w->until)
		return false;
	/*
	 * past the grace, a look at the join walks the records it holds:
	 * as many events until the next keep it to one record an event
	 */
	if (w->countdown) {
		w->countdown--;
		return false;
	}
	if (!join__settled_before(j, w->to)) {
		w->countdown = join__held(j);
		return false;
	}
	w->stopped = true;
	w->stopped_at = time;
	w->stopped_sid = ev->sid;
	return true;
}
