// SPDX-License-Identifier: BSD-3-Clause
/*
 * Records live in a ring in submission order: record number n (counted
 * from the start of the trace) sits at ring[n % cap] while head <= n <
 * tail. The in-flight map goes from bio id to that number; a record moved
 * to the end list (`late`) is found as LATE | its index there instead. The
 * LBA index (device, first sector) -> record, which only dispatches need,
 * is built at the first dispatch, so traces without them never pay for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "file_names.h"
#include "join.h"
#include "name_pass.h"
#include "u64map.h"

#define LATE (1ull << 63)
#define RING_MIN 1024

/* internal: the record was moved to the end list; its ring slot is a hole */
#define IO_MOVED ((enum io_state)(IO_PENDING + 1))

struct join {
	unsigned int flags;
	struct join_sink sink;
	struct join_counts counts;

	struct io_rec *ring;
	size_t cap;
	uint64_t head, tail;

	struct io_rec *late;
	size_t nlate, late_cap;

	/* the records before these have kept their paths (keep_paths()) */
	uint64_t kept_tail;
	size_t kept_late;

	struct u64map inflight;
	struct u64map by_lba;
	bool lba_index;

	struct device **devs;
	size_t ndevs, devs_cap;
	struct u64map dev_idx;		/* dev_t -> index */
	struct u64map part_dev;		/* partition dev_t -> device index, from file metadata */
	struct device *last_dev;

	struct file_names *files;
	bool names_final;	/* join__preload_names() ran: name events change nothing */
	bool have_ts0;
	uint64_t ts0;

	/* JOIN_DEFER: events about I/Os this join has not seen, in order */
	struct event *deferred;
	size_t ndeferred, deferred_cap;
	/*
	 * JOIN_DEFER: the ids its I/Os were submitted under, as a Bloom
	 * filter (SUBMITTED_BITS, two bits an id). An I/O of the range
	 * before that never completed would, in one pass, be lost to the
	 * reuse of its id here (lost()), and counted so. A map of the ids
	 * took 3 ms of CPU on the upstream sample's --statistics (the whole
	 * run is 11); the filter a bit per I/O. A false "submitted"
	 * (about 1 in 4,000 with 16,000 distinct ids) only miscounts an I/O
	 * that never completed as ended by the reuse of its id.
	 */
	uint64_t *submitted;
	bool needs_one_pass;
	/* join__finish_before(): records from this time on are dropped, not passed */
	uint64_t drop_from;
};

#define SUBMITTED_BITS (1u << 20)

static inline void submitted_bits(uint64_t id, uint32_t *a, uint32_t *b)
{
	uint64_t h = id * 0x9e3779b97f4a7c15ull;

	*a = (uint32_t)(h >> 44);
	*b = (uint32_t)(h >> 12) & (SUBMITTED_BITS - 1);
}

static void mark_submitted(uint64_t *submitted, uint64_t id)
{
	uint32_t a, b;

	submitted_bits(id, &a, &b);
	submitted[a / 64] |= 1ull << (a % 64);
	submitted[b / 64] |= 1ull << (b % 64);
}

static bool was_submitted(const uint64_t *submitted, uint64_t id)
{
	uint32_t a, b;

	submitted_bits(id, &a, &b);
	return (submitted[a / 64] >> (a % 64) & 1) && (submitted[b / 64] >> (b % 64) & 1);
}

struct join *join__new(unsigned int flags, const struct join_sink *sink)
{
	struct join *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	if (flags & JOIN_PATHS)
		flags |= JOIN_FILES;
	j->flags = flags;
	j->sink = *sink;
	j->cap = RING_MIN;
	j->drop_from = UINT64_MAX;
	j->ring = malloc(j->cap * sizeof(*j->ring));
	if (flags & JOIN_FILES)
		j->files = file_names__new();
	if (flags & JOIN_DEFER)
		j->submitted = calloc(SUBMITTED_BITS / 64, sizeof(*j->submitted));
	if (!j->ring || ((flags & JOIN_FILES) && !j->files) ||
	    ((flags & JOIN_DEFER) && !j->submitted)) {
		join__free(j);
		return NULL;
	}
	return j;
}

int join__preload_names(struct join *j, struct trace *t, unsigned int threads)
{
	int err;

	if (!j->files)
		return 0;
	err = name_pass__run(t, j->files, threads);
	if (!err)
		j->names_final = true;
	return err;
}

