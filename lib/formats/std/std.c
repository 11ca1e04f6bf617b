/*
 * RAPID STD text: writer and reader.
 */
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "formats/probe.h"
#include "formats/std/std.h"

/* Op spellings and operand prefixes, indexed by enum rb_op. */
static const char *const std_op[RB_NOPS] = {
	"acq", "rel", "r", "w", "fork", "join", "begin", "end", "req", "branch"
};

static const char std_prefix[RB_NOPS] = {
	'L', 'L', 'V', 'V', 'T', 'T', 0, 0, 'L', 0
};

/*
 * The STD line of an event, '\n' included; needs RB_LINE_MAX bytes.  bare:
 * the operand without its L, V or T (the SPD traces' spelling).
 */
static char *
rs_fmt_event(char *p, const struct rb_event *e, int bare)
{
	size_t n = strlen(std_op[e->op]);

	*p++ = 'T';
	p = tp_fmt_u64(p, e->tid);
	*p++ = '|';
	memcpy(p, std_op[e->op], n);
	p += n;
	if (std_prefix[e->op] != 0) {
		*p++ = '(';
		if (!bare)
			*p++ = std_prefix[e->op];
		p = tp_fmt_u64(p, e->decor);
		*p++ = ')';
	}
	*p++ = '|';
	p = tp_fmt_u64(p, e->loc);
	*p++ = '\n';
	return p;
}

/* Decimal digits at *s up to end or a non-digit; -1 if none, -2 if too big. */
static int
std_number(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	unsigned n = 0;

	if (p == end || *p < '0' || *p > '9')
		return -1;
	/* 19 digits always fit: the overflow test from the 20th on. */
	for (; p < end && *p >= '0' && *p <= '9'; p++, n++) {
		unsigned d = (unsigned)(*p - '0');
		if (n >= 19 && x > (UINT64_MAX - d) / 10)
			return -2;
		x = x * 10 + d;
	}
	*s = p;
	*v = x;
	return 0;
}

int
rs_parse(const char *line, size_t len, struct rb_event *e,
    const char **why, size_t *col, int *bare)
{
	const char *p = line, *end = line + len, *op, *bar;
	size_t oplen;
	unsigned i;
	int rc;

	memset(e, 0, sizeof *e);
	*bare = -1;		/* no operand */
	if (p < end && *p == 'T')
		p++;
	if ((rc = std_number(&p, end, &e->tid)) < 0) {
		*why = rc == -2 ? "thread: the number overflows 64 bits" :
		    "thread: expected T<number>";
		goto fail;
	}
	if (p == end || *p != '|') {
		*why = "expected '|' after the thread";
		goto fail;
	}
	op = ++p;
	bar = memchr(p, '|', (size_t)(end - p));
	if (bar == NULL) {
		*why = "expected three '|'-separated fields";
		goto fail;
	}
	for (oplen = 0; op + oplen < bar && op[oplen] >= 'a' &&
	    op[oplen] <= 'z'; oplen++)
		;
	/* The name's first letter, then the rest and its end. */
	for (i = 0; i < RB_NOPS; i++)
		if (oplen > 0 && std_op[i][0] == op[0] &&
		    strncmp(op, std_op[i], oplen) == 0 &&
		    std_op[i][oplen] == '\0')
			break;
	if (i == RB_NOPS) {
		*why = "unknown operation (acq rel r w fork join begin end "
		    "req branch)";
		goto fail;
	}
	e->op = i;
	p = op + oplen;
	if (std_prefix[i] != 0) {
		if (p == bar || *p != '(') {
			*why = "expected '(' and an operand";
			goto fail;
		}
		p++;
		*bare = !(p < bar && *p == std_prefix[i]);
		if (!*bare)
			p++;
		if ((rc = std_number(&p, bar, &e->decor)) < 0) {
			*why = rc == -2 ? "operand: the number overflows 64 "
			    "bits" : std_prefix[i] == 'L' ? "expected a lock: "
			    "L<number> or <number>" : std_prefix[i] == 'V' ?
			    "expected a variable: V<number> or <number>" :
			    "expected a thread: T<number> or <number>";
			goto fail;
		}
		if (p == bar || *p != ')') {
			*why = "expected ')' after the operand";
			goto fail;
		}
		p++;
	} else if (bar - p == 2 && p[0] == '(' && p[1] == ')') {
		p += 2;		/* RAPID also accepts "begin()" */
	}
	if (p != bar) {
		*why = "unexpected text after the operation";
		goto fail;
	}
	p = bar + 1;
	if ((rc = std_number(&p, end, &e->loc)) < 0 || p != end) {
		*why = rc == -2 ? "location: the number overflows 64 bits" :
		    memchr(bar + 1, '|', (size_t)(end - bar - 1)) != NULL ?
		    "more than three '|'-separated fields" :
		    "location: expected a decimal number";
		goto fail;
	}
	if (e->loc > INT32_MAX) {
		/* RAPID reads it with Integer.parseInt: txt2std refuses it. */
		p = bar + 1;
		*why = "location: more than 2147483647, which RAPID's Java "
		    "int cannot hold";
		goto fail;
	}
	return 0;
fail:
	*col = (size_t)(p - line) + 1;
	return -1;
}

