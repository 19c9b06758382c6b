// SPDX-License-Identifier: BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "date_fmt.h"
#include "json_writer.h"
#include "regular_file.h"
#include "summary.h"
#include "trace_store.h"
#include "wall_clock.h"

/*
 * The summary's "tags" object, opened at its first tag: a foreign
 * summary (Open-CAS's) that had none gets none made up.
 */
struct tags_out {
	struct json_writer *jw;
	bool open;
};

static struct json_writer *tags_jw(struct tags_out *t)
{
	if (!t->open) {
		jw__key(t->jw, "tags");
		jw__start_object(t->jw);
		t->open = true;
	}
	return t->jw;
}

/* Our tag key with a string value: always ours, a foreign summary's only if it had it. */
static void string_tag(struct tags_out *t, const struct summary *s, const char *key,
		       const char *value)
{
	if (s->foreign && !*value)
		return;
	jw__name(tags_jw(t), key);
	jw__string(t->jw, value);
}

void summary__json_pairs(struct json_writer *jw, const char *pairs, size_t len)
{
	const char *p = pairs, *end = pairs + len;

	while (p < end) {
		const char *value = p + strlen(p) + 1;

		jw__name(jw, p);
		jw__string(jw, value);
		p = value + strlen(value) + 1;
	}
}

static void print_tags(struct tags_out *t, const struct summary *s)
{
	string_tag(t, s, "devices", s->devices);
	string_tag(t, s, "droppedEventsPerQueue", s->dropped_per_queue);
	string_tag(t, s, "stopReason", s->stop_reason);
	string_tag(t, s, "iotraceVersion", s->tool_version);
	string_tag(t, s, "options", s->options);
	if (s->unresolved_file_events) {
		jw__key(tags_jw(t), "unresolvedFileEvents");
		jw__uint_str(t->jw, s->unresolved_file_events);
	}
	if (s->uring_unfollowed) {
		jw__key(tags_jw(t), "uringCallsNotFollowed");
		jw__uint_str(t->jw, s->uring_unfollowed);
	}
	if (s->uring_vfs_missing) {
		jw__key(tags_jw(t), "uringVfsRecordsMissing");
		jw__uint_str(t->jw, s->uring_vfs_missing);
	}
	if (s->skipped_runs) {
		jw__key(tags_jw(t), "skippedProgramRuns");
		jw__uint_str(t->jw, s->skipped_runs);
	}
	if (s->incomplete) {
		jw__key(tags_jw(t), "incompleteFromSid");
		jw__uint_str(t->jw, s->incomplete_from_sid);
	}
	if (s->complete_below_sid) {
		jw__key(tags_jw(t), "completeBelowSid");
		jw__uint_str(t->jw, s->complete_below_sid);
	}
	if (s->timestamp_origin_ns > 0) {
		struct date_fmt df = { 0 };

		jw__key(tags_jw(t), "timestampOrigin");
		jw__string(t->jw, date_fmt(&df, s->timestamp_origin_ns / 1000000000,
					   (int32_t)(s->timestamp_origin_ns % 1000000000)));
	}
	if (s->timestamp_origin_clock_ns) {
		jw__key(tags_jw(t), "timestampOriginClock");
		jw__uint_str(t->jw, s->timestamp_origin_clock_ns);
	}
	if (s->not_followed[0]) {
		jw__key(tags_jw(t), "notFollowed");
		jw__string(t->jw, s->not_followed);
	}
	if (s->devices_gone[0]) {
		jw__key(tags_jw(t), "devicesGone");
		jw__string(t->jw, s->devices_gone);
	}
	if (s->size_limit_mib) {
		jw__key(tags_jw(t), "sizeLimitMiB");
		jw__uint_str(t->jw, s->size_limit_mib);
	}
	if (s->other_tags_len)
		summary__json_pairs(tags_jw(t), s->other_tags, s->other_tags_len);
}

