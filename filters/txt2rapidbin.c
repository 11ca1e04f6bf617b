/*
 * txt2rapidbin: the tracepipe text stream to a RapidBin trace.  The
 * format's registration (formats/rapidbin/rapidbin-format.c) has the
 * rest; --meta is the program's (rb-meta.c): it writes a second file.
 */
#include "rb-meta.h"

int
main(int argc, char **argv)
{
	return tp_rb_meta_main("rapidbin", 0, argc, argv);
}
