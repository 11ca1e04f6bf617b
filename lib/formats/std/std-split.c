/*
 * RAPID's STD cut into pieces (formats/split.h): every line is an event
 * of its own, so a piece may start at any event line.  Lines are
 * checked as std2txt reads them, so that a bad line is said here with
 * its line number in the whole, not later in a piece.
 */
#include "formats/rapidbin/rapidbin.h"
#include "formats/split.h"
#include "formats/std/std.h"

int
std_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err)
{
	uint64_t lineno = 0, events = 0, off;
	struct rb_event e;
	char *line;
	size_t len;
	int rc, started = 0;

	for (off = tp_in_offset(in); (rc = tp_in_line(in, &line, &len)) > 0;
	    off = tp_in_offset(in)) {
		const char *why;
		size_t col, i;
		int bare;

		lineno++;
		for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
			;
		if (i < len) {
			if (rs_parse(line, len, &e, &why, &col, &bare) < 0) {
				err->line = lineno;
				err->col = col;
				return tp_fail(err, TP_EXIT_DATA, "%s", why);
			}
			if ((rc = tp_cut_here(c, events, off, err)) < 0)
				return -1;
			started = 1;
			events++;
		}
		if (!started) {
			/* Blank lines before the first event go with it. */
			if ((rc = tp_cut_here(c, 0, off, err)) < 0)
				return -1;
			started = 1;
		}
		tp_out_write(c->out, line, len);
		tp_out_putc(c->out, '\n');
	}
	if (rc < 0)
		return -1;
	if (!started && tp_cut_here(c, 0, tp_in_offset(in), err) < 0)
		return -1;
	return 0;
}