/* The fields kept by keep_other_field(), as they were read. */
static void print_other_fields(struct json_writer *jw, const struct summary *s)
{
	const char *p = s->other_fields, *end = s->other_fields + s->other_fields_len;

	while (p < end) {
		const char *value = p + strlen(p) + 1;
		char *rest;

		jw__name(jw, p);
		if (value[0] == 's') {
			jw__string(jw, value + 1);
		} else if (value[0] == 'b') {
			jw__bool(jw, !strcmp(value + 1, "true"));
		} else if (value[1] == '-') {
			long long v;

			/* past 64 bits, as JSON readers take it: a double */
			errno = 0;
			v = strtoll(value + 1, &rest, 10);
			if (*rest || errno)
				jw__double(jw, strtod(value + 1, NULL));
			else
				jw__int(jw, v);
		} else {
			unsigned long long v;

			errno = 0;
			v = strtoull(value + 1, &rest, 10);
			if (*rest || errno)
				jw__double(jw, strtod(value + 1, NULL));
			else
				jw__uint(jw, v);
		}
		p = value + strlen(value) + 1;
	}
}

int summary__print(FILE *out, const struct summary *s)
{
	struct json_writer *jw = jw__new(out, true);
	struct tags_out tags = { .jw = jw };

	if (!jw)
		return -ENOMEM;
	jw__start_object(jw);
	jw__key(jw, "tracePath");
	jw__string(jw, s->trace_path);
	jw__key(jw, "state");
	jw__string(jw, s->state);
	jw__key(jw, "sourceNode");
	jw__start_object(jw);
	jw__key(jw, "node");
	jw__start_array(jw);
	jw__start_object(jw);
	jw__key(jw, "id");
	jw__string(jw, "kernel");
	jw__end_object(jw);
	jw__end_array(jw);
	jw__end_object(jw);
	jw__key(jw, "traceStartDateTime");
	jw__string(jw, s->start);
	jw__key(jw, "traceDuration");
	jw__uint_str(jw, s->duration_s);
	jw__key(jw, "traceSize");
	jw__uint(jw, s->size_mib);
	jw__key(jw, "tracedEvents");
	jw__uint_str(jw, s->traced_events);
	jw__key(jw, "droppedEvents");
	jw__uint_str(jw, s->dropped_events);
	jw__key(jw, "queueCount");
	jw__uint_str(jw, s->queue_count);
	/*
	 * "" too: Open-CAS prints every primitive field, and scripts read
	 * s["label"]; but not into a newer Open-CAS's summary, whose user
	 * tags replaced the label
	 */
	if (s->label[0] || !s->other_tags_len) {
		jw__key(jw, "label");
		jw__string(jw, s->label);
	}
	jw__key(jw, "version");
	jw__uint(jw, s->version);
	print_other_fields(jw, s);
	print_tags(&tags, s);
	if (tags.open)
		jw__end_object(jw);
	jw__end_object(jw);
	jw__newline(jw);
	jw__free(jw);
	if (fflush(out) || ferror(out))
		return -(errno ? errno : EIO);
	return 0;
}

static int write_file(const char *path, const struct summary *s, int flags)
{
	/* a trace directory is the tracer's alone (safe_dir.h): a link there is no summary of ours */
	int fd = open(path, flags | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
	FILE *f;
	int err;

	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	err = summary__print(f, s);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int summary__write(const char *dir, const struct summary *s)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	int err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, STORE_SUMMARY_NAME) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, STORE_SUMMARY_NAME) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	err = write_file(tmp, s, O_CREAT | O_TRUNC);
	if (!err && rename(tmp, path))
		err = -errno;
	if (!err)
		return 0;
	unlink(tmp);
	/*
	 * On a full disk the temporary copy cannot get a block, but the old
	 * summary's block can be reused: rewrite it in place, so the final
	 * state and counts still reach the disk.
	 */
	if (err == -ENOSPC || err == -EDQUOT)
		err = write_file(path, s, O_CREAT | O_TRUNC);
	return err;
}

/* --- a small reader for the flat JSON object above --- */

struct cursor {
	const char *p, *end;
	const char *begin;	/* of the file, for the byte an error names */
	char *why;		/* the first error's reason, kept whole */
	size_t why_size;
};

