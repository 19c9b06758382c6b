// SPDX-License-Identifier: BSD-3-Clause
/*
 * The --io records written by line_out.h (io_json.c, io_csv.c) against
 * the same records written value by value through the generic JSON and
 * CSV writers, as the view did before: byte for byte, on records whose
 * strings need escaping or quotes, are longer than the writers' buffer or
 * the device cache, whose numbers are at the limits of their types, and
 * whose enums are newer than our schema; enough of them that the buffer
 * fills and flushes mid-record many times.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csv_writer.h"
#include "date_fmt.h"
#include "file_names.h"
#include "io_text.h"
#include "join.h"
#include "json_writer.h"
#include "rec_out.h"
#include "view.h"
#include "xorshift.h"

/* ---- the reference: the generic writers, one call per value ---- */

static void ref_header(struct json_writer *jw, uint64_t sid, uint64_t time)
{
	jw__key(jw, "header");
	jw__start_object(jw);
	jw__key(jw, "sid");
	jw__uint_str(jw, sid);
	jw__key(jw, "timestamp");
	jw__uint_str(jw, time);
	jw__end_object(jw);
}

static void ref_process(struct json_writer *jw, const struct io_rec *r)
{
	if (!r->pid && !r->tid && !r->comm[0] && !r->cgroup)
		return;
	jw__key(jw, "process");
	jw__start_object(jw);
	if (r->pid) {
		jw__key(jw, "pid");
		jw__uint(jw, r->pid);
	}
	if (r->tid) {
		jw__key(jw, "tid");
		jw__uint(jw, r->tid);
	}
	if (r->comm[0]) {
		jw__key(jw, "comm");
		jw__string(jw, r->comm);
	}
	if (r->cgroup) {
		jw__key(jw, "cgroup");
		jw__uint_str(jw, r->cgroup);
	}
	jw__end_object(jw);
}

static void ref_enum_json(struct json_writer *jw, const char *name, int32_t value)
{
	if (name)
		jw__string(jw, name);
	else
		jw__int(jw, value);
}

static void ref_json(struct json_writer *jw, struct date_fmt *date, const struct io_rec *r)
{
	jw__start_object(jw);
	ref_header(jw, r->sid, r->time);
	if (r->kind == REC_IO) {
		jw__key(jw, "io");
		jw__start_object(jw);
		jw__key(jw, "lba");
		jw__uint_str(jw, r->lba);
		jw__key(jw, "len");
		jw__uint(jw, r->len);
		jw__key(jw, "operation");
		ref_enum_json(jw, io_text__op_name(r->op), r->op);
		jw__key(jw, "error");
		jw__bool(jw, r->error);
		if (r->state == IO_COMPLETED) {
			jw__key(jw, "latency");
			jw__uint_str(jw, r->latency);
		}
		jw__key(jw, "qd");
		jw__uint_str(jw, r->qd);
		jw__key(jw, "writeHint");
		jw__uint(jw, r->write_hint);
		jw__key(jw, "flags");
		jw__start_object(jw);
		jw__key(jw, "flush");
		jw__bool(jw, r->flags & IOF_FLUSH);
		jw__key(jw, "fua");
		jw__bool(jw, r->flags & IOF_FUA);
		jw__key(jw, "metadata");
		jw__bool(jw, r->flags & IOF_META);
		jw__key(jw, "direct");
		jw__bool(jw, r->flags & IOF_DIRECT);
		jw__key(jw, "readahead");
		jw__bool(jw, r->flags & IOF_READAHEAD);
		if (r->flags & IOF_SYNC) {
			jw__key(jw, "sync");
			jw__bool(jw, true);
		}
		if (r->flags & IOF_REQUEST_ONLY) {
			jw__key(jw, "requestOnly");
			jw__bool(jw, true);
		}
		if (r->flags & IOF_WRITE_ZEROES) {
			jw__key(jw, "writeZeroes");
			jw__bool(jw, true);
		}
		jw__end_object(jw);
		if (r->dispatched) {
			jw__key(jw, "queueTime");
			jw__uint_str(jw, r->queue_time);
			if (r->state == IO_COMPLETED) {
				jw__key(jw, "deviceTime");
				jw__uint_str(jw, r->device_time);
			}
		}
		if (r->vfs_call) {
			jw__key(jw, "vfsCallId");
			jw__uint_str(jw, r->vfs_call);
		}
		jw__end_object(jw);
		ref_process(jw, r);
	}
	jw__key(jw, "device");
	jw__start_object(jw);
	jw__key(jw, "id");
	jw__uint_str(jw, r->dev->id);
	jw__key(jw, "name");
	jw__string(jw, r->dev->name);
	jw__key(jw, "partition");
	jw__uint_str(jw, r->part);
	jw__key(jw, "model");
	jw__string(jw, r->dev->model);
	jw__end_object(jw);
	if (r->file) {
		const struct file_id *id = file_node__id(r->file);

		jw__key(jw, "file");
		jw__start_object(jw);
		jw__key(jw, "id");
		jw__uint_str(jw, id->ino);
		jw__key(jw, "offset");
		jw__uint_str(jw, r->file_offset);
		jw__key(jw, "size");
		jw__uint_str(jw, r->file_size);
		jw__key(jw, "creationDate");
		jw__string(jw, date_fmt(date, id->sec, id->nsec));
		jw__key(jw, "path");
		jw__string_len(jw, r->path ? r->path : "", r->path_len);
		jw__key(jw, "eventType");
		ref_enum_json(jw, io_text__fs_event_name(r->fs_event), r->fs_event);
		jw__end_object(jw);
	}
	jw__end_object(jw);
	jw__newline(jw);
}

