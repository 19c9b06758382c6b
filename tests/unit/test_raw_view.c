// SPDX-License-Identifier: BSD-3-Clause
/*
 * The raw view and the wire format. The six OCTF event types are checked
 * against records of the upstream sample trace (octf-sample-trace.tar.xz,
 * octf.trace.0 and .4): our structs pack to exactly those bytes, and those
 * bytes print as the golden JSON and CSV. Our extensions are checked
 * against bytes worked out by hand.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "raw_view.h"

#define INIT_HEADER OCTF__PROTO__TRACE__EVENT_HEADER__INIT
#define INIT_EVENT OCTF__PROTO__TRACE__EVENT__INIT
#define INIT_FILE_ID OCTF__PROTO__TRACE__FILE_ID__INIT
#define INIT_TIMESTAMP OCTF__PROTO__TRACE__TIMESTAMP__INIT

/* One event with all its parts, so a test can build it on the stack. */
struct ev {
	Octf__Proto__Trace__Event e;
	Octf__Proto__Trace__EventHeader h;
	Octf__Proto__Trace__EventIo io;
	Octf__Proto__Trace__EventDeviceDescription dd;
	Octf__Proto__Trace__EventIoFilesystemMeta meta;
	Octf__Proto__Trace__EventIoCompletion cpl;
	Octf__Proto__Trace__EventIoFilesystemFileName name;
	Octf__Proto__Trace__EventIoFilesystemFileEvent fev;
	Octf__Proto__Trace__EventIoSplit split;
	Octf__Proto__Trace__EventIoDispatch disp;
	Octf__Proto__Trace__EventVfs vfs;
	Octf__Proto__Trace__FileId fid[2];
	Octf__Proto__Trace__Timestamp ts[2];
};

static void ev_init(struct ev *v, uint64_t sid, uint64_t timestamp)
{
	Octf__Proto__Trace__Event e = INIT_EVENT;
	Octf__Proto__Trace__EventHeader h = INIT_HEADER;
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__EventDeviceDescription dd =
		OCTF__PROTO__TRACE__EVENT_DEVICE_DESCRIPTION__INIT;
	Octf__Proto__Trace__EventIoFilesystemMeta meta =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_META__INIT;
	Octf__Proto__Trace__EventIoCompletion cpl = OCTF__PROTO__TRACE__EVENT_IO_COMPLETION__INIT;
	Octf__Proto__Trace__EventIoFilesystemFileName name =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_FILE_NAME__INIT;
	Octf__Proto__Trace__EventIoFilesystemFileEvent fev =
		OCTF__PROTO__TRACE__EVENT_IO_FILESYSTEM_FILE_EVENT__INIT;
	Octf__Proto__Trace__EventIoSplit split = OCTF__PROTO__TRACE__EVENT_IO_SPLIT__INIT;
	Octf__Proto__Trace__EventIoDispatch disp = OCTF__PROTO__TRACE__EVENT_IO_DISPATCH__INIT;
	Octf__Proto__Trace__EventVfs vfs = OCTF__PROTO__TRACE__EVENT_VFS__INIT;
	Octf__Proto__Trace__FileId fid = INIT_FILE_ID;
	Octf__Proto__Trace__Timestamp ts = INIT_TIMESTAMP;

	v->e = e;
	v->h = h;
	v->io = io;
	v->dd = dd;
	v->meta = meta;
	v->cpl = cpl;
	v->name = name;
	v->fev = fev;
	v->split = split;
	v->disp = disp;
	v->vfs = vfs;
	v->fid[0] = v->fid[1] = fid;
	v->ts[0] = v->ts[1] = ts;
	v->h.sid = sid;
	v->h.timestamp = timestamp;
	v->e.header = &v->h;
}

static Octf__Proto__Trace__FileId *file_id(struct ev *v, int i, uint64_t part, uint64_t ino,
					   int64_t sec, int32_t nsec)
{
	v->ts[i].seconds = sec;
	v->ts[i].nanos = nsec;
	v->fid[i].partitionid = part;
	v->fid[i].id = ino;
	v->fid[i].creationdate = &v->ts[i];
	return &v->fid[i];
}