/* Says why the summary is refused, at the cursor's byte; -EBADMSG. */
static int __attribute__((format(printf, 2, 3))) bad(struct cursor *c, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (!c->why || c->why[0])
		return -EBADMSG;
	n = (size_t)snprintf(c->why, c->why_size, "byte %zu: ", (size_t)(c->p - c->begin));
	if (n < c->why_size) {
		va_start(ap, fmt);
		vsnprintf(c->why + n, c->why_size - n, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end && isspace((unsigned char)*c->p))
		c->p++;
}

/* The 4 hex digits of a \\u escape, at c. */
static int read_hex4(struct cursor *c, uint32_t *u)
{
	int i;

	*u = 0;
	for (i = 0; i < 4; i++) {
		if (c->p >= c->end || !isxdigit((unsigned char)*c->p))
			return -EBADMSG;
		*u = *u * 16 + (uint32_t)(isdigit((unsigned char)*c->p) ? *c->p - '0'
					  : tolower((unsigned char)*c->p) - 'a' + 10);
		c->p++;
	}
	return 0;
}

/*
 * A \\u escape (c past the 'u') as UTF-8 into b: a surrogate pair is one
 * character; a lone surrogate, and U+0000, which would end the C string,
 * become U+FFFD. Returns the bytes written, 0 on a bad escape.
 */
static size_t read_escaped_char(struct cursor *c, char *b)
{
	uint32_t u, lo;

	if (read_hex4(c, &u))
		return 0;
	if (u >= 0xd800 && u < 0xdc00 && c->end - c->p >= 6 && c->p[0] == '\\' &&
	    c->p[1] == 'u') {
		struct cursor next = { c->p + 2, c->end, NULL, NULL, 0 };

		if (!read_hex4(&next, &lo) && lo >= 0xdc00 && lo < 0xe000) {
			c->p = next.p;
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		}
	}
	if (!u || (u >= 0xd800 && u < 0xe000))
		u = 0xfffd;
	if (u < 0x80) {
		b[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		b[0] = (char)(0xc0 | u >> 6);
		b[1] = (char)(0x80 | (u & 0x3f));
		return 2;
	}
	if (u < 0x10000) {
		b[0] = (char)(0xe0 | u >> 12);
		b[1] = (char)(0x80 | (u >> 6 & 0x3f));
		b[2] = (char)(0x80 | (u & 0x3f));
		return 3;
	}
	b[0] = (char)(0xf0 | u >> 18);
	b[1] = (char)(0x80 | (u >> 12 & 0x3f));
	b[2] = (char)(0x80 | (u >> 6 & 0x3f));
	b[3] = (char)(0x80 | (u & 0x3f));
	return 4;
}

/*
 * Where s[0..n) ends if a UTF-8 sequence cut short at its end is left
 * out: a string cut to fit its field must not end in half a character.
 */
static size_t whole_chars(const char *s, size_t n)
{
	size_t i = n, want;
	unsigned char lead;

	while (i > 0 && n - i < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (!i)
		return n;
	lead = (unsigned char)s[i - 1];
	want = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
	return n - (i - 1) < want ? i - 1 : n;
}

/*
 * Reads a JSON string into out, escapes decoded (\\u as UTF-8); one
 * longer than size - 1 bytes is cut there, between characters.
 */
static int read_string(struct cursor *c, char *out, size_t size)
{
	size_t n = 0, len;
	bool cut = false;
	char b[4];

	if (c->p >= c->end || *c->p != '"')
		return -EBADMSG;
	c->p++;
	while (c->p < c->end && *c->p != '"') {
		b[0] = *c->p++;
		len = 1;
		if (b[0] == '\\') {
			if (c->p >= c->end)
				return -EBADMSG;
			b[0] = *c->p++;
			switch (b[0]) {
			case 'n': b[0] = '\n'; break;
			case 't': b[0] = '\t'; break;
			case 'r': b[0] = '\r'; break;
			case 'b': b[0] = '\b'; break;
			case 'f': b[0] = '\f'; break;
			case 'u':
				len = read_escaped_char(c, b);
				if (!len)
					return -EBADMSG;
				break;
			default: break; /* \" \\ \/ */
			}
		}
		/* nothing after the first byte that does not fit: the cut keeps a prefix */
		if (out && !cut && n + len < size) {
			memcpy(out + n, b, len);
			n += len;
		} else {
			cut = true;
		}
	}
	if (c->p >= c->end)
		return -EBADMSG;
	c->p++;
	if (out && cut)
		n = whole_chars(out, n);
	if (out && size)
		out[n] = 0;
	return 0;
}

static int skip_value(struct cursor *c, int depth);

static int skip_container(struct cursor *c, char close, int depth)
{
	c->p++;
	skip_ws(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		return 0;
	}
	for (;;) {
		int err;

		skip_ws(c);
		if (close == '}') {
			err = read_string(c, NULL, 0);
			if (err)
				return err;
			skip_ws(c);
			if (c->p >= c->end || *c->p++ != ':')
				return -EBADMSG;
		}
		err = skip_value(c, depth + 1);
		if (err)
			return err;
		skip_ws(c);
		if (c->p >= c->end)
			return -EBADMSG;
		if (*c->p == ',') {
			c->p++;
			continue;
		}
		if (*c->p++ != close)
			return -EBADMSG;
		return 0;
	}
}

static int skip_value(struct cursor *c, int depth)
{
	skip_ws(c);
	if (c->p >= c->end || depth > 32)
		return -EBADMSG;
	if (*c->p == '"')
		return read_string(c, NULL, 0);
	if (*c->p == '{')
		return skip_container(c, '}', depth);
	if (*c->p == '[')
		return skip_container(c, ']', depth);
	if (!isalnum((unsigned char)*c->p) && *c->p != '-')
		return -EBADMSG;
	while (c->p < c->end && (isalnum((unsigned char)*c->p) || strchr("+-.", *c->p)))
		c->p++;
	return 0;
}

/*
 * Refuses the value at..c->p, said as what: "<what>: <the value's text>",
 * the text cut at 40 bytes and before a line break, so the error is one line.
 */
static int bad_value(struct cursor *c, const char *at, const char *what)
{
	size_t shown = 0;

	while (at + shown < c->p && shown < 40 && (unsigned char)at[shown] >= 0x20)
		shown++;
	if (shown == 40)
		shown = whole_chars(at, shown);
	c->p = at;
	return bad(c, "%s: %.*s", what, (int)shown, at);
}

/*
 * The count in field key, a number either bare or quoted (the protobuf
 * JSON mapping quotes 64-bit ints), at most max; anything else ("-1",
 * "1e3", "12abc", more than max) is no count, and the error names it.
 */
static int read_count(struct cursor *c, const char *key, uint64_t max, uint64_t *v)
{
	const char *at;
	char buf[32], *end, what[96];
	size_t n = 0;
	int err;

	skip_ws(c);
	at = c->p;
	if (c->p < c->end && *c->p == '"') {
		err = read_string(c, buf, sizeof(buf));
		if (err)
			return err;
	} else {
		while (c->p < c->end && (isalnum((unsigned char)*c->p) || strchr("+-.", *c->p))) {
			if (n + 1 < sizeof(buf))
				buf[n++] = *c->p;
			c->p++;
		}
		buf[n] = 0;
	}
	errno = 0;
	*v = isdigit((unsigned char)buf[0]) ? strtoull(buf, &end, 10) : 0;
	if (!isdigit((unsigned char)buf[0]) || errno || *end || *v > max) {
		snprintf(what, sizeof(what), "'%s' is not a count from 0 to %llu", key,
			 (unsigned long long)max);
		return bad_value(c, at, what);
	}
	return 0;
}

/* tags.timestampOrigin: a UTC time as date_fmt writes it, into ns since the epoch */
static int read_origin(struct cursor *c, const char *key, int64_t *ns)
{
	const char *at;
	char buf[48];
	size_t n;

	skip_ws(c);
	at = c->p;
	if (read_string(c, buf, sizeof(buf)) == 0) {
		n = strlen(buf);
		/* dated and UTC: a summary is read on any machine, in any zone */
		if (wall_clock__dated(buf) && buf[n - 1] == 'Z' &&
		    !wall_clock__parse(buf, 0, ns) && *ns > 0)
			return 0;
	}
	c->p = at;
	return bad(c, "'%s' is not a UTC time such as \"2026-11-30T06:47:42.123456789Z\"", key);
}

/* "key\0value\0" appended to buf[0..*len) of size bytes; left out if it does not fit */
static void keep_pair(char *buf, size_t size, size_t *len, const char *key, const char *value)
{
	size_t klen = strlen(key) + 1, vlen = strlen(value) + 1;

	if (*len + klen + vlen > size)
		return;
	memcpy(buf + *len, key, klen);
	memcpy(buf + *len + klen, value, vlen);
	*len += klen + vlen;
}

/* A tag not ours, kept for printing back. */
static int keep_other_tag(struct cursor *c, struct summary *s, const char *key)
{
	char value[1024];
	int err;

	if (c->p >= c->end || *c->p != '"')
		return skip_value(c, 1);
	err = read_string(c, value, sizeof(value));
	if (!err)
		keep_pair(s->other_tags, sizeof(s->other_tags), &s->other_tags_len, key, value);
	return err;
}

/* Whether s is a number as JSON writes one: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? */
static bool json_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (isdigit((unsigned char)*s))
		while (isdigit((unsigned char)*s))
			s++;
	else
		return false;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return !*s;
}

/*
 * A top-level field not ours, kept for printing back if it is a string,
 * a number or a bool and fits; anything else is passed over. A number
 * JSON would not write is no JSON; one past what a double holds (1e400)
 * could only be printed back as null, and is passed over, as one too
 * long to keep.
 */
static int keep_other_field(struct cursor *c, struct summary *s, const char *key)
{
	char value[256];
	size_t n = 1;
	int err;

	if (c->p >= c->end)
		return -EBADMSG;
	if (*c->p == '"') {
		value[0] = 's';
		err = read_string(c, value + 1, sizeof(value) - 1);
		if (err)
			return err;
	} else if (*c->p == '-' || isdigit((unsigned char)*c->p)) {
		const char *at = c->p;

		value[0] = 'n';
		for (; c->p < c->end && (isdigit((unsigned char)*c->p) || strchr("+-.eE", *c->p));
		     c->p++)
			if (n + 1 < sizeof(value))
				value[n++] = *c->p;
		value[n] = 0;
		/* one too long to keep whole is passed over, as one a double cannot hold */
		if ((size_t)(c->p - at) > n - 1)
			return 0;
		if (!json_number(value + 1)) {
			c->p = at;
			return -EBADMSG;
		}
		if (!isfinite(strtod(value + 1, NULL)))
			return 0;
	} else if (*c->p == 't' || *c->p == 'f') {
		snprintf(value, sizeof(value), "b%s", *c->p == 't' ? "true" : "false");
		err = skip_value(c, 1);
		if (err)
			return err;
	} else {
		return skip_value(c, 1);
	}
	keep_pair(s->other_fields, sizeof(s->other_fields), &s->other_fields_len, key, value);
	return 0;
}

static int read_tags(struct cursor *c, struct summary *s)
{
	char key[256];
	int err;

	skip_ws(c);
	if (c->p >= c->end || *c->p != '{')
		return skip_value(c, 1);
	c->p++;
	for (;;) {
		skip_ws(c);
		if (c->p < c->end && *c->p == '}') {
			c->p++;
			return 0;
		}
		err = read_string(c, key, sizeof(key));
		if (err)
			return err;
		skip_ws(c);
		if (c->p >= c->end || *c->p++ != ':')
			return -EBADMSG;
		skip_ws(c);
		if (!strcmp(key, "devices"))
			err = read_string(c, s->devices, sizeof(s->devices));
		else if (!strcmp(key, "droppedEventsPerQueue"))
			err = read_string(c, s->dropped_per_queue, sizeof(s->dropped_per_queue));
		else if (!strcmp(key, "stopReason"))
			err = read_string(c, s->stop_reason, sizeof(s->stop_reason));
		else if (!strcmp(key, "iotraceVersion")) {
			err = read_string(c, s->tool_version, sizeof(s->tool_version));
			s->foreign = false;
		}
		else if (!strcmp(key, "options"))
			err = read_string(c, s->options, sizeof(s->options));
		else if (!strcmp(key, "sizeLimitMiB"))
			err = read_count(c, key, UINT64_MAX, &s->size_limit_mib);
		else if (!strcmp(key, "devicesGone"))
			err = read_string(c, s->devices_gone, sizeof(s->devices_gone));
		else if (!strcmp(key, "notFollowed"))
			err = read_string(c, s->not_followed, sizeof(s->not_followed));
		else if (!strcmp(key, "unresolvedFileEvents"))
			err = read_count(c, key, UINT64_MAX, &s->unresolved_file_events);
		else if (!strcmp(key, "uringCallsNotFollowed"))
			err = read_count(c, key, UINT64_MAX, &s->uring_unfollowed);
		else if (!strcmp(key, "uringVfsRecordsMissing"))
			err = read_count(c, key, UINT64_MAX, &s->uring_vfs_missing);
		else if (!strcmp(key, "skippedProgramRuns"))
			err = read_count(c, key, UINT64_MAX, &s->skipped_runs);
		else if (!strcmp(key, "completeBelowSid"))
			err = read_count(c, key, UINT64_MAX, &s->complete_below_sid);
		else if (!strcmp(key, "timestampOrigin"))
			err = read_origin(c, key, &s->timestamp_origin_ns);
		else if (!strcmp(key, "timestampOriginClock"))
			err = read_count(c, key, UINT64_MAX, &s->timestamp_origin_clock_ns);
		else if (!strcmp(key, "incompleteFromSid")) {
			err = read_count(c, key, UINT64_MAX, &s->incomplete_from_sid);
			s->incomplete = true;
		}
		else
			err = keep_other_tag(c, s, key);
		if (err)
			return err;
		skip_ws(c);
		if (c->p < c->end && *c->p == ',')
			c->p++;
		else if (c->p >= c->end || *c->p != '}')
			return -EBADMSG;
	}
}

/* The string in field key; another type there is named. */
static int read_field_string(struct cursor *c, const char *key, char *out, size_t size)
{
	if (c->p < c->end && *c->p != '"')
		return bad(c, "'%s' is not a string", key);
	return read_string(c, out, size);
}

/*
 * The states a summary may say: ours (RUNNING, COMPLETE, ERROR) and the
 * others of Open-CAS's TraceState (octf/proto/traceDefinitions.proto)
 */
static const char *const states[] = {
	"RUNNING", "COMPLETE", "ERROR", "INITIALIZING", "NOT_STARTED", "UNDEFINED",
};

/* "state": one of states[]; another is no state to go by (is it finished?), and is named */
static int read_state(struct cursor *c, const char *key, char *out, size_t size)
{
	const char *at = c->p;
	char what[128] = "'state' is not one of";
	size_t i;
	int err;

	err = read_field_string(c, key, out, size);
	if (err)
		return err;
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(out, states[i]))
			return 0;
	/* the list said is the list taken */
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s %s",
			 i ? "," : "", states[i]);
	return bad_value(c, at, what);
}

