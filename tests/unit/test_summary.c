// SPDX-License-Identifier: BSD-3-Clause
/* octf.summary: writing, reading ours and Open-CAS's, exact JSON form. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "summary.h"

static char dir[PATH_MAX];

static int setup(void **state)
{
	strcpy(dir, "/tmp/iotrace-summary-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void write_text(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct summary sample(void)
{
	struct summary s = {};

	strcpy(s.trace_path, "kernel/2026-11-21_06:00:00");
	strcpy(s.state, "COMPLETE");
	strcpy(s.start, "2026-11-21 06:00");
	s.duration_s = 12;
	s.size_mib = 3;
	s.traced_events = 123456789012ull;
	s.dropped_events = 7;
	s.queue_count = 2;
	strcpy(s.label, "a \"quoted\"\tlabel");
	s.version = SUMMARY_VERSION;
	strcpy(s.devices, "loop0,nvme0n1p1");
	strcpy(s.stop_reason, "signal");
	strcpy(s.dropped_per_queue, "7,0");
	strcpy(s.tool_version, "0.1.0");
	strcpy(s.options, "--vfs --paths '/data/*.log' --time 60");
	return s;
}

static char *printed(void);

/* Whether the summary in dir, read and printed back, has text. */
static bool printed_has(const char *text)
{
	char *buf = printed();
	bool has = strstr(buf, text) != NULL;

	free(buf);
	return has;
}

