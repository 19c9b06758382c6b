// SPDX-License-Identifier: BSD-3-Clause
/*
 * The fast path decodes into *ev as it goes and returns false at the first
 * thing it is not sure of; the caller then starts over with protobuf-c, so
 * a half-filled *ev never escapes.
 *
 * Values follow protobuf-c's readers: a 32-bit field keeps the low 32 bits
 * of its varint (parse_uint32), a bool is true when any value bit is set,
 * enums and int32 are the low 32 bits as signed. A 10-byte varint whose
 * last byte holds more than bit 63 is valid for protobuf-c but not
 * canonical; the fast path leaves it to protobuf-c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "delta.h"

#define WT_VARINT 0
#define WT_LEN 2
#define TAG(field, wt) ((uint64_t)(field) << 3 | (wt))

/*
 * The value bits of the bytes of w that keep covers: the varint's, from
 * byte 0 on. (BMI2's pext does this in one instruction: 11% fewer
 * instructions for --statistics, but called through a test of the CPU
 * no faster than these shifts; see bench/README.)
 */
static inline uint64_t gather7(uint64_t w, uint64_t keep)
{
	w &= keep & 0x7f7f7f7f7f7f7f7full;
	w = ((w & 0x7f007f007f007f00ull) >> 1) | (w & 0x007f007f007f007full);
	w = ((w & 0x3fff00003fff0000ull) >> 2) | (w & 0x00003fff00003fffull);
	return ((w & 0x0fffffff00000000ull) >> 4) | (w & 0x000000000fffffffull);
}

/*
 * Reads a varint that ends before end. lim, at or after end, is the end
 * of the record, which is at least 8 bytes long: the 8 bytes before lim
 * can always be loaded.
 */
/* always inlined: out of line, a --statistics run took a fifth more instructions */
static inline __attribute__((always_inline)) bool get_varint(const uint8_t **pp,
							     const uint8_t *end,
							     const uint8_t *lim, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t w, stop;
	size_t avail = (size_t)(lim - p), n;

	if (p < end && *p < 0x80) {
		*v = *p;
		*pp = p + 1;
		return true;
	}
	if (p >= end)
		return false;
	/*
	 * Timestamps and addresses take 6-10 bytes: find the varint's last
	 * byte (the first without bit 7) in 8 loaded at once and gather the
	 * 7-bit groups with shifts (little-endian x86). Near the record's end
	 * the load ends at lim, shifted so that p is byte 0: the bytes shifted
	 * in are 0, so they stop a varint that would run on past lim.
	 */
	if (avail >= 8) {
		memcpy(&w, p, 8);
	} else {
		memcpy(&w, lim - 8, 8);
		w >>= 8 * (8 - avail);
	}
	stop = ~w & 0x8080808080808080ull;
	if (stop) {
		n = (size_t)__builtin_ctzll(stop) / 8 + 1;
		if (n > (size_t)(end - p))
			return false;
		/* the bits up to the varint's last stop bit: its bytes */
		*v = gather7(w, stop ^ (stop - 1));
		*pp = p + n;
		return true;
	}
	/* bytes 0-7 all continue: 9 or 10 bytes (kernel addresses) */
	if (end - p < 9)
		return false;
	if (p[8] < 0x80) {
		*v = gather7(w, ~0ull) | (uint64_t)p[8] << 56;
		*pp = p + 9;
		return true;
	}
	/* the 10th byte holds bit 63 only */
	if (end - p < 10 || p[9] > 1)
		return false;
	*v = gather7(w, ~0ull) | (uint64_t)(p[8] & 0x7f) << 56 | (uint64_t)p[9] << 63;
	*pp = p + 10;
	return true;
}

/* A length-delimited field's body: [*body, *bend). */
static inline bool get_len(const uint8_t **pp, const uint8_t *end, const uint8_t *lim,
			   const uint8_t **body, const uint8_t **bend)
{
	uint64_t n;

	if (!get_varint(pp, end, lim, &n) || n > (uint64_t)(end - *pp))
		return false;
	*body = *pp;
	*bend = *pp + n;
	*pp = *bend;
	return true;
}

/*
 * Reads the next field of a message whose fields are all varints: its
 * tag and value. False at anything else (the caller checks the tag).
 */
static inline bool next_varint_field(const uint8_t **p, const uint8_t *end, const uint8_t *lim,
				     uint64_t *tag, uint64_t *v)
{
	return get_varint(p, end, lim, tag) && (*tag & 7) == WT_VARINT && get_varint(p, end, lim, v);
}

/*
 * Every encoder writes fields in ascending order: each message is first
 * read field by field in that order (a test per field, well predicted),
 * then whatever is left - nothing, normally - by the general loop.
 */
#define IN_ORDER(tagbyte, store)                                \
	do {                                                    \
		if (p < end && *p == (tagbyte)) {               \
			p++;                                    \
			if (!get_varint(&p, end, lim, &v))      \
				return false;                   \
			store;                                  \
		}                                               \
	} while (0)

/* The header's fields after an in-order sid (read by the caller). */
static bool fast_header_rest(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
			     struct event *ev)
{
	uint64_t tag, v;

