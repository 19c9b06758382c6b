// SPDX-License-Identifier: BSD-3-Clause
#include <string.h>

#include "csv_writer.h"
#include "io_text.h"
#include "json_writer.h"

const char *io_text__op_name(int32_t op)
{
	switch (op) {
	case OCTF__PROTO__TRACE__IO_TYPE__UnknownIoType:
		return "UnknownIoType";
	case OCTF__PROTO__TRACE__IO_TYPE__Read:
		return "Read";
	case OCTF__PROTO__TRACE__IO_TYPE__Write:
		return "Write";
	case OCTF__PROTO__TRACE__IO_TYPE__Discard:
		return "Discard";
	default:
		return NULL;
	}
}

const char *io_text__fs_event_name(int32_t e)
{
	switch (e) {
	case OCTF__PROTO__TRACE__FS_EVENT_TYPE__Access:
		return "Access";
	case OCTF__PROTO__TRACE__FS_EVENT_TYPE__Create:
		return "Create";
	case OCTF__PROTO__TRACE__FS_EVENT_TYPE__Delete:
		return "Delete";
	case OCTF__PROTO__TRACE__FS_EVENT_TYPE__MoveTo:
		return "MoveTo";
	case OCTF__PROTO__TRACE__FS_EVENT_TYPE__MoveFrom:
		return "MoveFrom";
	default:
		return NULL;
	}
}

static size_t dev_text_of(char *dst, const char *s, size_t len, enum view_format fmt)
{
	if (fmt != VIEW_JSON) {
		memcpy(dst, s, len);
		return len;
	}
	dst[0] = '"';
	memcpy(dst + 1, s, len);
	dst[len + 1] = '"';
	return len + 2;
}

static bool dev_text_plain(const char *s, size_t len, enum view_format fmt)
{
	return len <= DEV_TEXT_MAX &&
	       (fmt == VIEW_JSON ? line_json_plain(s, len) : line_csv_plain(s, len));
}

void io_text__dev(struct dev_text *t, const struct device *d, enum view_format fmt)
{
	size_t nl, ml;

	if (t->dev == d && t->name == d->name && t->model == d->model)
		return;
	nl = strlen(d->name);
	ml = strlen(d->model);
	t->dev = d;
	t->name = d->name;
	t->model = d->model;
	t->plain = dev_text_plain(d->name, nl, fmt) && dev_text_plain(d->model, ml, fmt);
	if (!t->plain)
		return;
	t->name_len = dev_text_of(t->name_t, d->name, nl, fmt);
	t->model_len = dev_text_of(t->model_t, d->model, ml, fmt);
}
