/*
 * Slices from begin and end events: the words that open and close them.
 */
#include <string.h>

#include "base/hash.h"
#include "text/text.h"
#include "tools/pair.h"

/*
 * A word at the end of the name (before an "Event" suffix and before a
 * ":detail" tail), as in PollStartEvent..PollEndEvent (dial9),
 * SpanEnter:site..SpanExit:site, wtf.timing#frameStart..frameEnd.  The
 * slice is named without the word, but a park is named after it:
 * WorkerParkEvent..WorkerUnparkEvent is the slice WorkerPark.
 */
static const struct {
	const char *word;
	int opens;
	const char *keep;	/* kept in the slice's name: this open word */
} pair_word[] = {
	{ "Start", 1, NULL }, { "Begin", 1, NULL }, { "Enter", 1, NULL },
	{ "Park", 1, "Park" },
	{ "End", 0, NULL }, { "Stop", 0, NULL }, { "Exit", 0, NULL },
	{ "Leave", 0, NULL }, { "Unpark", 0, "Park" },
};

/*
 * Event name[0..n): 1 opens a slice, 0 closes one, -1 neither; the
 * slice's name (at most TP_PAIR_NAME bytes) in out.  Only through
 * tp_pair_what: the one rule has one entry.
 */
static int
tp_pair_name(const char *name, size_t n, char *out, size_t *outlen)
{
	const char *colon = memchr(name, ':', n);
	size_t head = colon ? (size_t)(colon - name) : n, k, wl = 0, stem, kl;

	if (head > 5 && memcmp(name + head - 5, "Event", 5) == 0)
		head -= 5;
	for (k = 0; k < sizeof pair_word / sizeof pair_word[0]; k++) {
		wl = strlen(pair_word[k].word);
		if (head > wl && memcmp(name + head - wl, pair_word[k].word,
		    wl) == 0)
			break;
	}
	if (k == sizeof pair_word / sizeof pair_word[0])
		return -1;
	stem = head - wl;
	kl = pair_word[k].keep ? strlen(pair_word[k].keep) : 0;
	if (colon == NULL)
		colon = name + n;
	if (stem + kl + (size_t)(name + n - colon) > TP_PAIR_NAME)
		return -1;
	memcpy(out, name, stem);
	if (kl > 0)	/* memcpy takes no NULL, even for 0 bytes */
		memcpy(out + stem, pair_word[k].keep, kl);
	memcpy(out + stem + kl, colon, (size_t)(name + n - colon));
	*outlen = stem + kl + (size_t)(name + n - colon);
	return pair_word[k].opens;
}

static int
has_suffix(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

int
tp_pair_what(int kind, const char *name, size_t namelen,
    const uint64_t *scope, const char *argname, size_t arglen,
    const uint64_t *lock, char *buf, struct tp_pair_what *w)
{
	uint64_t h2;
	size_t n;
	int rc;

	memset(w, 0, sizeof *w);
	w->act = -1;
	switch (kind) {
	case TK_ACQUIRE:
	case TK_RELEASE:
		if (lock == NULL)
			return -1;
		w->type = TP_SL_LOCK;
		w->key = *lock;
		w->name = "lock";
		w->namelen = 4;
		return w->act = kind == TK_ACQUIRE;
	case TK_BEGIN:
	case TK_END:
		w->type = TP_SL_BLOCK;
		w->name = "block";
		w->namelen = 5;
		return w->act = kind == TK_BEGIN;
	case TK_EVENT:
		break;
	default:
		return -1;
	}
	if (name == NULL || namelen > TP_PAIR_NAME) {
		/* No name to pair by: what txt2chrome calls "event". */
		name = "event";
		namelen = 5;
	}
	if (namelen == strlen(TP_PAIR_LEAVE) &&
	    memcmp(name, TP_PAIR_LEAVE, namelen) == 0) {
		w->type = TP_SL_SCOPE;
		return w->act = 0;
	}
	if (scope != NULL) {
		w->type = TP_SL_SCOPE;
		w->key = *scope;
		if (has_suffix(name, namelen, "#enter") && argname != NULL &&
		    arglen <= TP_PAIR_NAME) {
			name = argname;
			namelen = arglen;
		}
		w->name = name;
		w->namelen = namelen;
		return w->act = 1;
	}
	if ((rc = tp_pair_name(name, namelen, buf, &n)) < 0)
		return -1;
	w->type = TP_SL_EVENT;
	w->name = buf;
	w->namelen = n;
	tp_hash_bytes(buf, n, &w->key, &h2);
	return w->act = rc;
}
