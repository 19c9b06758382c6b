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
	      "  -L, --list-traces [-p|--prefix PREFIX]   list traces (JSON), all or those\n"
	      "                                           matching PREFIX\n"
	      "  -G, --get-trace-summary -p|--path PATH   print a trace's summary (JSON)\n"
	      "  -R, --remove-traces -p|--prefix PREFIX [-f|--force]\n"
	      "                                           remove the traces matching PREFIX and\n"
	      "                                           list them (JSON); --force also removes\n"
	      "                                           those whose summary says RUNNING (being\n"
	      "                                           recorded, or their tracer died), or\n"
	      "                                           neither COMPLETE nor ERROR, or cannot\n"
	      "                                           be read\n"
	      "  -H, --help                               show this help\n\n"
	      "Paths are relative to the trace repository (see iotrace -C -H), e.g.\n"
	      "kernel/2026-11-21_10:00:00; --path also takes an absolute trace directory.\n"
	      "PREFIX, as in Open-CAS iotrace, is one trace's path, or ends in '*' to match\n"
	      "every path that starts with what comes before it ('kernel/2026-10*', '*').\n"
	      "A trace whose tracer died shows state ERROR with stopReason \"tracer died\".\n"
	      "Its summary still says RUNNING, and -R keeps it without --force.\n\n"
	      "Examples:\n"
	      "  iotrace --trace-management --list-traces --prefix 'kernel/2026-11*'\n"
	      "  iotrace -M -G -p kernel/2026-11-21_10:00:00\n"
	      "  iotrace -M -R -p 'kernel/2026-10*'\n", out);
}

/* A RUNNING (or INITIALIZING) summary whose tracer is gone is a trace that did not finish. */
static void fix_dead_state(const char *dir, struct summary *s)
{
	if (summary__unfinished(s->state) && !store__trace_is_live(dir)) {
		strcpy(s->state, "ERROR");
		strcpy(s->stop_reason, "tracer died");
	}
}

/* A trace's summary for a list: 0, or summary__read()'s error. */
static int read_entry(const struct store_entry *e, struct summary *s)
{
	int err = summary__read(e->dir, s);

	if (!err)
		fix_dead_state(e->dir, s);
	return err;
}

/* What a list shows of a trace. */
struct listed {
	char state[sizeof(((struct summary *)0)->state)];
	char label[sizeof(((struct summary *)0)->label)];
	/* the tags not ours (summary.h): a newer Open-CAS's user tags */
	char tags[sizeof(((struct summary *)0)->other_tags)];
	size_t tags_len;
};

/*
 * Whether the summary could be read; if not, the trace is listed
 * UNDEFINED, as Open-CAS lists it, and why (summary__strerror()) goes
 * into why, unless it is NULL.
 */
static bool list_entry(const struct store_entry *e, struct listed *l, char *why, size_t wsize)
{
	struct summary s;
	int err = read_entry(e, &s);
	bool ok = !err;

	strcpy(l->state, ok ? s.state : "UNDEFINED");
	strcpy(l->label, ok ? s.label : "");
	l->tags_len = ok ? s.other_tags_len : 0;
	memcpy(l->tags, s.other_tags, l->tags_len);
	if (why && err)
		snprintf(why, wsize, "%s", summary__strerror(&s, err));
	return ok;
}

/*
 * One trace in a list: its path, its state, its label and the tags not
 * ours if it has them (a newer Open-CAS lists its user tags there).
 */
static void put_entry(struct json_writer *jw, const char *rel, const struct listed *l)
{
	jw__start_object(jw);
	jw__key(jw, "tracePath");
	jw__string(jw, rel);
	jw__key(jw, "state");
	jw__string(jw, l->state);
	/* "" too, as summary__print() gives it */
	if (l->label[0] || !l->tags_len) {
		jw__key(jw, "label");
		jw__string(jw, l->label);
	}
	if (l->tags_len) {
		jw__key(jw, "tags");
		jw__start_object(jw);
		summary__json_pairs(jw, l->tags, l->tags_len);
		jw__end_object(jw);
	}
	jw__end_object(jw);
}

