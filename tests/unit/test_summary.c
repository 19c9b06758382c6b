// SPDX-License-Identifier: BSD-3-Clause
/* octf.summary: writing, reading ours and Open-CAS's, exact JSON form. */
#include <errno.h>
#include <limits.h>
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
	assert_false(out.incomplete);
	assert_true(out.has_traced_events);

	/* the tag is there only when something was not resolved */
	in.unresolved_file_events = 3;
	assert_int_equal(summary__write(dir, &in), 0);
	assert_int_equal(summary__read(dir, &out), 0);
	assert_int_equal(out.unresolved_file_events, 3);

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
static void test_prints_foreign_back(void **state)
{
	static const char upstream[] =
		"{\n \"tracePath\": \"kernel/2020-07-02_08:52:51\",\n \"state\": \"COMPLETE\",\n"
		" \"sourceNode\": {\n  \"node\": [\n   {\n    \"id\": \"kernel\"\n   }\n  ]\n },\n"
		" \"traceStartDateTime\": \"2020-07-02 08:52\",\n \"traceDuration\": \"29\",\n"
		" \"traceSize\": 9,\n \"tracedEvents\": \"193615\",\n \"droppedEvents\": \"0\",\n"
		" \"queueCount\": \"72\",\n \"version\": 1";
	char text[2048];
	char *buf;

	/* Open-CAS's older form: no tags at all, and none made up */
	snprintf(text, sizeof(text), "%s\n}\n", upstream);
	write_text("octf.summary", text);
	buf = printed();
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

	/* its newer form: the user's tags, as they were */
	snprintf(text, sizeof(text),
		 "%s,\n \"tags\": {\n  \"workload\": \"ycsb \\\"a\\\"\",\n  \"fs\": \"xfs\"\n }\n}\n",
		 upstream);
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

static void test_rejects_garbage(void **state)
{
	struct summary s;

	write_text("octf.summary", "not json");
	assert_int_equal(summary__read(dir, &s), -EBADMSG);
	write_text("octf.summary", "{\"tracePath\": \"cut");
	assert_int_equal(summary__read(dir, &s), -EBADMSG);
	write_text("octf.summary", "{\"state\": \"COMPLETE\", \"tracedEvents\": \"x\"}");
	assert_int_equal(summary__read(dir, &s), -EBADMSG);
	assert_int_equal(summary__read("/nonexistent-iotrace", &s), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_golden_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reads_upstream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prints_foreign_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects_garbage, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
