/*
 * txt2ucir: the tracepipe text stream to a Usercorn replay file (UCIR).
 * All of it is in the format's registration (formats/ucir/ucir-format.c).
 */
#include "driver.h"

int
main(int argc, char **argv)
{
	return tp_format_main("ucir", TP_ENCODE, argc, argv);
}
