// SPDX-License-Identifier: BSD-3-Clause
/*
 * iotrace command line: the first argument selects a subcommand, as in
 * Open-CAS iotrace (`iotrace --start-tracing ...`, `iotrace -P ...`).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "detach.h"
#include "regular_file.h"
#include "trace_store.h"

struct cmd {
	const char *short_flag;
	const char *long_flag;
	int (*run)(int argc, char **argv);
	void (*help)(FILE *out);
	const char *summary;
};

static const struct cmd cmds[] = {
	{ "-S", "--start-tracing", cmd_tracing, cmd_tracing_help,
	  "trace block I/O on devices into a new trace" },
	{ "-M", "--trace-management", cmd_management, cmd_management_help,
	  "list, inspect and remove traces" },
	{ "-P", "--trace-parser", cmd_parser, cmd_parser_help,
	  "read a trace: I/Os with latency, statistics, histograms" },
	{ "-C", "--trace-config", cmd_config, cmd_config_help,
	  "get or set the trace repository path" },
};

static void usage(FILE *out)
{
	char root[PATH_MAX];
	size_t i;

	fputs("Usage: iotrace COMMAND [OPTIONS]\n\n"
	      "Linux block I/O tracer writing OCTF traces (compatible with Open-CAS iotrace).\n\n"
	      "Commands:\n", out);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(out, "  %s, %-20s %s\n", cmds[i].short_flag, cmds[i].long_flag,
			cmds[i].summary);
	fputs("  -H, --help               show this help, or a command's: iotrace -S -H\n"
	      "  -V, --version            show the version\n\n"
	      "Examples:\n"
	      "  sudo iotrace --start-tracing --devices nvme0n1 --time 60\n"
	      "  iotrace --trace-management --list-traces\n"
	      "  iotrace --trace-parser --io --path kernel/2026-11-21_10:00:00\n"
	      "  iotrace -P --statistics -f table --path kernel/2026-11-21_10:00:00\n\n", out);
	/* where they are for this user now: the config or IOTRACE_TRACE_DIR may say another */
	if (store__root(root, sizeof(root)))
		strcpy(root, STORE_DEFAULT_ROOT);
	fprintf(out, "Traces live in %s (iotrace -C -S sets it; IOTRACE_TRACE_DIR overrides).\n",
		root);
}

/*
 * What is still buffered for stdout (help, a listing) is written now: a
 * failure there would otherwise go unseen at exit, with status 0. A
 * reader that went away (EPIPE) is not an error, as in the parser.
 */
static int flush_stdout(int ret)
{
	/* a write that failed earlier (the buffer overflowed into it) left the error flag */
	bool failed = fflush(stdout) == EOF || ferror(stdout);

	if (failed && errno != EPIPE && ret == EXIT_OK) {
		cli_err("cannot write output: %s", strerror(errno ? errno : EIO));
		return EXIT_ERROR;
	}
	return ret;
}

/* store__set_config_warning()'s: said when the repository is looked up, not at every start */
static void warn_config(const char *file, const char *value, int err)
{
	if (err == ENAMETOOLONG)
		cli_warn("%s: trace-repository-path is too long (PATH_MAX or more); using %s", file,
			 STORE_DEFAULT_ROOT);
	else if (err)
		cli_warn("cannot read %s: %s; using %s", file, regular_file__strerror(err),
			 STORE_DEFAULT_ROOT);
	else
		cli_warn("%s: trace-repository-path '%s' is not an absolute path; using %s", file,
			 value, STORE_DEFAULT_ROOT);
}

/*
 * Standard descriptors the caller closed (`iotrace -S ... >&-`) are held
 * on /dev/null, opened for reading only: a write to them fails as it
 * would have, and the next file opened (the tracer's lock, a trace file)
 * does not take their number, where the summary, a warning or the view
 * would be written into it.
 */
static void hold_std_fds(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF && open("/dev/null", O_RDONLY) != fd)
			return;
}

int main(int argc, char **argv)
{
	const char *env;
	bool help;
	size_t i;

	hold_std_fds();

	/* before getopt reorders argv: the strings lie end to end from argv[0] */
	if (argc > 0)
		detach__set_cmdline(argv[0],
				    (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) + 1 - argv[0]));
	if (argc < 2) {
		/* one line, as for any bad command line; the help is on stdout when asked for */
		cli_err("no command given: --start-tracing, --trace-parser, "
			"--trace-management, --trace-config, --help or --version (try 'iotrace --help')");
		return EXIT_USAGE;
	}
	/* relative, traces would land wherever the command runs */
	env = getenv("IOTRACE_TRACE_DIR");
	if (env && *env && *env != '/') {
		cli_err("IOTRACE_TRACE_DIR must be an absolute path, not '%s'", env);
		return EXIT_USAGE;
	}
	store__set_config_warning(warn_config);
	help = !strcmp(argv[1], "-H") || !strcmp(argv[1], "--help");
	if (help || !strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		/* a command's help is 'iotrace -S -H': 'iotrace -H -S' shows another */
		if (argc > 2) {
			cli_err("unexpected argument '%s' after %s (try 'iotrace --help')", argv[2],
				argv[1]);
			return EXIT_USAGE;
		}
		if (help)
			usage(stdout);
		else
			/* Open-CAS's form, which scripts read */
			printf("Name: iotrace\nVersion: %s\n", IOTRACE_VERSION);
		return flush_stdout(EXIT_OK);
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].short_flag) && strcmp(argv[1], cmds[i].long_flag))
			continue;
		return flush_stdout(cmds[i].run(argc - 1, argv + 1));
	}
	cli_err("unknown command '%s' (try 'iotrace --help')", argv[1]);
	return EXIT_USAGE;
}