/* ---- the six OCTF event types, as in the sample ---- */

static void sample_device(struct ev *v)
{
	ev_init(v, 1, 14193058940837ull);
	v->dd.id = 271581186;
	v->dd.name = "nvme0n1";
	v->dd.size = 732585168;
	v->dd.model = "INTEL SSDPED1K375GA";
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_DEVICE_DESCRIPTION;
	v->e.devicedescription = &v->dd;
}

static void sample_io(struct ev *v)
{
	ev_init(v, 52239, 14204422595919ull);
	v->io.lba = 281064;
	v->io.len = 8;
	v->io.ioclass = 19;
	v->io.deviceid = 271581186;
	v->io.operation = OCTF__PROTO__TRACE__IO_TYPE__Write;
	v->io.id = 110840373050975ull;
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
	v->e.io = &v->io;
}

static void sample_meta(struct ev *v)
{
	ev_init(v, 52240, 14204422596041ull);
	v->meta.refsid = 110840373050975ull;
	v->meta.fileid = file_id(v, 0, 271581186, 78, 1593672783, 203990636);
	v->meta.fileoffset = 132136;
	v->meta.filesize = 132140;
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_META;
	v->e.filesystemmeta = &v->meta;
}

static void sample_completion(struct ev *v)
{
	ev_init(v, 2914, 14196961240510ull);
	v->cpl.lba = 366292698;
	v->cpl.len = 10;
	v->cpl.deviceid = 271581186;
	v->cpl.refid = 110840062068991ull;
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION;
	v->e.iocompletion = &v->cpl;
}

static void sample_file_name(struct ev *v)
{
	ev_init(v, 52241, 14204422597290ull);
	v->name.fileid = file_id(v, 0, 271581186, 78, 1593672783, 203990636);
	v->name.fileparentid = file_id(v, 1, 271581186, 64, 1593672782, 958990636);
	v->name.filename = "000048.sst";
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_NAME;
	v->e.filesystemfilename = &v->name;
}

static void sample_file_event(struct ev *v)
{
	ev_init(v, 52244, 14204423396557ull);
	v->fev.fileid = file_id(v, 0, 271581186, 79, 1593672783, 242990636);
	v->fev.fseventtype = OCTF__PROTO__TRACE__FS_EVENT_TYPE__Create;
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_EVENT;
	v->e.filesystemfileevent = &v->fev;
}

/* ---- our extensions ---- */

static void ext_io(struct ev *v)
{
	ev_init(v, 7, 8);
	v->io.lba = 0;
	v->io.len = 8;
	v->io.deviceid = 7340032;
	v->io.operation = OCTF__PROTO__TRACE__IO_TYPE__Read;
	v->io.fua = 1;
	v->io.id = 9;
	v->io.partitionid = 7340033;
	v->io.sync = 1;
	v->io.readahead = 1;
	v->io.pid = 1234;
	v->io.tid = 1235;
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
	v->e.io = &v->io;
}

static void ext_completion(struct ev *v)
{
	ev_init(v, 7, 8);
	v->cpl.lba = 1;
	v->cpl.len = 8;
	v->cpl.error = 1;
	v->cpl.deviceid = 2;
	v->cpl.refid = 3;
	v->cpl.status = -5;
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION;
	v->e.iocompletion = &v->cpl;
}

static void ext_split(struct ev *v)
{
	ev_init(v, 7, 8);
	v->split.id = 1;
	v->split.parentid = 2;
	v->split.deviceid = 3;
	v->split.lba = 4;
	v->split.len = 5;
	v->split.parentlba = 6;
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_SPLIT;
	v->e.iosplit = &v->split;
}

static void ext_dispatch(struct ev *v)
{
	ev_init(v, 7, 8);
	v->disp.id = 1;
	v->disp.deviceid = 2;
	v->disp.lba = 3;
	v->disp.len = 4;
	v->disp.biocount = 5;
	v->disp.requestid = 6;
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_DISPATCH;
	v->e.iodispatch = &v->disp;
}

