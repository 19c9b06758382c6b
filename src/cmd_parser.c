// SPDX-License-Identifier: BSD-3-Clause
/* iotrace -P|--trace-parser: print the events of a trace. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "merge.h"
#include "raw_view.h"
#include "trace.h"
#include "summary.h"
#include "trace_store.h"

/* how often (in events) a long run looks for a failed write */
#define WRITE_CHECK_EVERY 4096

enum {
	OPT_IO = 0x100,
	OPT_RAW,
};

static const struct option parser_opts[] = {
	{ "io", no_argument, NULL, OPT_IO },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "path", required_argument, NULL, 'p' },
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'H' },
	{ NULL, 0, NULL, 0 },
};

void cmd_parser_help(FILE *out)
{
	fputs("Usage: iotrace -P|--trace-parser --io --raw -p|--path PATH [-f|--format json|csv]\n\n"
	      "Options:\n"
	      "  --io                      the I/O view; with --raw: every event as recorded,\n"
	      "                            in sequence (sid) order\n"
	      "  --raw                     events as recorded, not joined into I/Os\n"
	      "  -p, --path PATH           the trace: relative to the trace repository\n"
	      "                            (e.g. kernel/2026-11-21_10:00:00) or an absolute\n"
	      "                            directory\n"
	      "  -f, --format json|csv     JSON Lines, one event per line (default), or CSV\n"
	      "                            with one column per field\n"
	      "  -H, --help                show this help\n\n"
	      "Exit status: 0 done, 1 error, 2 bad command line, 3 the trace is damaged\n"
	      "(everything before the damage was printed).\n\n"
	      "Examples:\n"
	      "  iotrace --trace-parser --io --raw --path kernel/2026-11-21_10:00:00\n"
	      "  iotrace -P --io --raw -p /tmp/mytrace -f csv > events.csv\n", out);
}

static const char *damage_reason(int err)
{
	switch (err) {
	case -ENODATA:
		return "truncated record";
	case -EBADMSG:
		return "corrupted record";
	case -EPROTO:
		return "record does not decode";
	default:
		return strerror(-err);
	}
}

static int open_error(const char *path, int err)
{
	if (err == -EMEDIUMTYPE)
		cli_err("'%s' is not a trace (no octf.summary or octf.trace.* files)", path);
	else
		cli_err("cannot open trace '%s': %s", path, strerror(-err));
	return EXIT_ERROR;
}

/*
 * What the summary knows and the streams cannot show: events the kernel
 * could not hand over while tracing, and a tracer that died (its last
 * second of buffered events never reached the disk). Upstream traces have
 * the same fields.
 */
static int summary_warnings(const char *dir)
{
	struct summary s;

	if (summary__read(dir, &s))
		return EXIT_OK;
	if (!strcmp(s.state, "RUNNING") && !store__trace_is_live(dir))
		cli_warn("the tracer of this trace died before finishing; its last second of events may be missing");
	if (s.dropped_events) {
		cli_warn("%llu events were lost while tracing (summary droppedEvents); output is partial",
			 (unsigned long long)s.dropped_events);
		return EXIT_PARTIAL;
	}
	return EXIT_OK;
}

static int print_raw(const char *path, const char *dir, enum raw_format fmt)
{
	/* static: stdout keeps using it until exit */
	static char out_buf[1 << 20];
	const Octf__Proto__Trace__Event *ev;
	struct raw_view *view = NULL;
	struct merge *m = NULL;
	struct trace *t;
	unsigned long n = 0;
	size_t i;
	int ret, r;

	t = trace__open(dir);
	if (!t)
		return open_error(path, -errno);
	m = merge__new(t);
	if (!m) {
		cli_err("cannot read trace '%s': %s", path, strerror(errno));
		ret = EXIT_ERROR;
		goto cleanup;
	}
	setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
	/* a closed pipe is reported as a write error, not a silent death */
	signal(SIGPIPE, SIG_IGN);
	view = raw_view__new(stdout, fmt);
	if (!view) {
		cli_err("out of memory");
		ret = EXIT_ERROR;
		goto cleanup;
	}

	while ((r = merge__next(m, &ev)) == 1) {
		raw_view__write(view, ev);
		if (++n % WRITE_CHECK_EVERY == 0 && raw_view__error(view))
			break;
	}
	if (r < 0) {
		raw_view__finish(view);
		cli_err("cannot read trace '%s': %s", path, strerror(-r));
		ret = EXIT_ERROR;
		goto cleanup;
	}
	r = raw_view__finish(view);
	if (r) {
		cli_err("cannot write output: %s", strerror(-r));
		ret = EXIT_ERROR;
		goto cleanup;
	}

	ret = summary_warnings(dir);
	for (i = 0; i < merge__error_count(m); i++) {
		const struct merge_error *e = merge__error(m, i);

		cli_err("trace damaged: %s at byte %llu: %s; output is partial", e->path,
			(unsigned long long)e->offset, damage_reason(e->err));
		ret = EXIT_PARTIAL;
	}

cleanup:
	raw_view__free(view);
	merge__free(m);
	trace__free(t);
	return ret;
}

int cmd_parser(int argc, char **argv)
{
	const char *path = NULL, *format = "json";
	bool io = false, raw = false;
	enum raw_format fmt;
	char dir[PATH_MAX];
	int c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:f:H", parser_opts, NULL)) != -1) {
		switch (c) {
		case OPT_IO:
			io = true;
			break;
		case OPT_RAW:
			raw = true;
			break;
		case 'p':
			path = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 'H':
			cmd_parser_help(stdout);
			return EXIT_OK;
		case ':':
			cli_err("option '%s' needs a value (try 'iotrace -P -H')", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			if (optopt)
				cli_err("unknown option '-%c' for --trace-parser (try 'iotrace -P -H')",
					optopt);
			else
				cli_err("unknown option '%s' for --trace-parser (try 'iotrace -P -H')",
					argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_err("unexpected argument '%s' (try 'iotrace -P -H')", argv[optind]);
		return EXIT_USAGE;
	}

	if (!strcmp(format, "json"))
		fmt = RAW_JSON;
	else if (!strcmp(format, "csv"))
		fmt = RAW_CSV;
	else
		return cli_bad_value("--format", format, "json or csv");
	if (!io) {
		cli_err("missing the view to print: --io (try 'iotrace -P -H')");
		return EXIT_USAGE;
	}
	if (!raw) {
		cli_err("the joined --io view is not implemented yet; use --raw");
		return EXIT_USAGE;
	}
	if (!path) {
		cli_err("missing --path (try 'iotrace -P -H')");
		return EXIT_USAGE;
	}

	err = store__resolve(path, dir, sizeof(dir));
	if (err)
		return open_error(path, err);
	return print_raw(path, dir, fmt);
}
