// SPDX-License-Identifier: BSD-3-Clause
/*
 * The raw view walks the protobuf-c descriptors, so a field added to
 * trace.proto shows up here without code changes. Proto3 scalars have no
 * presence: they are always printed. Messages are printed when their
 * pointer is set, oneof members only when they are the set member.
 */
#define _GNU_SOURCE	/* ferror_unlocked */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_writer.h"
#include "date_fmt.h"
#include "json_writer.h"
#include "raw_view.h"

/* Guards against a recursive schema; ours nests four levels deep. */
#define MAX_NESTING 8
/* distinct message types whose CSV column count is remembered */
#define MAX_TYPES 32

struct leaf_count {
	const ProtobufCMessageDescriptor *desc;
	size_t leaves;
};

struct raw_view {
	FILE *out;
	enum raw_format fmt;
	struct json_writer *jw;
	struct csv_writer *cw;
	bool header_done;
	int err;
	struct leaf_count counts[MAX_TYPES];
	size_t ncounts;
	struct date_fmt date;
};

static const void *member(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
	return (const char *)msg + f->offset;
}

/* Is field f of msg present (to be printed)? See the comment at the top. */
static bool present(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
	const void *p = member(msg, f);

	if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
		if (*(const uint32_t *)((const char *)msg + f->quantifier_offset) != f->id)
			return false;
	} else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->type != PROTOBUF_C_TYPE_MESSAGE &&
		   f->type != PROTOBUF_C_TYPE_STRING) {
		/* proto2 or proto3 `optional`: has_<name> */
		if (!*(const protobuf_c_boolean *)((const char *)msg + f->quantifier_offset))
			return false;
	}
	if (f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING)
		return *(const void *const *)p != NULL;
	return true;
}

static size_t type_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_ENUM:
		return 4;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	}
	return 0;
}

static const char *enum_name(const ProtobufCFieldDescriptor *f, int v)
{
	const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(f->descriptor, v);

	return ev ? ev->name : NULL;
}

/* Base64 (RFC 4648, padded), as the protobuf JSON mapping writes bytes. */
static char *base64(const ProtobufCBinaryData *b)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, o = 0;
	char *s;

	if (b->len > (SIZE_MAX - 1) / 4 * 3 - 3)
		return NULL;
	s = malloc((b->len + 2) / 3 * 4 + 1);
	if (!s)
		return NULL;
	for (i = 0; i + 2 < b->len; i += 3) {
		uint32_t v = (uint32_t)b->data[i] << 16 | (uint32_t)b->data[i + 1] << 8 |
			     b->data[i + 2];

		s[o++] = tab[v >> 18];
		s[o++] = tab[(v >> 12) & 63];
		s[o++] = tab[(v >> 6) & 63];
		s[o++] = tab[v & 63];
	}
	if (i < b->len) {
		uint32_t v = (uint32_t)b->data[i] << 16;

		if (i + 1 < b->len)
			v |= (uint32_t)b->data[i + 1] << 8;
		s[o++] = tab[v >> 18];
		s[o++] = tab[(v >> 12) & 63];
		s[o++] = i + 1 < b->len ? tab[(v >> 6) & 63] : '=';
		s[o++] = '=';
	}
	s[o] = '\0';
	return s;
}

/* ---- JSON ---- */

static void json_message(struct raw_view *v, const ProtobufCMessage *msg, unsigned int depth);

