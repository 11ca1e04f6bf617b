/*
 * ucir2txt: Usercorn trace (UCIR) to the tracepipe text stream.
 * All of it is in the format's registration (formats/ucir/ucir-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("ucir", TP_DECODE, argc, argv);
}
