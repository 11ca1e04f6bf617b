/*
 * Selection expressions: a recursive-descent parser into a small array of
 * nodes, and an evaluator that looks the fields up straight in the raw
 * line (tr_peekn_once), once per line and only if a leaf needs them; a
 * field it looks at that the record gives twice makes the record
 * malformed.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/grow.h"
#include "io/input.h"
#include "text/text.h"
#include "tools/expr.h"
#include "tools/ranges.h"

enum op {
	X_AND, X_OR, X_NOT,	/* a, b: children */
	X_KIND,			/* kinds: TF_* bits */
	X_HAS,			/* key */
	X_NUM,			/* key cmp num */
	X_IN,			/* key in set */
	X_STR,			/* key ==/!= str */
	X_RE			/* key ~/!~ re */
};

enum cmp { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE };

/* An integer of either sign: mag, negated when neg (never -0). */
struct num {
	int neg;
	uint64_t mag;
};

struct node {
	enum op op;
	enum cmp cmp;		/* X_NUM; C_EQ or C_NE for X_STR, X_RE */
	int a, b;
	unsigned key;
	unsigned kinds;
	struct num num;
	struct tf_set set;
	char *str;
	size_t len;
	regex_t re;
};

struct tx_expr {
	struct node *n;
	size_t nn, cap;
	int root;
	const char *key[TX_MAXKEYS];	/* point into keybuf[] */
	size_t keylen[TX_MAXKEYS];
	char *keybuf[TX_MAXKEYS];
	unsigned nkeys;
	int strings;		/* it compares strings: scratch is needed */
	char *scratch;		/* a value unquoted: as long as the longest */
	size_t scratchcap;	/* line yet, or NULL */
	int lone;		/* > 0: the first field alone often decides */
	unsigned tick;
};

/* ------------------------------------------------------------- parsing */

enum tok {
	T_END, T_LP, T_RP, T_AND, T_OR, T_NOT, T_IN, T_CMP, T_MATCH,
	T_NMATCH, T_WORD, T_STR, T_BAD
};

struct parser {
	struct tx_expr *x;
	const char *text, *p;
	enum tok tok;
	enum cmp cmp;		/* T_CMP */
	const char *at;		/* the token's first byte */
	size_t len;		/* its length */
	struct tp_err *err;
};

/* Letters, digits and what keys, numbers and range lists are made of. */
static int
word_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
	    c == '+' || c == ',' || c == ':';
}

static int
is_word(const struct parser *ps, const char *w)
{
	return ps->tok == T_WORD && ps->len == strlen(w) &&
	    memcmp(ps->at, w, ps->len) == 0;
}

static void
next(struct parser *ps)
{
	const char *p = ps->p;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	ps->at = p;
	if (*p == '\0') {
		ps->tok = T_END;
	} else if (*p == '(' || *p == ')') {
		ps->tok = *p++ == '(' ? T_LP : T_RP;
	} else if (p[0] == '&' && p[1] == '&') {
		ps->tok = T_AND, p += 2;
	} else if (p[0] == '|' && p[1] == '|') {
		ps->tok = T_OR, p += 2;
	} else if (p[0] == '=' && p[1] == '=') {
		ps->tok = T_CMP, ps->cmp = C_EQ, p += 2;
	} else if (p[0] == '!' && p[1] == '=') {
		ps->tok = T_CMP, ps->cmp = C_NE, p += 2;
	} else if (p[0] == '!' && p[1] == '~') {
		ps->tok = T_NMATCH, p += 2;
	} else if (*p == '!') {
		ps->tok = T_NOT, p++;
	} else if (*p == '~') {
		ps->tok = T_MATCH, p++;
	} else if (*p == '<' || *p == '>') {
		int lt = *p++ == '<', eq = *p == '=';
		ps->tok = T_CMP;
		ps->cmp = lt ? (eq ? C_LE : C_LT) : (eq ? C_GE : C_GT);
		p += eq;
	} else if (*p == '"') {
		/* The text grammar's quoted string: \\ \" \n \r \t \xHH. */
		for (p++; *p != '"'; p++) {
			if (*p == '\0') {
				ps->tok = T_BAD;
				ps->p = p;
				return;
			}
			if (*p == '\\') {
				if (p[1] == 'x' && tp_hexval(p[2]) >= 0 &&
				    tp_hexval(p[3]) >= 0)
					p += 3;
				else if (p[1] != '\0' && strchr("\\\"nrt", p[1]))
					p++;
				else {
					ps->tok = T_BAD;
					ps->p = p;
					return;
				}
			}
		}
		p++;
		ps->tok = T_STR;
	} else if (word_char((unsigned char)*p)) {
		while (word_char((unsigned char)*p))
			p++;
		ps->tok = T_WORD;
		if (p - ps->at == 3 && memcmp(ps->at, "and", 3) == 0)
			ps->tok = T_AND;
		else if (p - ps->at == 2 && memcmp(ps->at, "or", 2) == 0)
			ps->tok = T_OR;
		else if (p - ps->at == 3 && memcmp(ps->at, "not", 3) == 0)
			ps->tok = T_NOT;
		else if (p - ps->at == 2 && memcmp(ps->at, "in", 2) == 0)
			ps->tok = T_IN;
	} else {
		ps->tok = T_BAD;
		p++;
	}
	ps->len = (size_t)(p - ps->at);
	ps->p = p;
}

