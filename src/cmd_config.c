// SPDX-License-Identifier: BSD-3-Clause
/* iotrace -C|--trace-config: where the trace repository is. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_writer.h"
#include "trace_store.h"

void cmd_config_help(FILE *out)
{
	fputs("Usage: iotrace -C|--trace-config COMMAND\n\n"
	      "Commands:\n"
	      "  -G, --get-trace-repository-path        print the trace repository path, as\n"
	      "                                         Open-CAS iotrace: {\"path\":\"...\"}\n"
	      "  -S, --set-trace-repository-path [-p|--path] DIR\n"
	      "                                         store traces under DIR, an absolute\n"
	      "                                         path to a directory that exists\n"
	      "  -H, --help                             show this help\n\n"
	      "The path is saved in " STORE_DEFAULT_CONFIG " (IOTRACE_CONFIG overrides the\n"
	      "file); the environment variable IOTRACE_TRACE_DIR, when set, takes precedence.\n"
	      "Default: " STORE_DEFAULT_ROOT ".\n\n"
	      "Examples:\n"
	      "  iotrace --trace-config --get-trace-repository-path\n"
	      "  sudo iotrace -C --set-trace-repository-path /data/iotrace\n", out);
}

/* {"path":"..."}: Open-CAS's TraceRepositoryPath, which its users' scripts parse */
static int print_path(const char *root)
{
	struct json_writer *jw = cli_json_out(false);

	if (!jw)
		return EXIT_ERROR;
	jw__start_object(jw);
	jw__key(jw, "path");
	jw__string(jw, root);
	jw__end_object(jw);
	return cli_json_done(jw, NULL);
}

/*
 * Says why path cannot be the repository (store__check_root()'s err and
 * why); the exit status.
 */
static int bad_root(const char *path, int err, const char *why)
{
	const char *opt = "--set-trace-repository-path";

	if (err == -EPERM && *why) {
		cli_err("cannot use '%s' as the trace repository: %s, so a tracer's files there "
			"could be swapped for links (use a directory that only root or you can change)",
			path, why);
		return EXIT_ERROR;
	}
	switch (err) {
	case -EINVAL:
		return cli_bad_value(opt, path, "an absolute path");
	case -EILSEQ:
		/* not echoed: a newline in it would break the line */
		cli_err("invalid value for %s: it holds a control character or ends in a blank, "
			"which the configuration file cannot give back (one line, trimmed)", opt);
		return EXIT_USAGE;
	case -ENAMETOOLONG:
		/* the whole path, or one of its names (NAME_MAX, the kernel's) */
		if (strlen(path) >= PATH_MAX)
			cli_err("invalid value for %s: %zu characters, at most %d", opt,
				strlen(path), PATH_MAX - 1);
		else
			cli_err("invalid value for %s: a name in it is longer than %d bytes", opt,
				NAME_MAX);
		return EXIT_USAGE;
	case -EPERM:
		cli_err("invalid value '%s' for %s: the root directory cannot be the trace repository",
			path, opt);
		return EXIT_USAGE;
	default:
		cli_err("cannot use '%s' as the trace repository: %s%s", path, strerror(-err),
			err == -ENOENT ? " (create it first)" : "");
		return EXIT_ERROR;
	}
}

int cmd_config(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "get-trace-repository-path", no_argument, NULL, 'G' },
		{ "set-trace-repository-path", no_argument, NULL, 'S' },
		{ "path", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'H' },
		{},
	};
	static const char shortopts[] = ":GSp:H";
	char root[PATH_MAX], why[PATH_MAX + 64];
	const char *path = NULL;
	uint64_t seen = 0;
	int opt, what = 0, err;
	bool help = false;

	optind = 1;
	opterr = 0;
	while ((opt = cli_getopt(argc, argv, shortopts, longopts)) != -1) {
		if (cli_once(longopts, opt, &seen, "-C"))
			return EXIT_USAGE;
		switch (opt) {
		case 'G':
		case 'S':
			if (what && what != opt) {
				cli_err("choose one of --get-trace-repository-path, --set-trace-repository-path");
				return EXIT_USAGE;
			}
			what = opt;
			break;
		case 'p':
			path = optarg;
			break;
		case 'H':
			help = true;
			break;
		default:
			return cli_option_error(opt, argv, shortopts, longopts, "--trace-config", "-C");
		}
	}
	/* --set-trace-repository-path DIR: the directory may follow as a plain argument */
	if (!path && what == 'S' && optind < argc)
		path = argv[optind++];
	if (optind < argc) {
		cli_err("unexpected argument '%s' (try 'iotrace -C -H')", argv[optind]);
		return EXIT_USAGE;
	}
	/* help asked for: the other options are not checked against each other */
	if (help) {
		cmd_config_help(stdout);
		return EXIT_OK;
	}
	if (path && what == 'G') {
		cli_err("--path goes with --set-trace-repository-path only");
		return EXIT_USAGE;
	}
	if (what == 'G') {
		err = store__root(root, sizeof(root));
		if (err) {
			cli_err("cannot get the trace repository path: %s", strerror(-err));
			return EXIT_ERROR;
		}
		return print_path(root);
	}
	if (what == 'S') {
		if (!path) {
			cli_err("--set-trace-repository-path needs a directory");
			return EXIT_USAGE;
		}
		err = store__check_root(path, why, sizeof(why));
		if (err)
			return bad_root(path, err, why);
		err = store__set_root(path, why, sizeof(why));
		if (err) {
			cli_err("cannot save the trace repository path: %s%s", strerror(-err),
				err == -EACCES || err == -EPERM ? " -- run as root" : "");
			return EXIT_ERROR;
		}
		if (getenv("IOTRACE_TRACE_DIR") && *getenv("IOTRACE_TRACE_DIR"))
			cli_warn("IOTRACE_TRACE_DIR is set and overrides the saved path");
		printf("%s\n", path);
		return cli_flush("saved the trace repository path");
	}
	cli_err("--trace-config needs a command: --get-trace-repository-path or "
		"--set-trace-repository-path");
	return EXIT_USAGE;
}