static void ext_vfs(struct ev *v)
{
	ev_init(v, 7, 8);
	v->vfs.id = 5;
	v->vfs.call = OCTF__PROTO__TRACE__VFS_CALL__VfsPread64;
	v->vfs.pid = 100;
	v->vfs.tid = 101;
	v->vfs.fd = 3;
	v->vfs.fileid = file_id(v, 0, 7340033, 12, 1, 2);
	v->vfs.offset = 4096;
	v->vfs.size = 4096;
	v->vfs.result = -5;
	v->vfs.duration = 1500;
	v->vfs.deviceid = 7340033;
	v->vfs.cgroupid = 9;
	v->vfs.comm = "fio";
	v->e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_VFS;
	v->e.vfs = &v->vfs;
}

struct golden {
	const char *what;
	void (*build)(struct ev *v);
	const char *wire;	/* hex of the packed Event */
	const char *json;
};

static const struct golden goldens[] = {
	{ "deviceDescription (sample octf.trace.0 record 0)", sample_device,
	  "0a0a080110a58ff2a1899d031a2a088280c0810112076e766d65306e3118d0b9a9dd022213494e54454c2053"
	  "5344504544314b3337354741",
	  "{\"header\":{\"sid\":\"1\",\"timestamp\":\"14193058940837\"},\"deviceDescription\":{"
	  "\"id\":\"271581186\",\"name\":\"nvme0n1\",\"size\":\"732585168\","
	  "\"model\":\"INTEL SSDPED1K375GA\"}}\n" },
	{ "io (sample octf.trace.0 record 1)", sample_io,
	  "0a0c088f980310cfcac0ccb39d03121808e8931110081813208280c08101280248dffcbfc8f09919",
	  "{\"header\":{\"sid\":\"52239\",\"timestamp\":\"14204422595919\"},\"io\":{"
	  "\"lba\":\"281064\",\"len\":8,\"ioClass\":19,\"deviceId\":\"271581186\","
	  "\"operation\":\"Write\",\"flush\":false,\"fua\":false,\"writeHint\":0,"
	  "\"id\":\"110840373050975\",\"partitionId\":\"0\",\"sync\":false,\"metadata\":false,"
	  "\"readahead\":false,\"requestOnly\":false,\"writeZeroes\":false,\"pid\":0,\"tid\":0,"
	  "\"cgroupId\":\"0\",\"comm\":\"\",\"direct\":false,\"vfsCallId\":\"0\"}}\n" },
	{ "filesystemMeta (sample octf.trace.0)", sample_meta,
	  "0a0c0890980310c9cbc0ccb39d03222708dffcbfc8f099191215088280c08101104e1a0b08cf88f6f70510"
	  "eccca26118a8880820ac8808",
	  "{\"header\":{\"sid\":\"52240\",\"timestamp\":\"14204422596041\"},\"filesystemMeta\":{"
	  "\"refSid\":\"110840373050975\",\"fileId\":{\"partitionId\":\"271581186\",\"id\":\"78\","
	  "\"creationDate\":\"2020-07-02T06:53:03.203990636Z\"},"
	  "\"fileOffset\":\"132136\",\"fileSize\":\"132140\"}}\n" },
	{ "ioCompletion (sample octf.trace.4)", sample_completion,
	  "0a0b08e21610becbd3e6979d032a1608daddd4ae01100a208280c0810128ff919bb4ef9919",
	  "{\"header\":{\"sid\":\"2914\",\"timestamp\":\"14196961240510\"},\"ioCompletion\":{"
	  "\"lba\":\"366292698\",\"len\":10,\"error\":false,\"deviceId\":\"271581186\","
	  "\"refId\":\"110840062068991\",\"status\":0}}\n" },
	{ "filesystemFileName (sample octf.trace.0)", sample_file_name,
	  "0a0c0891980310aad5c0ccb39d03323b0a15088280c08101104e1a0b08cf88f6f70510eccca26112160882"
	  "80c0810110401a0c08ce88f6f70510ac92a4c9031a0a3030303034382e737374",
	  "{\"header\":{\"sid\":\"52241\",\"timestamp\":\"14204422597290\"},\"filesystemFileName\":{"
	  "\"fileId\":{\"partitionId\":\"271581186\",\"id\":\"78\",\"creationDate\":"
	  "\"2020-07-02T06:53:03.203990636Z\"},\"fileParentId\":{"
	  "\"partitionId\":\"271581186\",\"id\":\"64\",\"creationDate\":"
	  "\"2020-07-02T06:53:02.958990636Z\"},\"fileName\":\"000048.sst\"}}\n" },
	{ "filesystemFileEvent (sample octf.trace.0)", sample_file_event,
	  "0a0c0894980310cdb9f1ccb39d033a190a15088280c08101104f1a0b08cf88f6f70510acfcee731001",
	  "{\"header\":{\"sid\":\"52244\",\"timestamp\":\"14204423396557\"},\"filesystemFileEvent\":{"
	  "\"fileId\":{\"partitionId\":\"271581186\",\"id\":\"79\",\"creationDate\":"
	  "\"2020-07-02T06:53:03.242990636Z\"},\"fsEventType\":\"Create\"}}\n" },
	/*
	 * Extensions, by hand: field n, wire type w is the varint n << 3 | w;
	 * io.partitionId (20) = a0 01, sync (21) = a8 01, readahead (23) =
	 * b8 01, pid (26) = d0 01, tid (27) = d8 01; deviceId 7340032 (7:0,
	 * 0x700000) = 80 80 c0 03; completion.status (20) is an int32: -5 is
	 * ten bytes. ioSplit is Event field 20 (a2 01), ioDispatch 21 (aa 01).
	 * lba 0 and flush false are not on the wire.
	 */
	{ "io with iotrace fields", ext_io,
	  "0a04080710081221" "1008" "208080c003" "2801" "3801" "4809" "a0018180c003" "a80101"
	  "b80101" "d001d209" "d801d309",
	  "{\"header\":{\"sid\":\"7\",\"timestamp\":\"8\"},\"io\":{\"lba\":\"0\",\"len\":8,"
	  "\"ioClass\":0,\"deviceId\":\"7340032\",\"operation\":\"Read\",\"flush\":false,"
	  "\"fua\":true,\"writeHint\":0,\"id\":\"9\",\"partitionId\":\"7340033\",\"sync\":true,"
	  "\"metadata\":false,\"readahead\":true,\"requestOnly\":false,\"writeZeroes\":false,"
	  "\"pid\":1234,\"tid\":1235,\"cgroupId\":\"0\",\"comm\":\"\",\"direct\":false,\"vfsCallId\":\"0\"}}\n" },
	{ "ioCompletion with status", ext_completion,
	  "0a04080710082a16" "0801" "1008" "1801" "2002" "2803" "a001" "fbffffffffffffffff01",
	  "{\"header\":{\"sid\":\"7\",\"timestamp\":\"8\"},\"ioCompletion\":{\"lba\":\"1\","
	  "\"len\":8,\"error\":true,\"deviceId\":\"2\",\"refId\":\"3\",\"status\":-5}}\n" },
	{ "ioSplit", ext_split,
	  "0a0408071008a2010c080110021803200428053006",
	  "{\"header\":{\"sid\":\"7\",\"timestamp\":\"8\"},\"ioSplit\":{\"id\":\"1\","
	  "\"parentId\":\"2\",\"deviceId\":\"3\",\"lba\":\"4\",\"len\":5,\"parentLba\":\"6\"}}\n" },
	{ "ioDispatch", ext_dispatch,
	  "0a0408071008aa010c080110021803200428053006",
	  "{\"header\":{\"sid\":\"7\",\"timestamp\":\"8\"},\"ioDispatch\":{\"id\":\"1\","
	  "\"deviceId\":\"2\",\"lba\":\"3\",\"len\":4,\"bioCount\":5,\"requestId\":\"6\"}}\n" },
	/*
	 * vfs is Event field 22 (b2 01); result -5 is ten bytes; comm (13) is
	 * 6a; fileId2 is not set and not printed.
	 */
	{ "vfs", ext_vfs,
	  "0a0408071008b20139" "0805" "1003" "1864" "2065" "2803"
	  "320d088180c003100c1a0408011002" "388020" "408020" "48fbffffffffffffffff01"
	  "50dc0b" "588180c003" "6009" "6a0366696f",
	  "{\"header\":{\"sid\":\"7\",\"timestamp\":\"8\"},\"vfs\":{\"id\":\"5\","
	  "\"call\":\"VfsPread64\",\"pid\":100,\"tid\":101,\"fd\":3,\"fileId\":{"
	  "\"partitionId\":\"7340033\",\"id\":\"12\",\"creationDate\":"
	  "\"1970-01-01T00:00:01.000000002Z\"},\"offset\":\"4096\",\"size\":\"4096\",\"result\":\"-5\","
	  "\"duration\":\"1500\",\"deviceId\":\"7340033\",\"cgroupId\":\"9\",\"comm\":\"fio\","
	  "\"flags\":0,\"created\":false,\"fd2\":0,\"offset2\":\"0\",\"uringOpcode\":0}}\n" },
};