static int
fail(struct parser *ps, const char *what)
{
	/* A long expression is not repeated: the column says where. */
	int n = (int)(ps->len > 30 ? 30 : ps->len), quote = strlen(ps->text) <= 80;
	size_t col = (size_t)(ps->at - ps->text) + 1;
	char where[128];

	snprintf(where, sizeof where, "-e%s%s%s: column %zu", quote ? " '" : "",
	    quote ? ps->text : "", quote ? "'" : "", col);
	if (ps->tok == T_END)
		return tp_fail(ps->err, TP_EXIT_FAIL, "%s: %s at the end", where,
		    what);
	if (ps->tok == T_BAD && *ps->at == '"') {
		if (*ps->p == '\0')
			return tp_fail(ps->err, TP_EXIT_FAIL,
			    "%s: unterminated string", where);
		snprintf(where, sizeof where, "-e%s%s%s: column %zu",
		    quote ? " '" : "", quote ? ps->text : "", quote ? "'" : "",
		    (size_t)(ps->p - ps->text) + 1);
		return tp_fail(ps->err, TP_EXIT_FAIL, "%s: bad escape in a "
		    "string (\\\\ \\\" \\n \\r \\t \\xHH)", where);
	}
	/* A regular expression's fault is regerror's text, not a token. */
	if (ps->tok == T_STR && strncmp(what, "regcomp: ", 9) == 0)
		return tp_fail(ps->err, TP_EXIT_FAIL, "%s: bad regular "
		    "expression %.*s: %s", where, n, ps->at, what + 9);
	return tp_fail(ps->err, TP_EXIT_FAIL, "%s: %s, not \"%.*s\"", where,
	    what, n, ps->at);
}

static int
new_node(struct parser *ps, enum op op)
{
	struct tx_expr *x = ps->x;

	if (tp_grow(&x->n, &x->cap, x->nn + 1, sizeof *x->n) < 0)
		return tp_fail(ps->err, TP_EXIT_FAIL, "out of memory");
	memset(&x->n[x->nn], 0, sizeof x->n[0]);
	x->n[x->nn].op = op;
	return (int)x->nn++;
}

static int
binary(struct parser *ps, enum op op, int a, int b)
{
	int i;

	if (a < 0 || b < 0 || (i = new_node(ps, op)) < 0)
		return -1;
	ps->x->n[i].a = a;
	ps->x->n[i].b = b;
	return i;
}

