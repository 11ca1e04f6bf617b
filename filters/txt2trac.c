/*
 * txt2trac: the tracepipe text stream to an x64dbg trace file (TRAC).
 * All of it is in the format's registration (formats/trac/trac-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("trac", TP_ENCODE, argc, argv);
}