/* hex to bytes; spaces in the text are ignored */
static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (*hex) {
		unsigned int b;

		if (*hex == ' ') {
			hex++;
			continue;
		}
		assert_true(n < cap);
		assert_int_equal(sscanf(hex, "%2x", &b), 1);
		out[n++] = (uint8_t)b;
		hex += 2;
	}
	return n;
}

static char *render(const Octf__Proto__Trace__Event *e, enum raw_format fmt)
{
	struct raw_view *v;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&text, &len);
	assert_non_null(f);
	v = raw_view__new(f, fmt);
	assert_non_null(v);
	raw_view__write(v, e);
	assert_int_equal(raw_view__error(v), 0);
	assert_int_equal(raw_view__finish(v), 0);
	raw_view__free(v);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* Our structs pack to the recorded bytes; the bytes print as golden JSON. */
static void test_wire_and_json(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(goldens) / sizeof(goldens[0]); i++) {
		const struct golden *g = &goldens[i];
		uint8_t want[256], got[256];
		Octf__Proto__Trace__Event *back;
		size_t wlen, glen;
		struct ev v;
		char *text;

		print_message("%s\n", g->what);
		g->build(&v);
		wlen = unhex(g->wire, want, sizeof(want));
		glen = octf__proto__trace__event__get_packed_size(&v.e);
		assert_int_equal(glen, wlen);
		assert_int_equal(octf__proto__trace__event__pack(&v.e, got), glen);
		assert_memory_equal(got, want, wlen);

		text = render(&v.e, RAW_JSON);
		assert_string_equal(text, g->json);
		free(text);

		back = octf__proto__trace__event__unpack(NULL, wlen, want);
		assert_non_null(back);
		text = render(back, RAW_JSON);
		assert_string_equal(text, g->json);
		free(text);
		octf__proto__trace__event__free_unpacked(back, NULL);
	}
}