/* The index of the field named by the current word, added if new. */
static int
key_index(struct parser *ps)
{
	struct tx_expr *x = ps->x;
	unsigned i;

	for (i = 0; i < x->nkeys; i++)
		if (x->keylen[i] == ps->len &&
		    memcmp(x->key[i], ps->at, ps->len) == 0)
			return (int)i;
	if (x->nkeys == TX_MAXKEYS)
		return fail(ps, "more than 32 distinct fields");
	if ((x->keybuf[i] = strndup(ps->at, ps->len)) == NULL)
		return tp_fail(ps->err, TP_EXIT_FAIL, "out of memory");
	x->key[i] = x->keybuf[i];
	x->keylen[i] = ps->len;
	x->nkeys++;
	return (int)i;
}

static int
parse_num(const char *s, size_t n, struct num *v)
{
	int neg = n > 1 && s[0] == '-';

	if (tp_parse_u64(s + neg, n - (size_t)neg, &v->mag) < 0)
		return -1;
	v->neg = neg && v->mag != 0;
	return 0;
}

/* kind == K, kind != K, kind in K,K: the TF_* bits. */
static int
kind_leaf(struct parser *ps)
{
	enum tok op = ps->tok;
	enum cmp cmp = ps->cmp;
	unsigned bits = 0;
	const char *p, *end;
	int i;

	if (op != T_IN && !(op == T_CMP && (cmp == C_EQ || cmp == C_NE)))
		return fail(ps, "expected ==, != or in after \"kind\"");
	next(ps);
	if (ps->tok != T_WORD)
		return fail(ps, "expected a kind");
	for (p = ps->at, end = ps->at + ps->len; p < end; ) {
		const char *e = memchr(p, ',', (size_t)(end - p));
		unsigned bit;

		if (e == NULL)
			e = end;
		if ((e < end && op != T_IN) ||
		    (bit = tf_kind_bit(p, (size_t)(e - p), (size_t)(e - p))) == 0) {
			ps->at = p;
			ps->len = (size_t)(e - p);
			return fail(ps, "expected a shared kind (insn, read, "
			    "write, acquire, release, request, fork, join, "
			    "begin, end, branch, event)");
		}
		bits |= bit;
		p = e + (e < end);
	}
	next(ps);
	if ((i = new_node(ps, X_KIND)) < 0)
		return -1;
	ps->x->n[i].kinds = op == T_CMP && cmp == C_NE ? ~bits : bits;
	return i;
}

/* FIELD op VALUE, with the current token on FIELD. */
/*
 * Does the regular expression repeat a repetition ("a++", "a*{2}")?  POSIX
 * leaves that undefined, and glibc's regcomp copies the repeated part for
 * each operator: a few dozen of them take it hours.
 */
static int
stacked_repeat(const char *re)
{
	int after_repeat = 0;

	for (const char *p = re; *p != '\0'; p++) {
		if (*p == '*' || *p == '+' || *p == '?' || *p == '{') {
			if (after_repeat)
				return 1;
			after_repeat = 1;
			if (*p == '{')
				while (p[1] != '\0' && *p != '}')
					p++;
			continue;
		}
		after_repeat = 0;
		if (*p == '\\' && p[1] != '\0') {
			p++;
		} else if (*p == '[') {
			/* A bracket expression: "]" first is a member. */
			p += p[1] == '^';
			p += p[1] == ']';
			while (p[1] != '\0' && p[1] != ']') {
				p++;
				if (*p == '[' && (p[1] == ':' || p[1] == '.' ||
				    p[1] == '=')) {
					char end = p[1];
					for (p += 2; *p != '\0' &&
					    !(p[0] == end && p[1] == ']'); p++)
						;
					if (*p == '\0')
						return 0;	/* regcomp says */
					p++;
				}
			}
			if (p[1] != '\0')
				p++;
		}
	}
	return 0;
}

