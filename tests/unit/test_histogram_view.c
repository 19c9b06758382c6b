// SPDX-License-Identifier: BSD-3-Clause
/*
 * The histogram views: Open-CAS's log2 buckets ([0, 0], [1, 1], [2, 3],
 * ...), in JSON and CSV from the first to the last non-empty one, in the
 * table from the first non-empty one; LBA buckets aligned to 0, an I/O
 * counted in every bucket it touches, the subrange; the table in
 * biolatency's style.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "join_events.h"
#include "view_run.h"

/* writes with latencies 0, 1, 2, 3, 1000, 1023, 1024 ns; one read of 2048 sectors */
static void feed_latencies(struct join *j)
{
	static const uint64_t lat[] = { 0, 1, 2, 3, 1000, 1023, 1024 };
	uint64_t i;

	next_sid = 1;
	device(j, DEV_A, "nvme0n1");
	for (i = 0; i < 7; i++) {
		io(j, 100, 0x10 + i, DEV_A, i * 8, 8, W);
		done(j, 100 + lat[i], 0x10 + i, false);
	}
	io(j, 200, 0x30, DEV_A, 40000, 2048, R);
	done(j, 300, 0x30, false);
}

static const char *const want_latency =
	"nvme0n1 (259:2) MODEL, 1.0 us\n"
	"\n"
	"read:\n"
	"  nsecs   : count  distribution\n"
	"64 -> 127 : 1     |****************************************|\n"
	"\n"
	"write:\n"
	"   nsecs     : count  distribution\n"
	"   0 -> 0    : 1     |********************                    |\n"
	"   1 -> 1    : 1     |********************                    |\n"
	"   2 -> 3    : 2     |****************************************|\n"
	"   4 -> 7    : 0     |                                        |\n"
	"   8 -> 15   : 0     |                                        |\n"
	"  16 -> 31   : 0     |                                        |\n"
	"  32 -> 63   : 0     |                                        |\n"
	"  64 -> 127  : 0     |                                        |\n"
	" 128 -> 255  : 0     |                                        |\n"
	" 256 -> 511  : 0     |                                        |\n"
	" 512 -> 1023 : 2     |****************************************|\n"
	"1024 -> 2047 : 1     |********************                    |\n"
	"\n"
	"total:\n"
	"   nsecs     : count  distribution\n"
	"   0 -> 0    : 1     |********************                    |\n"
	"   1 -> 1    : 1     |********************                    |\n"
	"   2 -> 3    : 2     |****************************************|\n"
	"   4 -> 7    : 0     |                                        |\n"
	"   8 -> 15   : 0     |                                        |\n"
	"  16 -> 31   : 0     |                                        |\n"
	"  32 -> 63   : 0     |                                        |\n"
	"  64 -> 127  : 1     |********************                    |\n"
	" 128 -> 255  : 0     |                                        |\n"
	" 256 -> 511  : 0     |                                        |\n"
	" 512 -> 1023 : 2     |****************************************|\n"
	"1024 -> 2047 : 1     |********************                    |\n";

static void test_latency_table(void **state)
{
	struct view_opts o = { .format = VIEW_TABLE };
	struct view_run vr;
	const char *out;

	feed_latencies(view_run_start(&vr, &latency_hist_ops, &o));
	out = view_run_finish(&vr);
	assert_string_equal(out, want_latency);
	free(vr.text);
}