static void ref_enum_csv(struct csv_writer *cw, const char *name, int32_t value)
{
	if (name)
		csv__string(cw, name);
	else
		csv__int(cw, value);
}

static void ref_bool_csv(struct csv_writer *cw, bool b)
{
	csv__string(cw, b ? "true" : "false");
}

static void ref_opt_csv(struct csv_writer *cw, bool have, uint64_t v)
{
	if (have)
		csv__uint(cw, v);
	else
		csv__empty(cw);
}

static void ref_csv(struct csv_writer *cw, struct date_fmt *date, const struct io_rec *r)
{
	bool io = r->kind == REC_IO;
	unsigned int i;

	csv__uint(cw, r->sid);
	csv__uint(cw, r->time);
	if (io) {
		csv__uint(cw, r->lba);
		csv__uint(cw, r->len);
		ref_enum_csv(cw, io_text__op_name(r->op), r->op);
		ref_bool_csv(cw, r->error);
		ref_opt_csv(cw, r->state == IO_COMPLETED, r->latency);
		csv__uint(cw, r->qd);
		csv__uint(cw, r->write_hint);
		ref_bool_csv(cw, r->flags & IOF_FLUSH);
		ref_bool_csv(cw, r->flags & IOF_FUA);
		ref_bool_csv(cw, r->flags & IOF_META);
		ref_bool_csv(cw, r->flags & IOF_DIRECT);
		ref_bool_csv(cw, r->flags & IOF_READAHEAD);
	} else {
		for (i = 0; i < 12; i++)
			csv__empty(cw);
	}
	csv__uint(cw, r->dev->id);
	csv__string(cw, r->dev->name);
	csv__uint(cw, r->part);
	csv__string(cw, r->dev->model);
	if (r->file) {
		const struct file_id *id = file_node__id(r->file);

		csv__uint(cw, id->ino);
		csv__uint(cw, r->file_offset);
		csv__uint(cw, r->file_size);
		csv__string(cw, date_fmt(date, id->sec, id->nsec));
		csv__string(cw, r->path ? r->path : "");
		ref_enum_csv(cw, io_text__fs_event_name(r->fs_event), r->fs_event);
	} else {
		for (i = 0; i < 6; i++)
			csv__empty(cw);
	}
	ref_opt_csv(cw, io && r->dispatched, r->queue_time);
	ref_opt_csv(cw, io && r->dispatched && r->state == IO_COMPLETED, r->device_time);
	ref_opt_csv(cw, io && r->pid, r->pid);
	ref_opt_csv(cw, io && r->tid, r->tid);
	csv__string(cw, io ? r->comm : "");
	ref_opt_csv(cw, io && r->cgroup, r->cgroup);
	if (io) {
		ref_bool_csv(cw, r->flags & IOF_SYNC);
		ref_bool_csv(cw, r->flags & IOF_REQUEST_ONLY);
		ref_bool_csv(cw, r->flags & IOF_WRITE_ZEROES);
	} else {
		for (i = 0; i < 3; i++)
			csv__empty(cw);
	}
	ref_opt_csv(cw, io && r->vfs_call, r->vfs_call);
	csv__end_row(cw);
}

