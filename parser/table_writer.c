// SPDX-License-Identifier: BSD-3-Clause
#define _GNU_SOURCE	/* vasprintf */
#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "table_writer.h"

#define BAR_WIDTH 40

struct table {
	unsigned int ncols;
	bool *left;
	char **cells;		/* row-major, ncols per row */
	size_t ncells, cap;
	unsigned int col;	/* next column in the current row */
	bool lost;		/* a cell could not be stored */
};

struct table *table__new(unsigned int ncols)
{
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ncols = ncols ? ncols : 1;
	t->left = calloc(t->ncols, sizeof(*t->left));
	if (!t->left) {
		free(t);
		return NULL;
	}
	t->left[0] = true;
	return t;
}

void table__align_left(struct table *t, unsigned int col, bool left)
{
	if (col < t->ncols)
		t->left[col] = left;
}

/* c's escape if it is a control character, else NULL */
static const char *escape_of(unsigned char c, char buf[5])
{
	if (c >= 0x20 && c != 0x7f)
		return NULL;
	if (c == '\n')
		return "\\n";
	if (c == '\t')
		return "\\t";
	if (c == '\r')
		return "\\r";
	snprintf(buf, 5, "\\x%02x", c);
	return buf;
}

char *table__printable(char *dst, size_t size, const char *s)
{
	size_t n = 0;
	char buf[5];

	for (; *s; s++) {
		const char *e = escape_of((unsigned char)*s, buf);
		size_t l = e ? strlen(e) : 1;

		if (n + l >= size)
			break;
		if (e)
			memcpy(dst + n, e, l);
		else
			dst[n] = *s;
		n += l;
	}
	if (size)
		dst[n] = '\0';
	return dst;
}

void table__put_printable(FILE *out, const char *s)
{
	char buf[5];

	for (; *s; s++) {
		const char *e = escape_of((unsigned char)*s, buf);

		if (e)
			fputs(e, out);
		else
			putc(*s, out);
	}
}

static bool has_control(const char *s)
{
	char buf[5];

	for (; *s; s++)
		if (escape_of((unsigned char)*s, buf))
			return true;
	return false;
}

static void add(struct table *t, char *s)
{
	if (s && has_control(s)) {
		/* an escape is at most 4 bytes for 1 */
		size_t size = strlen(s) * 4 + 1;
		char *e = malloc(size);

		if (e)
			table__printable(e, size, s);
		free(s);
		s = e;
	}
	if (t->col == t->ncols || t->lost) {
		free(s);
		return;
	}
	if (t->ncells == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **nc = realloc(t->cells, cap * sizeof(*nc));

		if (!nc) {
			free(s);
			t->lost = true;
			return;
		}
		t->cells = nc;
		t->cap = cap;
	}
	if (!s)
		t->lost = true;
	t->cells[t->ncells++] = s;
	t->col++;
}

void table__cell(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	add(t, s);
}

void table__end_row(struct table *t)
{
	while (t->col < t->ncols && !t->lost)
		add(t, strdup(""));
	t->col = 0;
}

/*
 * The columns s takes on a terminal: paths are printed as they are, and
 * an "ü" is 2 bytes in 1 column, an emoji 4 in 2. UTF-8 whatever the
 * locale (what the kernel names files in is bytes; UTF-8 is what they
 * mostly are); a byte that is no UTF-8 counts 1, as does a character
 * wcwidth() knows nothing of, and a character cut at the end (a process
 * name the kernel cut at 15 bytes) counts 1 for its bytes, the one
 * replacement sign terminals show. Without the C.UTF-8 locale, bytes.
 */
static size_t columns(const char *s)
{
	static locale_t utf8;
	static bool tried;
	size_t n = 0, len = strlen(s), k;
	mbstate_t st;
	locale_t old;
	wchar_t wc;
	int cw;

	if (!tried) {
		tried = true;
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	}
	while (*s && (unsigned char)*s < 0x80)
		s++, n++, len--;
	if (!*s || !utf8)
		return n + len;
	old = uselocale(utf8);
	memset(&st, 0, sizeof(st));
	while (len) {
		k = mbrtowc(&wc, s, len, &st);
		if (k == (size_t)-2) {
			n++;
			break;
		}
		if (k == (size_t)-1 || !k) {
			memset(&st, 0, sizeof(st));
			k = 1;
			cw = 1;
		} else {
			cw = wcwidth(wc);
			if (cw < 0)
				cw = 1;
		}
		n += (size_t)cw;
		s += k;
		len -= k;
	}
	uselocale(old);
	return n;
}