	IN_ORDER(TAG(2, WT_VARINT), ev->ts = v);
	while (p < end) {
		if (!next_varint_field(&p, end, lim, &tag, &v))
			return false;
		switch (tag) {
		case TAG(1, WT_VARINT):
			ev->sid = v;
			break;
		case TAG(2, WT_VARINT):
			ev->ts = v;
			break;
		default:
			return false;
		}
	}
	return true;
}

static bool fast_header(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
			struct event *ev)
{
	uint64_t v;

	IN_ORDER(TAG(1, WT_VARINT), ev->sid = v);
	return fast_header_rest(p, end, lim, ev);
}

/* As protobuf-c's string read as a C string: up to the first NUL, cut to fit. */
static void copy_comm(char *dst, const uint8_t *s, size_t len)
{
	const uint8_t *nul = memchr(s, 0, len);

	if (nul)
		len = (size_t)(nul - s);
	if (len > EVENT_COMM_MAX - 1)
		len = EVENT_COMM_MAX - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/*
 * The varint fields of each hot type, by tag: false for a field the fast
 * path does not know. Shared by the message reader and decode__split().
 */
static inline bool io_field(struct event *ev, uint64_t tag, uint64_t v)
{
	switch (tag) {
	case TAG(1, WT_VARINT):
		ev->io.lba = v;
		break;
	case TAG(2, WT_VARINT):
		ev->io.len = (uint32_t)v;
		break;
	case TAG(3, WT_VARINT):
		ev->io.io_class = (uint32_t)v;
		break;
	case TAG(4, WT_VARINT):
		ev->io.dev = v;
		break;
	case TAG(5, WT_VARINT):
		ev->io.op = (int32_t)(uint32_t)v;
		break;
	case TAG(6, WT_VARINT):
		ev->io.flags = v ? ev->io.flags | IOF_FLUSH : ev->io.flags & ~IOF_FLUSH;
		break;
	case TAG(7, WT_VARINT):
		ev->io.flags = v ? ev->io.flags | IOF_FUA : ev->io.flags & ~IOF_FUA;
		break;
	case TAG(8, WT_VARINT):
		ev->io.write_hint = (uint32_t)v;
		break;
	case TAG(9, WT_VARINT):
		ev->io.id = v;
		break;
	case TAG(20, WT_VARINT):
		ev->io.part = v;
		break;
	case TAG(21, WT_VARINT):
		ev->io.flags = v ? ev->io.flags | IOF_SYNC : ev->io.flags & ~IOF_SYNC;
		break;
	case TAG(22, WT_VARINT):
		ev->io.flags = v ? ev->io.flags | IOF_META : ev->io.flags & ~IOF_META;
		break;
	case TAG(23, WT_VARINT):
		ev->io.flags = v ? ev->io.flags | IOF_READAHEAD : ev->io.flags & ~IOF_READAHEAD;
		break;
	case TAG(24, WT_VARINT):
		ev->io.flags = v ? ev->io.flags | IOF_REQUEST_ONLY : ev->io.flags & ~IOF_REQUEST_ONLY;
		break;
	case TAG(25, WT_VARINT):
		ev->io.flags = v ? ev->io.flags | IOF_WRITE_ZEROES : ev->io.flags & ~IOF_WRITE_ZEROES;
		break;
	case TAG(26, WT_VARINT):
		ev->io.pid = (uint32_t)v;
		break;
	case TAG(27, WT_VARINT):
		ev->io.tid = (uint32_t)v;
		break;
	case TAG(28, WT_VARINT):
		ev->io.cgroup = v;
		break;
	case TAG(30, WT_VARINT):
		ev->io.flags = v ? ev->io.flags | IOF_DIRECT : ev->io.flags & ~IOF_DIRECT;
		break;
	case TAG(31, WT_VARINT):
		ev->io.vfs_call = v;
		break;
	default:
		return false;
	}
	return true;
}

/* io.comm, the one bytes field of an io */
#define IO_COMM TAG(29, WT_LEN)

static bool fast_io(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
		    struct event *ev)
{
	const uint8_t *b, *be;
	uint64_t tag, v;

	IN_ORDER(TAG(1, WT_VARINT), ev->io.lba = v);
	IN_ORDER(TAG(2, WT_VARINT), ev->io.len = (uint32_t)v);
	IN_ORDER(TAG(3, WT_VARINT), ev->io.io_class = (uint32_t)v);
	IN_ORDER(TAG(4, WT_VARINT), ev->io.dev = v);
	IN_ORDER(TAG(5, WT_VARINT), ev->io.op = (int32_t)(uint32_t)v);
	IN_ORDER(TAG(6, WT_VARINT), ev->io.flags |= v ? IOF_FLUSH : 0);
	IN_ORDER(TAG(7, WT_VARINT), ev->io.flags |= v ? IOF_FUA : 0);
	IN_ORDER(TAG(8, WT_VARINT), ev->io.write_hint = (uint32_t)v);
	IN_ORDER(TAG(9, WT_VARINT), ev->io.id = v);
	while (p < end) {
		if (!get_varint(&p, end, lim, &tag))
			return false;
		if (tag == IO_COMM) {
			if (!get_len(&p, end, lim, &b, &be))
				return false;
			copy_comm(ev->io.comm, b, (size_t)(be - b));
			continue;
		}
		if ((tag & 7) != WT_VARINT || !get_varint(&p, end, lim, &v) || !io_field(ev, tag, v))
			return false;
	}
	return true;
}

static inline bool completion_field(struct event *ev, uint64_t tag, uint64_t v)
{
	switch (tag) {
	case TAG(1, WT_VARINT):
		ev->cpl.lba = v;
		break;
	case TAG(2, WT_VARINT):
		ev->cpl.len = (uint32_t)v;
		break;
	case TAG(3, WT_VARINT):
		ev->cpl.error = v != 0;
		break;
	case TAG(4, WT_VARINT):
		ev->cpl.dev = v;
		break;
	case TAG(5, WT_VARINT):
		ev->cpl.ref = v;
		break;
	case TAG(20, WT_VARINT):
		ev->cpl.status = (int32_t)(uint32_t)v;
		break;
	default:
		return false;
	}
	return true;
}

static bool fast_completion(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
			    struct event *ev)
{
	uint64_t tag, v;

	IN_ORDER(TAG(1, WT_VARINT), ev->cpl.lba = v);
	IN_ORDER(TAG(2, WT_VARINT), ev->cpl.len = (uint32_t)v);
	IN_ORDER(TAG(3, WT_VARINT), ev->cpl.error = v != 0);
	IN_ORDER(TAG(4, WT_VARINT), ev->cpl.dev = v);
	IN_ORDER(TAG(5, WT_VARINT), ev->cpl.ref = v);
	while (p < end) {
		if (!next_varint_field(&p, end, lim, &tag, &v) || !completion_field(ev, tag, v))
			return false;
	}
	return true;
}

static bool fast_timestamp(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
			   struct file_id *f)
{
	uint64_t tag, v;

	IN_ORDER(TAG(1, WT_VARINT), f->sec = (int64_t)v);
	IN_ORDER(TAG(2, WT_VARINT), f->nsec = (int32_t)(uint32_t)v);
	while (p < end) {
		if (!next_varint_field(&p, end, lim, &tag, &v))
			return false;
		switch (tag) {
		case TAG(1, WT_VARINT):
			f->sec = (int64_t)v;
			break;
		case TAG(2, WT_VARINT):
			f->nsec = (int32_t)(uint32_t)v;
			break;
		default:
			return false;
		}
	}
	return true;
}

static bool fast_file_id(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
			 struct file_id *f)
{
	const uint8_t *b, *be;
	bool have_date = false;
	uint64_t tag, v;

	while (p < end) {
		if (!get_varint(&p, end, lim, &tag))
			return false;
		switch (tag) {
		case TAG(1, WT_VARINT):
			if (!get_varint(&p, end, lim, &v))
				return false;
			f->part = v;
			break;
		case TAG(2, WT_VARINT):
			if (!get_varint(&p, end, lim, &v))
				return false;
			f->ino = v;
			break;
		case TAG(3, WT_LEN):
			/* a second one would be merged into the first: protobuf-c's job */
			if (have_date || !get_len(&p, end, lim, &b, &be) ||
			    !fast_timestamp(b, be, lim, f))
				return false;
			have_date = true;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* The file id of a filesystemMeta: a bytes field */
#define META_FILE_ID TAG(2, WT_LEN)

static inline bool meta_field(struct event *ev, uint64_t tag, uint64_t v)
{
	switch (tag) {
	case TAG(1, WT_VARINT):
		ev->meta.ref = v;
		break;
	case TAG(3, WT_VARINT):
		ev->meta.offset = v;
		break;
	case TAG(4, WT_VARINT):
		ev->meta.size = v;
		break;
	default:
		return false;
	}
	return true;
}

static bool fast_meta(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
		      struct event *ev)
{
	const uint8_t *b, *be;
	bool have_fid = false;
	uint64_t tag, v;

	IN_ORDER(TAG(1, WT_VARINT), ev->meta.ref = v);
	while (p < end) {
		if (!get_varint(&p, end, lim, &tag))
			return false;
		if (tag == META_FILE_ID) {
			if (have_fid || !get_len(&p, end, lim, &b, &be) ||
			    !fast_file_id(b, be, lim, &ev->meta.fid))
				return false;
			have_fid = true;
			continue;
		}
		if ((tag & 7) != WT_VARINT || !get_varint(&p, end, lim, &v) || !meta_field(ev, tag, v))
			return false;
	}
	return true;
}

static inline bool split_field(struct event *ev, uint64_t tag, uint64_t v)
{
	switch (tag) {
	case TAG(1, WT_VARINT):
		ev->split.id = v;
		break;
	case TAG(2, WT_VARINT):
		ev->split.parent = v;
		break;
	case TAG(3, WT_VARINT):
		ev->split.dev = v;
		break;
	case TAG(4, WT_VARINT):
		ev->split.lba = v;
		break;
	case TAG(5, WT_VARINT):
		ev->split.len = (uint32_t)v;
		break;
	case TAG(6, WT_VARINT):
		ev->split.parent_lba = v;
		break;
	default:
		return false;
	}
	return true;
}

static bool fast_split(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
		       struct event *ev)
{
	uint64_t tag, v;

	while (p < end) {
		if (!next_varint_field(&p, end, lim, &tag, &v) || !split_field(ev, tag, v))
			return false;
	}
	return true;
}

static inline bool dispatch_field(struct event *ev, uint64_t tag, uint64_t v)
{
	switch (tag) {
	case TAG(1, WT_VARINT):
		ev->disp.id = v;
		break;
	case TAG(2, WT_VARINT):
		ev->disp.dev = v;
		break;
	case TAG(3, WT_VARINT):
		ev->disp.lba = v;
		break;
	case TAG(4, WT_VARINT):
		ev->disp.len = (uint32_t)v;
		break;
	case TAG(5, WT_VARINT):
		ev->disp.bios = (uint32_t)v;
		break;
	case TAG(6, WT_VARINT):
		ev->disp.rq = v;
		break;
	default:
		return false;
	}
	return true;
}

static bool fast_dispatch(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
			  struct event *ev)
{
	uint64_t tag, v;

	while (p < end) {
		if (!next_varint_field(&p, end, lim, &tag, &v) || !dispatch_field(ev, tag, v))
			return false;
	}
	return true;
}

static inline bool vfs_field(struct event_vfs *x, uint64_t tag, uint64_t v)
{
	switch (tag) {
	case TAG(1, WT_VARINT):
		x->id = v;
		break;
	case TAG(2, WT_VARINT):
		x->call = (int32_t)(uint32_t)v;
		break;
	case TAG(3, WT_VARINT):
		x->pid = (uint32_t)v;
		break;
	case TAG(4, WT_VARINT):
		x->tid = (uint32_t)v;
		break;
	case TAG(5, WT_VARINT):
		x->fd = (int32_t)(uint32_t)v;
		break;
	case TAG(7, WT_VARINT):
		x->offset = (int64_t)v;
		break;
	case TAG(8, WT_VARINT):
		x->size = v;
		break;
	case TAG(9, WT_VARINT):
		x->result = (int64_t)v;
		break;
	case TAG(10, WT_VARINT):
		x->duration = v;
		break;
	case TAG(11, WT_VARINT):
		x->dev = v;
		break;
	case TAG(12, WT_VARINT):
		x->cgroup = v;
		break;
	case TAG(14, WT_VARINT):
		x->flags = (uint32_t)v;
		break;
	case TAG(15, WT_VARINT):
		x->created = v != 0;
		break;
	case TAG(16, WT_VARINT):
		x->fd2 = (int32_t)(uint32_t)v;
		break;
	case TAG(18, WT_VARINT):
		x->offset2 = (int64_t)v;
		break;
	case TAG(19, WT_VARINT):
		x->uring_op = (uint32_t)v;
		break;
	default:
		return false;
	}
	return true;
}

/*
 * A file id of n bytes at b into *fid, once: false for one the fast path
 * would not take. Copied first: fast_file_id() loads 8 bytes before its
 * end, which a split's bytes may not have.
 */
static bool file_id_of(const uint8_t *b, size_t n, bool *have, struct file_id *fid)
{
	uint8_t buf[8 + 64];

	if (*have || n > sizeof(buf) - 8)
		return false;
	memset(buf, 0, 8);
	memcpy(buf + 8, b, n);
	*have = true;
	return fast_file_id(buf + 8, buf + 8 + n, buf + 8 + n, fid);
}

/*
 * A bytes field of a vfs body into x, from the message or from a split:
 * false for one the fast path would not take (a second file id or comm
 * would be protobuf-c's to merge or replace).
 */
static bool vfs_bytes(struct event_vfs *x, uint64_t field, const uint8_t *b, size_t n,
		      bool *have_comm)
{
	switch (field) {
	case 6:
		return file_id_of(b, n, &x->has_fid, &x->fid);
	case 17:
		return file_id_of(b, n, &x->has_fid2, &x->fid2);
	case 13:
		if (*have_comm)
			return false;
		copy_comm(x->comm, b, n);
		*have_comm = true;
		return true;
	default:
		return false;
	}
}

/*
 * A vfs body, its fields in any order, into ev->vfs, allocated here;
 * false (and nothing allocated) for one the fast path would not take.
 */
static bool fast_vfs(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
		     struct event *ev)
{
	struct event_vfs *x = calloc(1, sizeof(*x));
	bool have_comm = false;
	const uint8_t *b, *be;
	uint64_t tag, v;

	if (!x)
		return false;
	while (p < end) {
		if (!get_varint(&p, end, lim, &tag))
			goto refuse;
		if ((tag & 7) == WT_VARINT) {
			if (!get_varint(&p, end, lim, &v) || !vfs_field(x, tag, v))
				goto refuse;
			continue;
		}
		if ((tag & 7) != WT_LEN || !get_len(&p, end, lim, &b, &be) ||
		    !vfs_bytes(x, tag >> 3, b, (size_t)(be - b), &have_comm))
			goto refuse;
	}
	ev->vfs = x;
	return true;
refuse:
	free(x);
	return false;
}

/* The event type of a top-level field, EV_NONE for one we do not know. */
static inline enum event_type oneof_type(uint64_t tag)
{
	switch (tag) {
	case TAG(2, WT_LEN):
		return EV_IO;
	case TAG(3, WT_LEN):
		return EV_DEVICE;
	case TAG(4, WT_LEN):
		return EV_FS_META;
	case TAG(5, WT_LEN):
		return EV_COMPLETION;
	case TAG(6, WT_LEN):
		return EV_FILE_NAME;
	case TAG(7, WT_LEN):
		return EV_FILE_EVENT;
	case TAG(20, WT_LEN):
		return EV_SPLIT;
	case TAG(21, WT_LEN):
		return EV_DISPATCH;
	case TAG(22, WT_LEN):
		return EV_VFS;
	default:
		return EV_NONE;
	}
}

/* The body [p, end) of an event of type ev->type. */
static inline bool fast_body(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
			     struct event *ev)
{
	switch (ev->type) {
	case EV_IO:
		return fast_io(p, end, lim, ev);
	case EV_FS_META:
		return fast_meta(p, end, lim, ev);
	case EV_COMPLETION:
		return fast_completion(p, end, lim, ev);
	case EV_SPLIT:
		return fast_split(p, end, lim, ev);
	case EV_DISPATCH:
		return fast_dispatch(p, end, lim, ev);
	case EV_VFS:
		return fast_vfs(p, end, lim, ev);
	default:
		/* strings and rare events: protobuf-c */
		return false;
	}
}

/*
 * What the fast path left when it gave up after the body: a vfs body's
 * struct, before protobuf-c's turn (decode__event_slow() clears *ev).
 */
static void drop_fast(struct event *ev)
{
	if (ev->type == EV_VFS) {
		free(ev->vfs);
		ev->vfs = NULL;
	}
}

/*
 * 1: decoded; DECODE_SKIPPED + 1: a type not asked for; 0: not sure,
 * protobuf-c's turn.
 */
static int fast_event(const uint8_t *p, const uint8_t *end, const uint8_t *lim,
		      struct event *ev, unsigned int types)
{
	bool have_header = false, skipped = false;
	const uint8_t *b, *be;
	enum event_type t;
	uint64_t tag;

	while (p < end) {
		if (!get_varint(&p, end, lim, &tag) || (tag & 7) != WT_LEN ||
		    !get_len(&p, end, lim, &b, &be))
			return 0;
		if (tag == TAG(1, WT_LEN)) {
			if (have_header || !fast_header(b, be, lim, ev))
				return 0;
			have_header = true;
			continue;
		}
		/* one event per record; two would be protobuf-c's oneof rules */
		t = oneof_type(tag);
		if (ev->type != EV_NONE || skipped || t == EV_NONE)
			return 0;
		if (!(types & EV_BIT(t))) {
			skipped = true;
			continue;
		}
		ev->type = t;
		if (!fast_body(b, be, lim, ev))
			return 0;
	}
	if (skipped || !(types & EV_BIT(ev->type)))
		return DECODE_SKIPPED + 1;
	return 1;
}

void event__file_id(const Octf__Proto__Trace__FileId *f, struct file_id *out)
{
	memset(out, 0, sizeof(*out));
	if (!f)
		return;
	out->part = f->partitionid;
	out->ino = f->id;
	if (f->creationdate) {
		out->sec = f->creationdate->seconds;
		out->nsec = f->creationdate->nanos;
	}
}

/* The fields of a vfs message; NULL if out of memory */
static struct event_vfs *vfs_from_pb(const Octf__Proto__Trace__EventVfs *v)
{
	struct event_vfs *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->id = v->id;
	x->call = (int32_t)v->call;
	x->pid = v->pid;
	x->tid = v->tid;
	x->fd = v->fd;
	x->has_fid = v->fileid != NULL;
	event__file_id(v->fileid, &x->fid);
	x->offset = v->offset;
	x->size = v->size;
	x->result = v->result;
	x->duration = v->duration;
	x->dev = v->deviceid;
	x->cgroup = v->cgroupid;
	if (v->comm)
		copy_comm(x->comm, (const uint8_t *)v->comm, strlen(v->comm));
	x->flags = v->flags;
	x->created = v->created;
	x->fd2 = v->fd2;
	x->has_fid2 = v->fileid2 != NULL;
	event__file_id(v->fileid2, &x->fid2);
	x->offset2 = v->offset2;
	x->uring_op = v->uringopcode;
	return x;
}

static void from_pb(const Octf__Proto__Trace__Event *pb, struct event *ev)
{
	if (pb->header) {
		ev->sid = pb->header->sid;
		ev->ts = pb->header->timestamp;
	}
	switch (pb->event_type_case) {
	case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO: {
		const Octf__Proto__Trace__EventIo *io = pb->io;

		ev->type = EV_IO;
		ev->io.id = io->id;
		ev->io.lba = io->lba;
		ev->io.dev = io->deviceid;
		ev->io.part = io->partitionid;
		ev->io.len = io->len;
		ev->io.io_class = io->ioclass;
		ev->io.write_hint = io->writehint;
		ev->io.pid = io->pid;
		ev->io.tid = io->tid;
		ev->io.op = (int32_t)io->operation;
		ev->io.flags = (io->flush ? IOF_FLUSH : 0) | (io->fua ? IOF_FUA : 0) |
			       (io->sync ? IOF_SYNC : 0) | (io->metadata ? IOF_META : 0) |
			       (io->readahead ? IOF_READAHEAD : 0) |
			       (io->requestonly ? IOF_REQUEST_ONLY : 0) |
			       (io->writezeroes ? IOF_WRITE_ZEROES : 0) |
			       (io->direct ? IOF_DIRECT : 0);
		ev->io.cgroup = io->cgroupid;
		ev->io.vfs_call = io->vfscallid;
		if (io->comm)
			copy_comm(ev->io.comm, (const uint8_t *)io->comm, strlen(io->comm));
		break;
	}
	case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION: {
		const Octf__Proto__Trace__EventIoCompletion *c = pb->iocompletion;

		ev->type = EV_COMPLETION;
		ev->cpl.ref = c->refid;
		ev->cpl.lba = c->lba;
		ev->cpl.dev = c->deviceid;
		ev->cpl.len = c->len;
		ev->cpl.status = c->status;
		ev->cpl.error = c->error;
		break;
	}
	case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_META: {
		const Octf__Proto__Trace__EventIoFilesystemMeta *m = pb->filesystemmeta;

		ev->type = EV_FS_META;
		ev->meta.ref = m->refsid;
		event__file_id(m->fileid, &ev->meta.fid);
		ev->meta.offset = m->fileoffset;
		ev->meta.size = m->filesize;
		break;
	}
	case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_SPLIT: {
		const Octf__Proto__Trace__EventIoSplit *s = pb->iosplit;

		ev->type = EV_SPLIT;
		ev->split.id = s->id;
		ev->split.parent = s->parentid;
		ev->split.dev = s->deviceid;
		ev->split.lba = s->lba;
		ev->split.parent_lba = s->parentlba;
		ev->split.len = s->len;
		break;
	}
	case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_DISPATCH: {
		const Octf__Proto__Trace__EventIoDispatch *d = pb->iodispatch;

		ev->type = EV_DISPATCH;
		ev->disp.id = d->id;
		ev->disp.dev = d->deviceid;
		ev->disp.lba = d->lba;
		ev->disp.rq = d->requestid;
		ev->disp.len = d->len;
		ev->disp.bios = d->biocount;
		break;
	}
	case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_DEVICE_DESCRIPTION:
		ev->type = EV_DEVICE;
		break;
	case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_NAME:
		ev->type = EV_FILE_NAME;
		break;
	case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_FILESYSTEM_FILE_EVENT:
		ev->type = EV_FILE_EVENT;
		break;
	case OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_VFS:
		ev->type = EV_VFS;
		break;
	default:
		ev->type = EV_NONE;
		break;
	}
}

/*
 * The end of the header of a record laid out as every encoder writes it
 * (the header first, with a one-byte length), else NULL; 8 bytes at least,
 * for get_varint().
 */
static inline const uint8_t *header_end(const uint8_t *msg, size_t len)
{
	if (len < 8 || msg[0] != TAG(1, WT_LEN) || msg[1] >= 0x80 || (size_t)msg[1] + 2 > len)
		return NULL;
	return msg + 2 + msg[1];
}

/* The sid of such a header, if it is the header's first field; *after: what follows it */
static inline bool header_sid(const uint8_t *msg, const uint8_t *hend, const uint8_t *lim,
			      uint64_t *sid, const uint8_t **after)
{
	const uint8_t *p = msg + 3;

	if (p > hend || msg[2] != TAG(1, WT_VARINT) || !get_varint(&p, hend, lim, sid))
		return false;
	*after = p;
	return true;
}

unsigned int decode__peek_record(const uint8_t *msg, size_t len, struct decode_peek *pk)
{
	const uint8_t *p, *hend = header_end(msg, len), *end = msg + len;
	unsigned int got = 0;
	uint64_t tag, n;

	pk->got = 0;
	if (!hend)
		return 0;
	if (header_sid(msg, hend, end, &pk->sid, &pk->hsid))
		got |= DECODE_PEEK_SID;
	/* then one event field that ends the record */
	p = hend;
	if (p < end && get_varint(&p, end, end, &tag) && get_varint(&p, end, end, &n) &&
	    n == (uint64_t)(end - p)) {
		pk->type = oneof_type(tag);
		if (pk->type != EV_NONE)
			got |= DECODE_PEEK_TYPE;
	}
	pk->hend = hend;
	pk->body = p;
	pk->got = got;
	return got;
}

unsigned int decode__peek(const uint8_t *msg, size_t len, enum event_type *type, uint64_t *sid)
{
	struct decode_peek pk;
	unsigned int got = decode__peek_record(msg, len, &pk);

	if (got & DECODE_PEEK_SID)
		*sid = pk.sid;
	if (got & DECODE_PEEK_TYPE)
		*type = pk.type;
	return got;
}

bool decode__peek_sid(const uint8_t *msg, size_t len, uint64_t *sid)
{
	const uint8_t *hend = header_end(msg, len);

	/* the event field is not looked at */
	const uint8_t *after;

	return hend && header_sid(msg, hend, msg + len, sid, &after);
}

bool decode__peek_type(const uint8_t *msg, size_t len, enum event_type *type)
{
	uint64_t sid;

	return decode__peek(msg, len, type, &sid) & DECODE_PEEK_TYPE;
}

int decode__event_slow(const uint8_t *msg, size_t len, struct event *ev)
{
	Octf__Proto__Trace__Event *pb;

	memset(ev, 0, sizeof(*ev));
	pb = octf__proto__trace__event__unpack(NULL, len, msg);
	if (!pb)
		return -EPROTO;
	from_pb(pb, ev);
	if (ev->type == EV_VFS) {
		ev->vfs = vfs_from_pb(pb->vfs);
		octf__proto__trace__event__free_unpacked(pb, NULL);
		return ev->vfs ? 0 : -ENOMEM;
	}
	/* the rare types keep their message: they carry strings */
	if (ev->type == EV_DEVICE || ev->type == EV_FILE_NAME || ev->type == EV_FILE_EVENT)
		ev->pb = pb;
	else
		octf__proto__trace__event__free_unpacked(pb, NULL);
	return 0;
}

/* fast_event() of a whole record; no real record is shorter than get_varint()'s 8 bytes */
static inline int fast_record(const uint8_t *msg, size_t len, struct event *ev,
			      unsigned int types)
{
	return len >= 8 ? fast_event(msg, msg + len, msg + len, ev, types) : 0;
}

int decode__event(const uint8_t *msg, size_t len, struct event *ev, unsigned int types)
{
	/* a struct copy, not memset: gcc makes the memset a slow `rep stos` */
	static const struct event zero;
	int ret;

	*ev = zero;
	ret = fast_record(msg, len, ev, types);
	if (ret)
		return ret - 1;
	drop_fast(ev);
	ret = decode__event_slow(msg, len, ev);
	if (!ret && !(types & EV_BIT(ev->type))) {
		decode__release(ev);
		return DECODE_SKIPPED;
	}
	return ret;
}

int decode__event_peeked(const uint8_t *msg, size_t len, const struct decode_peek *pk,
			 struct event *ev, unsigned int types)
{
	static const struct event zero;
	int ret;

	if ((pk->got & (DECODE_PEEK_SID | DECODE_PEEK_TYPE)) != (DECODE_PEEK_SID | DECODE_PEEK_TYPE))
		return decode__event(msg, len, ev, types);
	/* fast_event() would find the header and the one event field where the peek did */
	*ev = zero;
	ev->sid = pk->sid;
	if (fast_header_rest(pk->hsid, pk->hend, msg + len, ev)) {
		if (!(types & EV_BIT(pk->type)))
			return DECODE_SKIPPED;
		ev->type = pk->type;
		if (fast_body(pk->body, msg + len, msg + len, ev))
			return 0;
	}
	drop_fast(ev);
	ret = decode__event_slow(msg, len, ev);
	if (!ret && !(types & EV_BIT(ev->type))) {
		decode__release(ev);
		return DECODE_SKIPPED;
	}
	return ret;
}

/* A bytes field of a split into *ev: false for one the fast path would not take */
static bool split_bytes(const struct delta_field *f, enum event_type t, bool *have_fid,
			struct event *ev)
{
	if (t == EV_IO && TAG(f->field, WT_LEN) == IO_COMM) {
		copy_comm(ev->io.comm, f->p, (size_t)f->v);
		return true;
	}
	if (t != EV_FS_META || TAG(f->field, WT_LEN) != META_FILE_ID)
		return false;
	return file_id_of(f->p, (size_t)f->v, have_fid, &ev->meta.fid);
}

/*
 * A split's fields come in the order of the message, and a type's records
 * mostly have the same ones: read in that order first, as IN_ORDER does
 * (a switch per field cost a tenth of a run in mispredicted jumps).
 */
#define SPLIT_IN_ORDER(fn, store)                                           \
	do {                                                                \
		if (f < fend && f->field == (fn) && !f->p) {                \
			v = f->v;                                           \
			store;                                              \
			f++;                                                \
		}                                                           \
	} while (0)

/* The fields of an io, the most common event, in the order our encoder writes them */
static const struct delta_field *split_io_in_order(const struct delta_field *f,
						    const struct delta_field *fend,
						    struct event *ev)
{
	uint64_t v;

	SPLIT_IN_ORDER(1, ev->io.lba = v);
	SPLIT_IN_ORDER(2, ev->io.len = (uint32_t)v);
	SPLIT_IN_ORDER(3, ev->io.io_class = (uint32_t)v);
	SPLIT_IN_ORDER(4, ev->io.dev = v);
	SPLIT_IN_ORDER(5, ev->io.op = (int32_t)(uint32_t)v);
	SPLIT_IN_ORDER(6, ev->io.flags |= IOF_FLUSH);
	SPLIT_IN_ORDER(7, ev->io.flags |= IOF_FUA);
	SPLIT_IN_ORDER(8, ev->io.write_hint = (uint32_t)v);
	SPLIT_IN_ORDER(9, ev->io.id = v);
	SPLIT_IN_ORDER(20, ev->io.part = v);
	SPLIT_IN_ORDER(21, ev->io.flags |= IOF_SYNC);
	SPLIT_IN_ORDER(22, ev->io.flags |= IOF_META);
	SPLIT_IN_ORDER(23, ev->io.flags |= IOF_READAHEAD);
	SPLIT_IN_ORDER(24, ev->io.flags |= IOF_REQUEST_ONLY);
	SPLIT_IN_ORDER(25, ev->io.flags |= IOF_WRITE_ZEROES);
	SPLIT_IN_ORDER(26, ev->io.pid = (uint32_t)v);
	SPLIT_IN_ORDER(27, ev->io.tid = (uint32_t)v);
	SPLIT_IN_ORDER(28, ev->io.cgroup = v);
	if (f < fend && f->field == 29 && f->p) {
		copy_comm(ev->io.comm, f->p, (size_t)f->v);
		f++;
	}
	SPLIT_IN_ORDER(30, ev->io.flags |= IOF_DIRECT);
	SPLIT_IN_ORDER(31, ev->io.vfs_call = v);
	return f;
}

static const struct delta_field *split_completion_in_order(const struct delta_field *f,
							    const struct delta_field *fend,
							    struct event *ev)
{
	uint64_t v;

	SPLIT_IN_ORDER(1, ev->cpl.lba = v);
	SPLIT_IN_ORDER(2, ev->cpl.len = (uint32_t)v);
	SPLIT_IN_ORDER(3, ev->cpl.error = true);
	SPLIT_IN_ORDER(4, ev->cpl.dev = v);
	SPLIT_IN_ORDER(5, ev->cpl.ref = v);
	SPLIT_IN_ORDER(20, ev->cpl.status = (int32_t)(uint32_t)v);
	return f;
}


/*
 * The fields of a vfs split into ev->vfs, allocated here; false (and
 * nothing allocated) for one the fast path would not take. Fields come
 * in any order; a second comm would be protobuf-c's to merge.
 */
static bool split_vfs(const struct delta_field *f, const struct delta_field *fend,
		      struct event *ev)
{
	struct event_vfs *x = calloc(1, sizeof(*x));
	bool have_comm = false, ok = x != NULL;

	for (; ok && f < fend; f++) {
		if (!f->p)
			ok = vfs_field(x, TAG(f->field, WT_VARINT), f->v);
		else
			ok = vfs_bytes(x, f->field, f->p, (size_t)f->v, &have_comm);
	}
	if (!ok) {
		free(x);
		return false;
	}
	ev->vfs = x;
	return true;
}

int decode__split(const struct delta_split *s, struct event *ev, unsigned int types)
{
	static const struct event zero;
	enum event_type t = oneof_type(TAG(s->type, WT_LEN));
	const struct delta_field *f = s->f, *fend = s->f + s->n;
	bool have_fid = false;

	*ev = zero;
	if (t == EV_NONE)
		return DECODE_UNSURE;
	ev->sid = s->sid;
	ev->ts = s->ts;
	if (!(types & EV_BIT(t)))
		return DECODE_SKIPPED;
	ev->type = t;
	/*
	 * the rare types keep their message (their strings), which only
	 * protobuf-c makes: a device description of no fields (all zero) had
	 * no field here to send it there, and left a device without one
	 */
	if (t == EV_DEVICE || t == EV_FILE_NAME || t == EV_FILE_EVENT)
		return DECODE_UNSURE;
	if (t == EV_VFS)
		return split_vfs(f, fend, ev) ? 0 : DECODE_UNSURE;
	if (t == EV_IO)
		f = split_io_in_order(f, fend, ev);
	else if (t == EV_COMPLETION)
		f = split_completion_in_order(f, fend, ev);
	/* numbers are never 0 in a split: a flag field sets its flag */
	for (; f < fend; f++) {
		uint64_t tag = TAG(f->field, WT_VARINT);
		bool ok;

		if (f->p) {
			ok = split_bytes(f, t, &have_fid, ev);
		} else {
			switch (t) {
			case EV_IO:
				ok = io_field(ev, tag, f->v);
				break;
			case EV_COMPLETION:
				ok = completion_field(ev, tag, f->v);
				break;
			case EV_FS_META:
				ok = meta_field(ev, tag, f->v);
				break;
			case EV_SPLIT:
				ok = split_field(ev, tag, f->v);
				break;
			case EV_DISPATCH:
				ok = dispatch_field(ev, tag, f->v);
				break;
			default:
				/* strings and rare events: protobuf-c */
				ok = false;
				break;
			}
		}
		if (!ok)
			return DECODE_UNSURE;
	}
	return 0;
}

enum event_type decode__split_type(const struct delta_split *s)
{
	return oneof_type(TAG(s->type, WT_LEN));
}

bool decode__fast_takes(const uint8_t *msg, size_t len)
{
	struct event ev = { 0 };
	int r = fast_record(msg, len, &ev, EV_ALL);

	if (r == 1)
		decode__release(&ev);
	else
		drop_fast(&ev);
	return r == 1;
}

void decode__release(struct event *ev)
{
	switch (ev->type) {
	case EV_VFS:
		free(ev->vfs);
		ev->vfs = NULL;
		break;
	case EV_DEVICE:
	case EV_FILE_NAME:
	case EV_FILE_EVENT:
		if (ev->pb)
			octf__proto__trace__event__free_unpacked(ev->pb, NULL);
		ev->pb = NULL;
		break;
	default:
		break;
	}
}