static int
leaf(struct parser *ps)
{
	struct node *nd;
	enum tok op;
	enum cmp cmp;
	int key, i;

	if (is_word(ps, "kind")) {
		next(ps);
		return kind_leaf(ps);
	}
	if ((key = key_index(ps)) < 0)
		return -1;
	next(ps);
	op = ps->tok;
	cmp = ps->cmp;
	if (op != T_CMP && op != T_IN && op != T_MATCH && op != T_NMATCH)
		return fail(ps, "expected == != < <= > >= ~ !~ or in");
	next(ps);
	if (op == T_IN) {
		char what[48];

		if (ps->tok != T_WORD)
			return fail(ps, "expected a list such as 1,2,5-9 or "
			    "0x1000+0x40");
		if ((i = new_node(ps, X_IN)) < 0)
			return -1;
		nd = &ps->x->n[i];
		snprintf(what, sizeof what, "-e: column %zu",
		    (size_t)(ps->at - ps->text) + 1);
		{
			char *list = strndup(ps->at, ps->len);
			int rc = list ? tf_set_parse(&nd->set, what, list,
			    ps->err) : tp_fail(ps->err, TP_EXIT_FAIL,
			    "out of memory");
			free(list);
			if (rc < 0)
				return -1;
		}
	} else if (op == T_MATCH || op == T_NMATCH ||
	    (ps->tok == T_STR && (cmp == C_EQ || cmp == C_NE))) {
		char *s;
		int rc;

		if (ps->tok != T_STR)
			return fail(ps, "expected a quoted regular expression");
		if ((i = new_node(ps, op == T_CMP ? X_STR : X_RE)) < 0)
			return -1;
		nd = &ps->x->n[i];
		nd->cmp = op == T_CMP ? cmp : op == T_MATCH ? C_EQ : C_NE;
		ps->x->strings = 1;
		if ((s = malloc(ps->len)) == NULL)
			return tp_fail(ps->err, TP_EXIT_FAIL, "out of memory");
		nd->str = s;
		nd->len = tp_unquote(ps->at, ps->len, s);
		s[nd->len] = '\0';
		if (nd->op == X_RE) {
			if (memchr(s, '\0', nd->len) != NULL) {
				nd->op = X_STR;	/* nothing to regfree */
				return fail(ps, "a regular expression cannot "
				    "hold \\x00");
			}
			if (stacked_repeat(s)) {
				nd->op = X_STR;	/* nothing to regfree */
				return fail(ps, "a repetition of a repetition "
				    "(undefined in POSIX extended regular "
				    "expressions)");
			}
			if ((rc = regcomp(&nd->re, s, REG_EXTENDED |
			    REG_NOSUB)) != 0) {
				char msg[128] = "regcomp: ";
				regerror(rc, &nd->re, msg + 9, sizeof msg - 9);
				nd->op = X_STR;	/* nothing to regfree */
				return fail(ps, msg);
			}
		}
	} else {
		if (ps->tok != T_WORD)
			return fail(ps, cmp == C_EQ || cmp == C_NE ?
			    "expected a number or a quoted string" :
			    "expected a number");
		if ((i = new_node(ps, X_NUM)) < 0)
			return -1;
		nd = &ps->x->n[i];
		nd->cmp = cmp;
		if (parse_num(ps->at, ps->len, &nd->num) < 0)
			return fail(ps, "expected a number (decimal, or hex "
			    "with 0x; strings are quoted)");
	}
	ps->x->n[i].key = (unsigned)key;
	next(ps);
	return i;
}

static int parse_or(struct parser *ps);

static int
primary(struct parser *ps)
{
	int i;

	if (ps->tok == T_NOT) {
		next(ps);
		if ((i = primary(ps)) < 0)
			return -1;
		return binary(ps, X_NOT, i, i);
	}
	if (ps->tok == T_LP) {
		next(ps);
		if ((i = parse_or(ps)) < 0)
			return -1;
		if (ps->tok != T_RP)
			return fail(ps, "expected )");
		next(ps);
		return i;
	}
	if (is_word(ps, "has") && *ps->p == '(') {
		int key;

		next(ps);
		next(ps);
		if (ps->tok != T_WORD)
			return fail(ps, "expected a field name");
		if ((key = key_index(ps)) < 0)
			return -1;
		next(ps);
		if (ps->tok != T_RP)
			return fail(ps, "expected )");
		next(ps);
		if ((i = new_node(ps, X_HAS)) < 0)
			return -1;
		ps->x->n[i].key = (unsigned)key;
		return i;
	}
	if (ps->tok != T_WORD)
		return fail(ps, "expected a field name, kind, has(FIELD), "
		    "not or (");
	return leaf(ps);
}

