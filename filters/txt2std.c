/*
 * txt2std: the tracepipe text stream to RAPID's STD text format.  The
 * format's registration (formats/std/std-format.c) has the rest; --meta
 * is the program's, as txt2rapidbin's (rb-meta.c), since the ids are.
 */
#include <stddef.h>

#include "formats/std/std.h"
#include "rb-meta.h"

int
main(int argc, char **argv)
{
	return tp_rb_meta_main("std", offsetof(struct std_enc_opts, rb), argc,
	    argv);
}