static void test_size_csv(void **state)
{
	struct view_opts o = { .format = VIEW_CSV };
	struct view_run vr;
	const char *out;

	feed_latencies(view_run_start(&vr, &size_hist_ops, &o));
	out = view_run_finish(&vr);
	assert_string_equal(out,
			    "device.id,device.name,operation,unit,begin,end,count\n"
			    "271581186,nvme0n1,read,sector,0,0,0\n"
			    "271581186,nvme0n1,read,sector,1,1,0\n"
			    "271581186,nvme0n1,read,sector,2,3,0\n"
			    "271581186,nvme0n1,read,sector,4,7,0\n"
			    "271581186,nvme0n1,read,sector,8,15,0\n"
			    "271581186,nvme0n1,read,sector,16,31,0\n"
			    "271581186,nvme0n1,read,sector,32,63,0\n"
			    "271581186,nvme0n1,read,sector,64,127,0\n"
			    "271581186,nvme0n1,read,sector,128,255,0\n"
			    "271581186,nvme0n1,read,sector,256,511,0\n"
			    "271581186,nvme0n1,read,sector,512,1023,0\n"
			    "271581186,nvme0n1,read,sector,1024,2047,0\n"
			    "271581186,nvme0n1,read,sector,2048,4095,1\n"
			    "271581186,nvme0n1,write,sector,0,0,0\n"
			    "271581186,nvme0n1,write,sector,1,1,0\n"
			    "271581186,nvme0n1,write,sector,2,3,0\n"
			    "271581186,nvme0n1,write,sector,4,7,0\n"
			    "271581186,nvme0n1,write,sector,8,15,7\n"
			    "271581186,nvme0n1,total,sector,0,0,0\n"
			    "271581186,nvme0n1,total,sector,1,1,0\n"
			    "271581186,nvme0n1,total,sector,2,3,0\n"
			    "271581186,nvme0n1,total,sector,4,7,0\n"
			    "271581186,nvme0n1,total,sector,8,15,7\n"
			    "271581186,nvme0n1,total,sector,16,31,0\n"
			    "271581186,nvme0n1,total,sector,32,63,0\n"
			    "271581186,nvme0n1,total,sector,64,127,0\n"
			    "271581186,nvme0n1,total,sector,128,255,0\n"
			    "271581186,nvme0n1,total,sector,256,511,0\n"
			    "271581186,nvme0n1,total,sector,512,1023,0\n"
			    "271581186,nvme0n1,total,sector,1024,2047,0\n"
			    "271581186,nvme0n1,total,sector,2048,4095,1\n");
	free(vr.text);
}

/* each write completes before the next is submitted: queue depth 1 */
static void test_qd_json(void **state)
{
	struct view_opts o = { .format = VIEW_JSON };
	struct view_run vr;
	const char *out, *w;

	feed_latencies(view_run_start(&vr, &qd_hist_ops, &o));
	out = view_run_finish(&vr);
	w = strstr(out, "\"write\": {");
	assert_non_null(w);
	assert_non_null(strstr(w, "\"unit\": \"I/O\""));
	/* bucket 0 is there, empty: the buckets keep their places */
	assert_non_null(strstr(w, "\"begin\": \"0\",\n      \"end\": \"0\",\n      \"count\": \"0\""));
	assert_non_null(strstr(w, "\"begin\": \"1\",\n      \"end\": \"1\",\n      \"count\": \"7\""));
	assert_null(strstr(w, "\"begin\": \"2\""));
	free(vr.text);
}

/*
 * LBA buckets of 20480: [0, 8) in bucket 0; [20480, 40960) in 1;
 * [40000, 42000) in 1 and 2. With a subrange [30000, 40000] only the
 * last two count, once each, in bucket 1.
 */
static void feed_lbas(struct join *j)
{
	next_sid = 1;
	io(j, 100, 1, DEV_A, 0, 8, W);
	io(j, 100, 2, DEV_A, 20480, 20480, W);
	io(j, 100, 3, DEV_A, 40000, 2000, R);
	io(j, 100, 4, DEV_A, 0, 0, W);	/* touches nothing */
	done(j, 200, 1, false);
	done(j, 200, 2, false);
	done(j, 200, 3, false);
	done(j, 200, 4, false);
}

static void test_lba(void **state)
{
	struct view_opts o = { .format = VIEW_CSV, .bucket_size = 20480,
			       .subrange_end = UINT64_MAX };
	struct view_run vr;
	const char *out;

	feed_lbas(view_run_start(&vr, &lba_hist_ops, &o));
	out = view_run_finish(&vr);
	assert_string_equal(out,
			    "device.id,device.name,operation,unit,begin,end,count\n"
			    "271581186,,read,sector,20480,40959,1\n"
			    "271581186,,read,sector,40960,61439,1\n"
			    "271581186,,write,sector,0,20479,1\n"
			    "271581186,,write,sector,20480,40959,1\n"
			    "271581186,,total,sector,0,20479,1\n"
			    "271581186,,total,sector,20480,40959,2\n"
			    "271581186,,total,sector,40960,61439,1\n");
	free(vr.text);

	o.subrange_start = 30000;
	o.subrange_end = 40000;
	feed_lbas(view_run_start(&vr, &lba_hist_ops, &o));
	out = view_run_finish(&vr);
	assert_string_equal(out,
			    "device.id,device.name,operation,unit,begin,end,count\n"
			    "271581186,,read,sector,20480,40959,1\n"
			    "271581186,,write,sector,20480,40959,1\n"
			    "271581186,,total,sector,20480,40959,2\n");
	free(vr.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency_table),
		cmocka_unit_test(test_size_csv),
		cmocka_unit_test(test_qd_json),
		cmocka_unit_test(test_lba),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