/* txt2std's side of the shared mapping (struct rb_sink). */
struct std_w {
	const struct std_enc_opts *opts;
	struct std_enc_stats *st;
	int bare;		/* the spelling of the operands */
	struct rb_sink sink;
};

static char *
std_event(void *ctx, char *p, const struct rb_event *e)
{
	struct std_w *w = ctx;
	struct std_enc_stats *st = w->st;

	if (e->op == RB_MARK) {
		w->bare = (int)e->decor;
		return p;
	}
	if (e->op == RB_REQUEST && !w->opts->keep_request && !st->from_std) {
		st->requests++;
		return p;
	}
	if (e->op == RB_BRANCH && !w->opts->keep_branch && !st->from_std) {
		st->branches++;
		return p;
	}
	if (e->bit63 || (rb_decor_kind[e->op] == RB_D_NONE && e->decor != 0))
		st->lossy++;
	st->events++;
	return rs_fmt_event(p, e, w->bare);
}

/*
 * std-header, the record of a stream of an STD file: its spelling, in
 * its place, and its ids, which are text in STD, are kept whatever
 * their size.
 */
static int
std_other(void *ctx, struct tr_reader *r, const struct tr_rec *rec,
    uint64_t *mark)
{
	struct std_w *w = ctx;
	const struct tr_field *f;

	if (rec->kindlen != 10 || memcmp(rec->kind, "std-header", 10) != 0)
		return 0;
	f = tr_find(rec, "operands");
	if (f != NULL && f->vallen == 4 && memcmp(f->val, "bare", 4) == 0)
		*mark = 1;
	else if (f == NULL || (f->vallen == 8 &&
	    memcmp(f->val, "prefixed", 8) == 0))
		*mark = 0;
	else
		return tr_fail(r, rec, f, "bare or prefixed expected");
	w->st->from_std = 1;
	w->sink.wide = 1;
	return 2;
}

int
std_encode(struct tr_reader *r, struct tp_out *out,
    const struct std_enc_opts *opts, struct std_enc_stats *st,
    struct tp_err *err)
{
	struct rapidbin_enc_opts rb = opts->rb;
	struct std_w w;

	memset(st, 0, sizeof *st);
	memset(&w, 0, sizeof w);
	w.opts = opts;
	w.st = st;
	w.sink.max = RB_LINE_MAX;
	w.sink.event = std_event;
	w.sink.other = std_other;
	w.sink.ctx = &w;
	/* RAPID reads a location with Integer.parseInt. */
	w.sink.wide_loc_max = INT32_MAX;
	w.sink.wide_loc_why = "does not fit RAPID's location, a Java int "
	    "(max 2147483647)";
	rb.sink = &w.sink;
	return rapidbin_encode(r, out, &rb, &st->rb, err);
}

int
std_decode(struct tp_in *in, struct tp_out *out,
    const struct std_dec_opts *opts, struct std_dec_stats *st,
    struct tp_err *err)
{
	uint64_t lineno = 0;
	struct rb_event e;
	char *line;
	size_t len;
	int rc, spelling = -1, bare;

	(void)opts;
	memset(st, 0, sizeof *st);
	while ((rc = tp_in_line(in, &line, &len)) > 0) {
		const char *why;
		size_t col, i;
		char *p;

		lineno++;
		for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
			;
		if (i == len)
			continue;
		if (rs_parse(line, len, &e, &why, &col, &bare) < 0) {
			err->line = lineno;
			err->col = col;
			return tp_fail(err, TP_EXIT_DATA, "%s", why);
		}
		if (spelling < 0 || (bare >= 0 && bare != spelling)) {
			/*
			 * How the operands are spelled, before the first event
			 * and where it changes: txt2std writes them so again.
			 */
			spelling = bare > 0;
			tw_begin(out, "std-header");
			tw_str(out, "operands", spelling ? "bare" : "prefixed",
			    spelling ? 4 : 8);
			tw_end(out);
		}
		p = tp_out_reserve(out, RB_LINE_MAX + 16);
		tp_out_commit(out, rb_fmt_event(p, &e));
		st->events++;
	}
	return rc;
}

/* The first line that is not blank parses as an STD event. */
int
std_probe(const unsigned char *p, size_t n, char *detail, size_t detailsz)
{
	const char *s = (const char *)p, *e = s + n, *nl;
	struct rb_event ev;
	const char *why;
	size_t col;
	int bare;

	if (detailsz > 0)
		detail[0] = '\0';
	while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	if ((nl = memchr(s, '\n', (size_t)(e - s))) == NULL) {
		if (n >= TP_PROBE_LEN)
			return TP_PROBE_NO;	/* a line longer than any STD */
		nl = e;
	}
	if (nl > s && nl[-1] == '\r')
		nl--;
	if (nl == s || rs_parse(s, (size_t)(nl - s), &ev, &why, &col,
	    &bare) < 0)
		return TP_PROBE_NO;
	return TP_PROBE_MAYBE;
}
