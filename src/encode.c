// SPDX-License-Identifier: BSD-3-Clause
#include "encode.h"
#include "trace.pb-c.h"

static Octf__Proto__Trace__IoType octf_operation(uint8_t op)
{
	switch (op) {
	case IOTRACE_OP_READ:
		return OCTF__PROTO__TRACE__IO_TYPE__Read;
	case IOTRACE_OP_DISCARD:
		return OCTF__PROTO__TRACE__IO_TYPE__Discard;
	/*
	 * OCTF has no flush or write-zeroes operation: Open-CAS reports a
	 * flush as a Write with the flush flag, and so do we.
	 */
	case IOTRACE_OP_WRITE:
	case IOTRACE_OP_FLUSH:
	case IOTRACE_OP_WRITE_ZEROES:
		return OCTF__PROTO__TRACE__IO_TYPE__Write;
	default:
		return OCTF__PROTO__TRACE__IO_TYPE__UnknownIoType;
	}
}

static void fill_io(Octf__Proto__Trace__EventIo *io, const struct iotrace_event *e)
{
	io->lba = e->sector;
	io->len = e->nr_sector;
	io->deviceid = e->dev;
	io->operation = octf_operation(e->op);
	io->flush = (e->flags & IOTRACE_F_PREFLUSH) || e->op == IOTRACE_OP_FLUSH;
	io->fua = !!(e->flags & IOTRACE_F_FUA);
	io->writehint = e->write_hint;
	io->id = e->id;
	io->partitionid = e->part;
	io->sync = !!(e->flags & IOTRACE_F_SYNC);
	io->metadata = !!(e->flags & IOTRACE_F_META);
	io->readahead = !!(e->flags & IOTRACE_F_RAHEAD);
	io->requestonly = e->type == IOTRACE_EV_RQ_QUEUE;
	io->writezeroes = e->op == IOTRACE_OP_WRITE_ZEROES;
	io->pid = e->pid;
	io->tid = e->tid;
}

size_t encode__event(const struct iotrace_event *e, uint8_t *buf)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventIo io = OCTF__PROTO__TRACE__EVENT_IO__INIT;
	Octf__Proto__Trace__EventIoCompletion cmpl = OCTF__PROTO__TRACE__EVENT_IO_COMPLETION__INIT;
	Octf__Proto__Trace__EventIoSplit split = OCTF__PROTO__TRACE__EVENT_IO_SPLIT__INIT;
	Octf__Proto__Trace__EventIoDispatch disp = OCTF__PROTO__TRACE__EVENT_IO_DISPATCH__INIT;

	hdr.sid = e->sid;
	hdr.timestamp = e->ts;
	ev.header = &hdr;

	switch (e->type) {
	case IOTRACE_EV_QUEUE:
	case IOTRACE_EV_RQ_QUEUE:
		fill_io(&io, e);
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO;
		ev.io = &io;
		break;
	case IOTRACE_EV_COMPLETE:
	case IOTRACE_EV_RQ_COMPLETE:
		/*
		 * The completion's sector range is not meaningful (the bio's
		 * iterator is consumed by then); the I/O is found by refId.
		 */
		cmpl.error = e->error != 0;
		cmpl.status = e->error;
		cmpl.deviceid = e->dev;
		cmpl.refid = e->id;
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_COMPLETION;
		ev.iocompletion = &cmpl;
		break;
	case IOTRACE_EV_SPLIT:
		split.id = e->id;
		split.parentid = e->ref;
		split.deviceid = e->dev;
		split.lba = e->sector;
		split.len = e->nr_sector;
		split.parentlba = e->aux64;
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_SPLIT;
		ev.iosplit = &split;
		break;
	case IOTRACE_EV_ISSUE:
		disp.id = e->id;
		disp.deviceid = e->dev;
		disp.lba = e->sector;
		disp.len = e->nr_sector;
		disp.biocount = e->aux;
		disp.requestid = e->ref;
		ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_IO_DISPATCH;
		ev.iodispatch = &disp;
		break;
	default:
		return 0;
	}
	return octf__proto__trace__event__pack(&ev, buf);
}

size_t encode__device(const struct device_info *d, uint64_t sid, uint64_t ts, uint8_t *buf)
{
	Octf__Proto__Trace__Event ev = OCTF__PROTO__TRACE__EVENT__INIT;
	Octf__Proto__Trace__EventHeader hdr = OCTF__PROTO__TRACE__EVENT_HEADER__INIT;
	Octf__Proto__Trace__EventDeviceDescription desc =
		OCTF__PROTO__TRACE__EVENT_DEVICE_DESCRIPTION__INIT;

	hdr.sid = sid;
	hdr.timestamp = ts;
	desc.id = d->dev;
	/* the const-less protobuf-c string fields are only read by pack */
	desc.name = (char *)d->name;
	desc.size = d->size;
	desc.model = (char *)d->model;
	ev.header = &hdr;
	ev.event_type_case = OCTF__PROTO__TRACE__EVENT__EVENT_TYPE_DEVICE_DESCRIPTION;
	ev.devicedescription = &desc;
	return octf__proto__trace__event__pack(&ev, buf);
}