static int
parse_and(struct parser *ps)
{
	int i = primary(ps);

	while (i >= 0 && ps->tok == T_AND) {
		next(ps);
		i = binary(ps, X_AND, i, primary(ps));
	}
	return i;
}

static int
parse_or(struct parser *ps)
{
	int i = parse_and(ps);

	while (i >= 0 && ps->tok == T_OR) {
		next(ps);
		i = binary(ps, X_OR, i, parse_and(ps));
	}
	return i;
}

static void
free_nodes(struct tx_expr *x, size_t from)
{
	for (size_t i = from; i < x->nn; i++) {
		if (x->n[i].op == X_RE)
			regfree(&x->n[i].re);
		free(x->n[i].str);
		free(x->n[i].set.r);
	}
	x->nn = from;
}

/* 0, or -1 with *xp as it was before (a failed -e adds nothing). */
int
tx_add(struct tx_expr **xp, const char *text, struct tp_err *err)
{
	struct parser ps = { .text = text, .p = text, .err = err };
	size_t nn;
	unsigned nkeys;
	int root;

	if (*xp == NULL) {
		if ((*xp = calloc(1, sizeof **xp)) == NULL)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		(*xp)->root = -1;
	}
	ps.x = *xp;
	nn = ps.x->nn;
	nkeys = ps.x->nkeys;
	next(&ps);
	if (ps.tok == T_END)
		root = tp_fail(err, TP_EXIT_FAIL, "-e: empty expression");
	else if ((root = parse_or(&ps)) >= 0 && ps.tok != T_END)
		root = fail(&ps, ps.tok == T_RP ? "unbalanced )" :
		    "expected and, or or the end");
	else if (root >= 0 && ps.x->root >= 0)
		root = binary(&ps, X_OR, ps.x->root, root);
	if (root < 0) {
		free_nodes(ps.x, nn);
		while (ps.x->nkeys > nkeys)
			free(ps.x->keybuf[--ps.x->nkeys]);
		if (ps.x->root < 0) {
			tx_free(ps.x);
			*xp = NULL;
		}
		return -1;
	}
	ps.x->root = root;
	return 0;
}

void
tx_free(struct tx_expr *x)
{
	size_t i;

	if (x == NULL)
		return;
	free_nodes(x, 0);
	for (i = 0; i < x->nkeys; i++)
		free(x->keybuf[i]);
	free(x->n);
	free(x->scratch);
	free(x);
}

/* ---------------------------------------------------------- evaluating */

struct line {
	const char *p;
	size_t len;
	unsigned kind;		/* TF_* bit */
	int lone;		/* look the first field up alone */
	uint32_t known;		/* keys looked up (found or not) */
	uint32_t found;
	const char *dup;	/* a key the record gives twice, or NULL */
	const char *val[TX_MAXKEYS];
	size_t vallen[TX_MAXKEYS];
};

static int
num_cmp(struct num a, struct num b)
{
	if (a.neg != b.neg)
		return a.neg ? -1 : 1;
	if (a.mag == b.mag)
		return 0;
	return (a.mag < b.mag) != a.neg ? -1 : 1;
}

/*
 * The value of field key, or NULL when absent, null or given twice
 * (l->dup).  The first field an expression looks at is looked up alone
 * (one key compared at each '=') while that often decides, as a
 * selective first test does; the others, or all when it does not, in
 * one pass.
 */
static const char *
value(struct tx_expr *x, struct line *l, unsigned key, size_t *n)
{
	uint32_t bit = UINT32_C(1) << key;

	if (!(l->known & bit)) {
		if (l->known == 0 && l->lone) {
			if (tr_peek_once(l->p, l->len, x->key[key],
			    x->keylen[key], &l->val[key], &l->vallen[key],
			    &l->dup))
				l->found |= bit;
			l->known = bit;
		} else {
			l->found |= tr_peekn_once(l->p, l->len, x->key,
			    x->keylen, x->nkeys, l->val, l->vallen, &l->dup) &
			    ~l->known;
			l->known = UINT32_MAX;
		}
	}
	if (l->dup != NULL || !(l->found & bit))
		return NULL;
	*n = l->vallen[key];
	if (*n == 4 && memcmp(l->val[key], "null", 4) == 0)
		return NULL;
	return l->val[key];
}