unsigned int join__event_types(const struct join *j)
{
	unsigned int t = EV_BIT(EV_IO) | EV_BIT(EV_COMPLETION) | EV_BIT(EV_SPLIT) |
			 EV_BIT(EV_DISPATCH) | EV_BIT(EV_DEVICE);

	if (j->flags & JOIN_FILES)
		t |= EV_BIT(EV_FS_META) | EV_BIT(EV_FILE_NAME) | EV_BIT(EV_FILE_EVENT);
	if (j->flags & JOIN_VFS)
		t |= EV_BIT(EV_VFS);
	return t;
}

static inline struct io_rec *rec_of(struct join *j, uint64_t v)
{
	if (v & LATE)
		return &j->late[v & ~LATE];
	return &j->ring[v & (j->cap - 1)];
}

/* JOIN_DEFER: keeps ev for the join of the range before (join__finish_split). */
static int defer(struct join *j, const struct event *ev)
{
	if (j->ndeferred == j->deferred_cap) {
		size_t cap = j->deferred_cap ? j->deferred_cap * 2 : 64;
		struct event *nd = realloc(j->deferred, cap * sizeof(*nd));

		if (!nd)
			return -ENOMEM;
		j->deferred = nd;
		j->deferred_cap = cap;
	}
	/* the types deferred own nothing (no protobuf-c message, no vfs fields) */
	j->deferred[j->ndeferred++] = *ev;
	return 0;
}

static inline uint64_t lba_key(uint64_t dev, uint64_t lba)
{
	return lba ^ (dev * 0x9e3779b97f4a7c15ull);
}

/* ---- devices ---- */

static struct device *device_get(struct join *j, uint64_t id)
{
	struct device *d;
	uint64_t idx;

	if (j->last_dev && j->last_dev->id == id)
		return j->last_dev;
	if (u64map__get(&j->dev_idx, id, &idx)) {
		j->last_dev = j->devs[idx];
		return j->last_dev;
	}
	if (j->ndevs == j->devs_cap) {
		size_t cap = j->devs_cap ? j->devs_cap * 2 : 8;
		struct device **nd = realloc(j->devs, cap * sizeof(*nd));

		if (!nd)
			return NULL;
		j->devs = nd;
		j->devs_cap = cap;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->id = id;
	d->name = "";
	d->model = "";
	d->index = (unsigned int)j->ndevs;
	if (u64map__put(&j->dev_idx, id, j->ndevs)) {
		free(d);
		return NULL;
	}
	j->devs[j->ndevs++] = d;
	j->last_dev = d;
	return d;
}

static int set_string(const char **dst, const char *src)
{
	const char *s;

	if (!src)
		src = "";
	if (!strcmp(*dst, src))
		return 0;
	/* "" is the literal, never allocated: what is not empty is ours to free */
	s = *src ? strdup(src) : "";
	if (!s)
		return -ENOMEM;
	if (**dst)
		free((char *)*dst);
	*dst = s;
	return 0;
}

static int on_device(struct join *j, const struct event *ev)
{
	const Octf__Proto__Trace__EventDeviceDescription *dd = ev->pb->devicedescription;
	struct device *d = device_get(j, dd->id);

	if (!d || set_string(&d->name, dd->name) || set_string(&d->model, dd->model))
		return -ENOMEM;
	d->size = dd->size;
	d->described = true;
	return 0;
}

/* The device of a partition seen in file metadata, else one by that id. */
static struct device *partition_device(struct join *j, uint64_t part)
{
	uint64_t idx;

