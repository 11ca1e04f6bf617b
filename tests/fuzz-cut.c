/*
 * Fuzz harness for txtcut's module (lib/tools/cut.c).  Byte 0 picks the
 * options (bit 0 --csv, bit 1 --no-header, bit 2 --shared, the rest % 5
 * the --time mode); the line after it is the -f list, the rest the text.
 *
 * What is checked, with the table read back by the harness's own CSV
 * (RFC 4180) or TSV reader and the text walked by the text reader (never
 * cut.c's code):
 * - a list tc_fields refuses has a reason; tc_run fails exactly when a
 *   line of the text is bad (a NUL, a line tr_parse refuses, under --time
 *   a ts of a shared kind that is no integer), with that line's number;
 * - on success: a header row naming the columns as given (unless
 *   --no-header), one row per record (--shared: per record of a shared
 *   kind), every row of ncols cells; in CSV a cell holding a comma, a
 *   quote, a CR or a LF is quoted; the kind column is the record's kind;
 *   a quoted string is, in CSV, its bytes exactly (tr_str) and, in TSV,
 *   those bytes with the text's escapes; any other value its text; a
 *   missing field an empty cell; --time's cells the ts as the mode
 *   spells it (computed here with printf and gmtime); a column repeated
 *   shows the same cell.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"
#include "tools/cut.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXROWCELLS (TC_MAXCOLS + 1)

struct cell {
	const char *p;		/* CSV quoted: the text between the quotes */
	size_t n;
	int quoted;
	char *un;		/* CSV quoted: unquoted, malloc'd */
};

/* The shared kinds of trace-text(5), spelled out here on purpose. */
static int
shared_kind(const char *k, size_t n)
{
	static const char *const names[] = { "insn", "read", "write",
		"acquire", "release", "request", "fork", "join", "begin",
		"end", "branch", "event" };
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == n && memcmp(names[i], k, n) == 0)
			return 1;
	return 0;
}

static int
is_ts_key(const char *name)
{
	return strcmp(name, "ts") == 0;
}

/*
 * One row of the table at *pp (up to end): its cells, how many.  Aborts
 * on a row that is not well-formed.
 */
static size_t
read_row(const char **pp, const char *end, int csv, struct cell *c)
{
	const char *p = *pp;
	size_t n = 0;

	for (;;) {
		if (n == MAXROWCELLS)
			abort();	/* more cells than columns */
		memset(&c[n], 0, sizeof c[n]);
		if (csv && p < end && *p == '"') {
			char *u = malloc((size_t)(end - p) + 1);
			size_t k = 0;
			if (u == NULL)
				abort();
			c[n].quoted = 1;
			for (p++;; p++) {
				if (p >= end)
					abort();	/* unterminated quote */
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						u[k++] = '"';
						p++;
						continue;
					}
					p++;
					break;
				}
				u[k++] = *p;
			}
			c[n].un = u;
			c[n].p = u;
			c[n].n = k;
		} else {
			const char *s = p;
			while (p < end && *p != '\n' && *p != (csv ? ',' : '\t')) {
				if (csv && (*p == '"' || *p == '\r'))
					abort();	/* unquoted " or CR */
				p++;
			}
			c[n].p = s;
			c[n].n = (size_t)(p - s);
		}
		n++;
		if (p >= end)
			abort();	/* a row not ended by a newline */
		if (*p == '\n') {
			*pp = p + 1;
			return n;
		}
		if (*p != (csv ? ',' : '\t'))
			abort();	/* junk after a closing quote */
		p++;
	}
}

static void
free_row(struct cell *c, size_t n)
{
	while (n-- > 0)
		free(c[n].un);
}

static int
cell_is(const struct cell *c, const char *p, size_t n)
{
	return c->n == n && (n == 0 || memcmp(c->p, p, n) == 0);
}

/*
 * A TSV cell of a quoted string read back: the text's escapes (\t \n \r
 * \\ \" \xHH) and a bare quote.  Its length, or SIZE_MAX.
 */
static size_t
tsv_unescape(const struct cell *c, char *out)
{
	size_t i, k = 0;

	for (i = 0; i < c->n; i++) {
		char ch = c->p[i];
		if (ch != '\\') {
			out[k++] = ch;
			continue;
		}
		if (++i >= c->n)
			return SIZE_MAX;
		switch (c->p[i]) {
		case 't': out[k++] = '\t'; break;
		case 'n': out[k++] = '\n'; break;
		case 'r': out[k++] = '\r'; break;
		case '\\': out[k++] = '\\'; break;
		case '"': out[k++] = '"'; break;
		case 'x': {
			unsigned v;
			char h[3];
			if (i + 2 >= c->n)
				return SIZE_MAX;
			h[0] = c->p[i + 1], h[1] = c->p[i + 2], h[2] = '\0';
			if (sscanf(h, "%2x", &v) != 1)
				return SIZE_MAX;
			out[k++] = (char)v;
			i += 2;
			break;
		}
		default:
			return SIZE_MAX;
		}
	}
	return k;
}