static void json_value(struct raw_view *v, const ProtobufCFieldDescriptor *f, const void *p,
		       unsigned int depth)
{
	struct json_writer *jw = v->jw;

	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		jw__int(jw, *(const int32_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		jw__uint(jw, *(const uint32_t *)p);
		break;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		jw__int_str(jw, *(const int64_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		jw__uint_str(jw, *(const uint64_t *)p);
		break;
	case PROTOBUF_C_TYPE_FLOAT:
		jw__double(jw, *(const float *)p);
		break;
	case PROTOBUF_C_TYPE_DOUBLE:
		jw__double(jw, *(const double *)p);
		break;
	case PROTOBUF_C_TYPE_BOOL:
		jw__bool(jw, *(const protobuf_c_boolean *)p);
		break;
	case PROTOBUF_C_TYPE_ENUM: {
		const char *name = enum_name(f, *(const int *)p);

		/* a value newer than our schema: the JSON mapping prints the number */
		if (name)
			jw__string(jw, name);
		else
			jw__int(jw, *(const int *)p);
		break;
	}
	case PROTOBUF_C_TYPE_STRING:
		jw__string(jw, *(const char *const *)p);
		break;
	case PROTOBUF_C_TYPE_BYTES: {
		char *s = base64(p);

		jw__string(jw, s);
		free(s);
		break;
	}
	case PROTOBUF_C_TYPE_MESSAGE:
		/*
		 * Open-CAS's FileId.creationDate is a google.protobuf.Timestamp,
		 * which the JSON mapping writes as an RFC 3339 string; ours is
		 * the same message on the wire under another name
		 */
		if (f->descriptor == &octf__proto__trace__timestamp__descriptor) {
			const Octf__Proto__Trace__Timestamp *t = *(const void *const *)p;

			jw__string(jw, date_fmt(&v->date, t->seconds, t->nanos));
			break;
		}
		json_message(v, *(const ProtobufCMessage *const *)p, depth + 1);
		break;
	}
}

static void json_message(struct raw_view *v, const ProtobufCMessage *msg, unsigned int depth)
{
	const ProtobufCMessageDescriptor *d = msg->descriptor;
	unsigned int i;

	jw__start_object(v->jw);
	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];

		if (f->type == PROTOBUF_C_TYPE_MESSAGE && depth + 1 >= MAX_NESTING)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)((const char *)msg + f->quantifier_offset);
			const char *arr = *(const char *const *)member(msg, f);
			size_t k, sz = type_size(f->type);

			jw__name(v->jw, f->name);
			jw__start_array(v->jw);
			for (k = 0; k < n && arr; k++) {
				const void *e = arr + k * sz;

				if (f->type == PROTOBUF_C_TYPE_MESSAGE && !*(const void *const *)e)
					continue;
				json_value(v, f, e, depth);
			}
			jw__end_array(v->jw);
			continue;
		}
		if (!present(msg, f))
			continue;
		jw__name(v->jw, f->name);
		json_value(v, f, member(msg, f), depth);
	}
	jw__end_object(v->jw);
}

/* ---- CSV ---- */

/* Number of CSV columns for a message type; remembered per type. */
static size_t leaves(struct raw_view *v, const ProtobufCMessageDescriptor *d, unsigned int depth)
{
	size_t i, n = 0;

	for (i = 0; i < v->ncounts; i++) {
		if (v->counts[i].desc == d)
			return v->counts[i].leaves;
	}
	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];

		if (f->type != PROTOBUF_C_TYPE_MESSAGE || f->label == PROTOBUF_C_LABEL_REPEATED)
			n++;
		else if (depth + 1 < MAX_NESTING)
			n += leaves(v, f->descriptor, depth + 1);
	}
	/* only a recursive schema would make the count depend on depth */
	if (v->ncounts < MAX_TYPES) {
		v->counts[v->ncounts].desc = d;
		v->counts[v->ncounts].leaves = n;
		v->ncounts++;
	}
	return n;
}

static void csv_header(struct raw_view *v, const ProtobufCMessageDescriptor *d, char *path,
		       size_t plen, size_t cap, unsigned int depth)
{
	size_t i;

	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		size_t nlen = strlen(f->name), l = plen;

		if (l + (l ? 1 : 0) + nlen + 1 > cap)
			continue;	/* cannot happen with MAX_NESTING levels of names */
		if (l)
			path[l++] = '.';
		memcpy(path + l, f->name, nlen + 1);
		if (f->type != PROTOBUF_C_TYPE_MESSAGE || f->label == PROTOBUF_C_LABEL_REPEATED)
			csv__string(v->cw, path);
		else if (depth + 1 < MAX_NESTING)
			csv_header(v, f->descriptor, path, l + nlen, cap, depth + 1);
		path[plen] = '\0';
	}
}

static void csv_empties(struct csv_writer *cw, size_t n)
{
	while (n--)
		csv__empty(cw);
}

