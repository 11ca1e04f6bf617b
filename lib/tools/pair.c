/*
 * Slices from begin and end events: the words that open and close them.
 */
#include <string.h>

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

int
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