/* ns as --time's mode shows it, into buf (NUL-terminated); its length. */
static size_t
spell_seconds(char *buf, uint64_t ns, int neg)
{
	return (size_t)sprintf(buf, "%s%llu.%09llu", neg ? "-" : "",
	    (unsigned long long)(ns / 1000000000u),
	    (unsigned long long)(ns % 1000000000u));
}

static size_t
spell_date(char *buf, uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL)
		abort();
	return (size_t)sprintf(buf, "%04d-%02d-%02dT%02d:%02d:%02d.%09uZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (unsigned)(ns % 1000000000u));
}

/* A signed difference b - a, exact. */
static size_t
spell_diff(char *buf, uint64_t b, uint64_t a)
{
	return b >= a ? spell_seconds(buf, b - a, 0) :
	    spell_seconds(buf, a - b, 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tr_rec rec;	/* 20 KiB: not on the stack */
	static char *unq;
	static size_t unqcap;
	struct tc_cut c;
	struct tp_err err, err2;
	struct tp_in in, in2;
	struct tr_reader r, r2;
	struct cell cells[MAXROWCELLS];
	char list[512], *names[TC_MAXCOLS + 1], *line;
	const char *text, *nl, *p, *end;
	size_t len, ncols = 0, textlen, outlen, i;
	unsigned char *out;
	uint64_t bad_line = 0, records = 0, first = 0, prev = 0;
	int rc, lrc, flags, have_first = 0, have_prev = 0, has_ts = 0;

	if (size < 1)
		return 0;
	flags = data[0];
	text = (const char *)data + 1;
	textlen = size - 1;
	if ((nl = memchr(text, '\n', textlen)) == NULL ||
	    (size_t)(nl - text) >= sizeof list)
		return 0;
	memcpy(list, text, (size_t)(nl - text));
	list[nl - text] = '\0';
	textlen -= (size_t)(nl - text) + 1;
	text = nl + 1;

	tc_init(&c);
	c.csv = flags & 1;
	c.no_header = (flags >> 1) & 1;
	c.shared_only = (flags >> 2) & 1;
	c.time = (enum tp_time_mode)((flags >> 3) % 5);
	tp_err_clear(&err);
	if (tc_fields(&c, list, &err) < 0) {
		if (err.status == 0 || err.msg[0] == '\0')
			abort();	/* refused without a reason */
		tc_free(&c);
		return 0;
	}
	if (err.status != 0)
		abort();
	/* The columns as given, split here. */
	for (p = list;; p++) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (ncols == TC_MAXCOLS)
			abort();	/* tc_fields took more than it may */
		if ((names[ncols] = malloc(n + 1)) == NULL)
			abort();
		memcpy(names[ncols], p, n);
		names[ncols][n] = '\0';
		has_ts |= is_ts_key(names[ncols++]);
		if (e == NULL)
			break;
		p = e;
	}
	if (ncols != c.ncols)
		abort();

	/* The reader inflates gzip: a stream it cannot open says why. */
	if (tp_in_open_mem(&in, text, textlen, "<fuzz>", &err) < 0) {
		if (err.status == 0)
			abort();
		goto done;
	}
	tr_init(&r, &in);
	rc = tc_run(&c, &r, cap_begin());
	out = cap_take(&outlen);
	tp_in_close(&in);
	if ((rc < 0) != (err.status != 0))
		abort();
	if (rc < 0 && ((err.line == 0 && err.offset == TP_NONE) ||
	    err.msg[0] == '\0'))
		abort();	/* a failure says where and why */

	/* The text walked again, the table read beside it. */
	p = (const char *)out;
	end = p + outlen;
	if (!c.no_header && rc == 0) {
		size_t n = read_row(&p, end, c.csv, cells);
		if (n != ncols)
			abort();
		for (i = 0; i < n; i++)
			if (cells[i].quoted || !cell_is(&cells[i], names[i],
			    strlen(names[i])))
				abort();	/* the header is not the list */
		free_row(cells, n);
	}
	tp_err_clear(&err2);
	if (tp_in_open_mem(&in2, text, textlen, "<again>", &err2) < 0)
		abort();
	tr_init(&r2, &in2);
	while ((lrc = tr_line(&r2, &line, &len)) == 1) {
		const struct tr_field *f;
		char tcell[64];
		int shared, prc;
		size_t n;

		if (memchr(line, '\0', len) != NULL) {
			bad_line = r2.lineno;
			break;
		}
		if ((prc = tr_parse(&r2, line, len, &rec)) < 0) {
			bad_line = r2.lineno;
			break;
		}
		shared = prc == 1 && shared_kind(rec.kind, rec.kindlen);
		if (prc == 0 || (c.shared_only && !shared))
			continue;
		f = tr_find(&rec, "ts");
		tcell[0] = '\0';
		if (c.time != TP_TIME_NS && has_ts && f != NULL && shared &&
		    !tr_is_null(f)) {
			uint64_t ns;
			size_t tn = 0;
			if (tr_u64(&r2, &rec, f, &ns) < 0) {
				bad_line = r2.lineno;
				break;
			}
			switch (c.time) {
			case TP_TIME_SECONDS:
				tn = spell_seconds(tcell, ns, 0);
				break;
			case TP_TIME_DATE:
				tn = spell_date(tcell, ns);
				break;
			case TP_TIME_REL:
				if (!have_first)
					first = ns, have_first = 1;
				tn = spell_diff(tcell, ns, first);
				break;
			case TP_TIME_DELTA:
				if (have_prev)
					tn = spell_diff(tcell, ns, prev);
				prev = ns, have_prev = 1;
				break;
			case TP_TIME_NS:
				break;
			}
			tcell[tn] = '\0';
		}
		records++;
		if (rc < 0)
			continue;
		if (p >= end)
			abort();	/* fewer rows than records */
		if ((n = read_row(&p, end, c.csv, cells)) != ncols)
			abort();
		for (i = 0; i < n; i++) {
			const struct cell *ce = &cells[i];
			const char *v;
			size_t vn;
			if (strcmp(names[i], "kind") == 0) {
				if (!cell_is(ce, rec.kind, rec.kindlen))
					abort();
				continue;
			}
			/* A repeated column shows the same. */
			for (size_t j = 0; j < i; j++)
				if (strcmp(names[j], names[i]) == 0 &&
				    !cell_is(ce, cells[j].p, cells[j].n))
					abort();
			if ((f = tr_find(&rec, names[i])) == NULL) {
				if (ce->n != 0)
					abort();	/* a cell of nothing */
				continue;
			}
			if (is_ts_key(names[i]) && c.time != TP_TIME_NS) {
				if (!cell_is(ce, tcell, strlen(tcell)))
					abort();	/* not the time spelled */
				continue;
			}
			v = f->val;
			vn = f->vallen;
			if (vn >= 2 && v[0] == '"') {
				/* A string: its bytes, as the text reader has them. */
				if (vn > unqcap && tp_grow(&unq, &unqcap, vn, 1) < 0)
					abort();
				if (tr_str(&r2, &rec, f, unq, unqcap, &vn) < 0)
					abort();
				if (c.csv) {
					if (!cell_is(ce, unq, vn))
						abort();
				} else {
					char *d = malloc(ce->n + 1);
					size_t dn;
					if (d == NULL)
						abort();
					dn = tsv_unescape(ce, d);
					if (dn != vn || (vn > 0 && memcmp(d, unq, vn)))
						abort();
					free(d);
				}
			} else if (c.csv || vn == 0 ||
			    (v[0] != '[' && v[0] != '{')) {
				if (!cell_is(ce, v, vn))
					abort();	/* not the value's text */
			}
		}
		free_row(cells, n);
	}
	tp_in_close(&in2);
	if (lrc < 0 && bad_line == 0) {
		/* Unreadable (bad gzip): the same error, at the same place. */
		if (rc == 0 || err.line != err2.line || err.offset !=
		    err2.offset || strcmp(err.msg, err2.msg) != 0)
			abort();
	} else {
		if ((rc < 0) != (bad_line != 0))
			abort();	/* refused a good text, or took a bad one */
		if (rc < 0 && err.line != bad_line)
			abort();	/* refused, but at another line */
	}
	if (rc == 0 && (p != end || c.rows != records))
		abort();	/* more rows than records */
	free(out);
done:
	for (i = 0; i < ncols; i++)
		free(names[i]);
	tc_free(&c);
	return 0;
}