static void csv_scalar(struct raw_view *v, const ProtobufCFieldDescriptor *f, const void *p)
{
	struct csv_writer *cw = v->cw;

	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		csv__int(cw, *(const int32_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		csv__uint(cw, *(const uint32_t *)p);
		break;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		csv__int(cw, *(const int64_t *)p);
		break;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		csv__uint(cw, *(const uint64_t *)p);
		break;
	case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_DOUBLE: {
		double d = f->type == PROTOBUF_C_TYPE_FLOAT ? *(const float *)p
							    : *(const double *)p;
		char buf[32];

		snprintf(buf, sizeof(buf), "%.17g", d);
		csv__string(cw, buf);
		break;
	}
	case PROTOBUF_C_TYPE_BOOL:
		csv__string(cw, *(const protobuf_c_boolean *)p ? "true" : "false");
		break;
	case PROTOBUF_C_TYPE_ENUM: {
		const char *name = enum_name(f, *(const int *)p);

		if (name)
			csv__string(cw, name);
		else
			csv__int(cw, *(const int *)p);
		break;
	}
	case PROTOBUF_C_TYPE_STRING:
		csv__string(cw, *(const char *const *)p);
		break;
	case PROTOBUF_C_TYPE_BYTES: {
		char *s = base64(p);

		csv__string(cw, s);
		free(s);
		break;
	}
	case PROTOBUF_C_TYPE_MESSAGE:
		csv__empty(cw);
		break;
	}
}

static void csv_message(struct raw_view *v, const ProtobufCMessage *msg,
			const ProtobufCMessageDescriptor *d, unsigned int depth)
{
	size_t i;

	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		bool sub = f->type == PROTOBUF_C_TYPE_MESSAGE &&
			   f->label != PROTOBUF_C_LABEL_REPEATED;

		if (sub && depth + 1 >= MAX_NESTING)
			continue;
		if (sub) {
			if (msg && present(msg, f))
				csv_message(v, *(const ProtobufCMessage *const *)member(msg, f),
					    f->descriptor, depth + 1);
			else
				csv_empties(v->cw, leaves(v, f->descriptor, depth + 1));
		} else if (f->label == PROTOBUF_C_LABEL_REPEATED || !msg || !present(msg, f)) {
			/* a list has no cell of its own; trace.proto has none */
			csv__empty(v->cw);
		} else {
			csv_scalar(v, f, member(msg, f));
		}
	}
}

/* ---- the view ---- */

struct raw_view *raw_view__new(FILE *out, enum raw_format fmt)
{
	struct raw_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->fmt = fmt;
	if (fmt == RAW_CSV)
		v->cw = csv__new(out);
	else
		v->jw = jw__new(out, false);
	if (!v->cw && !v->jw) {
		raw_view__free(v);
		errno = ENOMEM;
		return NULL;
	}
	return v;
}

static void write_csv_header(struct raw_view *v)
{
	char path[1024] = "";

	csv_header(v, &octf__proto__trace__event__descriptor, path, 0, sizeof(path), 0);
	csv__end_row(v->cw);
	v->header_done = true;
}

/* Remembers the first write error with its errno before later calls change it. */
static void check_error(struct raw_view *v)
{
	if (!v->err && ferror_unlocked(v->out))
		v->err = errno ? -errno : -EIO;
}

void raw_view__write(struct raw_view *v, const Octf__Proto__Trace__Event *ev)
{
	const ProtobufCMessage *msg = &ev->base;

	if (v->fmt == RAW_CSV) {
		if (!v->header_done)
			write_csv_header(v);
		csv_message(v, msg, msg->descriptor, 0);
		csv__end_row(v->cw);
	} else {
		json_message(v, msg, 0);
		jw__newline(v->jw);
	}
	check_error(v);
}

int raw_view__error(const struct raw_view *v)
{
	return v->err;
}

int raw_view__finish(struct raw_view *v)
{
	if (v->err)
		return v->err;
	/* an empty trace still gets its columns */
	if (v->fmt == RAW_CSV && !v->header_done) {
		write_csv_header(v);
		check_error(v);
		if (v->err)
			return v->err;
	}
	errno = 0;
	if (fflush(v->out) || ferror(v->out))
		v->err = errno ? -errno : -EIO;
	return v->err;
}

void raw_view__free(struct raw_view *v)
{
	if (!v)
		return;
	jw__free(v->jw);
	csv__free(v->cw);
	free(v);
}
