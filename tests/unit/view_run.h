/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Runs a view as the CLI does - a join whose sink is the view - writing
 * into memory, for tests of the views' output.
 */
#ifndef IOTRACE_TEST_VIEW_RUN_H
#define IOTRACE_TEST_VIEW_RUN_H

#include <stdio.h>
#include <stdlib.h>

#include "filter.h"
#include "join.h"
#include "view.h"

struct view_run {
	const struct view_ops *ops;
	void *view;
	struct join *join;
	FILE *out;
	char *text;
	size_t len;
	struct filter_sink fs;
};

static void view_run_record(void *ctx, const struct io_rec *r)
{
	struct view_run *vr = ctx;

	vr->ops->record(vr->view, r);
}

static void view_run_vfs(void *ctx, const struct vfs_rec *r)
{
	struct view_run *vr = ctx;

	vr->ops->vfs(vr->view, r);
}

/* With a filter (NULL: none) between the join and the view, as the CLI runs it. */
static inline struct join *view_run_start_filtered(struct view_run *vr, const struct view_ops *ops,
						   const struct view_opts *o,
						   const struct filter *f)
{
	struct join_sink sink = { view_run_record, vr, ops->vfs ? view_run_vfs : NULL };

	vr->ops = ops;
	vr->text = NULL;
	vr->len = 0;
	vr->out = open_memstream(&vr->text, &vr->len);
	assert_non_null(vr->out);
	vr->view = ops->create(vr->out, o);
	assert_non_null(vr->view);
	if (f)
		sink = filter__sink(&vr->fs, f, &sink);
	vr->join = join__new(ops->join_flags | (f ? filter__join_flags(f) : 0), &sink);
	assert_non_null(vr->join);
	if (f)
		filter__sink_join(&vr->fs, vr->join);
	return vr->join;
}

static inline struct join *view_run_start(struct view_run *vr, const struct view_ops *ops,
					  const struct view_opts *o)
{
	return view_run_start_filtered(vr, ops, o, NULL);
}

/* Ends the join and the view; the output is in vr->text (free it). */
static inline const char *view_run_finish(struct view_run *vr)
{
	assert_int_equal(join__finish(vr->join), 0);
	assert_int_equal(vr->ops->finish(vr->view, vr->join), 0);
	vr->ops->destroy(vr->view);
	join__free(vr->join);
	assert_int_equal(fclose(vr->out), 0);
	return vr->text;
}

#endif
