/*
 * Tables of chosen fields.  Each line is parsed whole by the one reader
 * (a malformed line is refused, not cut into a row of guesses); the
 * fields named are found by one table lookup per field of the record.
 */
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/grow.h"
#include "tools/cut.h"

void
tc_init(struct tc_cut *c)
{
	memset(c, 0, sizeof *c);
	c->ts = -1;
}

void
tc_free(struct tc_cut *c)
{
	free(c->names);
	free(c->scratch);
	free(c->rec);
	memset(c, 0, sizeof *c);
}

static int
add_column(struct tc_cut *c, const char *name, struct tp_err *err)
{
	unsigned k;

	if (c->ncols == TC_MAXCOLS)
		return tp_fail(err, TP_EXIT_FAIL, "-f: more than %d columns",
		    TC_MAXCOLS);
	if (strcmp(name, "kind") == 0) {
		c->col[c->ncols++] = -1;
		return 0;
	}
	for (k = 0; k < c->nkeys; k++)
		if (strcmp(c->key[k], name) == 0)
			break;
	if (k == c->nkeys) {
		if (k == TR_KEYS_MAX)
			return tp_fail(err, TP_EXIT_FAIL, "-f: more than %d "
			    "distinct fields", TR_KEYS_MAX);
		c->key[c->nkeys++] = name;
		if (strcmp(name, "ts") == 0)
			c->ts = (int)k;
	}
	c->col[c->ncols++] = (int)k;
	return 0;
}