#define CSV_HEADER                                                                                 \
	"header.sid,header.timestamp,"                                                             \
	"io.lba,io.len,io.ioClass,io.deviceId,io.operation,io.flush,io.fua,io.writeHint,io.id,"   \
	"io.partitionId,io.sync,io.metadata,io.readahead,io.requestOnly,io.writeZeroes,io.pid,"    \
	"io.tid,io.cgroupId,io.comm,io.direct,io.vfsCallId,"                                       \
	"deviceDescription.id,deviceDescription.name,deviceDescription.size,"                      \
	"deviceDescription.model,"                                                                 \
	"filesystemMeta.refSid,filesystemMeta.fileId.partitionId,filesystemMeta.fileId.id,"        \
	"filesystemMeta.fileId.creationDate.seconds,filesystemMeta.fileId.creationDate.nanos,"    \
	"filesystemMeta.fileOffset,filesystemMeta.fileSize,"                                       \
	"ioCompletion.lba,ioCompletion.len,ioCompletion.error,ioCompletion.deviceId,"             \
	"ioCompletion.refId,ioCompletion.status,"                                                  \
	"filesystemFileName.fileId.partitionId,filesystemFileName.fileId.id,"                      \
	"filesystemFileName.fileId.creationDate.seconds,"                                          \
	"filesystemFileName.fileId.creationDate.nanos,"                                            \
	"filesystemFileName.fileParentId.partitionId,filesystemFileName.fileParentId.id,"          \
	"filesystemFileName.fileParentId.creationDate.seconds,"                                    \
	"filesystemFileName.fileParentId.creationDate.nanos,filesystemFileName.fileName,"          \
	"filesystemFileEvent.fileId.partitionId,filesystemFileEvent.fileId.id,"                    \
	"filesystemFileEvent.fileId.creationDate.seconds,"                                         \
	"filesystemFileEvent.fileId.creationDate.nanos,filesystemFileEvent.fsEventType,"           \
	"ioSplit.id,ioSplit.parentId,ioSplit.deviceId,ioSplit.lba,ioSplit.len,ioSplit.parentLba,"  \
	"ioDispatch.id,ioDispatch.deviceId,ioDispatch.lba,ioDispatch.len,ioDispatch.bioCount,"    \
	"ioDispatch.requestId,"                                                                    \
	"vfs.id,vfs.call,vfs.pid,vfs.tid,vfs.fd,vfs.fileId.partitionId,vfs.fileId.id,"             \
	"vfs.fileId.creationDate.seconds,vfs.fileId.creationDate.nanos,vfs.offset,vfs.size,"      \
	"vfs.result,vfs.duration,vfs.deviceId,vfs.cgroupId,vfs.comm,vfs.flags,vfs.created,"        \
	"vfs.fd2,vfs.fileId2.partitionId,vfs.fileId2.id,vfs.fileId2.creationDate.seconds,"        \
	"vfs.fileId2.creationDate.nanos,vfs.offset2,vfs.uringOpcode\n"

