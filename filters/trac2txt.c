/*
 * trac2txt: x64dbg trace file (TRAC) to the tracepipe text stream.
 * All of it is in the format's registration (formats/trac/trac-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("trac", TP_DECODE, argc, argv);
}