/* {"trace": [ ... opens the list of list_end(); NULL if out of memory. */
static struct json_writer *list_start(void)
{
	struct json_writer *jw = cli_json_out(true);

	if (!jw)
		return NULL;
	jw__start_object(jw);
	jw__key(jw, "trace");
	jw__start_array(jw);
	return jw;
}

/* done: as cli_json_done()'s */
static int list_end(struct json_writer *jw, const char *done)
{
	jw__end_array(jw);
	jw__end_object(jw);
	return cli_json_done(jw, done);
}

/*
 * Traces another user's (mode 0700) are passed over, but not in silence:
 * a list that looks whole would be taken for it.
 */
static void warn_unread(const struct store_entry *v, size_t n)
{
	size_t i, unread = 0, first = 0;

	for (i = 0; i < n; i++)
		if (v[i].err && !unread++)
			first = i;
	if (unread)
		cli_warn("%zu of %zu %s could not be read and %s not listed ('%s': %s)%s",
			 unread, n, ONE_MANY(n, "trace", "traces"), ONE_MANY(unread, "is", "are"),
			 v[first].rel, strerror(-v[first].err),
			 v[first].err == -EACCES ? " -- run as root" : "");
}

static int list_traces(const char *prefix)
{
	struct store_entry *v;
	struct json_writer *jw;
	struct listed l;
	/* the first summary that cannot be read: said after the list, not lost in it */
	char first_why[sizeof(((struct summary *)0)->error)] = "";
	size_t n, i, undefined = 0, first_at = 0;
	int err;

	err = store__list(prefix, &v, &n);
	if (err) {
		char root[PATH_MAX];

		/* the repository is root's (0700): its kernel/ is what a user cannot read */
		if (store__root(root, sizeof(root)))
			strcpy(root, "?");
		cli_err("cannot list traces in '%s': %s%s", root, strerror(-err),
			err == -EACCES ? " -- run as root" : "");
		return EXIT_ERROR;
	}
	warn_unread(v, n);
	/* no traces, rightly, but a mistyped IOTRACE_TRACE_DIR or config would look the same */
	if (!n) {
		char root[PATH_MAX];
		struct stat st;

		if (!store__root(root, sizeof(root)) && stat(root, &st) && errno == ENOENT)
			cli_warn("the trace repository '%s' does not exist (the first trace makes it)",
				 root);
	}
	jw = list_start();
	if (!jw) {
		free(v);
		return EXIT_ERROR;
	}
	for (i = 0; i < n; i++) {
		if (v[i].err)
			continue;
		if (!list_entry(&v[i], &l, undefined ? NULL : first_why, sizeof(first_why)) &&
		    !undefined++)
			first_at = i;
		put_entry(jw, v[i].rel, &l);
	}
	err = list_end(jw, NULL);
	if (undefined)
		cli_warn("%zu of %zu %s %s listed UNDEFINED: %s cannot be read ('%s': %s)",
			 undefined, n, ONE_MANY(n, "trace", "traces"), ONE_MANY(undefined, "is", "are"),
			 ONE_MANY(undefined, "its summary", "their summaries"), v[first_at].rel,
			 first_why);
	free(v);
	return err;
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
			summary__strerror(&s, err));
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

/* What -M -R removed, each as it was just before, and what it left (store_remove_hooks). */
struct removal {
	struct listed next;	/* the trace about to go */
	struct removed_trace {
		char rel[PATH_MAX];
		struct listed l;
	} *gone;
	size_t n, cap;
	bool oom;
	size_t nkept;
	/* the trace left that is said: the first that failed, else the first left unfinished */
	struct {
		char rel[PATH_MAX];
		char what[NAME_MAX + 1];
		int err;
	} kept;
};

