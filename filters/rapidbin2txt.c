/*
 * rapidbin2txt: RapidBin trace to the tracepipe text stream.
 * All of it is in the format's registration (formats/rapidbin/rapidbin-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("rapidbin", TP_DECODE, argc, argv);
}