/* ---- the records ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* the same records on every run */
static uint64_t next(void)
{
	return xorshift64(&rng);
}

/* numbers at the edges of each width, and ordinary ones */
static uint64_t number(void)
{
	static const uint64_t edges[] = {
		0, 1, 9, 10, 99, 100, 4294967295ull, 4294967296ull, 99999999, 100000000,
		9999999999999999ull, 10000000000000000ull, 18446744073709551615ull,
	};

	switch (next() % 4) {
	case 0:
		return edges[next() % (sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return next() % 1000;
	case 2:
		return next() % 10000000000ull;
	default:
		return next();
	}
}

static char long_plain[6000], long_special[6000], long_name[300];

/* strings: plain, needing escapes or quotes, invalid UTF-8, longer than the buffers */
static const char *text(size_t *len)
{
	static const char *const some[] = {
		"", "nvme0n1", "/000014.sst", "a,b", "say \"hi\"", "back\\slash", "tab\there",
		"line\nbreak", "cr\rhere", "caf\xc3\xa9", "bad \xff byte", "\xed\xa0\x80 surrogate",
		"emoji \xf0\x9f\x98\x80", "INTEL SSDPED1K375GA", "/dir with space/x,y.txt",
	};
	const char *s;

	switch (next() % 8) {
	case 0:
		s = long_plain;
		break;
	case 1:
		s = long_special;
		break;
	case 2:
		s = long_name;
		break;
	default:
		s = some[next() % (sizeof(some) / sizeof(some[0]))];
	}
	*len = strlen(s);
	return s;
}

struct world {
	struct device devs[4];
	struct file_names *files;
	struct file_node *nodes[3];
	char comms[4][EVENT_COMM_MAX];
};

static void world_init(struct world *w)
{
	static const int64_t secs[] = { 1593672775, 0, -62135596800LL };
	size_t len, i;

	memset(long_plain, 'p', sizeof(long_plain) - 1);
	memset(long_name, 'n', sizeof(long_name) - 1);
	for (i = 0; i < sizeof(long_special) - 1; i++)
		long_special[i] = "ab\"c\\\x01,\n"[i % 8];
	memset(w, 0, sizeof(*w));
	for (i = 0; i < 4; i++) {
		w->devs[i].id = number();
		w->devs[i].name = i == 3 ? long_name : text(&len);
		w->devs[i].model = i == 2 ? "quote\"d" : text(&len);
	}
	w->files = file_names__new();
	assert_non_null(w->files);
	for (i = 0; i < 3; i++) {
		struct file_id id = { .part = 1, .ino = number(), .sec = secs[i],
				      .nsec = i == 0 ? 712990641 : 0 };

		w->nodes[i] = file_names__get(w->files, &id);
		assert_non_null(w->nodes[i]);
	}
	strcpy(w->comms[1], "fio");
	strcpy(w->comms[2], "a,\"b\\");
	strcpy(w->comms[3], "\x01\xff");
}

static void record(struct world *w, struct io_rec *r)
{
	size_t len;

	memset(r, 0, sizeof(*r));
	r->kind = next() % 5 ? REC_IO : REC_FS_EVENT;
	r->state = next() % 3 ? IO_COMPLETED : IO_NOT_COMPLETED;
	r->sid = number();
	r->time = number();
	r->dev = &w->devs[next() % 4];
	r->part = number();
	r->lba = number();
	r->len = (uint32_t)number();
	/* Read and Write mostly; now and then one newer than our schema */
	r->op = next() % 10 ? (int32_t)(next() % 4) : (int32_t)(next() % 2 ? 77 : -5);
	r->flags = (uint32_t)next();
	r->write_hint = (uint32_t)number();
	r->pid = next() % 2 ? (uint32_t)number() : 0;
	r->tid = next() % 2 ? (uint32_t)number() : 0;
	r->cgroup = next() % 2 ? number() : 0;
	strcpy(r->comm, w->comms[next() % 4]);
	r->vfs_call = next() % 2 ? number() : 0;
	r->qd = (uint32_t)number();
	r->error = next() % 2;
	r->dispatched = next() % 2;
	r->latency = number();
	r->queue_time = number();
	r->device_time = number();
	if (next() % 4) {
		r->file = w->nodes[next() % 3];
		r->file_offset = number();
		r->file_size = number();
		r->fs_event = next() % 10 ? (int32_t)(next() % 5) : 99;
		if (next() % 5) {
			r->path = text(&len);
			r->path_len = len;
		}
	}
}

/* ---- the comparison ---- */

#define RECORDS 3000

static void compare(enum view_format fmt)
{
	char *want = NULL, *got = NULL;
	size_t want_len = 0, got_len = 0;
	FILE *want_f = open_memstream(&want, &want_len);
	FILE *got_f = open_memstream(&got, &got_len);
	struct json_writer *jw = NULL;
	struct csv_writer *cw = NULL, *got_cw = NULL;
	struct json_writer *got_jw = NULL;
	struct date_fmt date = { 0 };
	struct io_text t = { 0 };
	struct world w;
	struct io_rec r;
	size_t i, at;

	assert_non_null(want_f);
	assert_non_null(got_f);
	world_init(&w);
	if (fmt == VIEW_JSON) {
		jw = jw__new(want_f, false);
		got_jw = jw__new(got_f, false);
	} else {
		cw = csv__new(want_f);
		got_cw = csv__new(got_f);
	}
	for (i = 0; i < RECORDS; i++) {
		record(&w, &r);
		if (fmt == VIEW_JSON) {
			ref_json(jw, &date, &r);
			io_text__json(&t, jw__outbuf(got_jw), &r);
		} else {
			ref_csv(cw, &date, &r);
			io_text__csv(&t, csv__outbuf(got_cw), &r);
		}
	}
	jw__free(jw);
	jw__free(got_jw);
	csv__free(cw);
	csv__free(got_cw);
	fclose(want_f);
	fclose(got_f);
	/* the first difference, to read in a failure */
	for (at = 0; at < want_len && at < got_len && want[at] == got[at]; at++)
		;
	if (at != want_len || at != got_len)
		print_error("first difference at byte %zu of %zu/%zu: want \"%.60s\", got \"%.60s\"\n",
			    at, want_len, got_len, want + (at > 20 ? at - 20 : 0),
			    got + (at > 20 ? at - 20 : 0));
	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
	/* the records crossed the writers' buffer many times */
	assert_true(want_len > 100 * 4096);
	free(want);
	free(got);
	file_names__free(w.files);
}

static void test_json_as_the_generic_writer(void **state)
{
	compare(VIEW_JSON);
}

static void test_csv_as_the_generic_writer(void **state)
{
	compare(VIEW_CSV);
}

/* A device renamed by a later deviceDescription gets its new name at once. */
static void test_device_renamed(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct json_writer *jw = jw__new(f, false);
	struct device d = { .id = 7, .name = "", .model = "" };
	struct io_text t = { 0 };
	struct io_rec r = { .kind = REC_IO, .dev = &d, .state = IO_COMPLETED };

	io_text__json(&t, jw__outbuf(jw), &r);
	d.name = "loop0";
	io_text__json(&t, jw__outbuf(jw), &r);
	jw__free(jw);
	fclose(f);
	assert_non_null(strstr(out, "\"name\":\"\",\"partition\""));
	assert_non_null(strstr(out, "\"name\":\"loop0\",\"partition\""));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_as_the_generic_writer),
		cmocka_unit_test(test_csv_as_the_generic_writer),
		cmocka_unit_test(test_device_renamed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