/* read first: the state listed is the one it had */
static void before_removal(const struct store_entry *e, void *ctx)
{
	struct removal *r = ctx;

	list_entry(e, &r->next, NULL, 0);
}

static void trace_removed(const struct store_entry *e, void *ctx)
{
	struct removal *r = ctx;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct removed_trace *g = realloc(r->gone, cap * sizeof(*g));

		if (!g) {
			r->oom = true;
			return;
		}
		r->gone = g;
		r->cap = cap;
	}
	snprintf(r->gone[r->n].rel, sizeof(r->gone[r->n].rel), "%s", e->rel);
	r->gone[r->n++].l = r->next;
}

static void trace_kept(const struct store_entry *e, int err, const char *what, void *ctx)
{
	struct removal *r = ctx;

	r->nkept++;
	/* a failure outranks a trace left unfinished */
	if (r->kept.err && (!store__left_unfinished(r->kept.err) || store__left_unfinished(err)))
		return;
	snprintf(r->kept.rel, sizeof(r->kept.rel), "%s", e->rel);
	snprintf(r->kept.what, sizeof(r->kept.what), "%s", what ? what : "");
	r->kept.err = err;
}

/* Why the trace r->kept was left, and how many of those matching went. */
static void say_kept(const struct removal *r, size_t removed)
{
	char of[64];

	snprintf(of, sizeof(of), "%zu of %zu matching removed", removed, removed + r->nkept);
	if (r->kept.err == -EBUSY)
		cli_err("trace '%s' is being recorded; stop the tracer or use --force (%s)",
			r->kept.rel, of);
	else if (r->kept.err == -EINPROGRESS && summary__unfinished(r->kept.what))
		cli_err("trace '%s' did not finish (its summary says %s): its tracer died, or "
			"records it under another lock file or mount namespace; --force removes it "
			"(%s)", r->kept.rel, r->kept.what, of);
	else if (r->kept.err == -EINPROGRESS)
		cli_err("trace '%s' is not known to have finished (its summary says state '%s', "
			"not COMPLETE or ERROR); --force removes it (%s)", r->kept.rel,
			r->kept.what, of);
	else if (r->kept.err == -ENOMSG)
		cli_err("trace '%s' is not known to have finished (cannot read its summary: %s); "
			"--force removes it (%s)", r->kept.rel, r->kept.what, of);
	else if (r->kept.err == -ENOTEMPTY)
		cli_err("cannot remove trace '%s': it holds '%s', which is not a file (a trace "
			"holds only files); none of its files was removed (%s)", r->kept.rel,
			r->kept.what, of);
	else
		cli_err("cannot remove trace '%s': %s (%s)%s", r->kept.rel, strerror(-r->kept.err),
			of, r->kept.err == -EACCES ? " -- run as root" : "");
}

/*
 * Lists what it removed, as --list-traces lists (their states before),
 * as Open-CAS iotrace does; what stopped it on stderr.
 */
