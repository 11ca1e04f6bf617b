/*
 * txt2std: the tracepipe text stream to RAPID's STD text format.
 * All of it is in the format's registration (formats/std/std-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("std", TP_ENCODE, argc, argv);
}