/*
 * 91 columns: header 2, io 21, device 4, meta 7, completion 6, name 9, file event 5, split 6,
 * dispatch 6, vfs 25
 */
#define E2 ",,"
#define E4 E2 E2
#define E5 E4 ","
#define E6 E4 E2
#define E7 E6 ","
#define E9 E7 E2
#define E21 E9 E6 E6
#define E25 E21 E4

static void test_csv(void **state)
{
	struct ev v;
	char *text;

	sample_device(&v);
	text = render(&v.e, RAW_CSV);
	/* the row: sid, timestamp, io's 21 empty, the device, then the rest empty */
	assert_string_equal(text, CSV_HEADER "1,14193058940837" E21
				  ",271581186,nvme0n1,732585168,INTEL SSDPED1K375GA"
				  E7 E6 E9 E5 E6 E6 E25 "\n");
	free(text);

	ext_io(&v);
	text = render(&v.e, RAW_CSV);
	assert_string_equal(text, CSV_HEADER "7,8,0,8,0,7340032,Read,false,true,0,9,7340033,true,"
				  "false,true,false,false,1234,1235,0,,false,0"
				  E4 E7 E6 E9 E5 E6 E6 E25 "\n");
	free(text);

	sample_file_name(&v);
	v.name.filename = "a,\"b\"";
	text = render(&v.e, RAW_CSV);
	assert_string_equal(text, CSV_HEADER "52241,14204422597290" E21 E4 E7 E6
				  ",271581186,78,1593672783,203990636,271581186,64,1593672782,"
				  "958990636,\"a,\"\"b\"\"\"" E5 E6 E6 E25 "\n");
	free(text);

	/* an output file the call does not have: its four cells empty */
	ext_vfs(&v);
	text = render(&v.e, RAW_CSV);
	assert_string_equal(text, CSV_HEADER "7,8" E21 E4 E7 E6 E9 E5 E6 E6
				  ",5,VfsPread64,100,101,3,7340033,12,1,2,4096,4096,-5,1500,7340033,"
				  "9,fio,0,false,0,,,,,0,0\n");
	free(text);
}