/*
 * "version": at most SUMMARY_VERSION. A later one is a format this
 * iotrace does not know: what its fields mean may have changed.
 */
static int read_version(struct cursor *c, const char *key, int *version)
{
	const char *at;
	uint64_t v;
	int err;

	skip_ws(c);
	at = c->p;
	err = read_count(c, key, INT_MAX, &v);
	if (err)
		return err;
	if (v > SUMMARY_VERSION) {
		c->p = at;
		return bad(c, "'%s' is %llu, a later summary version than this iotrace reads "
			   "(up to %d)", key, (unsigned long long)v, SUMMARY_VERSION);
	}
	*version = (int)v;
	return 0;
}

/* the fields without which a summary says nothing a reader can trust; both tools always write them */
static const char *const required[] = { "state", "droppedEvents" };

static int parse_object(struct cursor *c, struct summary *s)
{
	unsigned int found = 0;
	char key[64];
	size_t i;
	int err;

	skip_ws(c);
	if (c->p >= c->end) {
		snprintf(s->error, sizeof(s->error), "empty");
		return -EBADMSG;
	}
	if (*c->p != '{')
		return bad(c, "not a JSON object");
	c->p++;
	for (;;) {
		skip_ws(c);
		if (c->p < c->end && *c->p == '}')
			break;
		err = read_string(c, key, sizeof(key));
		if (err)
			return err;
		skip_ws(c);
		if (c->p >= c->end || *c->p++ != ':')
			return -EBADMSG;
		skip_ws(c);
		for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
			if (!strcmp(key, required[i]))
				found |= 1u << i;
		if (!strcmp(key, "tracePath"))
			err = read_field_string(c, key, s->trace_path, sizeof(s->trace_path));
		else if (!strcmp(key, "state"))
			err = read_state(c, key, s->state, sizeof(s->state));
		else if (!strcmp(key, "traceStartDateTime"))
			err = read_field_string(c, key, s->start, sizeof(s->start));
		else if (!strcmp(key, "label"))
			err = read_field_string(c, key, s->label, sizeof(s->label));
		else if (!strcmp(key, "tags"))
			err = read_tags(c, s);
		else if (!strcmp(key, "traceDuration"))
			err = read_count(c, key, UINT64_MAX, &s->duration_s);
		else if (!strcmp(key, "traceSize"))
			err = read_count(c, key, UINT64_MAX, &s->size_mib);
		else if (!strcmp(key, "tracedEvents")) {
			err = read_count(c, key, UINT64_MAX, &s->traced_events);
			s->has_traced_events = true;
		}
		else if (!strcmp(key, "droppedEvents"))
			err = read_count(c, key, UINT64_MAX, &s->dropped_events);
		else if (!strcmp(key, "queueCount"))
			err = read_count(c, key, SUMMARY_QUEUES_MAX, &s->queue_count);
		else if (!strcmp(key, "version"))
			err = read_version(c, key, &s->version);
		else
			err = keep_other_field(c, s, key);
		if (err)
			return err;
		skip_ws(c);
		if (c->p >= c->end)
			return -EBADMSG;
		if (*c->p == ',')
			c->p++;
		else if (*c->p != '}')
			return -EBADMSG;
	}
	c->p++;
	skip_ws(c);
	/* two summaries end to end, or one and garbage: which would be the trace's? */
	if (c->p < c->end)
		return bad(c, "more after the summary's closing brace");
	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (!(found & 1u << i)) {
			snprintf(s->error, sizeof(s->error), "no '%s' field: not a trace summary",
				 required[i]);
			return -EBADMSG;
		}
	}
	return 0;
}