int
tc_fields(struct tc_cut *c, const char *list, struct tp_err *err)
{
	char shown[TP_SHOW_MAX], *copy, *p, *e;
	size_t n = strlen(list), had = 0, i;

	if (n == 0)
		return tp_fail(err, TP_EXIT_FAIL, "-f: empty list of fields");
	/*
	 * The names point into one buffer that only grows: a second -f
	 * appends, and the earlier names are moved with it.
	 */
	if (c->names != NULL)
		had = strlen(c->names) + 1;
	if ((copy = malloc(had + n + 1)) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	if (had > 0) {
		memcpy(copy, c->names, had);
		for (i = 0; i < c->nkeys; i++)
			c->key[i] = copy + (c->key[i] - c->names);
		free(c->names);
	}
	memcpy(copy + had, list, n + 1);
	c->names = copy;
	for (p = copy + had;; p = e + 1) {
		int last;
		if ((e = strchr(p, ',')) == NULL)
			e = p + strlen(p);
		last = *e == '\0';
		*e = '\0';
		if (!tp_key_ok(p, (size_t)(e - p)))
			return tp_fail(err, TP_EXIT_FAIL, "-f: \"%s\" is not a "
			    "field name (letters, digits, '_', '.' and '-')",
			    tp_show(shown, p, (size_t)(e - p)));
		if (add_column(c, p, err) < 0)
			return -1;
		if (last)
			break;
	}
	tr_keys_init(&c->keys, c->key, c->nkeys);
	return 0;
}

/* ------------------------------------------------------------ writing */

/* Does a CSV cell need quotes (RFC 4180: a comma, a quote, a line end)? */
static int
csv_needs_quotes(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
			return 1;
	return 0;
}

static void
put_csv(struct tp_out *o, const char *s, size_t n)
{
	const char *q;

	if (!csv_needs_quotes(s, n)) {
		tp_out_write(o, s, n);
		return;
	}
	tp_out_putc(o, '"');
	while ((q = memchr(s, '"', n)) != NULL) {
		tp_out_write(o, s, (size_t)(q - s) + 1);
		tp_out_putc(o, '"');
		n -= (size_t)(q - s) + 1;
		s = q + 1;
	}
	tp_out_write(o, s, n);
	tp_out_putc(o, '"');
}

/*
 * A TSV cell: the value's text, where a tab or CR (which the reader may
 * have taken raw inside quotes) is written as the text escapes it, and
 * in a quoted string's body \" is a quote (TSV has no quoting).
 */
static void
put_tsv(struct tp_out *o, const char *s, size_t n, int body)
{
	const char *p = s, *end = s + n, *run = s;

	for (; p < end; p++) {
		const char *esc;
		if (*p == '\t')
			esc = "\\t";
		else if (*p == '\r')
			esc = "\\r";
		else if (*p == '\n')
			esc = "\\n";
		else if (*p == '\\' && body && p + 1 < end && p[1] == '"')
			esc = "\"";
		else if (*p == '\\' && p + 1 < end) {
			p++;	/* any other escape stays as it is */
			continue;
		} else
			continue;
		tp_out_write(o, run, (size_t)(p - run));
		tp_out_puts(o, esc);
		if (*p == '\\')
			p++;
		run = p + 1;
	}
	tp_out_write(o, run, (size_t)(end - run));
}

static int
put_value(struct tc_cut *c, struct tp_out *o, const char *v, size_t n,
    struct tp_err *err)
{
	if (n >= 2 && v[0] == '"') {
		if (!c->csv) {
			put_tsv(o, v + 1, n - 2, 1);
			return 0;
		}
		if (n > c->scratchcap && tp_grow(&c->scratch, &c->scratchcap,
		    n, 1) < 0)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		n = tp_unquote(v, n, c->scratch);
		v = c->scratch;
	} else if (!c->csv) {
		put_tsv(o, v, n, 0);
		return 0;
	}
	put_csv(o, v, n);
	return 0;
}

/*
 * The ts of a record of a shared kind, shown as --time says, into buf;
 * its end.  A structure record's ts keeps its format's meaning (a
 * dial9-schema's is a flag: trace-text(5)), so it has no time to show;
 * nor has null.  Once per record: a ts column repeated shows the same.
 */
static char *
fmt_time(struct tc_cut *c, char *buf, struct tr_reader *r,
    const struct tr_rec *rec, const struct tr_field *f)
{
	char *e = buf;
	uint64_t ns;

	if (tp_kind(rec->kind, rec->kindlen, rec->kindlen) == TK_OTHER ||
	    tr_is_null(f))
		return buf;
	if (tr_u64(r, rec, f, &ns) < 0)
		return NULL;
	switch (c->time) {
	case TP_TIME_SECONDS:
		e = tp_fmt_seconds(buf, ns);
		break;
	case TP_TIME_DATE:
		e = tp_fmt_date(buf, ns);
		break;
	case TP_TIME_REL:
		if (!c->have_first) {
			c->first = ns;
			c->have_first = 1;
		}
		e = tp_fmt_seconds_diff(buf, ns, c->first);
		break;
	case TP_TIME_DELTA:
		if (c->have_prev)
			e = tp_fmt_seconds_diff(buf, ns, c->prev);
		c->prev = ns;
		c->have_prev = 1;
		break;
	case TP_TIME_NS:
		break;
	}
	return e;
}

static void
put_header(struct tc_cut *c, struct tp_out *o)
{
	unsigned i;

	for (i = 0; i < c->ncols; i++) {
		if (i > 0)
			tp_out_putc(o, c->csv ? ',' : '\t');
		tp_out_puts(o, c->col[i] < 0 ? "kind" : c->key[c->col[i]]);
	}
	tp_out_putc(o, '\n');
}

static int
put_row(struct tc_cut *c, struct tp_out *o, struct tr_reader *r,
    const struct tr_rec *rec)
{
	const struct tr_field *f[TR_KEYS_MAX];
	char tbuf[TP_TIME_TEXT_MAX], *tend = NULL;
	unsigned i;

	tr_fields(&c->keys, rec, f);
	for (i = 0; i < c->ncols; i++) {
		const struct tr_field *fi;
		if (i > 0)
			tp_out_putc(o, c->csv ? ',' : '\t');
		if (c->col[i] < 0) {
			tp_out_write(o, rec->kind, rec->kindlen);
			continue;
		}
		if ((fi = f[c->col[i]]) == NULL)
			continue;
		if (c->col[i] == c->ts && c->time != TP_TIME_NS) {
			if (tend == NULL &&
			    (tend = fmt_time(c, tbuf, r, rec, fi)) == NULL)
				return -1;
			tp_out_write(o, tbuf, (size_t)(tend - tbuf));
		} else if (put_value(c, o, fi->val, fi->vallen, r->err) < 0) {
			return -1;
		}
	}
	tp_out_putc(o, '\n');
	c->rows++;
	return 0;
}

int
tc_run(struct tc_cut *c, struct tr_reader *r, struct tp_out *o)
{
	char *line;
	size_t len;
	int rc;

	if (!c->header_done && !c->no_header)
		put_header(c, o);
	c->header_done = 1;
	/* 20 KiB: not on the stack, and made once for every input. */
	if (c->rec == NULL && (c->rec = malloc(sizeof *c->rec)) == NULL)
		return tp_fail(r->err, TP_EXIT_FAIL, "out of memory");
	while ((rc = tr_line(r, &line, &len)) == 1) {
		const char *nul = memchr(line, '\0', len);
		if (nul != NULL) {
			r->err->line = r->lineno;
			r->err->col = (uint64_t)(nul - line) + 1;
			r->err->offset = TP_NONE;
			return tp_fail(r->err, TP_EXIT_DATA, "a NUL byte: binary "
			    "data, not trace text");
		}
		if ((rc = tr_parse(r, line, len, c->rec)) < 0)
			return -1;
		if (rc == 0 || (c->shared_only && tp_kind(c->rec->kind,
		    c->rec->kindlen, c->rec->kindlen) == TK_OTHER))
			continue;
		if (put_row(c, o, r, c->rec) < 0)
			return -1;
	}
	return rc;
}