/* The header row comes once, before the first row, and for no rows too. */
static void test_csv_header_once(void **state)
{
	struct raw_view *v;
	char *text = NULL;
	size_t len = 0;
	struct ev e;
	FILE *f;

	f = open_memstream(&text, &len);
	assert_non_null(f);
	v = raw_view__new(f, RAW_CSV);
	assert_non_null(v);
	assert_int_equal(raw_view__finish(v), 0);
	raw_view__free(v);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text, CSV_HEADER);
	free(text);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	v = raw_view__new(f, RAW_CSV);
	assert_non_null(v);
	ext_split(&e);
	raw_view__write(v, &e.e);
	ext_dispatch(&e);
	raw_view__write(v, &e.e);
	assert_int_equal(raw_view__finish(v), 0);
	raw_view__free(v);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text, CSV_HEADER "7,8" E21 E4 E7 E6 E9 E5 ",1,2,3,4,5,6" E6 E25 "\n"
					    "7,8" E21 E4 E7 E6 E9 E5 E6 ",1,2,3,4,5,6" E25 "\n");
	free(text);
}

/* What a reader of a damaged or newer trace can meet. */
static void test_odd_events(void **state)
{
	struct ev v;
	char *text;

	/* no header, no event type */
	ev_init(&v, 0, 0);
	v.e.header = NULL;
	text = render(&v.e, RAW_JSON);
	assert_string_equal(text, "{}\n");
	free(text);

	/* the oneof says io but the pointer is missing: nothing to print */
	ev_init(&v, 1, 2);
	v.e.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
	v.e.io = NULL;
	text = render(&v.e, RAW_JSON);
	assert_string_equal(text, "{\"header\":{\"sid\":\"1\",\"timestamp\":\"2\"}}\n");
	free(text);

	/* an enum value newer than our schema prints as its number */
	sample_file_event(&v);
	v.fev.fseventtype = 9;
	v.fev.fileid = NULL;
	text = render(&v.e, RAW_JSON);
	assert_string_equal(text, "{\"header\":{\"sid\":\"52244\",\"timestamp\":\"14204423396557\"},"
				  "\"filesystemFileEvent\":{\"fsEventType\":9}}\n");
	free(text);

	/* a name with a quote, a control character and UTF-8 */
	sample_file_name(&v);
	v.name.fileid = NULL;
	v.name.fileparentid = NULL;
	v.name.filename = "\"x\"\n\xc3\xa9";
	text = render(&v.e, RAW_JSON);
	assert_string_equal(text, "{\"header\":{\"sid\":\"52241\",\"timestamp\":\"14204422597290\"},"
				  "\"filesystemFileName\":{\"fileName\":\"\\\"x\\\"\\u000a\xc3\xa9\"}}\n");
	free(text);
}

/* A full disk is reported by finish with its errno. */
static void test_write_error(void **state)
{
	struct raw_view *v;
	struct ev e;
	FILE *f;
	int i;

	f = fopen("/dev/full", "w");
	if (!f)
		skip();
	v = raw_view__new(f, RAW_JSON);
	assert_non_null(v);
	sample_device(&e);
	/* more than stdio buffers, so the error shows before finish */
	for (i = 0; i < 1000; i++)
		raw_view__write(v, &e.e);
	assert_int_equal(raw_view__error(v), -ENOSPC);
	assert_int_equal(raw_view__finish(v), -ENOSPC);
	raw_view__free(v);
	fclose(f);
	raw_view__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_and_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_csv_header_once),
		cmocka_unit_test(test_odd_events),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
