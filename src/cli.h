/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Conventions shared by the subcommands of the iotrace CLI.
 *
 * Each subcommand is a function taking the arguments from its own flag on:
 * for `iotrace --trace-parser --io -p X`, argv[0] is "--trace-parser" and
 * getopt starts at argv[1]. It returns the process exit status.
 */
#ifndef IOTRACE_CLI_H
#define IOTRACE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses (documented in the README and the man page). */
enum {
	EXIT_OK = 0,
	EXIT_ERROR = 1,		/* could not do what was asked */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_PARTIAL = 3,	/* output written, but the trace is damaged or events were lost */
};

/* The words that agree with count in a message: "1 event was", "2 events were" */
#define ONE_MANY(count, one, many) ((count) == 1 ? (one) : (many))

/* Prints "iotrace: <message>\n" to stderr: one line, lowercase, specific. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "iotrace: warning: <message>\n" to stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct json_writer;

/* A JSON writer on stdout; NULL after saying "out of memory". */
struct json_writer *cli_json_out(bool pretty);

/*
 * Flushes stdout: EXIT_OK, or EXIT_ERROR after saying it could not be
 * written. done: what the command changed all the same, said first
 * ("removed 2 traces, but cannot write output: ..."), or NULL.
 */
int cli_flush(const char *done);

/* Ends what cli_json_out() began: a newline, the writer freed, cli_flush(done). */
int cli_json_done(struct json_writer *jw, const char *done);
/* Prints "iotrace: <message>\n" to stderr: news during a run, no error. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parses a decimal integer in [min, max] (no sign, no suffix, no
 * surrounding space). Returns 0 or -EINVAL (not a number) / -ERANGE.
 */
int cli_parse_u64(const char *s, unsigned long long min, unsigned long long max,
		  unsigned long long *out);

/*
 * Appends "name" or "name value" to the string in buf (size bytes), after
 * a blank if it is not empty, the value in single quotes where a shell
 * would need them, so that the result can be pasted back. An option that
 * does not fit is left out and "..." put in its place if that fits:
 * returns false, and the caller adds no more.
 */
bool cli_append_option(char *buf, size_t size, const char *name, const char *value);

/*
 * The next word of such a command line, unquoted, into out (cut to fit
 * size); *line moves past it. Returns false when no word is left.
 */
bool cli_next_word(const char **line, char *out, size_t size);

/*
 * Parses seconds with up to 9 decimals ("12", "0.5", "3.000001"), at
 * most max_s, into ns. Returns 0 or -EINVAL (not such a number), -ERANGE
 * (more than max_s) or -EDOM (digits past the nanosecond).
 */
int cli_parse_seconds(const char *s, unsigned long long max_s, unsigned long long *ns);

/*
 * Parses a duration with its unit, ns, us, ms or s ("500us", "1.5ms",
 * "2s"), into ns. A bare number is refused: 10 could be any of them.
 * Returns 0 or -EINVAL (not such a duration), -ERANGE (past
 * 18446744073 s in any unit, as far as 64 bits of ns go in whole
 * seconds) or -EDOM (a fraction of a ns; digits past the ns are taken
 * if zeros); then *why (unless why is NULL) is what the value
 * should have been, for cli_bad_value(): "a time of at most
 * 18446744073s", "a time of 0 or more, ...", "a number before the unit,
 * ...", the generic "a time with its unit, such as 500us, 10ms or 1.5s".
 */
int cli_parse_duration(const char *s, unsigned long long *ns, const char **why);

/* Prints the usage error for option opt with value val and returns EXIT_USAGE. */
int cli_bad_value(const char *opt, const char *val, const char *expected);

/*
 * cli_bad_value() for cli_parse_seconds()'s error err: a value too large
 * or too fine says so, any other gets expected. EXIT_USAGE.
 */
int cli_bad_seconds(const char *opt, const char *val, int err, unsigned long long max_s,
		    const char *expected);

/*
 * An option of opts given a second time would silently override the
 * first (a value) or say nothing (a flag, which Open-CAS refuses too):
 * for option c, EXIT_USAGE with an error line (help: the command's,
 * "-P") if it came before, else 0. seen: the options met so far (zero it
 * first), by their place in opts.
 */
int cli_once(const struct option *opts, int c, uint64_t *seen, const char *help);

/*
 * getopt_long(), but a long option must be given by its whole name, as in
 * Open-CAS: "--stat" is refused ('?', for cli_option_error()), not taken
 * for --statistics.
 */
int cli_getopt(int argc, char *const argv[], const char *optstring, const struct option *opts);

/*
 * The error line for what cli_getopt() refused (c: '?' or ':'; opterr 0,
 * optstring starting with ':'), naming the option as given: an unknown
 * one ("-x", "--bogus"; part of a name, with the names it begins), a
 * value given to one that takes none ("--io=1"), or a value missing. cmd: the command's long flag ("--trace-parser"), help: its
 * short one ("-P"). Returns EXIT_USAGE.
 */
int cli_option_error(int c, char *const argv[], const char *optstring,
		     const struct option *opts, const char *cmd, const char *help);

int cmd_tracing(int argc, char **argv);		/* -S, --start-tracing */
int cmd_management(int argc, char **argv);	/* -M, --trace-management */
int cmd_config(int argc, char **argv);		/* -C, --trace-config */
int cmd_parser(int argc, char **argv);		/* -P, --trace-parser */

void cmd_tracing_help(FILE *out);
void cmd_management_help(FILE *out);
void cmd_config_help(FILE *out);
void cmd_parser_help(FILE *out);

#endif