void table__put_padded(FILE *out, const char *s, size_t width)
{
	char buf[4 * TABLE_PAD_MAX + 1];
	size_t n;

	table__printable(buf, sizeof(buf), s);
	fputs(buf, out);
	for (n = columns(buf); n < width; n++)
		putc(' ', out);
}

int table__print(struct table *t, FILE *out, unsigned int indent)
{
	size_t *w, *bytes, r, rows, c, size = indent + 1, n, cols, l;
	char *line;

	if (t->lost)
		return -ENOMEM;
	w = calloc(t->ncols, sizeof(*w));
	bytes = calloc(t->ncols, sizeof(*bytes));
	if (!w || !bytes) {
		free(w);
		free(bytes);
		return -ENOMEM;
	}
	rows = t->ncells / t->ncols;
	for (r = 0; r < rows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];

			l = strlen(s);
			cols = columns(s);
			if (cols > w[c])
				w[c] = cols;
			if (l > bytes[c])
				bytes[c] = l;
		}
	}
	/* a cell's bytes and padding together are at most both maxima */
	for (c = 0; c < t->ncols; c++)
		size += bytes[c] + w[c] + 2;
	line = malloc(size);
	if (!line) {
		free(w);
		free(bytes);
		return -ENOMEM;
	}
	for (r = 0; r < rows; r++) {
		memset(line, ' ', indent);
		n = indent;
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			size_t pad = w[c] - columns(s);

			l = strlen(s);
			if (!t->left[c]) {
				memset(line + n, ' ', pad);
				n += pad;
			}
			memcpy(line + n, s, l);
			n += l;
			if (t->left[c]) {
				memset(line + n, ' ', pad);
				n += pad;
			}
			if (c + 1 < t->ncols) {
				memcpy(line + n, "  ", 2);
				n += 2;
			}
		}
		/* no trailing blanks after a short last cell */
		while (n > 0 && line[n - 1] == ' ')
			n--;
		line[n] = '\0';
		fprintf(out, "%s\n", line);
	}
	free(line);
	free(w);
	free(bytes);
	return 0;
}

void table__free(struct table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->left);
	free(t);
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void table__histogram(FILE *out, const char *unit, const struct hist_row *rows, size_t n)
{
	uint64_t max = 0;
	int wb = 1, we = 1, wc = 5, w, u;
	size_t i;

	for (i = 0; i < n; i++) {
		if (rows[i].count > max)
			max = rows[i].count;
		if (digits(rows[i].begin) > wb)
			wb = digits(rows[i].begin);
		if (digits(rows[i].end) > we)
			we = digits(rows[i].end);
		if (digits(rows[i].count) > wc)
			wc = digits(rows[i].count);
	}
	/* the header's unit sits over the ranges, as biolatency prints it */
	w = wb + 4 + we;
	u = (int)strlen(unit);
	if (u > w)
		w = u;
	fprintf(out, "%*s%-*s : %-*s  distribution\n", (w - u) / 2, "", w - (w - u) / 2, unit, wc,
		"count");
	for (i = 0; i < n; i++) {
		int stars = max ? (int)(rows[i].count * BAR_WIDTH / max) : 0;

		fprintf(out, "%*llu -> %-*llu : %-*llu |%.*s%*s|\n", wb + (w - (wb + 4 + we)),
			(unsigned long long)rows[i].begin, we, (unsigned long long)rows[i].end, wc,
			(unsigned long long)rows[i].count, stars,
			"****************************************", BAR_WIDTH - stars, "");
	}
}

void table__fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

void table__fmt_bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned int u = 0;

	while (bytes >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024;
		u++;
	}
	if (bytes == (double)(uint64_t)bytes)
		snprintf(buf, len, "%.0f %s", bytes, units[u]);
	else
		snprintf(buf, len, "%.1f %s", bytes, units[u]);
}

void table__cell_ns(struct table *t, bool present, double ns)
{
	char buf[32];

	if (!present) {
		table__cell(t, "-");
		return;
	}
	table__fmt_ns(buf, sizeof(buf), ns);
	table__cell(t, "%s", buf);
}
