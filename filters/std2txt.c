/*
 * std2txt: RAPID's STD text format to the tracepipe text stream.
 * All of it is in the format's registration (formats/std/std-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("std", TP_DECODE, argc, argv);
}