static void test_round_trip(void **state)
{
	struct summary in = sample(), out;
	char path[PATH_MAX];
	struct stat st;

	assert_int_equal(summary__write(dir, &in), 0);
	snprintf(path, sizeof(path), "%s/octf.summary", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* written through a temporary file that is gone afterwards */
	snprintf(path, sizeof(path), "%s/.octf.summary.tmp", dir);
	assert_int_equal(access(path, F_OK), -1);

	assert_int_equal(summary__read(dir, &out), 0);
	assert_string_equal(out.trace_path, in.trace_path);
	assert_string_equal(out.state, "COMPLETE");
	assert_string_equal(out.start, in.start);
	assert_int_equal(out.duration_s, 12);
	assert_int_equal(out.size_mib, 3);
	assert_int_equal(out.traced_events, 123456789012ull);
	assert_int_equal(out.dropped_events, 7);
	assert_int_equal(out.queue_count, 2);
	assert_string_equal(out.label, in.label);
	assert_int_equal(out.version, 1);
	assert_string_equal(out.devices, in.devices);
	assert_string_equal(out.stop_reason, "signal");
	assert_string_equal(out.dropped_per_queue, "7,0");
	assert_string_equal(out.tool_version, "0.1.0");
	assert_string_equal(out.options, in.options);
	assert_int_equal(out.unresolved_file_events, 0);
	assert_int_equal(out.uring_unfollowed, 0);
	assert_int_equal(out.uring_vfs_missing, 0);
	assert_false(out.incomplete);
	assert_true(out.has_traced_events);

	/* the tag is there only when something was not resolved */
	in.unresolved_file_events = 3;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_int_equal(summary__read(dir, &out), 0);
	assert_int_equal(out.unresolved_file_events, 3);
	in.uring_unfollowed = 5;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_int_equal(summary__read(dir, &out), 0);
	assert_int_equal(out.uring_unfollowed, 5);
	assert_int_equal(out.unresolved_file_events, 3);
	in.uring_vfs_missing = 9;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_int_equal(summary__read(dir, &out), 0);
	assert_int_equal(out.uring_vfs_missing, 9);
	assert_int_equal(out.uring_unfollowed, 5);
	assert_int_equal(out.skipped_runs, 0);
	assert_false(printed_has("skippedProgramRuns"));
	in.skipped_runs = 4;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_true(printed_has("\"skippedProgramRuns\": \"4\""));
	assert_int_equal(summary__read(dir, &out), 0);
	assert_int_equal(out.skipped_runs, 4);
	assert_int_equal(out.uring_vfs_missing, 9);
	in.skipped_runs = 0;
	assert_int_equal(out.complete_below_sid, 0);
	assert_false(printed_has("completeBelowSid"));
	in.complete_below_sid = 123456;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_true(printed_has("\"completeBelowSid\": \"123456\""));
	assert_int_equal(summary__read(dir, &out), 0);
	assert_int_equal(out.complete_below_sid, 123456);
	assert_int_equal(out.other_tags_len, 0);
	in.complete_below_sid = 0;
	/* when header.timestamp 0 was: to the ns, as UTC */
	assert_int_equal(out.timestamp_origin_ns, 0);
	assert_false(printed_has("timestampOrigin"));
	in.timestamp_origin_ns = 1796032800123456789LL;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_true(printed_has("\"timestampOrigin\": \"2026-11-30T10:00:00.123456789Z\""));
	assert_int_equal(summary__read(dir, &out), 0);
	assert_int_equal(out.timestamp_origin_ns, 1796032800123456789LL);
	in.timestamp_origin_ns = 1796032800500000000LL;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_true(printed_has("\"timestampOrigin\": \"2026-11-30T10:00:00.500Z\""));
	assert_int_equal(summary__read(dir, &out), 0);
	assert_int_equal(out.timestamp_origin_ns, 1796032800500000000LL);
	assert_int_equal(out.other_tags_len, 0);
	in.timestamp_origin_ns = 0;
	/* the events' clock at that time, which header.timestamp counts from */
	assert_int_equal(out.timestamp_origin_clock_ns, 0);
	assert_false(printed_has("timestampOriginClock"));
	in.timestamp_origin_clock_ns = 18446744073709551615ULL;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_true(printed_has("\"timestampOriginClock\": \"18446744073709551615\""));
	assert_int_equal(summary__read(dir, &out), 0);
	assert_true(out.timestamp_origin_clock_ns == 18446744073709551615ULL);
	assert_int_equal(out.other_tags_len, 0);
	in.timestamp_origin_clock_ns = 0;
	assert_string_equal(out.not_followed, "");
	assert_false(printed_has("notFollowed"));
	strcpy(in.not_followed, "delete,move,io_uring-files");
	assert_int_equal(summary__write(dir, &in), 0);
	assert_true(printed_has("\"notFollowed\": \"delete,move,io_uring-files\""));
	assert_int_equal(summary__read(dir, &out), 0);
	assert_string_equal(out.not_followed, "delete,move,io_uring-files");
	/* ours: not kept again among the tags this version does not know */
	assert_int_equal(out.other_tags_len, 0);
	in.not_followed[0] = '\0';

	/* ... and where the size limit or a write error stopped the streams */
	in.incomplete = true;
	in.incomplete_from_sid = 98765432101ull;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_int_equal(summary__read(dir, &out), 0);
	assert_true(out.incomplete);
	assert_true(out.incomplete_from_sid == 98765432101ull);
	assert_string_equal(out.devices_gone, "");

	/* ... and which devices went away while traced */
	strcpy(in.devices_gone, "loop3,sdb1");
	assert_int_equal(summary__write(dir, &in), 0);
	assert_int_equal(summary__read(dir, &out), 0);
	assert_string_equal(out.devices_gone, "loop3,sdb1");
	assert_int_equal(out.size_limit_mib, 0);

	/* ... and the size limit it had */
	in.size_limit_mib = 1000;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_int_equal(summary__read(dir, &out), 0);
	assert_int_equal(out.size_limit_mib, 1000);
}

/* The exact text: Open-CAS's TraceSummary JSON form, 64-bit counts as strings. */
static void test_golden_text(void **state)
{
	struct summary s = sample();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(summary__print(f, &s), 0);
	fclose(f);
	assert_string_equal(buf,
		"{\n"
		" \"tracePath\": \"kernel/2026-11-21_06:00:00\",\n"
		" \"state\": \"COMPLETE\",\n"
		" \"sourceNode\": {\n"
		"  \"node\": [\n"
		"   {\n"
		"    \"id\": \"kernel\"\n"
		"   }\n"
		"  ]\n"
		" },\n"
		" \"traceStartDateTime\": \"2026-11-21 06:00\",\n"
		" \"traceDuration\": \"12\",\n"
		" \"traceSize\": 3,\n"
		" \"tracedEvents\": \"123456789012\",\n"
		" \"droppedEvents\": \"7\",\n"
		" \"queueCount\": \"2\",\n"
		" \"label\": \"a \\\"quoted\\\"\\u0009label\",\n"
		" \"version\": 1,\n"
		" \"tags\": {\n"
		"  \"devices\": \"loop0,nvme0n1p1\",\n"
		"  \"droppedEventsPerQueue\": \"7,0\",\n"
		"  \"stopReason\": \"signal\",\n"
		"  \"iotraceVersion\": \"0.1.0\",\n"
		"  \"options\": \"--vfs --paths '/data/*.log' --time 60\"\n"
		" }\n"
		"}\n");
	free(buf);
}

/* The summary of the upstream sample trace, as Open-CAS wrote it. */
static void test_reads_upstream(void **state)
{
	struct summary s;

	write_text("octf.summary",
		   "{\n \"tracePath\": \"kernel/2020-07-02_08:52:51\",\n \"state\": \"COMPLETE\",\n"
		   " \"sourceNode\": {\n  \"node\": [\n   {\n    \"id\": \"kernel\"\n   }\n  ]\n },\n"
		   " \"traceStartDateTime\": \"2020-07-02 08:52\",\n \"traceDuration\": \"29\",\n"
		   " \"traceSize\": 9,\n \"tracedEvents\": \"193615\",\n \"droppedEvents\": \"0\",\n"
		   " \"queueCount\": \"72\",\n"
		   " \"label\": \"ycsb;a;rocksdb;uniform;xfs;381MiB;16000000\",\n \"version\": 1\n}\n");
	assert_int_equal(summary__read(dir, &s), 0);
	assert_string_equal(s.trace_path, "kernel/2020-07-02_08:52:51");
	assert_string_equal(s.state, "COMPLETE");
	assert_int_equal(s.duration_s, 29);
	assert_int_equal(s.size_mib, 9);
	assert_int_equal(s.traced_events, 193615);
	assert_int_equal(s.queue_count, 72);
	assert_string_equal(s.label, "ycsb;a;rocksdb;uniform;xfs;381MiB;16000000");
}

/* printed text of the summary in dir, malloc'ed */
static char *printed(void)
{
	struct summary s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(summary__read(dir, &s), 0);
	assert_int_equal(summary__print(f, &s), 0);
	fclose(f);
	return buf;
}

/* Printed back (-M -G), another tool's summary gets no tags of ours, and keeps its own. */
/* text without its "label": "" line */
static void drop_empty_label(char *text)
{
	static const char line[] = " \"label\": \"\",\n";
	char *label = strstr(text, line);

	assert_non_null(label);
	memmove(label, label + strlen(line), strlen(label + strlen(line)) + 1);
}

static void test_prints_foreign_back(void **state)
{
	static const char upstream[] =
		"{\n \"tracePath\": \"kernel/2020-07-02_08:52:51\",\n \"state\": \"COMPLETE\",\n"
		" \"sourceNode\": {\n  \"node\": [\n   {\n    \"id\": \"kernel\"\n   }\n  ]\n },\n"
		" \"traceStartDateTime\": \"2020-07-02 08:52\",\n \"traceDuration\": \"29\",\n"
		" \"traceSize\": 9,\n \"tracedEvents\": \"193615\",\n \"droppedEvents\": \"0\",\n"
		" \"queueCount\": \"72\",\n \"label\": \"\",\n \"version\": 1";
	char text[2048];
	char *buf;

	/* Open-CAS's older form: no tags at all, and none made up */
	snprintf(text, sizeof(text), "%s\n}\n", upstream);
	write_text("octf.summary", text);
	buf = printed();
	assert_string_equal(buf, text);
	free(buf);

	/* without a label, one: Open-CAS prints every primitive field, "" too */
	drop_empty_label(text);
	write_text("octf.summary", text);
	buf = printed();
	snprintf(text, sizeof(text), "%s\n}\n", upstream);
	assert_string_equal(buf, text);
	free(buf);

	/* fields of a newer version, not ours, as they were */
	snprintf(text, sizeof(text),
		 "%s,\n \"major\": 4,\n \"minor\": 0,\n \"build\": \"x\",\n \"beta\": false,\n"
		 " \"drift\": -3\n}\n",
		 upstream);
	write_text("octf.summary", text);
	buf = printed();
	assert_string_equal(buf, text);
	free(buf);

	/* a number past a double's range could only be printed as null: passed over */
	snprintf(text, sizeof(text), "%s,\n \"huge\": 1e400,\n \"small\": 2.5e-3\n}\n", upstream);
	write_text("octf.summary", text);
	buf = printed();
	snprintf(text, sizeof(text), "%s,\n \"small\": 0.0025\n}\n", upstream);
	assert_string_equal(buf, text);
	free(buf);

	/* its newer form: the user's tags, as they were, and no label (they replaced it) */
	snprintf(text, sizeof(text),
		 "%s,\n \"tags\": {\n  \"workload\": \"ycsb \\\"a\\\"\",\n  \"fs\": \"xfs\"\n }\n}\n",
		 upstream);
	drop_empty_label(text);
	write_text("octf.summary", text);
	buf = printed();
	assert_string_equal(buf, text);
	free(buf);

	/* a tag with one of our names, and only that one, is kept too */
	snprintf(text, sizeof(text), "%s,\n \"tags\": {\n  \"options\": \"-d sda\"\n }\n}\n",
		 upstream);
	write_text("octf.summary", text);
	buf = printed();
	assert_string_equal(buf, text);
	free(buf);

	/* ours always has its tags, and keeps a tag another tool added */
	{
		struct summary s = sample();
		char *tags, *again;

		assert_int_equal(summary__write(dir, &s), 0);
		buf = printed();
		assert_non_null(strstr(buf, "\"stopReason\": \"signal\""));
		assert_non_null(strstr(buf, "\"options\": "));
		tags = strstr(buf, "\"tags\": {");
		assert_non_null(tags);
		tags += strlen("\"tags\": {");
		snprintf(text, sizeof(text), "%.*s\n  \"site\": \"lab\",%s", (int)(tags - buf), buf,
			 tags);
		write_text("octf.summary", text);
		again = printed();
		assert_non_null(strstr(again, "\"site\": \"lab\""));
		assert_non_null(strstr(again, "\"stopReason\": \"signal\""));
		free(again);
		free(buf);
	}
}

/* the label of the summary {"label": "<json>"}, as read */
static const char *label_of(const char *json)
{
	static struct summary s;
	char *text = malloc(strlen(json) + 80);

	assert_non_null(text);
	sprintf(text, "{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"label\": \"%s\"}\n",
		json);
	write_text("octf.summary", text);
	free(text);
	assert_int_equal(summary__read(dir, &s), 0);
	return s.label;
}

/* s repeated n times, malloc'ed */
static char *repeat(const char *s, size_t n)
{
	size_t len = strlen(s), i;
	char *out = malloc(len * n + 1);

	assert_non_null(out);
	for (i = 0; i < n; i++)
		memcpy(out + i * len, s, len);
	out[len * n] = 0;
	return out;
}

/*
 * Another tool's label is kept whole up to SUMMARY_LABEL_MAX bytes (it
 * was cut at 255, in the middle of a character), escapes decoded; past
 * that it is cut between characters.
 */
static void test_reads_long_labels(void **state)
{
	char *ascii = repeat("x", 300), *e_acute = repeat("\xc3\xa9", 200);
	char *max = repeat("y", SUMMARY_LABEL_MAX), *over = repeat("\xc3\xa9", SUMMARY_LABEL_MAX);
	const char *label;

	assert_string_equal(label_of(ascii), ascii);
	assert_string_equal(label_of(e_acute), e_acute);
	assert_string_equal(label_of(max), max);
	/* 2-byte characters past an odd limit: the last whole one ends at an even byte */
	label = label_of(over);
	assert_int_equal(strlen(label), SUMMARY_LABEL_MAX - 1);
	assert_memory_equal(label, over, SUMMARY_LABEL_MAX - 1);
	/* the same in escapes (Python's json writes them so) */
	free(over);
	over = repeat("\\u00e9", SUMMARY_LABEL_MAX);
	label = label_of(over);
	assert_int_equal(strlen(label), SUMMARY_LABEL_MAX - 1);
	assert_memory_equal(label, e_acute, 400);
	/* 3-byte characters that end at the limit are whole */
	free(over);
	over = repeat("\xe2\x82\xac", SUMMARY_LABEL_MAX);
	label = label_of(over);
	assert_int_equal(strlen(label), SUMMARY_LABEL_MAX);
	/* one cut after its first byte, then after its second */
	free(over);
	over = malloc(SUMMARY_LABEL_MAX + 16);
	assert_non_null(over);
	max[SUMMARY_LABEL_MAX - 1] = 0;
	sprintf(over, "%s\xe2\x82\xac", max);
	assert_string_equal(label_of(over), max);
	max[SUMMARY_LABEL_MAX - 2] = 0;
	sprintf(over, "%s\xe2\x82\xac", max);
	assert_string_equal(label_of(over), max);
	/* escapes: a surrogate pair is one character; a lone one, and NUL, U+FFFD */
	assert_string_equal(label_of("caf\\u00e9 \\u20ac \\ud83d\\ude00 \\u003c"),
			    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 <");
	assert_string_equal(label_of("a\\ud83db\\u0000c"), "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c");
	free(ascii);
	free(e_acute);
	free(max);
	free(over);
}

/* summary__read() refuses text as text and names why, for the one error line */
static void refused(const char *text, const char *why)
{
	struct summary s;

	write_text("octf.summary", text);
	assert_int_equal(summary__read(dir, &s), -EBADMSG);
	assert_string_equal(summary__strerror(&s, -EBADMSG), why);
}

static void test_rejects_garbage(void **state)
{
	const char *ok = "{\"state\": \"COMPLETE\", \"droppedEvents\": 0}";
	struct summary s;
	char *big;

	(void)state;
	write_text("octf.summary", ok);
	assert_int_equal(summary__read(dir, &s), 0);
	/* the edges of what is read: every state either tool writes, version 0, 65536 queues */
	write_text("octf.summary", "{\"state\": \"NOT_STARTED\", \"droppedEvents\": 0, "
		   "\"version\": 0, \"queueCount\": 65536}");
	assert_int_equal(summary__read(dir, &s), 0);
	assert_string_equal(s.state, "NOT_STARTED");
	assert_int_equal(s.queue_count, 65536);
	refused("not json", "byte 0: not a JSON object");
	refused("", "empty");
	refused("{\"tracePath\": \"cut", "byte 18: not valid JSON");
	refused("{\"state\": \"COMPLETE\", \"tracedEvents\": \"x\"}",
		"byte 38: 'tracedEvents' is not a count from 0 to 18446744073709551615: \"x\"");
	/* out of range: what JSON allows is still no count */
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": -1}",
		"byte 39: 'droppedEvents' is not a count from 0 to 18446744073709551615: -1");
	refused("{\"droppedEvents\": 18446744073709551616, \"state\": \"COMPLETE\"}",
		"byte 18: 'droppedEvents' is not a count from 0 to 18446744073709551615: "
		"18446744073709551616");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"traceDuration\": 1e3}",
		"byte 59: 'traceDuration' is not a count from 0 to 18446744073709551615: 1e3");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"version\": 2147483648}",
		"byte 53: 'version' is not a count from 0 to 2147483647: 2147483648");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, "
		"\"tags\": {\"incompleteFromSid\": \"-5\"}}",
		"byte 72: 'incompleteFromSid' is not a count from 0 to 18446744073709551615: \"-5\"");
	/* one error line: the text shown ends at a line break in it; a long one is cut */
	refused("{\"state\": \"COMPLETE\", \"tracedEvents\": \"19 ]\n },\n \"}",
		"byte 38: 'tracedEvents' is not a count from 0 to 18446744073709551615: \"19 ]");
	refused("{\"state\": \"COMPLETE\", \"tracedEvents\": "
		"\"123456789012345678901234567890123456789\xc3\xa9\"}",
		"byte 38: 'tracedEvents' is not a count from 0 to 18446744073709551615: "
		"\"123456789012345678901234567890123456789");
	refused("{\"state\": 1, \"droppedEvents\": 0}", "byte 10: 'state' is not a string");
	/* a state neither tool writes: is the trace finished? */
	refused("{\"state\": \"BOGUS\", \"droppedEvents\": 0}",
		"byte 10: 'state' is not one of RUNNING, COMPLETE, ERROR, INITIALIZING, "
		"NOT_STARTED, UNDEFINED: \"BOGUS\"");
	refused("{\"state\": \"COMPLETE and more\", \"droppedEvents\": 0}",
		"byte 10: 'state' is not one of RUNNING, COMPLETE, ERROR, INITIALIZING, "
		"NOT_STARTED, UNDEFINED: \"COMPLETE and more\"");
	/* a version this iotrace does not know; 0 (Open-CAS's without streams, or absent) it does */
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"version\": 99}",
		"byte 53: 'version' is 99, a later summary version than this iotrace reads (up to 1)");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"version\": \"2\"}",
		"byte 53: 'version' is 2, a later summary version than this iotrace reads (up to 1)");
	/* more queues than a node has CPUs: the parser would look for that many streams */
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"queueCount\": \"1000000000000\"}",
		"byte 56: 'queueCount' is not a count from 0 to 65536: \"1000000000000\"");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"queueCount\": 65537}",
		"byte 56: 'queueCount' is not a count from 0 to 65536: 65537");
	/* a time origin that is not UTC (the zone of whoever reads it would count), or no time */
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, "
		"\"tags\": {\"timestampOrigin\": \"2026-11-30T10:00:00\"}}",
		"byte 70: 'timestampOrigin' is not a UTC time such as "
		"\"2026-11-30T06:47:42.123456789Z\"");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, "
		"\"tags\": {\"timestampOrigin\": \"10:00:00Z\"}}",
		"byte 70: 'timestampOrigin' is not a UTC time such as "
		"\"2026-11-30T06:47:42.123456789Z\"");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, "
		"\"tags\": {\"timestampOrigin\": 1796032800}}",
		"byte 70: 'timestampOrigin' is not a UTC time such as "
		"\"2026-11-30T06:47:42.123456789Z\"");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, "
		"\"tags\": {\"timestampOriginClock\": \"-1\"}}",
		"byte 75: 'timestampOriginClock' is not a count from 0 to 18446744073709551615: \"-1\"");
	/* a number as JSON writes none, in a field not ours (found by fuzz_summary) */
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"x\": -0180E6-5}",
		"byte 47: not valid JSON");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"x\": 1.}",
		"byte 47: not valid JSON");
	/* JSON, but no summary: nothing to print back that was not made up */
	refused("{\"a\": 1}", "no 'state' field: not a trace summary");
	refused("{\"state\": \"COMPLETE\"}", "no 'droppedEvents' field: not a trace summary");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0}{\"state\": \"RUNNING\"}",
		"byte 41: more after the summary's closing brace");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"x\": }", "byte 47: not valid JSON");
	refused("{\"state\": \"COMPLETE\", \"droppedEvents\": 0, \"tags\": {\"a\": \"b\" \"c\": \"d\"}}",
		"byte 60: not valid JSON");
	big = malloc(70000);
	assert_non_null(big);
	memset(big, ' ', 69999);
	big[69999] = 0;
	memcpy(big, ok, strlen(ok));
	refused(big, "larger than 65536 bytes, the most a summary is");
	free(big);
	assert_int_equal(summary__read("/nonexistent-iotrace", &s), -ENOENT);
	assert_string_equal(summary__strerror(&s, -ENOENT), strerror(ENOENT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_golden_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reads_upstream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prints_foreign_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reads_long_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_garbage, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
