// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE	/* vasprintf */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_writer.h"

/*
 * A message is one line: a control character in what it quotes (a path
 * with a newline in it, a terminal escape) is printed as '?', so that it
 * can neither split the line nor act on the terminal.
 */
static void say(const char *prefix, const char *fmt, va_list ap)
{
	char *msg, *p;

	fflush(stdout);
	fputs(prefix, stderr);
	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("(out of memory)\n", stderr);
		return;
	}
	for (p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fputs(msg, stderr);
	fputc('\n', stderr);
	free(msg);
}

void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("iotrace: ", fmt, ap);
	va_end(ap);
}

void cli_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("iotrace: ", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("iotrace: warning: ", fmt, ap);
	va_end(ap);
}

int cli_parse_u64(const char *s, unsigned long long min, unsigned long long max,
		  unsigned long long *out)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts leading space and a minus sign; we do not */
	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *s, unsigned long long max_s, unsigned long long *ns)
{
	const char *dot = s ? strchr(s, '.') : NULL, *f;
	unsigned long long sec, frac = 0;
	char whole[24];
	size_t n, nf, i;
	int err;

	if (!s)
		return -EINVAL;
	n = dot ? (size_t)(dot - s) : strlen(s);
	if (!n || n >= sizeof(whole))
		return n && isdigit((unsigned char)s[0]) ? -ERANGE : -EINVAL;
	memcpy(whole, s, n);
	whole[n] = '\0';
	err = cli_parse_u64(whole, 0, max_s, &sec);
	if (err)
		return err;
	if (dot) {
		/* "1." and digits past the ns are refused, not rounded */
		f = dot + 1;
		nf = strlen(f);
		if (!nf)
			return -EINVAL;
		if (nf > 9)
			return f[strspn(f, "0123456789")] ? -EINVAL : -EDOM;
		for (i = 0; i < 9; i++) {
			if (i < nf && !isdigit((unsigned char)f[i]))
				return -EINVAL;
			frac = frac * 10 + (i < nf ? (unsigned long long)(f[i] - '0') : 0);
		}
	}
	if (sec == max_s && frac)
		return -ERANGE;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

/* what a duration is, when nothing more specific is wrong with one */
#define DURATION_EXPECTED "a time with its unit, such as 500us, 10ms or 1.5s"

/* as far as 64 bits of ns go, in whole seconds */
#define DURATION_MAX_S 18446744073ull
#define DURATION_MAX_EXPECTED "a time of at most 18446744073s"
_Static_assert(DURATION_MAX_S == ULLONG_MAX / 1000000000ull, "DURATION_MAX_S is 2^64 ns");

int cli_parse_duration(const char *s, unsigned long long *ns, const char **why)
{
	/* each unit, its ns, and the digits after the point that are still whole ns */
	static const struct {
		const char *name;
		unsigned long long ns;
		size_t digits;
	} units[] = { { "ns", 1, 0 }, { "us", 1000, 3 }, { "ms", 1000000, 6 },
		      { "s", 1000000000, 9 } };
	const size_t nunits = sizeof(units) / sizeof(units[0]);
	const unsigned long long max_ns = DURATION_MAX_S * 1000000000ull;
	const char *unused, *rest, *dot, *f;
	unsigned long long whole, frac = 0;
	size_t n, nf, i, k;

	if (!why)
		why = &unused;
	*why = DURATION_EXPECTED;
	if (!s)
		return -EINVAL;
	if (s[strcspn(s, " \t\n\v\f\r")]) {
		*why = "the number and its unit with no space, such as 10ms";
		return -EINVAL;
	}
	if (*s == '-') {
		*why = "a time of 0 or more, such as 500us, 10ms or 1.5s";
		return -EINVAL;
	}
	n = strspn(s, "0123456789.");
	rest = s + n;
	for (i = 0; i < nunits && strcmp(rest, units[i].name); i++)
		;
	if (!n) {
		if (i < nunits)
			*why = "a number before the unit, such as 10ms";
		return -EINVAL;
	}
	if (i == nunits) {
		if (!*rest)
			*why = "a unit after the number, ns, us, ms or s (a bare number could be any)";
		else if ((*rest == 'e' || *rest == 'E') &&
			 (isdigit((unsigned char)rest[1]) || rest[1] == '-' || rest[1] == '+'))
			*why = "a decimal number with no exponent, and its unit, such as 0.5ms";
		else
			*why = "a unit after the number, ns, us, ms or s, such as 10ms";
		return -EINVAL;
	}
	/* digits, then a point and digits if any: "1.", ".5", "1.2.3" are no number */
	dot = memchr(s, '.', n);
	f = dot ? dot + 1 : rest;
	nf = (size_t)(rest - f);
	if (!isdigit((unsigned char)*s) || (dot && (!nf || memchr(f, '.', nf))))
		return -EINVAL;
	errno = 0;
	whole = strtoull(s, NULL, 10);
	if (errno == ERANGE || whole > max_ns / units[i].ns) {
		*why = DURATION_MAX_EXPECTED;
		return -ERANGE;
	}
	/* the fraction in ns; digits past the ns only as zeros */
	for (k = 0; k < nf; k++) {
		if (k < units[i].digits)
			frac = frac * 10 + (unsigned long long)(f[k] - '0');
		else if (f[k] != '0')
			break;
	}
	if (k < nf) {
		*why = "a time in whole nanoseconds, such as 1.5us (1500ns)";
		return -EDOM;
	}
	for (k = nf; k < units[i].digits; k++)
		frac *= 10;
	if (whole * units[i].ns > max_ns - frac) {
		*why = DURATION_MAX_EXPECTED;
		return -ERANGE;
	}
	*ns = whole * units[i].ns + frac;
	return 0;
}

int cli_bad_value(const char *opt, const char *val, const char *expected)
{
	cli_err("invalid value '%s' for %s: expected %s", val, opt, expected);
	return EXIT_USAGE;
}

int cli_bad_seconds(const char *opt, const char *val, int err, unsigned long long max_s,
		    const char *expected)
{
	char why[64];

	if (err == -ERANGE) {
		snprintf(why, sizeof(why), "seconds, at most %llu", max_s);
		expected = why;
	} else if (err == -EDOM) {
		expected = "seconds to the nanosecond, at most 9 digits after the point";
	}
	return cli_bad_value(opt, val, expected);
}

int cli_once(const struct option *opts, int c, uint64_t *seen, const char *help)
{
	size_t i;

	for (i = 0; opts[i].name && i < 64; i++) {
		if (opts[i].val != c)
			continue;
		if (*seen & (1ull << i)) {
			char shortname[5] = "";

			if (c > ' ' && c < 127)
				snprintf(shortname, sizeof(shortname), "-%c/", c);
			cli_err("%s--%s given twice; give it once (try 'iotrace %s -H')", shortname,
				opts[i].name, help);
			return EXIT_USAGE;
		}
		*seen |= 1ull << i;
		return 0;
	}
	return 0;
}

/* the word of the last long option cli_getopt() refused for being cut short */
static const char *short_name;

int cli_getopt(int argc, char *const argv[], const char *optstring, const struct option *opts)
{
	const char *word;
	int c, idx = -1;

	short_name = NULL;
	c = getopt_long(argc, argv, optstring, opts, &idx);
	if (c == -1 || idx < 0)
		return c;
	/* "--name value": optarg is the next word itself, the option the one before */
	word = argv[optind - 1];
	if (opts[idx].has_arg == required_argument && optarg == word && optind >= 2)
		word = argv[optind - 2];
	if (strcspn(word + 2, "=") != strlen(opts[idx].name)) {
		short_name = word;
		optopt = 0;
		return '?';
	}
	return c;
}

static const struct option *exact_option(const struct option *opts, const char *name, int len)
{
	for (; opts->name; opts++)
		if (!strncmp(opts->name, name, (size_t)len) && !opts->name[len])
			return opts;
	return NULL;
}

/*
 * An unknown long option, and the options its name begins, if any: a
 * user who typed part of a name learns the whole of it.
 */
static int unknown_long(const char *arg, int len, const struct option *opts, const char *cmd,
			const char *help)
{
	const struct option *o;
	char names[512] = "";
	size_t at = 0;
	int n = 0, i = 0;

	for (o = opts; o->name; o++)
		n += len && !strncmp(o->name, arg + 2, (size_t)len);
	for (o = opts; o->name && at < sizeof(names); o++) {
		if (!len || strncmp(o->name, arg + 2, (size_t)len))
			continue;
		i++;
		at += (size_t)snprintf(names + at, sizeof(names) - at, "%s--%s",
				       i == 1 ? "" : i == n ? " or " : ", ", o->name);
	}
	if (n)
		cli_err("unknown option '%s' for %s; did you mean %s? (try 'iotrace %s -H')", arg,
			cmd, names, help);
	else
		cli_err("unknown option '%s' for %s (try 'iotrace %s -H')", arg, cmd, help);
	return EXIT_USAGE;
}

/*
 * getopt_long() has done with argv[optind - 1] whenever the error is a
 * long option's, or a short one's that ends its word (the only place one
 * can miss its value); a short one inside "-xL" is named by optopt alone.
 */
int cli_option_error(int c, char *const argv[], const char *optstring,
		     const struct option *opts, const char *cmd, const char *help)
{
	const char *arg = short_name ? short_name : optind > 0 ? argv[optind - 1] : "";
	/* a short option refused inside a word follows a word that may be a long option */
	bool short_refused = optopt > 0 && optopt <= UCHAR_MAX &&
			     (optopt == ':' || !strchr(optstring, optopt));
	bool is_long = !strncmp(arg, "--", 2) && arg[2] && (c == ':' || !short_refused);
	int len = is_long ? (int)strcspn(arg + 2, "=") : 0;
	const struct option *o = is_long ? exact_option(opts, arg + 2, len) : NULL;

	short_name = NULL;
	/* Open-CAS takes whole names only, and a prefix would change meaning as options are added */
	if (is_long && !o)
		return unknown_long(arg, len, opts, cmd, help);
	if (c == ':') {
		if (is_long)
			cli_err("option '--%.*s' needs a value (try 'iotrace %s -H')", len, arg + 2, help);
		else
			cli_err("option '-%c' needs a value (try 'iotrace %s -H')", optopt, help);
		return EXIT_USAGE;
	}
	if (is_long) {
		cli_err("option '--%s' takes no value, given '%s' (try 'iotrace %s -H')", o->name, arg,
			help);
		return EXIT_USAGE;
	}
	if (isprint((unsigned char)optopt))
		cli_err("unknown option '-%c' for %s (try 'iotrace %s -H')", optopt, cmd, help);
	else
		cli_err("unknown option '-\\x%02x' for %s (try 'iotrace %s -H')", (unsigned char)optopt,
			cmd, help);
	return EXIT_USAGE;
}

/* characters a shell takes as they are in a word */
static bool shell_plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(",._/:=@%+-", *s))
			return false;
	return true;
}