	if (u64map__get(&j->part_dev, part, &idx))
		return j->devs[idx];
	return device_get(j, part);
}

/* ---- handing records out ---- */

/* io_rec.time: ns from the trace's first event, 0 for one stamped before it */
static uint64_t time_of(const struct join *j, const struct io_rec *r)
{
	return r->ts >= j->ts0 ? r->ts - j->ts0 : 0;
}

/* r's time, and its path as of now: where it is handed out */
static void set_time_path(struct join *j, struct io_rec *r)
{
	r->time = time_of(j, r);
	r->path = r->path_kept;
	if (!r->path_kept) {
		r->path_len = 0;
		if ((j->flags & JOIN_PATHS) && r->file)
			r->path = file_names__path(j->files, r->file, &r->path_len);
	}
}

static void emit(struct join *j, struct io_rec *r)
{
	set_time_path(j, r);
	if (r->state == IO_NOT_COMPLETED)
		j->counts.not_completed++;
	j->sink.record(j->sink.ctx, r);
	free(r->path_kept);
	r->path_kept = NULL;
}

/*
 * join_sink.in_order: ring record r went to the end list; it is handed
 * out in its place, as it was when it went (its end-list copy owns the
 * kept path). Not one join__finish_before() dropped: its end-list copy,
 * and the path it owned, are gone.
 */
static void pass(struct join *j, const struct io_rec *r)
{
	struct io_rec c = *r;

	if (!j->sink.in_order || time_of(j, r) >= j->drop_from)
		return;
	c.state = IO_PENDING;
	set_time_path(j, &c);
	j->sink.record(j->sink.ctx, &c);
}

/*
 * Before a rename changes paths: each record not handed out yet keeps the
 * path it has now, the one of its time, since records wait for the
 * completions of those before them. A record keeps the path of the first
 * rename after it only: the names were those of its time until then. So
 * each rename visits only the records that came since the last one, and a
 * trace of many renames behind a long wait costs no more than one. A
 * path still missing a parent is left to be completed when handed out.
 */
static int keep_path(struct join *j, struct io_rec *r)
{
	const char *path;

	if (!r->file || r->path_kept || r->state == IO_MOVED)
		return 0;
	path = file_names__path(j->files, r->file, &r->path_len);
	/* a parent not named yet may be named later: that adds, it changes nothing */
	if (!path || path[0] != '/')
		return 0;
	r->path_kept = strndup(path, r->path_len);
	return r->path_kept ? 0 : -ENOMEM;
}

static int keep_paths(struct join *j)
{
	uint64_t v = j->kept_tail > j->head ? j->kept_tail : j->head;
	size_t i;
	int err;

	for (; v < j->tail; v++) {
		err = keep_path(j, &j->ring[v & (j->cap - 1)]);
		if (err)
			return err;
	}
	for (i = j->kept_late; i < j->nlate; i++) {
		err = keep_path(j, &j->late[i]);
		if (err)
			return err;
	}
	j->kept_tail = j->tail;
	j->kept_late = j->nlate;
	return 0;
}

/* Hands out the records at the head that are complete. */
static void emit_ready(struct join *j)
{
	while (j->head < j->tail) {
		struct io_rec *r = &j->ring[j->head & (j->cap - 1)];

		if (r->state == IO_PENDING)
			break;
		if (r->state != IO_MOVED)
			emit(j, r);
		else
			pass(j, r);
		j->head++;
	}
}

/* Moves ring record v (value as in the maps) to the end list. */
static int move_late(struct join *j, uint64_t v)
{
	struct io_rec *r = rec_of(j, v);
	uint64_t nv, cur;

	if (v & LATE)
		return 0;
	if (j->nlate == j->late_cap) {
		size_t cap = j->late_cap ? j->late_cap * 2 : 64;
		struct io_rec *nl = realloc(j->late, cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		j->late = nl;
		j->late_cap = cap;
	}
	nv = LATE | j->nlate;
	j->late[j->nlate++] = *r;
	if (r->state == IO_PENDING) {
		if (u64map__get(&j->inflight, r->id, &cur) && cur == v)
			u64map__put(&j->inflight, r->id, nv);	/* replaces: cannot fail */
		if (j->lba_index && u64map__get(&j->by_lba, lba_key(r->dev->id, r->lba), &cur) &&
		    cur == v)
			u64map__put(&j->by_lba, lba_key(r->dev->id, r->lba), nv);
	}
	r->state = IO_MOVED;
	return 0;
}

/* Room for one more record at the tail; the oldest waiting one may go to the end list. */
static int ring_reserve(struct join *j)
{
	struct io_rec *nr;
	size_t ncap, i;
	int err;

	if (j->tail - j->head >= JOIN_QUEUE_LIMIT) {
		/* the head is pending (else it was handed out): stop waiting for it */
		err = move_late(j, j->head);
		if (err)
			return err;
		emit_ready(j);
	}
	if (j->tail - j->head < j->cap)
		return 0;
	ncap = j->cap * 2;
	nr = malloc(ncap * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	for (i = 0; i < j->tail - j->head; i++) {
		uint64_t n = j->head + i;

		nr[n & (ncap - 1)] = j->ring[n & (j->cap - 1)];
	}
	free(j->ring);
	j->ring = nr;
	j->cap = ncap;
	return 0;
}

/* ---- I/Os in flight ---- */

/* Drops record v from the LBA index (if it is the one indexed there). */
static void unmap_lba(struct join *j, struct io_rec *r, uint64_t v)
{
	uint64_t cur, key;

	if (!j->lba_index)
		return;
	key = lba_key(r->dev->id, r->lba);
	if (u64map__get(&j->by_lba, key, &cur) && cur == v)
		u64map__del(&j->by_lba, key);
}

static void dev_done(struct io_rec *r)
{
	struct device *d = (struct device *)r->dev;

	if (d->inflight)
		d->inflight--;
}

/*
 * Record v, in flight, is superseded: its id came again (the in-flight
 * map already points to the newcomer), so its completion was lost. It
 * goes to the end list as never completed.
 */
static int lost(struct join *j, uint64_t v)
{
	struct io_rec *r = rec_of(j, v);
	int err;

	unmap_lba(j, r, v);
	dev_done(r);
	r->state = IO_NOT_COMPLETED;
	r->error = true;
	j->counts.lost_by_reuse++;
	if (v & LATE)
		return 0;
	err = move_late(j, v);
	if (!err)
		emit_ready(j);
	return err;
}

/* A new record at the tail (its fields all to be set by the caller); NULL on ENOMEM. */
static struct io_rec *append(struct join *j, uint64_t *seq)
{
	if (ring_reserve(j))
		return NULL;
	*seq = j->tail++;
	return &j->ring[*seq & (j->cap - 1)];
}

static void count_qd(struct io_rec *r)
{
	struct device *d = (struct device *)r->dev;

	d->inflight++;
	r->qd = d->inflight > UINT32_MAX ? UINT32_MAX : (uint32_t)d->inflight;
}

/*
 * Puts r (record seq) in flight under its id; an I/O already in flight
 * with that id is lost. Then counts r in its device's queue depth (after:
 * the lost one is no longer in flight).
 */
static int track(struct join *j, struct io_rec *r, uint64_t seq)
{
	uint64_t old;
	int ret = u64map__swap(&j->inflight, r->id, seq, &old);

	if (ret < 0)
		return ret;
	if (ret) {
		ret = lost(j, old);
		if (ret)
			return ret;
	}
	count_qd(r);
	if (j->lba_index)
		return u64map__put(&j->by_lba, lba_key(r->dev->id, r->lba), seq);
	return 0;
}

/*
 * An io event with none of the fields iotrace adds (20 and up) is
 * Open-CAS's. Ours always names the submitting task: a pid or tid, or
 * the comm (the idle task, pid and tid 0, is swapper/N), but for those
 * written from the tracepoint's record alone, which have ioClass 0.
 */
static bool opencas_io(const struct event *ev)
{
	return !ev->io.pid && !ev->io.tid && !ev->io.comm[0] && !ev->io.part && !ev->io.cgroup &&
	       !ev->io.vfs_call && !(ev->io.flags & ~(IOF_FLUSH | IOF_FUA));
}

static int on_io(struct join *j, const struct event *ev)
{
	struct device *d;
	struct io_rec *r;
	uint64_t seq;

	d = device_get(j, ev->io.dev);
	if (!d)
		return -ENOMEM;
	r = append(j, &seq);
	if (!r)
		return -ENOMEM;
	r->path_kept = NULL;
	r->kind = REC_IO;
	r->state = IO_PENDING;
	r->sid = ev->sid;
	r->ts = ev->ts;
	r->dev = d;
	r->part = ev->io.part ? ev->io.part : d->id;
	r->id = ev->io.id;
	r->lba = r->whole_lba = ev->io.lba;
	r->len = r->whole_len = ev->io.len;
	r->split_child = false;
	r->passed = false;
	r->op = ev->io.op;
	r->flags = ev->io.flags;
	if (ev->io.io_class && opencas_io(ev)) {
		if (ev->io.io_class == IOCLASS_METADATA)
			r->flags |= IOF_META;
		else if (ev->io.io_class == IOCLASS_DIRECT)
			r->flags |= IOF_DIRECT;
	}
	r->write_hint = ev->io.write_hint;
	r->pid = ev->io.pid;
	r->tid = ev->io.tid;
	r->cgroup = ev->io.cgroup;
	memcpy(r->comm, ev->io.comm, sizeof(r->comm));
	r->vfs_call = ev->io.vfs_call;
	r->error = false;
	r->dispatched = false;
	r->latency = r->dispatch_ts = r->queue_time = r->device_time = 0;
	r->file = NULL;
	r->file_offset = r->file_size = 0;
	r->fs_event = 0;
	j->counts.ios++;
	if (r->pid || r->tid || r->comm[0])
		j->counts.process_ios++;
	if (j->submitted)
		mark_submitted(j->submitted, r->id);
	return track(j, r, seq);
}

static int on_completion(struct join *j, const struct event *ev)
{
	struct io_rec *r;
	uint64_t v;

	if (!u64map__take(&j->inflight, ev->cpl.ref, &v)) {
		if (j->flags & JOIN_DEFER)
			return defer(j, ev);
		j->counts.orphan_completions++;
		return 0;
	}
	r = rec_of(j, v);
	/*
	 * A completion names its range, unless it is 0 (Open-CAS's
	 * discards). Another range means another I/O under a reused id,
	 * whose submission is missing as well as r's completion (a stream
	 * lost or damaged): joined, it would lend r a latency of seconds.
	 */
	if (ev->cpl.len && (ev->cpl.lba != r->lba || ev->cpl.len != r->len)) {
		j->counts.foreign_completions++;
		return lost(j, v);
	}
	unmap_lba(j, r, v);
	dev_done(r);
	r->state = IO_COMPLETED;
	r->error = ev->cpl.error;
	if (ev->ts >= r->ts) {
		r->latency = ev->ts - r->ts;
	} else {
		r->latency = 0;
		j->counts.negative_latencies++;
	}
	if (r->dispatched)
		r->device_time = ev->ts >= r->dispatch_ts ? ev->ts - r->dispatch_ts : 0;
	j->counts.completed++;
	if (v & LATE)
		j->counts.late_completions++;
	else if (v == j->head)
		emit_ready(j);
	return 0;
}

static int on_split(struct join *j, const struct event *ev)
{
	struct io_rec *c, *p;
	struct device *d;
	uint64_t pv, seq;
	int err;

	if (ev->split.id == ev->split.parent ||
	    !u64map__get(&j->inflight, ev->split.parent, &pv)) {
		if ((j->flags & JOIN_DEFER) && ev->split.id != ev->split.parent)
			return defer(j, ev);
		j->counts.orphan_splits++;
		return 0;
	}
	d = ev->split.dev ? device_get(j, ev->split.dev) : (struct device *)rec_of(j, pv)->dev;
	if (!d)
		return -ENOMEM;
	c = append(j, &seq);
	if (!c)
		return -ENOMEM;
	/* append may have grown the ring or moved the parent to the end list */
	u64map__get(&j->inflight, ev->split.parent, &pv);
	p = rec_of(j, pv);
	*c = *p;
	/* a split's path is that of its own time */
	c->path_kept = NULL;
	c->sid = ev->sid;
	c->id = ev->split.id;
	c->dev = d;
	c->lba = ev->split.lba;
	c->len = ev->split.len;
	c->split_child = true;
	c->state = IO_PENDING;
	c->dispatched = false;
	c->dispatch_ts = c->queue_time = c->device_time = 0;
	j->counts.ios++;

	if (j->lba_index) {
		uint64_t cur;

		if (u64map__get(&j->by_lba, lba_key(p->dev->id, p->lba), &cur) && cur == pv)
			u64map__del(&j->by_lba, lba_key(p->dev->id, p->lba));
	}
	if (p->file)
		p->file_offset += ev->split.len;
	p->lba = ev->split.parent_lba;
	p->len = p->len >= ev->split.len ? p->len - ev->split.len : 0;
	if (j->lba_index) {
		err = u64map__put(&j->by_lba, lba_key(p->dev->id, p->lba), pv);
		if (err)
			return err;
	}
	return track(j, c, seq);
}

static int build_lba_index(struct join *j)
{
	uint64_t id, v;
	size_t pos = 0;
	int err;

	j->lba_index = true;
	while (u64map__next(&j->inflight, &pos, &id, &v)) {
		struct io_rec *r = rec_of(j, v);

		err = u64map__put(&j->by_lba, lba_key(r->dev->id, r->lba), v);
		if (err)
			return err;
	}
	return 0;
}

static void set_dispatch(struct io_rec *r, uint64_t ts)
{
	r->dispatched = true;
	r->dispatch_ts = ts;
	r->queue_time = ts >= r->ts ? ts - r->ts : 0;
}

/*
 * Dispatches, from sector next on, the in-flight I/Os that follow one
 * another on the device: up to bios of them and left sectors. Returns
 * false if it stopped where no I/O in flight starts: with JOIN_DEFER, the
 * next may be one the join has not seen.
 */
static bool dispatch_following(struct join *j, uint64_t dev, uint64_t next, uint64_t left,
			       uint32_t bios, uint64_t ts)
{
	struct io_rec *r;
	uint64_t v;
	uint32_t n;

	for (n = 0; n < bios && left; n++) {
		if (!u64map__get(&j->by_lba, lba_key(dev, next), &v))
			return false;
		r = rec_of(j, v);
		if (r->dev->id != dev || r->lba != next || r->state != IO_PENDING || !r->len)
			break;
		set_dispatch(r, ts);
		next += r->len;
		left -= left < r->len ? left : r->len;
	}
	return true;
}

/*
 * A request whose bios are on both sides of a split's cut would need the
 * two joins to walk it together, and the upper one has handed its I/Os
 * out by the time the lower one sees the request: the split gives up
 * (join__needs_one_pass()).
 */
static int on_dispatch(struct join *j, const struct event *ev)
{
	struct io_rec *r;
	uint64_t v, dev;
	int err;

	if (!j->lba_index) {
		err = build_lba_index(j);
		if (err)
			return err;
	}
	if (!u64map__get(&j->inflight, ev->disp.id, &v)) {
		if (j->flags & JOIN_DEFER)
			j->needs_one_pass = true;
		j->counts.orphan_dispatches++;
		return 0;
	}
	r = rec_of(j, v);
	set_dispatch(r, ev->ts);
	dev = ev->disp.dev ? ev->disp.dev : r->dev->id;
	/* the request's other bios follow the first, sector after sector */
	if (!dispatch_following(j, dev, r->lba + r->len,
				ev->disp.len > r->len ? ev->disp.len - r->len : 0,
				ev->disp.bios > 1 ? ev->disp.bios - 1 : 0, ev->ts) &&
	    (j->flags & JOIN_DEFER))
		j->needs_one_pass = true;
	return 0;
}

static int on_meta(struct join *j, const struct event *ev)
{
	struct file_node *f;
	struct io_rec *r;
	uint64_t v;

	if (!u64map__get(&j->inflight, ev->meta.ref, &v)) {
		j->counts.orphan_metas++;
		return 0;
	}
	r = rec_of(j, v);
	f = file_names__get(j->files, &ev->meta.fid);
	if (!f)
		return -ENOMEM;
	j->counts.file_ios++;
	r->file = f;
	r->file_offset = ev->meta.offset;
	r->file_size = ev->meta.size;
	r->fs_event = OCTF__PROTO__TRACE__FS_EVENT_TYPE__Access;
	file_node__set_size(f, ev->meta.size);
	/* upstream traces have no io.partitionId: the file's partition is the one */
	if (r->part == r->dev->id)
		r->part = ev->meta.fid.part;
	return u64map__put(&j->part_dev, ev->meta.fid.part, r->dev->index);
}

static int on_file_name(struct join *j, const struct event *ev)
{
	const Octf__Proto__Trace__EventIoFilesystemFileName *fnm = ev->pb->filesystemfilename;
	struct file_id id, parent;

	if (j->names_final)
		return 0;
	event__file_id(fnm->fileid, &id);
	event__file_id(fnm->fileparentid, &parent);
	if ((j->flags & JOIN_PATHS) &&
	    file_names__is_rename(j->files, &id, &parent, fnm->filename)) {
		int err = keep_paths(j);

		if (err)
			return err;
	}
	return file_names__set_name(j->files, &id, &parent, fnm->filename);
}

static int on_file_event(struct join *j, const struct event *ev)
{
	const Octf__Proto__Trace__EventIoFilesystemFileEvent *fe = ev->pb->filesystemfileevent;
	struct file_node *f;
	struct device *d;
	struct file_id id;
	struct io_rec *r;
	uint64_t seq;

	event__file_id(fe->fileid, &id);
	f = file_names__get(j->files, &id);
	d = partition_device(j, id.part);
	if (!f || !d)
		return -ENOMEM;
	r = append(j, &seq);
	if (!r)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	r->kind = REC_FS_EVENT;
	r->state = IO_COMPLETED;
	r->sid = ev->sid;
	r->ts = ev->ts;
	r->dev = d;
	r->part = id.part;
	r->file = f;
	r->file_size = file_node__size(f);
	r->fs_event = (int32_t)fe->fseventtype;
	j->counts.fs_events++;
	emit_ready(j);
	return 0;
}

/* ---- VFS calls ---- */

/*
 * The device of a file system (dev_t): a described device of that id (a
 * traced partition), else the disk its partition's I/Os went to, else an
 * undescribed one of that id; NULL rather than a new device.
 */
static const struct device *vfs_device(struct join *j, uint64_t part)
{
	const struct device *d = NULL;
	uint64_t idx;

	if (u64map__get(&j->dev_idx, part, &idx)) {
		d = j->devs[idx];
		if (d->described)
			return d;
	}
	if (u64map__get(&j->part_dev, part, &idx))
		return j->devs[idx];
	return d;
}

static int vfs_file(struct join *j, bool have, const struct file_id *id, struct file_node **f,
		    const char **path, size_t *len)
{
	if (!have || !j->files)
		return 0;
	*f = file_names__get(j->files, id);
	if (!*f)
		return -ENOMEM;
	if (j->flags & JOIN_PATHS)
		*path = file_names__path(j->files, *f, len);
	return 0;
}

static int on_vfs(struct join *j, const struct event *ev)
{
	const struct event_vfs *v = ev->vfs;
	struct vfs_rec r;
	int err;

	j->counts.vfs_calls++;
	if (!j->sink.vfs)
		return 0;
	vfs_rec__fill(&r, ev);
	r.time = r.ts >= j->ts0 ? r.ts - j->ts0 : 0;
	/* modulo 2^64, then signed: a call that began before the first event is < 0 */
	r.start = (int64_t)(r.ts - r.duration - j->ts0);
	r.dev = vfs_device(j, r.part);
	err = vfs_file(j, v->has_fid, &v->fid, &r.file, &r.path, &r.path_len);
	if (!err)
		err = vfs_file(j, v->has_fid2, &v->fid2, &r.file2, &r.path2, &r.path2_len);
	if (err)
		return err;
	j->sink.vfs(j->sink.ctx, &r);
	return 0;
}

int join__event(struct join *j, const struct event *ev)
{
	if (!j->have_ts0 && ev->type != EV_NONE) {
		j->ts0 = ev->ts;
		j->have_ts0 = true;
	}
	switch (ev->type) {
	case EV_IO:
		return on_io(j, ev);
	case EV_COMPLETION:
		return on_completion(j, ev);
	case EV_SPLIT:
		return on_split(j, ev);
	case EV_DISPATCH:
		return on_dispatch(j, ev);
	case EV_DEVICE:
		return on_device(j, ev);
	case EV_FS_META:
		return j->files ? on_meta(j, ev) : 0;
	case EV_FILE_NAME:
		return j->files ? on_file_name(j, ev) : 0;
	case EV_FILE_EVENT:
		return j->files ? on_file_event(j, ev) : 0;
	case EV_VFS:
		return (j->flags & JOIN_VFS) ? on_vfs(j, ev) : 0;
	default:
		return 0;
	}
}

static int by_sid(const void *a, const void *b)
{
	const struct io_rec *x = a, *y = b;

	if (x->sid != y->sid)
		return x->sid < y->sid ? -1 : 1;
	return 0;
}

int join__finish(struct join *j)
{
	size_t i;
	int err;

	/* what still waits never completed: to the end list with the others */
	for (; j->head < j->tail; j->head++) {
		uint64_t v = j->head;
		struct io_rec *r = &j->ring[v & (j->cap - 1)];

		if (r->state == IO_MOVED) {
			pass(j, r);
			continue;
		}
		if (r->state != IO_PENDING) {
			emit(j, r);
			continue;
		}
		err = move_late(j, v);
		if (err)
			return err;
		pass(j, r);
	}
	for (i = 0; i < j->nlate; i++) {
		struct io_rec *r = &j->late[i];

		if (r->state == IO_PENDING) {
			dev_done(r);
			r->state = IO_NOT_COMPLETED;
			r->error = true;
		}
	}
	u64map__free(&j->inflight);
	u64map__free(&j->by_lba);
	j->lba_index = false;
	if (j->nlate)
		qsort(j->late, j->nlate, sizeof(*j->late), by_sid);
	for (i = 0; i < j->nlate; i++) {
		j->late[i].passed = j->sink.in_order;
		emit(j, &j->late[i]);
	}
	j->nlate = 0;
	return 0;
}

/* io_rec.time < to, with the time emit() gives it */
static bool before(const struct join *j, const struct io_rec *r, uint64_t to)
{
	return time_of(j, r) < to;
}

bool join__settled_before(const struct join *j, uint64_t to)
{
	uint64_t v;
	size_t i;

	for (v = j->head; v < j->tail; v++) {
		const struct io_rec *r = &j->ring[v & (j->cap - 1)];

		if (r->state == IO_PENDING && before(j, r, to))
			return false;
	}
	for (i = 0; i < j->nlate; i++)
		if (j->late[i].state == IO_PENDING && before(j, &j->late[i], to))
			return false;
	return true;
}

size_t join__held(const struct join *j)
{
	return (size_t)(j->tail - j->head) + j->nlate;
}

/* Pending record r leaves unseen, a hole in the ring as a moved record is. */
static void drop(struct io_rec *r)
{
	dev_done(r);
	free(r->path_kept);
	r->path_kept = NULL;
	r->state = IO_MOVED;
}

int join__finish_before(struct join *j, uint64_t to)
{
	uint64_t v;
	size_t i, kept = 0;

	j->drop_from = to;
	for (v = j->head; v < j->tail; v++) {
		struct io_rec *r = &j->ring[v & (j->cap - 1)];

		if (r->state == IO_PENDING && !before(j, r, to))
			drop(r);
	}
	/* no index into the end list is used after this: it can close its gaps */
	for (i = 0; i < j->nlate; i++) {
		if (j->late[i].state == IO_PENDING && !before(j, &j->late[i], to))
			drop(&j->late[i]);
		else
			j->late[kept++] = j->late[i];
	}
	j->nlate = kept;
	return join__finish(j);
}

/*
 * dst's I/Os still in flight after src's events: those whose id src
 * submitted again one pass would have counted lost by that reuse
 * (lost()). Both end as never completed all the same (join__finish).
 */
static void count_reused(struct join *dst, const uint64_t *submitted)
{
	uint64_t v;
	size_t i;

	for (v = dst->head; v < dst->tail; v++) {
		const struct io_rec *r = &dst->ring[v & (dst->cap - 1)];

		if (r->state == IO_PENDING && was_submitted(submitted, r->id))
			dst->counts.lost_by_reuse++;
	}
	for (i = 0; i < dst->nlate; i++)
		if (dst->late[i].state == IO_PENDING && was_submitted(submitted, dst->late[i].id))
			dst->counts.lost_by_reuse++;
}

static void add_counts(struct join_counts *d, const struct join_counts *s)
{
	d->ios += s->ios;
	d->completed += s->completed;
	d->not_completed += s->not_completed;
	d->lost_by_reuse += s->lost_by_reuse;
	d->late_completions += s->late_completions;
	d->fs_events += s->fs_events;
	d->orphan_completions += s->orphan_completions;
	d->foreign_completions += s->foreign_completions;
	d->orphan_splits += s->orphan_splits;
	d->orphan_dispatches += s->orphan_dispatches;
	d->orphan_metas += s->orphan_metas;
	d->negative_latencies += s->negative_latencies;
	d->vfs_calls += s->vfs_calls;
	d->file_ios += s->file_ios;
	d->process_ios += s->process_ios;
}

int join__finish_split(struct join *dst, struct join *src, unsigned int *map)
{
	size_t i;
	int err = 0;

	for (i = 0; i < src->ndeferred && !err; i++)
		err = join__event(dst, &src->deferred[i]);
	if (!err && src->submitted)
		count_reused(dst, src->submitted);
	if (!err)
		err = join__finish(dst);
	if (!err)
		err = join__finish(src);
	for (i = 0; i < src->ndevs && !err; i++) {
		const struct device *s = src->devs[i];
		struct device *d = device_get(dst, s->id);

		if (!d)
			return -ENOMEM;
		/* a later description wins, as in one pass */
		if (s->described) {
			if (set_string(&d->name, s->name) || set_string(&d->model, s->model))
				return -ENOMEM;
			d->size = s->size;
			d->described = true;
		}
		map[i] = d->index;
	}
	add_counts(&dst->counts, &src->counts);
	if (!dst->have_ts0) {
		dst->ts0 = src->ts0;
		dst->have_ts0 = src->have_ts0;
	}
	return err;
}

bool join__needs_one_pass(const struct join *j)
{
	return j->needs_one_pass;
}

const struct join_counts *join__counts(const struct join *j)
{
	return &j->counts;
}

size_t join__device_count(const struct join *j)
{
	return j->ndevs;
}

const struct device *join__device(const struct join *j, size_t i)
{
	return i < j->ndevs ? j->devs[i] : NULL;
}

const struct device *join__device_by_id(const struct join *j, uint64_t id)
{
	uint64_t idx;

	return u64map__get(&j->dev_idx, id, &idx) ? j->devs[idx] : NULL;
}

uint64_t join__first_ts(const struct join *j)
{
	return j->ts0;
}

void join__set_first_ts(struct join *j, uint64_t ts)
{
	j->ts0 = ts;
	j->have_ts0 = true;
}

void join__free(struct join *j)
{
	uint64_t v;
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->ndevs; i++) {
		if (*j->devs[i]->name)
			free((char *)j->devs[i]->name);
		if (*j->devs[i]->model)
			free((char *)j->devs[i]->model);
		free(j->devs[i]);
	}
	free(j->devs);
	u64map__free(&j->dev_idx);
	u64map__free(&j->part_dev);
	u64map__free(&j->inflight);
	u64map__free(&j->by_lba);
	file_names__free(j->files);
	free(j->deferred);
	free(j->submitted);
	for (v = j->head; j->ring && v < j->tail; v++)
		if (j->ring[v & (j->cap - 1)].state != IO_MOVED)
			free(j->ring[v & (j->cap - 1)].path_kept);
	for (i = 0; i < j->nlate; i++)
		free(j->late[i].path_kept);
	free(j->late);
	free(j->ring);
	free(j);
}