static int parse(const char *buf, size_t len, struct summary *s)
{
	struct cursor c = { buf, buf + len, buf, s->error, sizeof(s->error) };
	int err;

	/* until an iotraceVersion tag says it is ours */
	s->foreign = true;
	err = parse_object(&c, s);
	/* where the JSON broke, unless a field has said why */
	return err == -EBADMSG ? bad(&c, "not valid JSON") : err;
}

int summary__read(const char *dir, struct summary *s)
{
	/* the longest summary ours can be: every string field full and escaped */
	char path[PATH_MAX], buf[65536];
	size_t n;
	FILE *f;
	int err;

	memset(s, 0, sizeof(*s));
	if (snprintf(path, sizeof(path), "%s/%s", dir, STORE_SUMMARY_NAME) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = regular_file__open(path);
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf), f);
	err = ferror(f) ? -(errno ? errno : EIO) : 0;
	if (!err && n == sizeof(buf) && fgetc(f) != EOF) {
		snprintf(s->error, sizeof(s->error), "larger than %zu bytes, the most a summary is",
			 sizeof(buf));
		err = -EBADMSG;
	}
	fclose(f);
	if (err)
		return err;
	return parse(buf, n, s);
}

bool summary__unfinished(const char *state)
{
	return !strcmp(state, "RUNNING") || !strcmp(state, "INITIALIZING");
}

const char *summary__strerror(const struct summary *s, int err)
{
	/* parse() names the byte where the JSON broke when nothing else said why */
	return err == -EBADMSG ? s->error : regular_file__strerror(-err);
}
