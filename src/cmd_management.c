// SPDX-License-Identifier: BSD-3-Clause
/* iotrace -M|--trace-management: list, inspect and remove traces. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "json_writer.h"
#include "summary.h"
#include "trace_store.h"

void cmd_management_help(FILE *out)
{
	fputs("Usage: iotrace -M|--trace-management COMMAND\n\n"
	      "Commands:\n"
	      "  -L, --list-traces [-p|--prefix PREFIX]   list traces (JSON), optionally those\n"
	      "                                           whose path starts with PREFIX\n"
	      "  -G, --get-trace-summary -p|--path PATH   print a trace's summary (JSON)\n"
	      "  -R, --remove-traces -p|--prefix PREFIX [-f|--force]\n"
	      "                                           remove the traces matching PREFIX;\n"
	      "                                           --force also removes one being recorded\n"
	      "  -H, --help                               show this help\n\n"
	      "Paths are relative to the trace repository (see iotrace -C -H), e.g.\n"
	      "kernel/2026-11-21_10:00:00; --path also takes an absolute trace directory.\n"
	      "A trace whose tracer died shows state ERROR with stopReason \"tracer died\".\n\n"
	      "Examples:\n"
	      "  iotrace --trace-management --list-traces --prefix kernel/2026-11\n"
	      "  iotrace -M -G -p kernel/2026-11-21_10:00:00\n"
	      "  iotrace -M -R -p kernel/2026-10\n", out);
}

/* A RUNNING summary whose tracer is gone is a trace that did not finish. */
static void fix_dead_state(const char *dir, struct summary *s)
{
	if (!strcmp(s->state, "RUNNING") && !store__trace_is_live(dir)) {
		strcpy(s->state, "ERROR");
		strcpy(s->stop_reason, "tracer died");
	}
}

static int list_traces(const char *prefix)
{
	struct store_entry *v;
	struct json_writer *jw;
	struct summary s;
	size_t n, i;
	int err;

	err = store__list(prefix, &v, &n);
	if (err) {
		cli_err("cannot list traces: %s", strerror(-err));
		return EXIT_ERROR;
	}
	/* no traces, rightly, but a mistyped IOTRACE_TRACE_DIR or config would look the same */
	if (!n) {
		char root[PATH_MAX];
		struct stat st;

		if (!store__root(root, sizeof(root)) && stat(root, &st) && errno == ENOENT)
			cli_warn("the trace repository '%s' does not exist (the first trace makes it)",
				 root);
	}
	jw = jw__new(stdout, true);
	if (!jw) {
		free(v);
		cli_err("out of memory");
		return EXIT_ERROR;
	}
	jw__start_object(jw);
	jw__key(jw, "trace");
	jw__start_array(jw);
	for (i = 0; i < n; i++) {
		bool ok = summary__read(v[i].dir, &s) == 0;

		if (ok)
			fix_dead_state(v[i].dir, &s);
		jw__start_object(jw);
		jw__key(jw, "tracePath");
		jw__string(jw, v[i].rel);
		jw__key(jw, "state");
		jw__string(jw, ok ? s.state : "UNDEFINED");
		if (ok && s.label[0]) {
			jw__key(jw, "label");
			jw__string(jw, s.label);
		}
		jw__end_object(jw);
	}
	jw__end_array(jw);
	jw__end_object(jw);
	jw__newline(jw);
	jw__free(jw);
	free(v);
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("cannot write output: %s", strerror(errno));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

static int get_summary(const char *path)
{
	char dir[PATH_MAX];
	struct summary s;
	int err;

	err = store__resolve(path, dir, sizeof(dir));
	if (err == -EMEDIUMTYPE) {
		cli_err("'%s' is not a trace (no octf.summary or octf.trace.* files)", path);
		return EXIT_ERROR;
	}
	if (err) {
		cli_err("cannot open trace '%s': %s", path, strerror(-err));
		return EXIT_ERROR;
	}
	err = summary__read(dir, &s);
	if (err) {
		cli_err("cannot read the summary of trace '%s': %s", path,
			err == -EBADMSG ? "not valid JSON" : strerror(-err));
		return EXIT_ERROR;
	}
	fix_dead_state(dir, &s);
	err = summary__print(stdout, &s);
	if (err) {
		cli_err("cannot write output: %s", strerror(-err));
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

static int remove_traces(const char *prefix, bool force)
{
	size_t removed;
	int err;

	err = store__remove(prefix, force, &removed);
	if (err == -EPERM) {
		cli_err("refusing to remove '%s': the prefix must stay inside the trace repository "
			"(no absolute path, '..' or symlink)", prefix);
		return EXIT_ERROR;
	}
	if (err == -EBUSY) {
		cli_err("a trace matching '%s' is being recorded; stop the tracer or use --force "
			"(%zu other trace(s) removed)", prefix, removed);
		return EXIT_ERROR;
	}
	if (err) {
		cli_err("cannot remove traces '%s': %s (%zu removed)", prefix, strerror(-err), removed);
		return EXIT_ERROR;
	}
	if (!removed) {
		cli_err("no trace matches '%s'", prefix);
		return EXIT_ERROR;
	}
	printf("removed %zu trace(s)\n", removed);
	return EXIT_OK;
}

int cmd_management(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list-traces", no_argument, NULL, 'L' },
		{ "get-trace-summary", no_argument, NULL, 'G' },
		{ "remove-traces", no_argument, NULL, 'R' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "path", required_argument, NULL, 'p' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'H' },
		{},
	};
	const char *path = NULL;
	bool force = false;
	uint64_t seen = 0;
	int opt, what = 0;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":LGRp:fH", longopts, NULL)) != -1) {
		if (cli_once(longopts, opt, &seen, "-M"))
			return EXIT_USAGE;
		switch (opt) {
		case 'L':
		case 'G':
		case 'R':
			if (what && what != opt) {
				cli_err("choose one of --list-traces, --get-trace-summary, --remove-traces");
				return EXIT_USAGE;
			}
			what = opt;
			break;
		case 'p':
			path = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'H':
			cmd_management_help(stdout);
			return EXIT_OK;
		case ':':
			cli_err("option '%s' needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			cli_err("unknown option '%s' for --trace-management (see iotrace -M -H)",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_err("unexpected argument '%s' (see iotrace -M -H)", argv[optind]);
		return EXIT_USAGE;
	}
	switch (what) {
	case 'L':
		return list_traces(path);
	case 'G':
		if (!path) {
			cli_err("--get-trace-summary needs --path PATH");
			return EXIT_USAGE;
		}
		return get_summary(path);
	case 'R':
		if (!path) {
			cli_err("--remove-traces needs --prefix PREFIX");
			return EXIT_USAGE;
		}
		return remove_traces(path, force);
	default:
		cli_err("--trace-management needs a command: --list-traces, --get-trace-summary "
			"or --remove-traces");
		return EXIT_USAGE;
	}
}