static int remove_traces(const char *prefix, bool force)
{
	struct removal r = {};
	struct store_remove_hooks hooks = {
		.before = before_removal, .gone = trace_removed, .kept = trace_kept, .ctx = &r,
	};
	struct json_writer *jw;
	size_t removed, i;
	int err, ret = EXIT_OK;
	char done[64], why[PATH_MAX + 64];

	err = store__remove(prefix, force, &hooks, &removed, why, sizeof(why));
	if (err == -EPERM && *why) {
		cli_err("refusing to remove traces from a repository other users can change: %s "
			"(a trace could be swapped for a link to anywhere)", why);
		free(r.gone);
		return EXIT_ERROR;
	}
	if (err == -EPERM) {
		cli_err("refusing to remove '%s': the prefix must stay inside the trace repository "
			"(no absolute path, '..' or symlink)", prefix);
		free(r.gone);
		return EXIT_ERROR;
	}
	/* nothing on stdout when nothing was removed, as for any failure */
	jw = removed && !r.oom ? list_start() : NULL;
	for (i = 0; jw && i < r.n; i++)
		put_entry(jw, r.gone[i].rel, &r.gone[i].l);
	snprintf(done, sizeof(done), "removed %zu trace%s", removed, removed == 1 ? "" : "s");
	if (jw)
		ret = list_end(jw, done);
	else if (removed)
		ret = EXIT_ERROR;
	if (r.oom)
		cli_err("out of memory: the traces removed cannot be listed");
	free(r.gone);
	if (r.nkept) {
		say_kept(&r, removed);
		return EXIT_ERROR;
	}
	if (err) {
		cli_err("cannot remove traces '%s': %s (%zu removed)", prefix, strerror(-err), removed);
		return EXIT_ERROR;
	}
	if (!removed) {
		cli_err("no trace matches '%s'%s", prefix,
			strchr(prefix, '*') ? "" : " (a PREFIX without a trailing '*' names one trace)");
		return EXIT_ERROR;
	}
	return ret;
}

/* --prefix and --path: -p is either, so getopt tells them apart only by these */
enum { OPT_PREFIX = 256, OPT_PATH };

int cmd_management(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list-traces", no_argument, NULL, 'L' },
		{ "get-trace-summary", no_argument, NULL, 'G' },
		{ "remove-traces", no_argument, NULL, 'R' },
		/* -p is either; the long names are each their command's, as in Open-CAS */
		{ "prefix", required_argument, NULL, OPT_PREFIX },
		{ "path", required_argument, NULL, OPT_PATH },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'H' },
		{},
	};
	static const char shortopts[] = ":LGRp:fH";
	const char *path = NULL, *long_name = NULL;
	bool force = false, help = false;
	uint64_t seen = 0;
	int opt, what = 0;

	optind = 1;
	opterr = 0;
	while ((opt = cli_getopt(argc, argv, shortopts, longopts)) != -1) {
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
		case OPT_PREFIX:
		case OPT_PATH:
			if (path) {
				cli_err("-p/--path/--prefix given twice; give it once (try 'iotrace -M -H')");
				return EXIT_USAGE;
			}
			path = optarg;
			long_name = opt == 'p' ? NULL : opt == OPT_PATH ? "--path" : "--prefix";
			break;
		case 'f':
			force = true;
			break;
		case 'H':
			help = true;
			break;
		default:
			return cli_option_error(opt, argv, shortopts, longopts, "--trace-management",
						"-M");
		}
	}
	if (optind < argc) {
		cli_err("unexpected argument '%s' (try 'iotrace -M -H')", argv[optind]);
		return EXIT_USAGE;
	}
	/* help asked for: the other options are not checked against each other */
	if (help) {
		cmd_management_help(stdout);
		return EXIT_OK;
	}
	if (force && what && what != 'R') {
		cli_err("--force goes with --remove-traces only");
		return EXIT_USAGE;
	}
	if (long_name && what && strcmp(long_name, what == 'G' ? "--path" : "--prefix")) {
		cli_err("%s goes with %s; %s takes %s (or -p)", long_name,
			what == 'G' ? "--list-traces and --remove-traces" : "--get-trace-summary",
			what == 'G' ? "--get-trace-summary" : what == 'L' ? "--list-traces" :
			"--remove-traces", what == 'G' ? "--path" : "--prefix");
		return EXIT_USAGE;
	}
	/* names nothing: refused as -P refuses it, not looked up as a trace or a prefix */
	if (path && !*path && what == 'G')
		return cli_bad_value(long_name ? long_name : "-p/--path", path,
				     "a trace such as kernel/2026-11-21_10:00:00");
	if (path && !*path && what)
		return cli_bad_value(long_name ? long_name : "-p/--prefix", path,
				     "a trace such as kernel/2026-11-21_10:00:00, or a prefix "
				     "ending in '*' such as 'kernel/2026-11*'");
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