/*
 * A bare value is copied for regexec, with a NUL after it, where there is
 * no REG_STARTEND, and under AddressSanitizer, whose regexec reads the
 * string up to a NUL whatever the flags (the line's bytes have none).
 */
#if !defined(REG_STARTEND) || defined(__SANITIZE_ADDRESS__)
#define COPY_BARE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COPY_BARE 1
#endif
#endif

/*
 * A value as a string: a quoted one unquoted into the scratch buffer,
 * which holds a whole line (tx_eval), a bare one as it is (COPY_BARE:
 * copied there too).
 */
static const char *
string(struct tx_expr *x, const char *v, size_t *n)
{
	if (*n >= 2 && v[0] == '"')
		*n = tp_unquote(v, *n, x->scratch);
#ifdef COPY_BARE
	else
		memcpy(x->scratch, v, *n);
#else
	else
		return v;
#endif
	x->scratch[*n] = '\0';
	return x->scratch;
}

static int
eval(struct tx_expr *x, int i, struct line *l)
{
	const struct node *nd = &x->n[i];
	const char *v;
	size_t n;
	struct num num;
	regmatch_t m;
	int c;

	switch (nd->op) {
	case X_AND:
		return eval(x, nd->a, l) && eval(x, nd->b, l);
	case X_OR:
		return eval(x, nd->a, l) || eval(x, nd->b, l);
	case X_NOT:
		return !eval(x, nd->a, l);
	case X_KIND:
		return (nd->kinds & l->kind) != 0;
	default:
		break;
	}
	if ((v = value(x, l, nd->key, &n)) == NULL)
		return 0;
	switch (nd->op) {
	case X_HAS:
		return 1;
	case X_NUM:
		if (parse_num(v, n, &num) < 0)
			return 0;
		c = num_cmp(num, nd->num);
		switch (nd->cmp) {
		case C_EQ: return c == 0;
		case C_NE: return c != 0;
		case C_LT: return c < 0;
		case C_LE: return c <= 0;
		case C_GT: return c > 0;
		case C_GE: return c >= 0;
		}
		return 0;
	case X_IN:
		return parse_num(v, n, &num) == 0 && !num.neg &&
		    tf_set_has(&nd->set, num.mag);
	case X_STR:
		v = string(x, v, &n);
		return (n == nd->len && memcmp(v, nd->str, n) == 0) ==
		    (nd->cmp == C_EQ);
	case X_RE:
		v = string(x, v, &n);
#ifdef REG_STARTEND
		m.rm_so = 0;
		m.rm_eo = (regoff_t)n;
		return (regexec(&nd->re, v, 1, &m, REG_STARTEND) == 0) ==
		    (nd->cmp == C_EQ);
#else
		return (regexec(&nd->re, v, 0, &m, 0) == 0) == (nd->cmp == C_EQ);
#endif
	default:
		return 0;
	}
}

int
tx_eval(struct tx_expr *x, unsigned kind, const char *line, size_t len,
    const char **dup)
{
	struct line l;
	int r;

	/* Room for any value of the line unquoted, and a NUL. */
	if (x->strings && tp_grow(&x->scratch, &x->scratchcap, len + 1, 1) < 0)
		return -2;
	l.p = line;
	l.len = len;
	l.kind = kind;
	l.known = 0;
	l.found = 0;
	l.dup = NULL;
	/* Now and then the lone lookup is tried again, lest it stay off. */
	l.lone = x->nkeys > 1 && (x->lone >= 0 || (++x->tick & 63) == 0);
	r = eval(x, x->root, &l);
	if ((*dup = l.dup) != NULL)
		return -1;
	if (l.lone && l.known != 0) {
		if (l.known != UINT32_MAX)
			x->lone += x->lone < 16;
		else
			x->lone -= x->lone > -16;
	}
	return r;
}