bool cli_append_option(char *buf, size_t size, const char *name, const char *value)
{
	size_t len = strnlen(buf, size), at = len;
	const char *sep = len ? " " : "", *p;

	if (len >= size)
		return false;
	/* written in place; an option that does not fit is cut off again at len */
	at += (size_t)snprintf(buf + at, size - at, "%s%s", sep, name);
	if (value && at < size) {
		if (shell_plain(value)) {
			at += (size_t)snprintf(buf + at, size - at, " %s", value);
		} else {
			at += (size_t)snprintf(buf + at, size - at, " '");
			for (p = value; *p && at < size; p++)
				at += (size_t)snprintf(buf + at, size - at, *p == '\'' ? "'\\''" : "%c", *p);
			if (at < size)
				at += (size_t)snprintf(buf + at, size - at, "'");
		}
	}
	if (at < size)
		return true;
	buf[len] = '\0';
	if (len + strlen(sep) + 3 < size)
		snprintf(buf + len, size - len, "%s...", sep);
	return false;
}

bool cli_next_word(const char **line, char *out, size_t size)
{
	const char *p = *line;
	size_t n = 0;
	bool quoted = false;

	while (*p == ' ')
		p++;
	if (!*p)
		return false;
	for (; *p && (quoted || *p != ' '); p++) {
		char c = *p;

		if (c == '\'') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\' && !quoted && p[1])
			c = *++p;
		if (n + 1 < size)
			out[n++] = c;
	}
	if (size)
		out[n] = '\0';
	*line = p;
	return true;
}

struct json_writer *cli_json_out(bool pretty)
{
	struct json_writer *jw = jw__new(stdout, pretty);

	if (!jw)
		cli_err("out of memory");
	return jw;
}

int cli_flush(const char *done)
{
	const char *why;

	if (!fflush(stdout) && !ferror(stdout))
		return EXIT_OK;
	why = strerror(errno ? errno : EIO);
	if (done)
		cli_err("%s, but cannot write output: %s", done, why);
	else
		cli_err("cannot write output: %s", why);
	return EXIT_ERROR;
}

int cli_json_done(struct json_writer *jw, const char *done)
{
	jw__newline(jw);
	jw__free(jw);
	return cli_flush(done);
}
